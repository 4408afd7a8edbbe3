"""Cinder volume types on the wire: the entity service's volume_type entities."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


def test_openstacksdk_volume_type_lifecycle_with_extra_specs(openstack_connection, fake_cloud):
    storage = openstack_connection.block_storage
    vtype = storage.create_type(name="fast", description="ssd", extra_specs={"tier": "1"})
    assert storage.get_type(vtype.id).extra_specs == {"tier": "1"}
    assert {"__DEFAULT__", "fast"} <= {t.name for t in storage.types()}
    # a volume type is the world's entity, as a world file's volume_types are
    stored = fake_cloud.service("entity").get_entity(vtype.id)
    assert (stored["kind"], stored["name"], stored["description"]) == ("volume_type", "fast", "ssd")
    storage.update_type_extra_specs(vtype, replication="on")
    assert storage.get_type(vtype.id).extra_specs == {"tier": "1", "replication": "on"}
    storage.delete_type_extra_specs(vtype, ["tier"])
    assert storage.get_type(vtype.id).extra_specs == {"replication": "on"}
    with pytest.raises(openstack.exceptions.ConflictException, match="already exists"):
        storage.create_type(name="fast")
    volume = storage.create_volume(size=1, volume_type="fast")
    volume = storage.wait_for_status(volume, status="available", wait=600)
    assert storage.get_volume(volume.id).volume_type == "fast"
    with pytest.raises(openstack.exceptions.BadRequestException, match="still in use"):
        storage.delete_type(vtype)
    storage.delete_volume(volume)
    storage.wait_for_delete(volume, wait=600)
    storage.delete_type(vtype, ignore_missing=False)
    assert "fast" not in {t.name for t in storage.types()}


def test_the_default_type_cannot_change_and_projects_get_defaults(openstack_connection):
    storage = openstack_connection.block_storage
    default = storage.find_type("__DEFAULT__", ignore_missing=False)
    with pytest.raises(openstack.exceptions.ForbiddenException, match="__DEFAULT__"):
        storage.delete_type(default)
    vtype = storage.create_type(name="gold")
    project = openstack_connection.identity.create_project(name="p", domain_id="default")
    storage.set_default_type(project.id, vtype.id)
    assert storage.show_default_type(project.id).volume_type_id == vtype.id
    assert [d.project_id for d in storage.default_types()] == [project.id]
    storage.unset_default_type(project.id)
    assert list(storage.default_types()) == []
