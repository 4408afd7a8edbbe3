"""Tests for sdk.lifecycle_plugin."""

from __future__ import annotations

import inspect

from sdk import lifecycle_plugin
from sdk.lifecycle_plugin import LifecyclePlugin


def test_default_contract():
    plugin = LifecyclePlugin()
    assert plugin.get_ordinal() == 100 == lifecycle_plugin.DEFAULT_ORDINAL
    assert plugin.do_pre_op(object(), object(), None, "CREATE") is None
    assert plugin.do_post_op(object(), object(), None, "CREATE", is_stack_failure=True) is None


def test_signatures_match_the_spec():
    pre = inspect.signature(LifecyclePlugin.do_pre_op)
    post = inspect.signature(LifecyclePlugin.do_post_op)
    assert list(pre.parameters) == ["self", "context", "stack", "current_stack", "action"]
    assert list(post.parameters) == [
        "self",
        "context",
        "stack",
        "current_stack",
        "action",
        "is_stack_failure",
    ]
    assert pre.parameters["current_stack"].default is None
    assert post.parameters["is_stack_failure"].default is False


def test_subclass_overrides_are_used():
    calls: list[tuple] = []

    class Audit(LifecyclePlugin):
        def do_pre_op(self, context, stack, current_stack=None, action=None):
            calls.append(("pre", stack, action))

        def do_post_op(
            self, context, stack, current_stack=None, action=None, is_stack_failure=False
        ):
            calls.append(("post", stack, action, is_stack_failure))

        def get_ordinal(self):
            return 5

    plugins = sorted([LifecyclePlugin(), Audit()], key=lambda p: p.get_ordinal())
    assert isinstance(plugins[0], Audit)
    for p in plugins:
        p.do_pre_op(None, "s", action="DELETE")
    for p in plugins:
        p.do_post_op(None, "s", action="DELETE", is_stack_failure=False)
    assert calls == [("pre", "s", "DELETE"), ("post", "s", "DELETE", False)]
