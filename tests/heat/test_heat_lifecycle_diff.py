"""Heat-written lifecycle plug-ins, run in Heat 27 and in plugsim (issue 35 item 8).

Read in Heat 27's ``heat/common/lifecycle_plugin_utils.py`` and checked here against
its legacy engine (the one that calls lifecycle plug-ins): post-ops are called without
``is_stack_failure`` (a plug-in sees its default, False, even after a failed create);
a post-op that raises is logged, the later post-ops are skipped and the stack keeps its
state; a pre-op that raises fails the action with its message after the post-ops of the
plug-ins already through, in their order, get ``is_stack_failure=True``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

from simulator.world import World

pytestmark = [requires_heat, pytest.mark.material]

SOURCE = """
from heat.engine import lifecycle_plugin

CALLS = []
FAIL = {fail!r}


class _Recorder(lifecycle_plugin.LifecyclePlugin):
    label = ""
    ordinal = 0

    def get_ordinal(self):
        return self.ordinal

    def do_pre_op(self, cnxt, stack, current_stack=None, action=None):
        CALLS.append([self.label, "pre", action])
        if FAIL == self.label + ":pre":
            raise Exception(self.label + " refuses " + action)

    def do_post_op(self, cnxt, stack, current_stack=None, action=None, is_stack_failure=False):
        CALLS.append([self.label, "post", action, is_stack_failure])
        if FAIL == self.label + ":post":
            raise Exception(self.label + " post-op failed")


class First(_Recorder):
    label = "first"
    ordinal = 10


class Second(_Recorder):
    label = "second"
    ordinal = 20


class Third(_Recorder):
    label = "third"
    ordinal = 30
"""

OK = {
    "heat_template_version": "2018-08-31",
    "resources": {"r": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}}},
}
FAILING = {
    "heat_template_version": "2018-08-31",
    "resources": {"r": {"type": "OS::Heat::TestResource", "properties": {"fail": True}}},
}
CASES = {
    "failed_create": (FAILING, None),
    "post_op_raises": (OK, "second:post"),
    "pre_op_raises": (OK, "third:pre"),
    "ok_create": (OK, None),
}


def _cases() -> list[dict[str, Any]]:
    out = []
    for name, (template, fail) in CASES.items():
        out.append(
            {
                "name": name,
                "stack_name": name.replace("_", "")[:10],
                "lifecycle": {
                    "source": SOURCE.format(fail=fail),
                    "classes": ["First", "Second", "Third"],
                },
                "steps": [{"op": "create", "template": template}],
            }
        )
    return out


def _plugsim(case: dict[str, Any]) -> dict[str, Any]:
    from simulator.heat_compat import clientless_plugins, use_heat_plugins
    from simulator.heat_compat.lifecycle_import import shim_imports

    module = types.ModuleType("plugsim_diff_lifecycle")
    sys.modules[module.__name__] = module
    try:
        with shim_imports():
            exec(compile(case["lifecycle"]["source"], "lifecycle.py", "exec"), vars(module))
        specs = [getattr(module, n) for n in case["lifecycle"]["classes"]]
        world = World(seed=7, lifecycle_plugins=specs)
        try:
            use_heat_plugins(world, *clientless_plugins())
            stack = world.create_stack(case["stack_name"], case["steps"][0]["template"])
            return {
                "state": [stack.action, stack.status],
                "reason": stack.status_reason,
                "lifecycle_calls": list(module.CALLS),
            }
        finally:
            world.close()
    finally:
        sys.modules.pop(module.__name__, None)


@pytest.fixture(scope="module")
def results() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    cases = _cases()
    heat = _diff.run_heat(cases)
    return {c["name"]: (heat[c["name"]]["steps"][0], _plugsim(c)) for c in cases}


@pytest.mark.parametrize("name", list(CASES))
def test_calls_and_state_are_heats(name, results) -> None:
    heat, plugsim = results[name]
    assert plugsim["lifecycle_calls"] == heat["lifecycle_calls"]
    assert plugsim["state"] == heat["state"]


def test_after_a_failed_create_post_ops_see_no_failure(results) -> None:
    heat, _ = results["failed_create"]
    assert heat["state"] == ["CREATE", "FAILED"]
    assert [c[3] for c in heat["lifecycle_calls"] if c[1] == "post"] == [False] * 3


def test_a_raising_post_op_skips_the_later_ones_and_the_stack_stays_complete(results) -> None:
    heat, plugsim = results["post_op_raises"]
    assert heat["state"] == ["CREATE", "COMPLETE"]
    assert [c[0] for c in heat["lifecycle_calls"] if c[1] == "post"] == ["first", "second"]


def test_a_refusing_pre_op_fails_with_its_message(results) -> None:
    heat, plugsim = results["pre_op_raises"]
    assert heat["state"] == ["CREATE", "FAILED"]
    assert "third refuses CREATE" in heat["reason"] and "third refuses CREATE" in plugsim["reason"]
