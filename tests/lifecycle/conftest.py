"""Shared helpers of the lifecycle plug-in tests: a recording plug-in and stack actions."""

from __future__ import annotations

import pytest

from sdk.lifecycle_plugin import LifecyclePlugin
from simulator.lifecycle import LIFECYCLE_TYPE
from simulator.world import World

T = "Plugsim::Test::Trivial"


def tmpl(resources, **extra):
    """A HOT template with *resources*."""
    return {"heat_template_version": "2018-08-31", "resources": resources, **extra}


def simple(value="v1"):
    """Two resources, b depends on a."""
    return tmpl(
        {
            "a": {"type": T, "properties": {"value": value, "delay": 5}},
            "b": {"type": T, "properties": {"value": {"get_resource": "a"}, "delay": 5}},
        }
    )


class Recorder(LifecyclePlugin):
    """Appends every call to a shared log; raises for configured actions."""

    def __init__(self, name, log, ordinal=100, fail_pre=(), fail_post=()):
        self.name = name
        self.log = log
        self.ordinal = ordinal
        self.fail_pre = set(fail_pre)
        self.fail_post = set(fail_post)

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        self.log.append((self.name, "pre", action, None))
        if action in self.fail_pre:
            raise RuntimeError(f"{self.name} refuses {action}")

    def do_post_op(self, context, stack, current_stack=None, action=None, is_stack_failure=False):
        self.log.append((self.name, "post", action, is_stack_failure))
        if action in self.fail_post:
            raise RuntimeError(f"{self.name} cannot finish {action}")

    def get_ordinal(self):
        return self.ordinal


@pytest.fixture
def world():
    """An in-memory world without entry-point plug-ins."""
    w = World(entry_points=False)
    yield w
    w.close()


def lifecycle_events(world, stack_name="s"):
    """(plug-in, ACTION_STATUS, reason) of the stack's lifecycle events, in order."""
    return [
        (e.resource_name, e.state, e.reason)
        for e in world.stack_events(stack_name)
        if e.resource_type == LIFECYCLE_TYPE
    ]


def resource_events(world, stack_name="s", after=0):
    """Events of resources (not of the stack, not of plug-ins) after event id *after*."""
    return [
        e
        for e in world.stack_events(stack_name)
        if e.id > after and not e.is_stack_event and e.resource_type != LIFECYCLE_TYPE
    ]
