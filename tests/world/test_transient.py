"""A transient world (in memory, never reopened) runs exactly as a stored one, writing less."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk import exception
from simulator.events import event_log
from simulator.world import World

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"


def lifecycle(transient: bool, seed: int, faults: str) -> dict:
    """The README example's whole life; everything a run shows or leaves behind."""
    world = World(
        seed=seed, faults=faults, plugin_dirs=[str(EXAMPLE / "plugins")], transient=transient
    )
    envs = [str(EXAMPLE / "env.yaml")]
    try:
        world.create_stack("s", str(EXAMPLE / "stack.yaml"), envs)
        world.update_stack("s", str(EXAMPLE / "update.yaml"), envs)
        world.suspend_stack("s")
        world.resume_stack("s")
        world.snapshot_stack("s", "snap")
        stack = world.get_stack("s")
        states = sorted((r.name, r.state) for r in stack.resources.values())
        world.delete_stack("s")
        db = world.store._db
        return {
            "events": event_log(world.store.events()),
            "states": states,
            "trace": [t.to_dict() for t in world.cloud.trace()],
            "inventory": [i.to_dict() for i in world.cloud.inventory()],
            "faults": [f.to_dict() for f in world.cloud.injected_faults()],
            "draws": world.rng.draws(),
            "clock": world.clock.now(),
            "cloud_rows": db.execute("SELECT count(*) FROM cloud_entities").fetchone()[0]
            + db.execute("SELECT count(*) FROM cloud_state").fetchone()[0]
            + db.execute("SELECT count(*) FROM streams").fetchone()[0],
        }
    finally:
        world.close()


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["none", "flaky", "chaos"]))
def test_a_transient_world_runs_exactly_as_a_stored_one(seed, faults):
    stored = lifecycle(False, seed, faults)
    transient = lifecycle(True, seed, faults)
    assert stored.pop("cloud_rows") > 0
    assert transient.pop("cloud_rows") == 0  # the cloud, the clock and the streams are not written
    assert transient == stored


def test_only_an_in_memory_world_can_be_transient(tmp_path):
    path = tmp_path / "w.db"
    with pytest.raises(exception.ConfigurationError, match="only an in-memory world") as caught:
        World.open(path, transient=True)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_simulate_runs_in_a_transient_world_unless_given_a_file(tmp_path, monkeypatch):
    from simulator import simulate as module

    seen = []
    real = World.open.__func__

    def spy(cls, state=None, **kwargs):
        world = real(cls, state, **kwargs)
        seen.append(world.transient)
        return world

    monkeypatch.setattr(World, "open", classmethod(spy))
    template = str(EXAMPLE / "stack.yaml")
    envs = [str(EXAMPLE / "env.yaml")]
    memory = module.simulate(template, envs, plugin_dirs=[str(EXAMPLE / "plugins")])
    stored = module.simulate(
        template, envs, plugin_dirs=[str(EXAMPLE / "plugins")], state=str(tmp_path / "w.db")
    )
    assert seen == [True, False]
    assert event_log(memory.events) == event_log(stored.events)
