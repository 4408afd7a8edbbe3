"""No id is drawn twice: a world continues its random streams and never reuses a stack id."""

from __future__ import annotations

import pytest

from sdk import exception
from simulator.world import World

T = {
    "heat_template_version": "2018-08-31",
    "resources": {"r": {"type": "Plugsim::Test::Trivial"}},
}


def test_a_reopened_world_continues_its_streams_and_clock(tmp_path):
    path = tmp_path / "w.db"
    with World.open(path, seed=5) as world:
        first = world.create_stack("a", T)
        now = world.clock.now()
    with World.open(path) as again:
        assert again.clock.now() == now
        second = again.create_stack("b", T)
    with World.open(tmp_path / "fresh.db", seed=5) as fresh:
        fresh.create_stack("a", T)
        assert fresh.create_stack("b", T).id == second.id  # the same seeded sequence
    assert second.id != first.id


def test_a_stack_id_already_stored_is_never_drawn_again(tmp_path):
    path = tmp_path / "w.db"
    with World.open(path, seed=5) as world:
        before = world.rng.stream("stack-ids").getstate()
        first = world.create_stack("a", T)
        world.rng.stream("stack-ids").setstate(before)  # as if the stream had been lost
        second = world.create_stack("b", T)
        assert second.id != first.id
        assert world.get_stack("a").id == first.id
        assert [r.name for r in world.stack_records()] == ["a", "b"]


def test_durability_must_be_known():
    with pytest.raises(exception.ConfigurationError, match="durability must be one of"):
        World(durability="sometimes")


@pytest.mark.parametrize("durability", ["instant", "transition"])
def test_both_durabilities_end_in_the_same_world(tmp_path, durability):
    with World.open(tmp_path / "w.db", seed=2, durability=durability) as world:
        world.create_stack("a", T)
        world.delete_stack("a")
        events = [(e.resource_name, e.action, e.status, e.time) for e in world.store.events()]
    with World.open(tmp_path / "w.db", readonly=True) as world:
        assert [
            (e.resource_name, e.action, e.status, e.time) for e in world.store.events()
        ] == events
    with World(seed=2) as memory:
        memory.create_stack("a", T)
        memory.delete_stack("a")
        assert [
            (e.resource_name, e.action, e.status, e.time) for e in memory.store.events()
        ] == events
