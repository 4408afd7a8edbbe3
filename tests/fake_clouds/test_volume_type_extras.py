"""cinder's QoS specs and volume encryption types on the fake block storage (cinderclient calls)."""

from __future__ import annotations

import pytest

from sdk import exception


def test_qos_specs_associate_with_volume_types_and_block_deletion(cloud, cinder):
    specs = cinder.qos_specs.create("gold", {"read_iops_sec": 100, "consumer": "front-end"})
    assert (specs.consumer, specs.specs) == ("front-end", {"read_iops_sec": "100"})
    with pytest.raises(exception.Conflict, match="QoS Specs gold already exists"):
        cinder.qos_specs.create("gold", {})
    vtype = cinder.volume_types.create("fast")
    cinder.qos_specs.associate(specs.id, vtype.id)
    assert cinder.volume_types.get(vtype.id).qos_specs_id == specs.id
    other = cinder.qos_specs.create("silver", {})
    with pytest.raises(exception.BadRequest, match="already associated"):
        cinder.qos_specs.associate(other.id, vtype.id)
    with pytest.raises(exception.BadRequest, match="still associated"):
        cinder.qos_specs.delete(specs.id)
    cinder.qos_specs.set_keys(specs.id, {"write_iops_sec": "50"})
    cinder.qos_specs.unset_keys(specs.id, ["read_iops_sec"])
    assert cinder.qos_specs.get(specs.id).specs == {"write_iops_sec": "50"}
    cinder.qos_specs.disassociate_all(specs.id)
    assert cinder.volume_types.get(vtype.id).qos_specs_id is None
    # cinder: unlinking a type that is not linked is a no-op (only a missing type is a 404)
    cinder.qos_specs.disassociate(specs.id, vtype.id)
    assert cinder.volume_types.get(vtype.id).qos_specs_id is None
    with pytest.raises(exception.NotFound):
        cinder.qos_specs.disassociate(specs.id, "no-such-type")
    for item in (specs, other):
        cinder.qos_specs.delete(item.id)
    cinder.volume_types.delete(vtype.id)
    assert cloud.leaks() == []


def test_a_volume_type_has_one_encryption_which_goes_with_it(cloud, cinder):
    vtype = cinder.volume_types.create("secret")
    with pytest.raises(exception.BadRequest, match="provider: required"):
        cinder.volume_encryption_types.create(vtype.id, {"cipher": "aes-xts-plain64"})
    made = cinder.volume_encryption_types.create(vtype.id, {"provider": "luks", "key_size": 256})
    assert (made.volume_type_id, made.control_location, made.key_size) == (
        vtype.id,
        "front-end",
        256,
    )
    with pytest.raises(exception.BadRequest, match="already exists"):
        cinder.volume_encryption_types.create(vtype.id, {"provider": "luks"})
    with pytest.raises(exception.BadRequest, match="control_location"):
        cinder.volume_encryption_types.update(vtype.id, {"control_location": "middle"})
    cinder.volume_encryption_types.update(vtype.id, {"control_location": "back-end"})
    assert cinder.volume_encryption_types.get(vtype.id).control_location == "back-end"
    mark = cloud.snapshot_inventory()
    cinder.volume_types.delete(vtype.id)  # cinder deletes the encryption with its type
    assert cloud.leaks() == [] and cloud.leaks(mark) == []
    with pytest.raises(exception.NotFound):
        cinder.volume_encryption_types.get(vtype.id)


def test_deleting_a_type_through_the_entity_service_takes_its_encryption(cloud, cinder):
    """cinder's volume_type_destroy deletes the type's encryption whoever deletes the type.

    The kit deletes a type behind a plug-in's back through the service's own
    delete operation (not the client manager): the encryption goes with it there too.
    """
    vtype = cinder.volume_types.create("secret")
    other = cinder.volume_types.create("plain")
    cinder.volume_encryption_types.create(vtype.id, {"provider": "luks"})
    cinder.volume_encryption_types.create(other.id, {"provider": "luks"})
    cloud.service("entity").delete_entity(vtype.id)
    with pytest.raises(exception.NotFound):
        cinder.volume_encryption_types.get(vtype.id)
    assert cinder.volume_encryption_types.get(other.id).volume_type_id == other.id
    cinder.volume_types.delete(other.id)
    assert cloud.leaks() == []


def test_creating_qos_specs_or_an_encryption_ends_with_the_making_call(cloud, cinder):
    """cinder answers each create with one POST: the object comes back from the call that
    makes it, so a fault injected into a later call cannot orphan it (no read after it)."""
    specs = cinder.qos_specs.create("gold", {"read_iops_sec": 100})
    last = cloud.trace()[-1]
    assert (last.operation, last.entity_id) == ("entities.create", specs.id)
    assert (specs.name, specs.consumer, specs.specs) == (
        "gold",
        "back-end",
        {"read_iops_sec": "100"},
    )
    vtype = cinder.volume_types.create("secret")
    made = cinder.volume_encryption_types.create(vtype.id, {"provider": "luks"})
    last = cloud.trace()[-1]
    assert last.operation == "entities.create"
    assert (made.volume_type_id, made.provider, made.encryption_id) == (
        vtype.id,
        "luks",
        last.entity_id,
    )
