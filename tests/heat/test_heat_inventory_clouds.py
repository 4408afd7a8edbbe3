"""Heat's own in-tree plug-ins that run on the fake clouds' existing operations.

Each test loads the unmodified Heat 27 module, creates a stack on the default
world, checks the object in the fake cloud, updates in place where the schema
allows and deletes, checking nothing is left behind.
"""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator.store import Store
from simulator.world import World

OPENSTACK = "heat.engine.resources.openstack."


def _world(*modules: str) -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, *(OPENSTACK + m for m in modules)).errors
    return world


def _template(resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources}


@requires_heat
def test_heats_address_scope_and_subnet_pool_run_on_the_fake_network() -> None:
    world = _world("neutron.address_scope", "neutron.subnetpool")

    def resources(pool_name: str) -> dict[str, Any]:
        return {
            "scope": {"type": "OS::Neutron::AddressScope", "properties": {"name": "scope"}},
            "pool": {
                "type": "OS::Neutron::SubnetPool",
                "properties": {
                    "name": pool_name,
                    "prefixes": ["10.40.0.0/16"],
                    "address_scope": {"get_resource": "scope"},
                },
            },
        }

    stack = world.create_stack("s", _template(resources("pool")))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    neutron = world.client_plugin("neutron").client()
    pool_id = stack.resources["pool"].resource_id
    pool = neutron.show_subnetpool(pool_id)["subnetpool"]
    assert pool["prefixes"] == ["10.40.0.0/16"]
    assert pool["address_scope_id"] == stack.resources["scope"].resource_id
    stack = world.update_stack("s", _template(resources("renamed")))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["pool"].resource_id == pool_id  # in place
    assert neutron.show_subnetpool(pool_id)["subnetpool"]["name"] == "renamed"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert neutron.list_subnetpools()["subnetpools"] == []
    assert neutron.list_address_scopes()["address_scopes"] == []
    world.close()


@requires_heat
def test_a_subnet_pool_naming_no_address_scope_fails_naming_it() -> None:
    world = _world("neutron.subnetpool")
    pool = {
        "type": "OS::Neutron::SubnetPool",
        "properties": {"prefixes": ["10.41.0.0/16"], "address_scope": "nowhere"},
    }
    with pytest.raises(exception.StackValidationFailed) as failure:
        world.create_stack("s", _template({"pool": pool}))
    assert "resources.pool.properties.address_scope" in str(failure.value)
    assert "The AddressScope (nowhere) could not be found." in str(failure.value)
    world.close()


@requires_heat
def test_heats_flavor_creates_a_private_flavor_updates_its_specs_and_deletes() -> None:
    world = _world("nova.flavor")

    def flavor(specs: dict[str, str]) -> dict[str, Any]:
        props = {"ram": 128, "vcpus": 2, "is_public": False, "extra_specs": specs}
        return {"f": {"type": "OS::Nova::Flavor", "properties": props}}

    stack = world.create_stack("s", _template(flavor({"hw:cpu_policy": "dedicated"})))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nova = world.client_plugin("nova").client()
    flavor_id = stack.resources["f"].resource_id
    made = nova.flavors.get(flavor_id)
    assert (made.ram, made.vcpus, made.is_public) == (128, 2, False)
    assert made.get_keys() == {"hw:cpu_policy": "dedicated"}
    # no tenants given: Heat grants the stack's own project access
    access = nova.flavor_access.list(flavor=flavor_id)
    assert [a.tenant_id for a in access] == [world.project_id]
    stack = world.update_stack("s", _template(flavor({"hw:mem_page_size": "large"})))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["f"].resource_id == flavor_id  # in place
    assert nova.flavors.get(flavor_id).get_keys() == {"hw:mem_page_size": "large"}
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert flavor_id not in [f.id for f in nova.flavors.list()]
    world.close()


