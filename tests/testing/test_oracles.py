"""Each oracle catches its planted bug, naming the handler, and passes the correct plug-in."""

from __future__ import annotations

import re
from typing import Any

import oracle_plugins as op
import pytest

from sdk.testing.conformance import ResourceConformance
from sdk.testing.harness import PlugsimEnv
from sdk.testing.oracle_conformance import OracleConformance

BASES = (
    (ResourceConformance,)
    if issubclass(ResourceConformance, OracleConformance)
    else (OracleConformance, ResourceConformance)
)


def run(plugin: type, test: str, **declared: Any) -> None:
    """Run conformance test *test* of *plugin* in-process (raises what the test raises)."""
    attrs = {"resource_class": plugin, "valid_properties": {}, **declared}
    cls = type(f"Test{plugin.__name__}", BASES, attrs)
    env = PlugsimEnv(7)
    try:
        getattr(cls(), test)(env)
    finally:
        env.close()


def fails(plugin: type, test: str, *patterns: str, **declared: Any) -> str:
    with pytest.raises(AssertionError) as info:
        run(plugin, test, **declared)
    message = str(info.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in {message!r}"
    return message


SERVER = {"valid_properties": {"image": "cirros", "name": "first"}}
HANDLER_AT = r"py:\d+\)"


def test_in_place_catches_a_delete_and_recreate_with_the_same_name():
    message = fails(
        op.ReplacingBox,
        "test_update_in_place_keeps_cloud_object",
        r"ReplacingBox\.handle_update \(.*" + HANDLER_AT,
        r"replaced the cloud object during an in-place update of size",
        r"deleted entity/box \S+ 'box'",
        r"with the same name and switched resource_id",
        update_in_place={"size": 2},
    )
    assert "created at t=" in message


def test_the_in_place_test_asks_the_same_oracle():
    # before the oracle, this test compared only the engine's resource objects
    fails(
        op.ReplacingBox,
        "test_update_in_place",
        r"ReplacingBox\.handle_update .* replaced the cloud object",
        update_in_place={"size": 2},
    )


@pytest.mark.parametrize(
    "test",
    [
        "test_update_in_place_keeps_cloud_object",
        "test_update_reaches_cloud",
        "test_repeated_update_is_noop",
        "test_update_every_updatable_property",
        "test_attributes_follow_cloud",
        "test_create_retry_does_not_double",
    ],
)
def test_the_correct_box_passes(test):
    run(op.Box, test, update_in_place={"size": 2})


def test_update_not_reaching_the_cloud_is_caught():
    fails(
        op.DeafBox,
        "test_update_reaches_cloud",
        r"DeafBox\.handle_update \(.*" + HANDLER_AT,
        r"did not reach the cloud object: size is 1, created from v2 it is 2 \(entity/box",
        update_in_place={"size": 2},
    )


def test_a_keyerror_on_a_property_not_in_update_in_place_is_caught():
    # the old gap: the declared in-place change alone passes
    run(op.KeyErrorBox, "test_update_in_place", update_in_place={"size": 2})
    fails(
        op.KeyErrorBox,
        "test_update_every_updatable_property",
        r"KeyErrorBox\.handle_update \(.*" + HANDLER_AT,
        r"crashed with KeyError: 'tier' at .*oracle_plugins\.py:\d+",
        r"while updating size, tier at once",
        update_in_place={"size": 2},
    )


def test_a_repeated_update_that_writes_is_caught():
    fails(
        op.ChattyBox,
        "test_repeated_update_is_noop",
        r"made write calls: entity\.entities\.update",
        update_in_place={"size": 2},
    )


def test_a_retried_create_that_doubles_is_caught_and_the_fixed_one_passes():
    fails(
        op.DoublingBox,
        "test_create_retry_does_not_double",
        r"DoublingBox\.handle_create \(.*" + HANDLER_AT,
        r"left 2 entity/box objects where a clean create leaves 1",
    )
    run(op.ReadBackBox, "test_create_retry_does_not_double")


def test_suspend_that_changes_nothing_is_caught_without_cloud_states():
    fails(
        op.LazySuspendServer,
        "test_suspend_resume_change_cloud",
        r"LazySuspendServer\.handle_suspend \(.*" + HANDLER_AT,
        r"SUSPEND completed but the cloud object compute/server \S+ 'first' .* did not change "
        r"\(status 'ACTIVE'\)",
        **SERVER,
    )


def test_a_cached_attribute_is_caught_after_suspend():
    fails(
        op.CachedStatusServer,
        "test_suspend_resume_change_cloud",
        r"CachedStatusServer\._resolve_attribute \(.*" + HANDLER_AT,
        r"after suspend, attribute status reads 'ACTIVE' but the cloud object .* has 'SUSPENDED'",
        **SERVER,
    )


@pytest.mark.parametrize(
    "test",
    ["test_suspend_resume_change_cloud", "test_restore_brings_back_snapshot"],
)
def test_the_correct_server_passes(test):
    run(op.GoodServer, test, update_in_place={"name": "renamed"}, **SERVER)


def test_a_restore_that_keeps_the_later_state_is_caught():
    fails(
        op.StaleRestoreServer,
        "test_restore_brings_back_snapshot",
        r"StaleRestoreServer\.handle_restore \(.*" + HANDLER_AT,
        r"restore did not bring back what the snapshot held",
        r"name is 'renamed', the snapshot held 'first'",
        update_in_place={"name": "renamed"},
        **SERVER,
    )


def test_a_schema_looser_than_the_cloud_is_caught():
    fails(
        op.LooseServer,
        "test_schema_no_looser_than_cloud",
        r"LooseServer\.handle_create|SampleServer\.handle_create",
        r"the cloud refused a create the schema accepts: "
        r"BadRequest: Server name must be a non-empty string; the properties drawn: "
        r"\{'name': ''\}",
        valid_properties={"image": "cirros"},
    )
    run(op.GoodServer, "test_schema_no_looser_than_cloud", valid_properties={"image": "cirros"})
    run(op.Box, "test_schema_no_looser_than_cloud")


def _machine_fails(plugin: type, base: dict[str, Any], updates: list[dict[str, Any]]) -> str:
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    from sdk.testing.statemachine import lifecycle_machine

    machine = lifecycle_machine(plugin, base, updates=updates, faults=[None])
    options = settings(
        max_examples=15,
        stateful_step_count=6,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    with pytest.raises(AssertionError) as info:
        run_state_machine_as_test(machine, settings=options)
    return str(info.value)


@pytest.mark.material
def test_the_campaign_state_machine_asks_the_same_oracles():
    assert "replaced the cloud object" in _machine_fails(op.ReplacingBox, {}, [{"size": 2}])
    assert "SUSPEND completed but the cloud object" in _machine_fails(
        op.LazySuspendServer, {"image": "cirros"}, []
    )
