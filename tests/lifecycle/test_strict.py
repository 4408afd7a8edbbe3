"""No modification: strict mode names the plug-in and the changed field."""

from __future__ import annotations

import pytest

from sdk.lifecycle_plugin import LifecyclePlugin
from simulator.world import World

from .conftest import Recorder, lifecycle_events, resource_events, simple


class Meddler(LifecyclePlugin):
    def __init__(self, change, when="pre"):
        self.change, self.when = change, when

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        if self.when == "pre":
            self.change(stack)

    def do_post_op(self, context, stack, current_stack=None, action=None, is_stack_failure=False):
        if self.when == "post":
            self.change(stack)


def _set(obj, key, value):
    obj[key] = value


CHANGES = [
    (
        lambda s: _set(s.resources["a"].properties, "value", "hacked"),
        "resources.a.properties.value",
    ),
    (lambda s: _set(s.parameters, "x", 1), "parameters"),
    (lambda s: setattr(s, "name", "other"), "name"),
    (lambda s: s.resources.pop("b"), "resources"),
    (lambda s: s.tags.append("t"), "tags"),
    (lambda s: _set(s.template["resources"]["a"], "type", "X"), "template.resources.a.type"),
    (lambda s: setattr(s.resources["a"], "type", "X"), "resources.a.type"),
]


@pytest.mark.parametrize("change, field", CHANGES)
def test_strict_pre_op_change_fails_the_action(change, field):
    with World(entry_points=False, strict_lifecycle=True) as w:
        w.lifecycle.register(Meddler(change), "meddler")
        stack = w.create_stack("s", simple())
        assert stack.state == "CREATE_FAILED"
        assert stack.status_reason == (
            f"Lifecycle plug-in meddler modified stack in do_pre_op: {field} changed "
            "(plug-ins must not change the stack)"
        )
        assert resource_events(w) == []


def test_strict_post_op_change_fails_the_action():
    with World(entry_points=False, strict_lifecycle=True) as w:
        w.lifecycle.register(Meddler(lambda s: setattr(s, "id", "x"), "post"), "meddler")
        stack = w.create_stack("s", simple())
        assert stack.state == "CREATE_FAILED"
        assert stack.status_reason.endswith(
            "lifecycle plug-in meddler post-op failed: Lifecycle plug-in meddler modified stack "
            "in do_post_op: id changed (plug-ins must not change the stack)"
        )


def test_status_fields_may_change_in_strict_mode():
    def change(s):
        s.status, s.status_reason = "FAILED", "my bookkeeping"

    with World(entry_points=False, strict_lifecycle=True) as w:
        w.lifecycle.register(Meddler(change), "meddler")
        assert w.create_stack("s", simple()).state == "CREATE_COMPLETE"


def test_current_stack_change_is_detected_on_update():
    class Sneaky(LifecyclePlugin):
        def do_pre_op(self, context, stack, current_stack=None, action=None):
            if current_stack is not None:
                current_stack.resources["a"].properties["value"] = "sneaky"

    with World(entry_points=False, strict_lifecycle=True) as w:
        w.create_stack("s", simple())
        w.lifecycle.register(Sneaky(), "sneaky")
        stack = w.update_stack("s", simple("v2"))
        assert stack.state == "UPDATE_FAILED"
        assert "modified current_stack in do_pre_op: resources.a.properties.value" in (
            stack.status_reason
        )
        assert stack.resources["a"].properties["value"] == "v1"


def test_without_strict_a_change_never_reaches_the_engine(world):
    world.lifecycle.register(
        Meddler(lambda s: _set(s.resources["a"].properties, "value", "hacked")), "meddler"
    )
    log: list = []
    world.lifecycle.register(Recorder("after", log, 200), "after")
    stack = world.create_stack("s", simple())
    assert stack.state == "CREATE_COMPLETE"
    assert stack.resources["a"].properties["value"] == "v1"
    assert [s for _, s, _ in lifecycle_events(world)][:2] == [
        "CREATE_PRE_OP_COMPLETE",
        "CREATE_PRE_OP_COMPLETE",
    ]


def test_each_plugin_gets_a_fresh_view(world):
    seen = []

    class Look(LifecyclePlugin):
        def do_pre_op(self, context, stack, current_stack=None, action=None):
            seen.append(stack.resources["a"].properties["value"])

    world.lifecycle.register(
        Meddler(lambda s: _set(s.resources["a"].properties, "value", "hacked")), "a-meddler"
    )
    world.lifecycle.register(Look(), "b-look")
    world.create_stack("s", simple())
    assert seen == ["v1"]
