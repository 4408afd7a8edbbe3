"""Suspend, resume and check: state rules and handlers."""

from __future__ import annotations

import pytest
from test_resource_fakes import Server, make, run, states

from sdk import exception
from sdk.resource import Resource


class Suspendable(Server):
    def handle_suspend(self):
        self.client().servers.items[self.resource_id].suspended = True
        return self.resource_id

    def check_suspend_complete(self, sid):
        return self.client().servers.get(sid).status == "SUSPENDED"

    async def handle_resume(self):
        self.client().servers.items[self.resource_id].suspended = False
        return self.resource_id

    async def check_resume_complete(self, sid):
        return self.client().servers.get(sid).status == "ACTIVE"


def created(cls=Suspendable, **kwargs):
    r = make(cls, **kwargs)
    run(r.create())
    r.context.events.clear()
    return r


def test_suspend_and_resume():
    r = created()
    run(r.suspend())
    assert r.state == "SUSPEND_COMPLETE"
    assert r.client().servers.items["srv-1"].status == "SUSPENDED"
    run(r.resume())
    assert r.state == "RESUME_COMPLETE"
    assert r.client().servers.items["srv-1"].status == "ACTIVE"
    assert states(r.context) == [
        "SUSPEND_IN_PROGRESS",
        "SUSPEND_COMPLETE",
        "RESUME_IN_PROGRESS",
        "RESUME_COMPLETE",
    ]


def test_suspend_without_handler_just_completes():
    r = created(Server)
    run(r.suspend())
    assert r.state == "SUSPEND_COMPLETE"


@pytest.mark.parametrize(
    "state",
    [("DELETE", "COMPLETE"), ("DELETE", "FAILED"), ("CREATE", "FAILED"), ("UPDATE", "IN_PROGRESS")],
)
def test_suspend_refused_in_unstable_or_deleted_states(state):
    r = created()
    r.state_set(*state)
    r.context.events.clear()
    with pytest.raises(exception.ResourceFailure) as info:
        run(r.suspend())
    assert str(info.value) == f"web.SUSPEND: State {state[0]}_{state[1]} invalid for suspend"
    assert r.state == state
    assert r.context.events == []


@pytest.mark.parametrize(
    "state", [("CREATE", "COMPLETE"), ("UPDATE", "COMPLETE"), ("SUSPEND", "FAILED")]
)
def test_suspend_allowed_from_complete_states_and_after_a_failed_suspend(state):
    r = created()
    r.state_set(*state)
    run(r.suspend())
    assert r.state == "SUSPEND_COMPLETE"


@pytest.mark.parametrize(
    "state",
    [
        ("CREATE", "COMPLETE"),
        ("SUSPEND", "FAILED"),
        ("SUSPEND", "IN_PROGRESS"),
        ("INIT", "COMPLETE"),
    ],
)
def test_resume_refused_unless_suspended(state):
    r = created()
    r.state_set(*state)
    with pytest.raises(
        exception.ResourceFailure, match=f"State {state[0]}_{state[1]} invalid for resume"
    ):
        run(r.resume())
    assert r.state == state


@pytest.mark.parametrize("state", [("RESUME", "FAILED"), ("RESUME", "COMPLETE")])
def test_resume_may_be_retried(state):
    r = created()
    r.state_set(*state)
    run(r.resume())
    assert r.state == "RESUME_COMPLETE"


def test_suspend_failure():
    class Stuck(Server):
        def handle_suspend(self):
            raise exception.Conflict("server is rebooting")

    r = created(Stuck)
    with pytest.raises(exception.ResourceFailure):
        run(r.suspend())
    assert r.state == "SUSPEND_FAILED"
    assert r.status_reason == "Conflict: server is rebooting"


# --- check -----------------------------------------------------------------------


class Checked(Server):
    def handle_check(self):
        server = self.client().servers.get(self.resource_id)
        if server.status != "ACTIVE":
            raise exception.ResourceUnknownStatus(
                result="Check failed", resource_status=server.status
            )


def test_check_without_handler_completes_with_a_reason():
    r = created(Server)
    run(r.check())
    assert r.state == "CHECK_COMPLETE"
    assert r.status_reason == "CHECK not supported for Test::Server"
    assert states(r.context) == ["CHECK_COMPLETE"]


def test_check_without_handler_before_create_does_nothing():
    r = make(Server)
    run(r.check())
    assert r.state == "INIT_COMPLETE"
    assert r.context.events == []


def test_check_with_handler():
    r = created(Checked)
    run(r.check())
    assert r.state == "CHECK_COMPLETE"
    assert states(r.context) == ["CHECK_IN_PROGRESS", "CHECK_COMPLETE"]


def test_check_with_handler_fails_when_the_resource_is_wrong():
    r = created(Checked)
    r.client().servers.items["srv-1"].error = True
    with pytest.raises(exception.ResourceFailure, match="Unknown status ERROR"):
        run(r.check())
    assert r.state == "CHECK_FAILED"


def test_check_with_handler_before_create_fails():
    r = make(Checked)
    with pytest.raises(exception.ResourceFailure, match="Resource web not created yet"):
        run(r.check())
    assert r.state == "CHECK_FAILED"
    assert r.status_reason == "Can not check web, resource not created yet."


def test_plain_resource_runs_every_action_without_handlers():
    class Nothing(Resource):
        pass

    r = make(Nothing)
    run(r.create())
    run(r.suspend())
    run(r.resume())
    run(r.snapshot())
    run(r.check())
    run(r.delete())
    assert states(r.context) == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "SUSPEND_IN_PROGRESS",
        "SUSPEND_COMPLETE",
        "RESUME_IN_PROGRESS",
        "RESUME_COMPLETE",
        "SNAPSHOT_IN_PROGRESS",
        "SNAPSHOT_COMPLETE",
        "CHECK_COMPLETE",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
    ]
