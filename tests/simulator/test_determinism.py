"""Same inputs and seed: byte-identical event log; the seed is recorded."""

from pathlib import Path

from simulator.events import event_log
from simulator.simulate import simulate
from simulator.world import World

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"


def _log(seed, faults=None):
    report = simulate(
        EXAMPLE / "stack.yaml",
        [EXAMPLE / "env.yaml"],
        seed=seed,
        faults=faults,
        update_template=EXAMPLE / "update.yaml",
    )
    return event_log(report.events)


def test_two_runs_give_identical_event_logs():
    assert _log(7) == _log(7)


def test_two_runs_with_faults_are_identical_and_the_seed_matters():
    assert _log(5, "flaky") == _log(5, "flaky")
    assert _log(5) != _log(6)


def test_stack_ids_come_from_the_seed_and_runs_record_it():
    ids = []
    for _ in range(2):
        world = World(seed=11)
        stack = world.create_stack(
            "s",
            {
                "heat_template_version": "2018-08-31",
                "resources": {"a": {"type": "Plugsim::Test::Trivial"}},
            },
        )
        ids.append(stack.id)
        assert {r.seed for r in world.store.runs()} == {"11"}
        world.close()
    assert ids[0] == ids[1]
