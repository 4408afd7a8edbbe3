"""Every stack action × pre-op success/failure × post-op success/failure."""

from __future__ import annotations

import pytest

from sdk import exception

from .conftest import Recorder, lifecycle_events, resource_events, simple, tmpl


def _create(w):
    w.create_stack("s", simple())


def _suspended(w):
    _create(w)
    w.suspend_stack("s")


def _snapshotted(w):
    _create(w)
    w.snapshot_stack("s", "snap")
    w.update_stack("s", simple("v2"))


def _abandoned_source(w):
    w.create_stack("src", simple())
    w.adopt_data = w.abandon_stack("src")


def _rollback_enabled(w):
    w.create_stack("s", simple(), disable_rollback=False)


def _failing_update(w):
    bad = simple("v2")
    bad["resources"]["c"] = {"type": "Plugsim::Test::Fail"}
    w.update_stack("s", bad)


def _abandon(w):
    try:
        w.abandon_stack("s")
    except exception.PlugsimError as ex:
        w.refused = str(ex)


def _cancelled_update(w):
    def cancel():
        try:
            w.cancel_update("s")
        except exception.PlugsimError as ex:
            w.refused = str(ex)

    async def scenario():
        w.loop.call_later(50, cancel)
        return await w.aupdate_stack(
            "s", tmpl({"a": {"type": "Plugsim::Test::Trivial", "properties": {"delay": 100}}})
        )

    w.run(scenario)


#: action → (setup, run, final state on success)
ACTIONS = {
    "CREATE": (None, _create, "CREATE_COMPLETE"),
    "UPDATE": (_create, lambda w: w.update_stack("s", simple("v2")), "UPDATE_COMPLETE"),
    "DELETE": (_create, lambda w: w.delete_stack("s"), "DELETE_COMPLETE"),
    "SUSPEND": (_create, lambda w: w.suspend_stack("s"), "SUSPEND_COMPLETE"),
    "RESUME": (_suspended, lambda w: w.resume_stack("s"), "RESUME_COMPLETE"),
    "SNAPSHOT": (_create, lambda w: w.snapshot_stack("s", "x"), "SNAPSHOT_COMPLETE"),
    "RESTORE": (_snapshotted, lambda w: w.restore_stack("s", "snap"), "RESTORE_COMPLETE"),
    "CHECK": (_create, lambda w: w.check_stack("s"), "CHECK_COMPLETE"),
    "ABANDON": (_create, _abandon, "ABANDON_COMPLETE"),
    "ADOPT": (_abandoned_source, lambda w: w.adopt_stack("s", w.adopt_data), "ADOPT_COMPLETE"),
    "ROLLBACK": (_rollback_enabled, _failing_update, "ROLLBACK_COMPLETE"),
    "CANCEL": (_create, _cancelled_update, "ROLLBACK_COMPLETE"),
}


def _calls(log, action):
    return [entry for entry in log if entry[2] == action]


def _run(world, action, fail_pre=(), fail_post=()):
    setup, run, _ = ACTIONS[action]
    if setup is not None:
        setup(world)
    log: list = []
    world.lifecycle.register(Recorder("A", log, 10), "A")
    world.lifecycle.register(Recorder("B", log, 20, fail_pre, fail_post), "B")
    mark = world.store.last_event_id()
    run(world)
    return log, mark, world.get_stack("s", deleted_ok=True)


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_success_calls_pre_then_post_in_order(world, action):
    log, _, stack = _run(world, action)
    assert _calls(log, action) == [
        ("A", "pre", action, None),
        ("B", "pre", action, None),
        ("A", "post", action, False),
        ("B", "post", action, False),
    ]
    assert stack.state == ACTIONS[action][2]
    events = [(p, s) for p, s, _ in lifecycle_events(world) if s.startswith(action + "_")]
    assert events == [
        ("A", f"{action}_PRE_OP_COMPLETE"),
        ("B", f"{action}_PRE_OP_COMPLETE"),
        ("A", f"{action}_POST_OP_COMPLETE"),
        ("B", f"{action}_POST_OP_COMPLETE"),
    ]


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_pre_op_failure_undoes_and_touches_nothing(world, action):
    log, mark, stack = _run(world, action, fail_pre={action})
    assert _calls(log, action) == [
        ("A", "pre", action, None),
        ("B", "pre", action, None),
        ("A", "post", action, True),
    ]
    failed_at = max(e.id for e in world.stack_events("s") if e.state == f"{action}_PRE_OP_FAILED")
    if action == "CANCEL":
        # the cancel is refused and the update goes on to completion
        assert world.refused == "Stack CANCEL failed: B refuses CANCEL"
        assert stack.state == "UPDATE_COMPLETE"
        return
    assert stack.state == f"{action}_FAILED"
    assert stack.status_reason == "B refuses " + action
    assert resource_events(world, "s", failed_at) == []
    if action == "ABANDON":
        assert world.refused == "Stack ABANDON failed: B refuses ABANDON"
        assert not world.store.get_stack("s").deleted


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_post_op_failure_is_recorded_and_later_post_ops_run(world, action):
    log: list = []
    setup, run, final = ACTIONS[action]
    if setup is not None:
        setup(world)
    # the failing plug-in runs first: the one after it must still be called
    world.lifecycle.register(Recorder("A", log, 10, fail_post={action}), "A")
    world.lifecycle.register(Recorder("B", log, 20), "B")
    run(world)
    stack = world.get_stack("s", deleted_ok=True)
    assert _calls(log, action)[-2:] == [("A", "post", action, False), ("B", "post", action, False)]
    message = f"lifecycle plug-in A post-op failed: RuntimeError: A cannot finish {action}"
    failed = [ev for ev in lifecycle_events(world) if ev[1] == f"{action}_POST_OP_FAILED"]
    assert failed == [
        (
            "A",
            f"{action}_POST_OP_FAILED",
            f"is_stack_failure=False; RuntimeError: A cannot finish {action}",
        )
    ]
    if action == "CANCEL":
        reasons = [e.reason for e in world.stack_events("s") if e.state == "UPDATE_FAILED"]
        assert reasons[-1] == f"Operation cancelled; {message}"
        assert stack.state == final
        return
    assert stack.state == f"{action}_FAILED"
    assert stack.status_reason.endswith("; " + message)


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_pre_and_post_failures_together(world, action):
    log: list = []
    setup, run, _ = ACTIONS[action]
    if setup is not None:
        setup(world)
    world.lifecycle.register(Recorder("A", log, 10, fail_post={action}), "A")
    world.lifecycle.register(Recorder("B", log, 20, fail_pre={action}), "B")
    run(world)
    # the undo post-op of A raises too: recorded, and the veto still wins
    assert _calls(log, action) == [
        ("A", "pre", action, None),
        ("B", "pre", action, None),
        ("A", "post", action, True),
    ]
    states = [s for _, s, _ in lifecycle_events(world) if s.startswith(action + "_")]
    assert states == [
        f"{action}_PRE_OP_COMPLETE",
        f"{action}_PRE_OP_FAILED",
        f"{action}_POST_OP_FAILED",
    ]
