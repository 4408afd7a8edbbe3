"""The resource transition table: one source for Resource's guards and the test kit's check."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_resource_fakes import Server, make, run

from sdk import exception, transitions
from sdk.testing._world import TransitionLog
from sdk.transitions import STARTS, STATES, ResourceState, legal, may_start


class _Seen:
    """What the transition log needs of a resource."""

    name = "web"

    def type(self) -> str:
        return "Test::Server"


def _log_flags(before: tuple[str, str], after: tuple[str, str]) -> bool:
    log = TransitionLog()
    res = _Seen()
    if before != ("INIT", "COMPLETE"):
        log.seed(res, before)
    log.observe(res, *after)
    return bool(log.violations)


state = st.sampled_from(STATES)


def test_every_state_is_an_action_and_a_status():
    assert len(STATES) == len(transitions.ACTIONS) * len(transitions.STATUSES)
    assert ResourceState("CREATE", "COMPLETE") in STATES


@given(state, state)
def test_the_test_kit_flags_exactly_what_the_table_refuses(before, after):
    assert _log_flags(before, after) is not legal(before, after)


@given(state, st.sampled_from(transitions.ACTIONS))
def test_an_action_may_start_where_the_table_says(before, action):
    assert may_start(before, action) is (before in STARTS[action])
    assert may_start(before, action) <= legal(before, (action, "IN_PROGRESS"))


def test_an_action_ends_only_from_its_own_progress():
    assert legal(("CREATE", "IN_PROGRESS"), ("CREATE", "COMPLETE"))
    assert legal(("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED"))
    assert not legal(("UPDATE", "IN_PROGRESS"), ("CREATE", "COMPLETE"))
    assert not legal(("INIT", "COMPLETE"), ("CREATE", "COMPLETE"))


def test_the_moves_the_resource_makes_by_itself_are_legal():
    # create's retry: clean up, then create again, or give up while waiting
    assert legal(("CREATE", "FAILED"), ("DELETE", "IN_PROGRESS"))
    assert legal(("DELETE", "COMPLETE"), ("CREATE", "IN_PROGRESS"))
    assert legal(("DELETE", "COMPLETE"), ("CREATE", "FAILED"))
    # a retry notice while in progress; check without a handler; check before create
    assert legal(("DELETE", "IN_PROGRESS"), ("DELETE", "IN_PROGRESS"))
    assert legal(("CREATE", "COMPLETE"), ("CHECK", "COMPLETE"))
    assert legal(("INIT", "COMPLETE"), ("CHECK", "FAILED"))


@pytest.mark.parametrize(
    ("before", "verb"),
    [
        (("CREATE", "COMPLETE"), "create"),
        (("DELETE", "COMPLETE"), "suspend"),
        (("CREATE", "COMPLETE"), "resume"),
        (("UPDATE", "IN_PROGRESS"), "snapshot"),
        (("UPDATE", "IN_PROGRESS"), "delete"),
        (("UPDATE", "IN_PROGRESS"), "check"),
    ],
)
def test_an_illegal_start_is_refused_by_the_guard_and_flagged_by_the_test_kit(before, verb):
    action = verb.upper()
    assert not legal(before, (action, "IN_PROGRESS"))
    assert _log_flags(before, (action, "IN_PROGRESS"))

    class Checked(Server):
        def handle_check(self):
            return None

    r = make(Checked)
    r.restore_state(*before)
    with pytest.raises(exception.ResourceFailure) as info:
        run(getattr(r, verb)())
    assert str(info.value) == f"web.{action}: State {before[0]}_{before[1]} invalid for {verb}"
    assert r.state == before
    assert r.context.events == []


def test_a_legal_start_passes_the_guard_and_the_test_kit():
    r = make(Server)
    r.restore_state("SUSPEND", "COMPLETE", resource_id="srv-x")
    assert not _log_flags(("SUSPEND", "COMPLETE"), ("RESUME", "IN_PROGRESS"))
    run(r.resume())
    assert r.state == "RESUME_COMPLETE"


def test_update_from_a_state_without_a_physical_resource_means_replacement():
    assert transitions.REPLACED_ON_UPDATE == {
        ResourceState("INIT", "COMPLETE"),
        ResourceState("DELETE", "COMPLETE"),
    }
    assert not STARTS["UPDATE"] & transitions.REPLACED_ON_UPDATE
