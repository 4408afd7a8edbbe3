"""End-to-end stack actions through the Python API: states, reasons and events."""

import pytest

from sdk import exception
from simulator.world import World

T = "Plugsim::Test::Trivial"


def tmpl(resources, outputs=None, parameters=None):
    doc = {"heat_template_version": "2018-08-31", "resources": resources}
    if outputs:
        doc["outputs"] = outputs
    if parameters:
        doc["parameters"] = parameters
    return doc


def chain():
    return tmpl(
        {
            "a": {"type": T, "properties": {"value": "x", "delay": 30}},
            "b": {"type": T, "properties": {"value": {"get_attr": ["a", "value"]}, "delay": 10}},
            "c": {"type": T, "properties": {"delay": 5}},
        },
        outputs={"out": {"value": {"get_attr": ["b", "value"]}}},
    )


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


def states(world, stack_name, after=0):
    return [(e.resource_name, e.state) for e in world.stack_events(stack_name) if e.id > after]


def test_create_runs_independent_resources_concurrently(world):
    stack = world.create_stack("s", chain())
    assert stack.state == "CREATE_COMPLETE"
    assert stack.status_reason == "Stack CREATE completed successfully"
    times = {(e.resource_name, e.state): e.time for e in world.stack_events("s")}
    assert times[("a", "CREATE_IN_PROGRESS")] == times[("c", "CREATE_IN_PROGRESS")] == 0.0
    assert times[("b", "CREATE_IN_PROGRESS")] == 30.0  # as soon as a completed
    assert times[("s", "CREATE_COMPLETE")] == 40.0
    assert stack.outputs()[0]["output_value"] == "x"


