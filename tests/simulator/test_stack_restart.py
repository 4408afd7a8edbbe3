"""A process killed mid-action leaves a world that reopens cleanly."""

from simulator.store import Store
from simulator.world import World

T = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "a": {"type": "Plugsim::Test::Trivial", "properties": {"delay": 100}},
        "b": {"type": "Plugsim::Test::Trivial"},
    },
}


def test_in_progress_rows_become_failed_on_reopen(tmp_path):
    path = tmp_path / "w.db"
    world = World.open(path)
    stack = world.create_stack("s", T)
    # simulate a kill during an update: the engine wrote IN_PROGRESS rows and died
    stack.state_set("UPDATE", "IN_PROGRESS", "Stack UPDATE started")
    world.store.save_resource(
        world.store.resources(stack.id)[0].__class__(
            **{
                **world.store.resources(stack.id)[0].__dict__,
                "action": "UPDATE",
                "status": "IN_PROGRESS",
            }
        )
    )
    world.commit()  # the engine committed the IN_PROGRESS rows ...
    world.store.close()  # ... and died: no World.close(), its lease is dropped unreleased

    again = World.open(path)
    st = again.get_stack("s")
    assert st.state == "UPDATE_FAILED"
    assert st.status_reason == "engine restarted during UPDATE"
    assert str(st.resources["a"].state) == "UPDATE_FAILED"
    assert st.resources["a"].status_reason == "engine restarted during UPDATE"
    taken_over, *failed = again.recovered
    assert taken_over.action == "LEASE" and taken_over.stack_name == "s"
    assert "taken over" in taken_over.reason and "no longer running" in taken_over.reason
    assert [e.reason for e in failed] == ["engine restarted during UPDATE"] * 2
    # and the world keeps working: the failed stack can be deleted
    assert again.delete_stack("s").state == "DELETE_COMPLETE"
    again.close()


def test_world_continues_across_processes(tmp_path):
    path = tmp_path / "w.db"
    world = World.open(path, seed=4)
    world.create_stack("s", T)
    now = world.clock.now()
    world.close()
    again = World.open(path)
    assert again.seed == 4 and again.clock.now() == now
    st = again.get_stack("s")
    assert st.resources["a"].resource_id.endswith("-a")
    assert again.update_stack(
        "s",
        {
            **T,
            "resources": {
                **T["resources"],
                "b": {"type": "Plugsim::Test::Trivial", "properties": {"value": "new"}},
            },
        },
    ).state == ("UPDATE_COMPLETE")
    again.close()
    assert Store(path).get_stack("s").status == "COMPLETE"
