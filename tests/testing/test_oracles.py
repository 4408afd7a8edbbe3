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


def test_a_keyerror_on_a_property_naming_a_cloud_object_is_caught():
    # no schema value satisfies glance.image: the kit draws one from the fake cloud's images
    fails(
        op.ImageKeyErrorBox,
        "test_update_every_updatable_property",
        r"KeyErrorBox\.handle_update \(.*" + HANDLER_AT,
        r"crashed with KeyError: 'image' at .*oracle_plugins\.py:\d+",
        r"while updating image, size, tier at once \(\{'image': '\S+'",
    )


def test_a_value_the_validation_refuses_does_not_hide_a_keyerror_on_another():
    # every property at once is refused (size); one at a time, tier reaches handle_update
    fails(
        op.PickyKeyErrorBox,
        "test_update_every_updatable_property",
        r"KeyErrorBox\.handle_update \(.*" + HANDLER_AT,
        r"crashed with KeyError: 'tier' at .*oracle_plugins\.py:\d+",
        r"while updating tier to 'silver'",
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


def test_a_double_create_names_the_handler_the_fault_surfaced_in():
    # the box made by handle_create is lost because check_create_complete, where the poll
    # failed, was to record its id: the message names both
    fails(
        op.LateIdBox,
        "test_create_retry_does_not_double",
        r"LateIdBox\.handle_create \(.*" + HANDLER_AT,
        r"left 2 entity/box objects where a clean create leaves 1",
        r"the injected fault surfaced in LateIdBox\.check_create_complete \(.*"
        + HANDLER_AT
        + r" at .*oracle_plugins\.py:\d+ \(Conflict\)",
    )


def test_a_cached_name_is_caught_though_the_declared_update_leaves_the_name():
    # the declared update changes size only; the oracle also renames (name is updatable
    # and the name attribute mirrors the cloud object's name)
    run(op.NamedBox, "test_attributes_follow_cloud", update_in_place={"size": 2})
    fails(
        op.CachedNameBox,
        "test_attributes_follow_cloud",
        r"CachedNameBox\._resolve_attribute \(.*" + HANDLER_AT,
        r"after an in-place update of name, attribute name reads 'box' but the cloud object",
        update_in_place={"size": 2},
    )


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
    [
        "test_suspend_resume_change_cloud",
        "test_restore_brings_back_snapshot",
        "test_restore_uses_snapshot",
        "test_status_attribute_reads_cloud",
        "test_create",
    ],
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


def test_a_restore_that_ignores_the_snapshot_image_is_caught():
    fails(
        op.ImagelessRestoreServer,
        "test_restore_uses_snapshot",
        r"ImagelessRestoreServer\.handle_restore \(.*" + HANDLER_AT,
        r"the restore did not use what the snapshot made \(compute/image \S+",
        r"no call of the restore touched it and the cloud object compute/server",
        **SERVER,
    )


def test_a_create_reported_complete_while_building_names_the_completion_check():
    fails(
        op.EarlyServer,
        "test_create",
        r"completion: EarlyServer\.check_create_complete \(.*" + HANDLER_AT,
        r"said the create was complete at t=\S+ while the cloud object compute/server \S+ "
        r"'first' .* was still 'BUILD' \(it becomes 'ACTIVE' at t=",
        r"handler:  check_create_complete \(oracle_plugins\.py:\d+\)",
        **SERVER,
    )


def test_a_status_attribute_served_from_a_cache_is_caught():
    fails(
        op.CachedStatusServer,
        "test_status_attribute_reads_cloud",
        r"CachedStatusServer\._resolve_attribute \(.*" + HANDLER_AT,
        r"attribute status reads 'ACTIVE' after the cloud object compute/server \S+ 'first' "
        r".* went from 'ACTIVE' to 'ERROR'",
        **SERVER,
    )


def test_a_doubled_create_names_the_handler_that_made_the_extra_object():
    # the extra box is made by the completion check, not by handle_create
    message = fails(
        op.RecreatingBox,
        "test_create_retry_does_not_double",
        r"^RecreatingBox\.check_create_complete \(.*" + HANDLER_AT,
        r"left 2 entity/box objects where a clean create leaves 1",
        r"made by call \d+ entity\.entities\.create at t=\S+ by check_create_complete",
    )
    assert not message.startswith("RecreatingBox.handle_create"), message
