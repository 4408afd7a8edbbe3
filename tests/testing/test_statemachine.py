"""Random lifecycles of the sample plug-ins under random faults keep every invariant."""

import traceback

import pytest
from hypothesis import HealthCheck, settings
from sample_plugins import LeakyServer, SampleServer, SampleZone

from sdk.testing.statemachine import lifecycle_machine

FAST = settings(
    max_examples=8,
    stateful_step_count=6,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

ServerLifecycle = lifecycle_machine(
    SampleServer,
    {"image": "cirros", "name": "a"},
    updates=[{"name": "b"}, {"flavor": "m1.tiny"}, {"metadata": {"k": "v"}}],
)
ServerLifecycle.TestCase.settings = FAST
TestServerLifecycle = ServerLifecycle.TestCase

ZoneLifecycle = lifecycle_machine(
    SampleZone, {"domain": "abc.example"}, updates=[{"ttl": 120}, {"ttl": 3600}]
)
ZoneLifecycle.TestCase.settings = FAST
TestZoneLifecycle = ZoneLifecycle.TestCase


def test_a_leaking_plugin_breaks_an_invariant():
    machine = lifecycle_machine(LeakyServer, {"image": "cirros"}, faults=[None])
    machine.TestCase.settings = settings(
        max_examples=20, stateful_step_count=4, deadline=None, database=None
    )
    with pytest.raises(Exception) as info:  # noqa: PT011 - checked below
        machine.TestCase().runTest()
    text = "".join(traceback.format_exception(info.value))
    assert (
        "entities the stack does not know: [InventoryItem(service='compute', kind='server'" in text
    )


def test_the_same_template_after_a_failed_update_is_a_change_not_a_repeat():
    # found by the machine: create, update with a 500 on its first call (UPDATE_FAILED), a
    # check, the same update again; the second reaches the cloud because the first applied
    # nothing, so the repeated-update verdict (no write calls) must not be asked of it
    machine = ZoneLifecycle()
    error = [{"name": "one-500", "nth": 1, "effect": {"type": "error", "status": 500}}]
    try:
        machine.create(seed=0, fault=None)
        machine.update(index=1, fault=error)
        assert machine._stack().state == "UPDATE_FAILED"
        machine.other(action="check", fault=None)
        machine.update(index=1, fault=None)
        assert machine._stack().state == "UPDATE_COMPLETE"
        machine.update(index=1, fault=None)  # now a true repeat: checked, and clean
    finally:
        machine.teardown()
