"""Testing the DNS zone plug-in alone: one resource, a fake cloud, no engine.

The guide shows these tests; the project's own test suite runs them.
"""

from __future__ import annotations

import asyncio

import pytest
from dns_zone import BACKUP_KIND, DNSZone

from fake_clouds import FakeCloud
from sdk import exception
from sdk.context import LocalContext
from sdk.rsrc_defn import ResourceDefinition


# [setup]
def make_zone(cloud: FakeCloud, deletion_policy: str = "Delete", **props) -> DNSZone:
    """A DNSZone wired to *cloud* through a LocalContext sharing the cloud's clock."""
    context = LocalContext(cloud.client_plugins(), clock=cloud.clock, poll_interval=2.0)
    definition = ResourceDefinition(
        "zone",
        "Example::DNS::Zone",
        {"name": "example.org.", "email": "hostmaster@example.org", **props},
        deletion_policy=deletion_policy,
    )
    return DNSZone("zone", definition, context)


# [/setup]


# [lifecycle]
def test_create_polls_until_active_then_update_changes_ttl_in_place():
    cloud = FakeCloud(seed=7, services=["entity"])
    zone = make_zone(cloud)

    asyncio.run(zone.create())

    assert zone.state == "CREATE_COMPLETE"
    assert zone.attributes["status"] == "ACTIVE"
    assert zone.attributes["serial"] == 1
    states = [f"{e.action}_{e.status}" for e in zone.context.events]
    assert states == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert cloud.clock.now() > 0  # the polls slept in virtual time, not in real time

    asyncio.run(zone.update(zone.t.freeze(properties={**zone.t.properties, "ttl": 600})))

    assert zone.state == "UPDATE_COMPLETE"
    assert zone.attributes["serial"] == 2
    assert zone.client().entities.get(zone.resource_id).ttl == 600


# [/lifecycle]


# [replace]
def test_changing_the_name_asks_for_a_replacement():
    cloud = FakeCloud(seed=7, services=["entity"])
    zone = make_zone(cloud)
    asyncio.run(zone.create())

    renamed = zone.t.freeze(properties={**zone.t.properties, "name": "example.net."})
    with pytest.raises(exception.UpdateReplace):
        asyncio.run(zone.update(renamed))
    assert zone.state == "CREATE_COMPLETE"  # nothing happened to the old zone


# [/replace]


# [policies]
def test_snapshot_policy_keeps_a_backup_and_deletes_the_zone():
    cloud = FakeCloud(seed=7, services=["entity"])
    zone = make_zone(cloud, deletion_policy="Snapshot")
    asyncio.run(zone.create())
    zone_id = zone.resource_id

    asyncio.run(zone.delete())

    assert zone.state == "DELETE_COMPLETE"
    entities = zone.client().entities
    with pytest.raises(exception.NotFound):
        entities.get(zone_id)
    backup = entities.get(zone.data()["backup_id"])
    assert backup.kind == BACKUP_KIND and backup.zone["id"] == zone_id


def test_retain_policy_leaves_the_zone_alone():
    cloud = FakeCloud(seed=7, services=["entity"])
    zone = make_zone(cloud, deletion_policy="Retain")
    asyncio.run(zone.create())

    asyncio.run(zone.delete())

    assert zone.state == "DELETE_COMPLETE"
    assert zone.client().entities.get(zone.resource_id).status == "ACTIVE"


# [/policies]


# [snapshot]
def test_a_stack_snapshot_records_the_ttl_and_restore_brings_it_back():
    cloud = FakeCloud(seed=7, services=["entity"])
    zone = make_zone(cloud, ttl=900)
    asyncio.run(zone.create())

    data = asyncio.run(zone.snapshot())

    assert zone.state == "SNAPSHOT_COMPLETE"
    assert data == {"serial": 1, "ttl": 900}
    changed = zone.t.freeze(properties={**zone.t.properties, "ttl": 120})
    restored = zone.handle_restore(changed, {"resource_data": data})
    assert restored.properties["ttl"] == 900


# [/snapshot]


# [faults]
def test_a_zone_that_goes_to_error_is_retried_then_fails():
    cloud = FakeCloud(
        seed=7,
        services=["entity"],
        faults=[{"service": "entity", "operation": "entities.create", "effect": "error_state"}],
    )
    zone = make_zone(cloud)

    with pytest.raises(exception.ResourceFailure) as failure:
        asyncio.run(zone.create())

    assert zone.state == "CREATE_FAILED"
    assert "ResourceInError" in zone.status_reason
    creates = [e for e in zone.context.events if e.action == "CREATE"]
    assert len(creates) == 2 * (DNSZone.action_retry_limit + 1)
    assert isinstance(failure.value.exc, exception.ResourceInError)


# [/faults]


# [validation]
def test_bad_properties_name_the_template_path():
    cloud = FakeCloud(seed=7, services=["entity"])
    zone = make_zone(cloud, ttl=5)

    with pytest.raises(exception.StackValidationFailed) as error:
        zone.validate()

    assert str(error.value) == ("resources.zone.properties.ttl: 5 is less than the minimum 60")


# [/validation]


# [client]
def test_a_vendor_client_plugin_classifies_its_errors():
    from vendor_client import VendorClientPlugin, VendorError

    plugin = VendorClientPlugin("vendor", client=object())
    context = LocalContext({"vendor": plugin})

    assert context.client_plugin("vendor") is plugin
    assert plugin.is_not_found(VendorError("missing"))
    assert plugin.is_conflict(VendorError("busy"))
    assert plugin.is_over_limit(VendorError("quota"))
    assert not plugin.is_not_found(VendorError("busy"))
    plugin.ignore_not_found(VendorError("missing"))  # swallowed
    with pytest.raises(VendorError):
        plugin.ignore_not_found(VendorError("busy"))


# [/client]