def test_create_failure_without_rollback_keeps_failed_state(world):
    t = tmpl(
        {
            "ok": {"type": T},
            "bad": {"type": "Plugsim::Test::Fail", "properties": {"message": "no capacity"}},
        }
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason == "Resource CREATE failed: ValueError: resources.bad: no capacity"
    assert stack.resources["bad"].state == "CREATE_FAILED"


def test_create_failure_with_rollback_deletes_everything(world):
    t = tmpl(
        {
            "ok": {"type": T},
            "bad": {"type": "Plugsim::Test::Fail", "properties": {"message": "boom"}},
        }
    )
    stack = world.create_stack("s", t, disable_rollback=False)
    assert stack.state == "ROLLBACK_COMPLETE"
    assert stack.status_reason == "Stack ROLLBACK completed successfully"
    assert stack.resources["ok"].state == "DELETE_COMPLETE"
    assert ("s", "CREATE_FAILED") in states(world, "s")


def test_update_in_place_and_replacement_order(world):
    world.create_stack("s", chain())
    mark = world.store.last_event_id()
    new = chain()
    new["resources"]["a"]["properties"]["value"] = "y"  # update_allowed: in place
    new["resources"]["c"]["properties"]["size"] = 5  # not update_allowed: replace
    stack = world.update_stack("s", new)
    assert stack.state == "UPDATE_COMPLETE"
    assert stack.status_reason == "Stack successfully updated"
    seq = states(world, "s", mark)
    assert ("a", "UPDATE_COMPLETE") in seq and ("b", "UPDATE_COMPLETE") in seq
    # the replacement is created before the old c is deleted
    assert seq.index(("c", "CREATE_COMPLETE")) < seq.index(("c", "DELETE_IN_PROGRESS"))
    assert stack.outputs()[0]["output_value"] == "y"
    assert stack.replaced == []


def test_immutable_change_fails_the_update(world):
    world.create_stack("s", tmpl({"a": {"type": T, "properties": {"key": "k1"}}}))
    stack = world.update_stack("s", tmpl({"a": {"type": T, "properties": {"key": "k2"}}}))
    assert stack.state == "UPDATE_FAILED"
    assert "key" in stack.status_reason and "not supported" in stack.status_reason


def test_update_failure_rolls_back_to_previous_template(world):
    world.create_stack(
        "s", tmpl({"a": {"type": T, "properties": {"value": "v1"}}}), disable_rollback=False
    )
    bad = tmpl(
        {"a": {"type": T, "properties": {"value": "v2"}}, "b": {"type": "Plugsim::Test::Fail"}}
    )
    stack = world.update_stack("s", bad)
    assert stack.state == "ROLLBACK_COMPLETE"
    assert stack.status_reason == "Stack rollback completed"
    assert set(stack.resources) == {"a"}
    assert stack.resources["a"].properties["value"] == "v1"
    seq = states(world, "s")
    assert ("s", "UPDATE_FAILED") in seq and ("b", "DELETE_COMPLETE") in seq


def test_rollback_swaps_a_replaced_resource_back(world):
    world.create_stack(
        "s", tmpl({"a": {"type": T, "properties": {"size": 1}}}), disable_rollback=False
    )
    old_rid = world.get_stack("s").rid(world.get_stack("s").resources["a"])
    bad = tmpl(
        {
            "a": {"type": T, "properties": {"size": 2}},
            "b": {"type": "Plugsim::Test::Fail", "depends_on": ["a"]},
        }
    )
    stack = world.update_stack("s", bad)
    assert stack.state == "ROLLBACK_COMPLETE"
    assert stack.rid(stack.resources["a"]) == old_rid
    assert stack.replaced == []


def test_delete_reverse_order_and_retain_policy(world):
    t = chain()
    t["resources"]["c"]["deletion_policy"] = "Retain"
    world.create_stack("s", t)
    mark = world.store.last_event_id()
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE"
    seq = [n for n, st in states(world, "s", mark) if st == "DELETE_COMPLETE" and n != "s"]
    assert seq.index("b") < seq.index("a")
    with pytest.raises(exception.EntityNotFound):
        world.get_stack("s")
    assert world.store.resources(stack.id) == []


def test_delete_a_stack_whose_create_failed_half_way(world):
    t = tmpl(
        {
            "a": {"type": "Plugsim::Test::Fail"},
            "b": {"type": T, "properties": {"depends": {"get_resource": "a"}}},
        }
    )
    world.create_stack("s", t)
    assert world.get_stack("s").resources["b"].state == "INIT_COMPLETE"
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE"


def test_delete_failure_is_reported(world):
    world.create_stack(
        "s", tmpl({"a": {"type": "Plugsim::Test::Fail", "properties": {"fail_on": "delete"}}})
    )
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_FAILED"
    assert stack.status_reason.startswith("Resource DELETE failed: ValueError: resources.a")


def test_suspend_reverse_order_and_resume(world):
    world.create_stack("s", chain())
    mark = world.store.last_event_id()
    assert world.suspend_stack("s").state == "SUSPEND_COMPLETE"
    seq = [n for n, st in states(world, "s", mark) if st == "SUSPEND_COMPLETE" and n != "s"]
    assert seq.index("b") < seq.index("a")
    stack = world.resume_stack("s")
    assert stack.state == "RESUME_COMPLETE"
    assert stack.status_reason == "Stack RESUME completed successfully"


def test_check_failure(world):
    world.create_stack(
        "s", tmpl({"a": {"type": "Plugsim::Test::Fail", "properties": {"fail_on": "check"}}})
    )
    stack = world.check_stack("s")
    assert stack.state == "CHECK_FAILED"
    assert stack.status_reason.startswith("Resource CHECK failed:")


def test_snapshot_restore_and_delete_snapshot(world):
    world.create_stack("s", tmpl({"a": {"type": T, "properties": {"value": "v1"}}}))
    snap = world.snapshot_stack("s", "first")
    assert (snap.status, snap.name) == ("COMPLETE", "first")
    assert world.get_stack("s").state == "SNAPSHOT_COMPLETE"
    world.update_stack("s", tmpl({"a": {"type": T, "properties": {"value": "v2"}}}))
    stack = world.restore_stack("s", "first")
    assert stack.state == "RESTORE_COMPLETE"
    assert stack.status_reason == "Stack successfully restored"
    assert stack.resources["a"].properties["value"] == "v1"
    world.delete_snapshot("s", "first")
    assert world.list_snapshots("s") == []
    with pytest.raises(exception.EntityNotFound):
        world.restore_stack("s", "first")


def test_abandon_then_adopt(world):
    world.create_stack("s", chain())
    data = world.abandon_stack("s")
    assert data["name"] == "s" and set(data["resources"]) == {"a", "b", "c"}
    assert data["resources"]["a"]["resource_id"].endswith("-a")
    with pytest.raises(exception.EntityNotFound):
        world.get_stack("s")
    stack = world.adopt_stack("t", data)
    assert stack.state == "ADOPT_COMPLETE"
    assert stack.resources["a"].resource_id == data["resources"]["a"]["resource_id"]


def test_stack_timeout_cancels_in_progress_resources(world):
    t = tmpl({"h": {"type": "Plugsim::Test::Hang"}, "ok": {"type": T}})
    stack = world.create_stack("s", t, timeout_mins=2)
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason == "Create timed out"
    hang = stack.resources["h"]
    assert hang.state == "CREATE_FAILED" and hang.status_reason == "Create timed out"
    assert hang.data()["cancelled"] == "create"  # handle_create_cancel ran
    assert world.clock.now() == pytest.approx(120.0)


def test_a_hanging_plugin_without_timeout_hits_the_default_timeout(world):
    stack = world.create_stack("s", tmpl({"h": {"type": "Plugsim::Test::Hang"}}))
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason == "Create timed out"
    assert world.clock.now() == pytest.approx(3600.0)


def test_cancel_of_update(world):
    world.create_stack("s", tmpl({"a": {"type": T}}))

    async def scenario():
        world.loop.call_later(50, world.cancel_update, "s")
        return await world.aupdate_stack(
            "s", tmpl({"a": {"type": T, "properties": {"value": "x", "delay": 3600}}})
        )

    stack = world.run(scenario)
    seq = states(world, "s")
    assert ("s", "UPDATE_FAILED") in seq
    assert stack.state == "ROLLBACK_COMPLETE"
    assert world.get_stack("s").resources["a"].properties["value"] == ""


def test_cancel_when_nothing_runs_is_refused(world):
    world.create_stack("s", tmpl({"a": {"type": T}}))
    with pytest.raises(exception.NotSupportedAction, match="CREATE_COMPLETE is not supported"):
        world.cancel_update("s")


def test_duplicate_and_unknown_names(world):
    world.create_stack("s", tmpl({"a": {"type": T}}))
    with pytest.raises(exception.PlugsimError, match="already exists"):
        world.create_stack("s", tmpl({"a": {"type": T}}))
    with pytest.raises(exception.EntityNotFound, match="nope"):
        world.delete_stack("nope")