@requires_heat
def test_heats_volume_type_is_an_entity_its_specs_update_in_place() -> None:
    world = _world("cinder.volume_type")

    def vtype(specs: dict[str, str], description: str) -> dict[str, Any]:
        props = {"name": "gold", "metadata": specs, "description": description}
        return {"t": {"type": "OS::Cinder::VolumeType", "properties": props}}

    stack = world.create_stack("s", _template(vtype({"volume_backend_name": "ssd"}, "fast")))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    type_id = stack.resources["t"].resource_id
    entity = world.cloud.service("entity").get_entity(type_id)
    assert (entity["name"], entity["description"]) == ("gold", "fast")
    assert entity["extra_specs"] == {"volume_backend_name": "ssd"}
    stack = world.update_stack("s", _template(vtype({"qos": "high"}, "faster")))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["t"].resource_id == type_id  # in place
    entity = world.cloud.service("entity").get_entity(type_id)
    assert (entity["description"], entity["extra_specs"]) == ("faster", {"qos": "high"})
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.service("entity").list_entities("volume_type") == []
    world.close()


@requires_heat
def test_heats_extra_route_set_adds_and_removes_only_its_own_routes() -> None:
    world = _world("neutron.extrarouteset")

    def resources(destination: str) -> dict[str, Any]:
        route = {"destination": destination, "nexthop": "10.50.0.10"}
        return {
            "net": {"type": "OS::Neutron::Net"},
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.50.0.0/24"},
            },
            "router": {"type": "OS::Neutron::Router"},
            "iface": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {
                    "router": {"get_resource": "router"},
                    "subnet": {"get_resource": "sub"},
                },
            },
            "routes": {
                "type": "OS::Neutron::ExtraRouteSet",
                "depends_on": ["iface"],
                "properties": {"router": {"get_resource": "router"}, "routes": [route]},
            },
        }

    stack = world.create_stack("s", _template(resources("10.60.0.0/24")))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    neutron = world.client_plugin("neutron").client()
    router_id = stack.resources["router"].resource_id
    other = {"destination": "10.70.0.0/24", "nexthop": "10.50.0.11"}
    neutron.add_extra_routes_to_router(router_id, {"router": {"routes": [other]}})

    def routes() -> list[str]:
        found = neutron.show_router(router_id)["router"]["routes"]
        return sorted(r["destination"] for r in found)

    assert routes() == ["10.60.0.0/24", "10.70.0.0/24"]
    stack = world.update_stack("s", _template(resources("10.61.0.0/24")))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert routes() == ["10.61.0.0/24", "10.70.0.0/24"]
    neutron.remove_extra_routes_from_router(router_id, {"router": {"routes": [other]}})
    assert routes() == ["10.61.0.0/24"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_heats_provider_net_keeps_its_provider_attributes() -> None:
    world = _world("neutron.provider_net")

    def net(segment: int) -> dict[str, Any]:
        props = {"network_type": "vlan", "physical_network": "physnet1", "segmentation_id": segment}
        return {"n": {"type": "OS::Neutron::ProviderNet", "properties": props}}

    stack = world.create_stack("s", _template(net(100)))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    neutron = world.client_plugin("neutron").client()
    net_id = stack.resources["n"].resource_id
    shown = neutron.show_network(net_id)["network"]
    assert shown["provider:network_type"] == "vlan"
    assert (shown["provider:physical_network"], shown["provider:segmentation_id"]) == (
        "physnet1",
        100,
    )
    stack = world.update_stack("s", _template(net(101)))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["n"].resource_id == net_id
    assert neutron.show_network(net_id)["network"]["provider:segmentation_id"] == 101
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert [n for n in neutron.list_networks()["networks"] if n["id"] == net_id] == []
    world.close()


@requires_heat
def test_heats_server_group_is_the_entity_plugsims_own_type_keeps() -> None:
    world = _world("nova.server_group")
    group = {"type": "OS::Nova::ServerGroup", "properties": {"policies": ["affinity"]}}
    stack = world.create_stack("s", _template({"g": group}))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    entities = world.cloud.service("entity")
    made = entities.get_entity(stack.resources["g"].resource_id)
    assert (made["kind"], made["policies"]) == ("nova_server_group", ["affinity"])
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.client_plugin("nova").client().server_groups.list() == []
    world.close()
