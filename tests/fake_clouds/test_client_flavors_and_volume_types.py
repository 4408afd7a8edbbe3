"""The python-client surfaces Heat's flavor and volume type plug-ins call, on the fake clouds."""

from __future__ import annotations

import pytest

from sdk import exception


def test_volume_types_are_unique_by_name_and_keep_their_specs(cinder) -> None:
    gold = cinder.volume_types.create("gold", description="fast", is_public=False)
    with pytest.raises(exception.Conflict, match="gold already exists"):
        cinder.volume_types.create("gold")
    gold.set_keys({"volume_backend_name": "ssd", "qos": "high"})
    gold.unset_keys(["qos"])
    assert cinder.volume_types.get(gold.id).get_keys() == {"volume_backend_name": "ssd"}
    cinder.volume_type_access.add_project_access(gold, "p1")
    assert [a.project_id for a in cinder.volume_type_access.list(gold)] == ["p1"]
    cinder.volume_type_access.remove_project_access(gold, "p1")
    assert cinder.volume_type_access.list(gold) == []
    cinder.volume_types.delete(gold)
    with pytest.raises(exception.NotFound):
        cinder.volume_types.get(gold.id)


def test_a_volume_type_in_use_is_not_deleted(cinder) -> None:
    silver = cinder.volume_types.create("silver")
    cinder.volumes.create(1, volume_type=silver.id)
    with pytest.raises(exception.BadRequest, match="still in use"):
        cinder.volume_types.delete(silver)


def test_flavors_take_novaclient_arguments_specs_and_access(nova) -> None:
    flavor = nova.flavors.create("small", 256, 1, 5, flavorid="auto", is_public=False)
    assert (flavor.ram, flavor.vcpus, flavor.disk, flavor.is_public) == (256, 1, 5, False)
    flavor.set_keys({"hw:cpu_policy": "dedicated"})
    assert nova.flavors.get(flavor.id).get_keys() == {"hw:cpu_policy": "dedicated"}
    flavor.unset_keys(["hw:cpu_policy"])
    assert flavor.get_keys() == {}
    nova.flavor_access.add_tenant_access(flavor, "p1")
    assert [a.tenant_id for a in nova.flavor_access.list(flavor=flavor)] == ["p1"]
    nova.flavor_access.remove_tenant_access(flavor, "p1")
    assert nova.flavor_access.list(flavor=flavor.id) == []
    nova.flavors.delete(flavor)
    assert flavor.id not in [f.id for f in nova.flavors.list()]


def test_server_groups_take_either_novaclient_form_and_are_entities(cloud, nova) -> None:
    old = nova.server_groups.create("old", policies=["anti-affinity"])
    new = nova.server_groups.create("new", policy="anti-affinity", rules={"max_server_per_host": 2})
    assert (old.policy, new.policies, new.rules) == (
        "anti-affinity",
        ["anti-affinity"],
        {"max_server_per_host": 2},
    )
    assert cloud.service("entity").get_entity(old.id)["kind"] == "nova_server_group"
    with pytest.raises(exception.BadRequest, match="policies"):
        nova.server_groups.create("bad", policies=["spread"])
    with pytest.raises(exception.BadRequest, match="rules"):
        nova.server_groups.create("bad", policy="affinity", rules={"max_server_per_host": 1})
    other = cloud.service("entity").create_entity("widget", {}, name="w")
    with pytest.raises(exception.NotFound):
        nova.server_groups.get(other["id"])
    nova.server_groups.delete(old)
    assert [g.name for g in nova.server_groups.list()] == ["new"]  # gone at once, as in nova
