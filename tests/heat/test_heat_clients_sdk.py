"""Heat's openstacksdk client plug-in (``openstack``), imitated over the fake network.

Heat's own ``OS::Neutron::Segment`` and ``OS::Neutron::FloatingIPPortForward``
create, update in place and delete their objects in the fake network
service, which keeps segments and port forwardings with neutron's rules.
"""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator.store import Store
from simulator.world import World

SEGMENT = "heat.engine.resources.openstack.neutron.segment"
FLOATINGIP = "heat.engine.resources.openstack.neutron.floatingip"


def _template(name: str, external_port: int) -> dict[str, Any]:
    forward = {
        "floating_ip": {"get_resource": "fip"},
        "internal_port": {"get_resource": "port"},
        "internal_ip_address": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]},
        "internal_port_number": 22,
        "external_port": external_port,
        "protocol": "tcp",
    }
    segment = {
        "network": "public",
        "network_type": "vlan",
        "physical_network": "physnet1",
        "segmentation_id": 42,
        "name": name,
    }
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "seg": {"type": "OS::Neutron::Segment", "properties": segment},
            "fip": {
                "type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public"},
            },
            "port": {"type": "OS::Neutron::Port", "properties": {"network": "public"}},
            "pf": {"type": "OS::Neutron::FloatingIPPortForward", "properties": forward},
        },
        "outputs": {"seg": {"value": {"get_attr": ["seg", "show"]}}},
    }


@requires_heat
def test_heats_segment_and_port_forward_run_through_the_openstacksdk_plugin() -> None:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, SEGMENT, FLOATINGIP).errors
    mark = world.cloud.snapshot_inventory()
    neutron = world.client_plugin("neutron").client()
    public = neutron.list_networks(name="public")["networks"][0]
    stack = world.create_stack("s", _template("s1", 2222))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    segment = stack.output("seg")
    assert (segment["network_id"], segment["segmentation_id"], segment["name"]) == (
        public["id"],
        42,
        "s1",
    )
    [forward] = neutron.list_port_forwardings()["port_forwardings"]
    port = neutron.show_port(stack.resources["port"].resource_id)["port"]
    assert forward["floatingip_id"] == stack.resources["fip"].resource_id
    assert forward["internal_port_id"] == port["id"]
    assert forward["internal_ip_address"] == port["fixed_ips"][0]["ip_address"]
    assert (forward["internal_port"], forward["external_port"], forward["protocol"]) == (
        22,
        2222,
        "tcp",
    )
    stack = world.update_stack("s", _template("s2", 2223))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.output("seg")["id"] == segment["id"]  # renamed in place
    assert stack.output("seg")["name"] == "s2"
    [moved] = neutron.list_port_forwardings()["port_forwardings"]
    assert (moved["id"], moved["external_port"]) == (forward["id"], 2223)
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []
    world.close()


def test_the_fake_network_keeps_neutrons_rules_for_segments_and_port_forwardings() -> None:
    world = World(Store(":memory:"), seed=5)
    neutron = world.client_plugin("neutron").client()
    public = neutron.list_networks(name="public")["networks"][0]["id"]
    with pytest.raises(exception.BadRequest, match="physical_network is required"):
        neutron.create_segment({"segment": {"network_id": public, "network_type": "flat"}})
    with pytest.raises(exception.BadRequest, match="VLAN range"):
        neutron.create_segment(
            {
                "segment": {
                    "network_id": public,
                    "network_type": "vlan",
                    "physical_network": "p",
                    "segmentation_id": 5000,
                }
            }
        )
    fip = neutron.create_floatingip({"floatingip": {"floating_network_id": public}})["floatingip"]
    port = neutron.create_port({"port": {"network_id": public}})["port"]
    forward = {
        "floatingip_id": fip["id"],
        "internal_port_id": port["id"],
        "internal_ip_address": port["fixed_ips"][0]["ip_address"],
        "external_port": 80,
        "protocol": "tcp",
    }
    neutron.create_port_forwarding({"port_forwarding": forward})
    with pytest.raises(exception.Conflict, match="already uses external port 80/tcp"):
        neutron.create_port_forwarding({"port_forwarding": forward})
    world.close()


@requires_heat
def test_heats_net_lists_its_segments_through_openstacksdk() -> None:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5)
    net_module = "heat.engine.resources.openstack.neutron.net"
    assert not use_heat_plugins(world, SEGMENT, net_module).errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "segmented"}},
            "seg": {
                "type": "OS::Neutron::Segment",
                "properties": {
                    "network": {"get_resource": "net"},
                    "network_type": "vlan",
                    "physical_network": "physnet1",
                    "segmentation_id": 7,
                    "name": "s7",
                },
            },
        },
        "outputs": {"segments": {"value": {"get_attr": ["net", "segments"]}}},
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    [segment] = stack.output("segments")
    assert (segment["name"], segment["segmentation_id"]) == ("s7", 7)
    assert segment["id"] == stack.resources["seg"].resource_id
    world.close()
