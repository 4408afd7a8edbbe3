"""Failures say where the bug is (issue 30): each planted bug gives a verdict naming its handler."""

import importlib
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "verdict_fixtures"
# imported here, before any in-process pytester run, so every run shares these modules
# (a module first imported inside a run is dropped after it, and its classes would differ)
sys.path.insert(0, str(FIXTURES))
import sdk.testing.harness  # noqa: E402, F401
import sdk.testing.verdict  # noqa: E402, F401
import simulator.world  # noqa: E402, F401

importlib.import_module("bugs")

SUITE = """
from bugs import {cls}
from sdk.testing import ResourceConformance

class TestIt(ResourceConformance):
    resource_class = {cls}
    valid_properties = {{"name": "v", "image": "cirros"}}
"""


@pytest.fixture
def bugs(scratch):
    scratch.syspathinsert(FIXTURES)
    return scratch


def line_of(name: str) -> int:
    """The line ``def name`` starts on in bugs.py (the first one after ``class cls``)."""
    cls, _, method = name.partition(".")
    lines = (FIXTURES / "bugs.py").read_text().splitlines()
    start = next(i for i, t in enumerate(lines) if t.startswith(f"class {cls}("))
    return next(i for i, t in enumerate(lines[start:], start) if f"def {method}(" in t) + 1


def test_a_forgotten_delete_names_the_leaked_entity_its_creating_call_and_handlers(bugs):
    bugs.makepyfile(test_forgetful=SUITE.format(cls="ForgetfulServer"))
    result = bugs.runpytest("-k", "test_create and not fails and not rollback and not retry")
    result.assert_outcomes(failed=1)
    delete = f"handle_delete (bugs.py:{line_of('ForgetfulServer.handle_delete')})"
    result.stdout.fnmatch_lines(
        [
            "*leak: leaked fake-cloud entities: compute/server * (ACTIVE)*",
            "*path:*resource 'resource' (Conformance::ForgetfulServer), action DELETE*",
            f"*handler:*{delete}*",
            "*fault:*none injected*",
            "*time:*t=*s (virtual)*",
            "*status:*resource DELETE_COMPLETE; cloud entity compute/server * ACTIVE*",
            "*leaked:*compute/server * 'v' (ACTIVE) created by call 1 compute.servers.create "
            "at t=*s by handle_create (bugs.py:*)*",
            "*hint:*handle_delete*",
            "*replay:*python -m pytest test_forgetful.py::TestIt::test_create --plugsim-seed=0*",
        ]
    )


def test_a_completion_check_that_never_finishes_names_the_poller_time_and_status(bugs):
    bugs.makepyfile(test_never=SUITE.format(cls="NeverReadyServer"))
    result = bugs.runpytest("-k", "test_create and not fails and not rollback and not retry")
    result.assert_outcomes(failed=1)
    check = f"check_create_complete (bugs.py:{line_of('NeverReadyServer.check_create_complete')})"
    result.stdout.fnmatch_lines(
        [
            "*timeout: the stack is CREATE_FAILED, expected CREATE_COMPLETE: Create timed out*",
            f"*handler:*{check}*",
            "*time:*t=*s (virtual)*",
            "*status:*resource CREATE_FAILED; cloud entity compute/server * ACTIVE*",
            "*hint:*check_create_complete never returned True*",
        ]
    )
    assert "AssertionError: Create timed out" not in result.stdout.str()


def test_a_leak_after_an_injected_fault_names_the_injected_call(bugs):
    bugs.makepyfile(test_late=SUITE.format(cls="LateIdServer"))
    result = bugs.runpytest("-k", "test_create_fails_at_each_cloud_call")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*leak: leaked fake-cloud entities: compute/server * (ACTIVE)*",
            "*fault:*compute.servers.get #1: error (call 2 (compute.servers.get #1)) at t=*",
            "*leaked:*created by call 1 compute.servers.create at t=*s by handle_create "
            f"(bugs.py:{line_of('LateIdServer.handle_create') + 1})*",
            "*hint:*an injected fault failed the action after this object was made*",
        ]
    )


def test_the_good_server_passes_the_same_selections(bugs):
    bugs.makepyfile(test_good=SUITE.format(cls="GoodServer"))
    # the retry oracle included: a false alarm on this server was once seen here
    bugs.runpytest("-k", "(test_create and not rollback) or already_gone").assert_outcomes(passed=4)


def test_verdict_renders_every_field_and_round_trips():
    from sdk.testing.verdict import Verdict

    v = Verdict(
        "leak",
        "1 entity outlived the stack",
        path="stack s, resource 'r' (T)",
        action="DELETE",
        handler="handle_delete (p.py:3)",
        fault="compute.servers.create #2: error (x) at t=1s",
        time=4.5,
        resource_status="DELETE_COMPLETE",
        entity_status="compute/server 1 ACTIVE",
        hint="look at handle_delete",
        replay="python -m pytest t.py::T::t",
        details=["leaked:   compute/server 1"],
    )
    text = v.render()
    for part in (
        "leak: 1 entity outlived the stack",
        "path:     stack s, resource 'r' (T), action DELETE",
        "handler:  handle_delete (p.py:3)",
        "fault:    compute.servers.create #2",
        "time:     t=4.5s (virtual)",
        "status:   resource DELETE_COMPLETE; cloud entity compute/server 1 ACTIVE",
        "hint:     look at handle_delete",
        "replay:   python -m pytest t.py::T::t",
    ):
        assert part in text
    assert Verdict.from_dict(v.to_dict()) == v
    assert sys.modules["sdk.testing.verdict"].VerdictFailure(v).verdict is v


def test_any_failing_plugsim_test_gets_the_verdict_fields_in_its_report_and_page(bugs, tmp_path):
    bugs.makepyfile(
        test_own="""
from bugs import NeverReadyServer

def test_mine(resource_harness):
    h = resource_harness(NeverReadyServer, {"name": "v"}, timeout_mins=5).create()
    assert h.state == "CREATE_COMPLETE", "my own check"
"""
    )
    pages = tmp_path / "pages"
    result = bugs.runpytest(f"--plugsim-report={pages}")
    result.assert_outcomes(failed=1)
    check = f"check_create_complete (bugs.py:{line_of('NeverReadyServer.check_create_complete')})"
    result.stdout.fnmatch_lines(
        [
            "*assertion: my own check*",
            "*path:*resource 'resource' (Plugsim::Harness::NeverReadyServer), action CREATE*",
            f"*handler:*{check}*",
            "*status:*resource CREATE_FAILED; cloud entity compute/server * ACTIVE*",
        ]
    )
    (page,) = pages.glob("*.html")
    html = page.read_text()
    assert "Handler" in html and check in html and "CREATE_FAILED" in html
