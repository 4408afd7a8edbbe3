"""Network service (neutron dict style) and the generic entity service."""

from __future__ import annotations

import pytest
from fake_cloud_helpers import active_server, public_net

from sdk import exception


def test_network_subnet_port_allocation(cloud, neutron):
    net = neutron.create_network({"network": {"name": "private"}})["network"]
    assert net["status"] == "ACTIVE"
    subnet = neutron.create_subnet(
        {"subnet": {"network_id": net["id"], "cidr": "10.0.0.0/24", "name": "s"}}
    )["subnet"]
    assert (subnet["gateway_ip"], subnet["allocation_pools"]) == (
        "10.0.0.1",
        [{"start": "10.0.0.2", "end": "10.0.0.254"}],
    )
    p1 = neutron.create_port({"port": {"network_id": net["id"]}})["port"]
    p2 = neutron.create_port({"port": {"network_id": net["id"]}})["port"]
    assert [p1["fixed_ips"][0]["ip_address"], p2["fixed_ips"][0]["ip_address"]] == [
        "10.0.0.2",
        "10.0.0.3",
    ]
    assert p1["status"] == "DOWN" and p1["mac_address"].startswith("fa:16:3e:")
    assert neutron.show_network(net["id"])["network"]["subnets"] == [subnet["id"]]
    with pytest.raises(exception.Conflict, match="ports still in use on the network"):
        neutron.delete_network(net["id"])
    with pytest.raises(exception.Conflict, match="One or more ports have an IP allocation"):
        neutron.delete_subnet(subnet["id"])
    neutron.delete_port(p1["id"])
    neutron.delete_port(p2["id"])
    neutron.delete_subnet(subnet["id"])
    neutron.delete_network(net["id"])
    assert [n["name"] for n in neutron.list_networks()["networks"]] == ["public"]


def test_neutron_bad_input(neutron):
    with pytest.raises(exception.BadRequest, match="Unrecognized attribute\\(s\\) 'colour'"):
        neutron.create_network({"network": {"colour": "red"}})
    with pytest.raises(exception.BadRequest, match="Required attribute 'cidr' not specified"):
        neutron.create_subnet({"subnet": {"network_id": "x"}})
    with pytest.raises(exception.BadRequest, match="'10.0.0.300/24' is not a valid IP subnet"):
        net = neutron.create_network({"network": {}})["network"]
        neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.0.0.300/24"}})
    with pytest.raises(exception.NotFound) as ex:
        neutron.show_port("nope")
    assert ex.value.body["NeutronError"]["type"] == "PortNotFound"
    with pytest.raises(exception.BadRequest, match="Cannot update read-only attribute cidr"):
        sub = neutron.list_subnets()["subnets"][0]
        neutron.update_subnet(sub["id"], {"subnet": {"cidr": "10.1.0.0/24"}})


def test_router_interfaces_gateway_and_floating_ip(cloud, neutron, nova):
    ext = public_net(cloud)
    net = neutron.create_network({"network": {"name": "private"}})["network"]
    sub = neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.1.0.0/24"}})
    router = neutron.create_router({"router": {"name": "r1"}})["router"]
    neutron.add_gateway_router(router["id"], {"network_id": ext})
    info = neutron.add_interface_router(router["id"], {"subnet_id": sub["subnet"]["id"]})
    port = neutron.show_port(info["port_id"])["port"]
    assert port["fixed_ips"][0]["ip_address"] == "10.1.0.1"
    with pytest.raises(exception.Conflict, match="still has ports"):
        neutron.delete_router(router["id"])
    server = active_server(cloud, networks=[{"uuid": net["id"]}])
    server_port = neutron.list_ports(device_id=server.id)["ports"][0]
    fip = neutron.create_floatingip({"floatingip": {"floating_network_id": ext}})["floatingip"]
    assert (fip["status"], fip["port_id"]) == ("DOWN", None)
    fip = neutron.update_floatingip(fip["id"], {"floatingip": {"port_id": server_port["id"]}})[
        "floatingip"
    ]
    assert (fip["status"], fip["fixed_ip_address"]) == ("ACTIVE", "10.1.0.2")
    nova.servers.delete(server)
    assert neutron.show_floatingip(fip["id"])["floatingip"]["port_id"] is None
    neutron.remove_interface_router(router["id"], {"subnet_id": sub["subnet"]["id"]})
    neutron.remove_gateway_router(router["id"])
    neutron.delete_router(router["id"])
    with pytest.raises(exception.BadRequest, match="is not a valid external network"):
        neutron.create_floatingip({"floatingip": {"floating_network_id": net["id"]}})


def test_security_groups_and_rules(neutron):
    sg = neutron.create_security_group({"security_group": {"name": "web"}})["security_group"]
    body = {
        "security_group_id": sg["id"],
        "direction": "ingress",
        "protocol": "tcp",
        "port_range_min": 80,
        "port_range_max": 80,
    }
    rule = neutron.create_security_group_rule({"security_group_rule": body})
    with pytest.raises(exception.Conflict, match="Security group rule already exists"):
        neutron.create_security_group_rule({"security_group_rule": body})
    with pytest.raises(exception.BadRequest, match="'sideways' is not in"):
        neutron.create_security_group_rule(
            {"security_group_rule": {**body, "direction": "sideways"}}
        )
    neutron.delete_security_group(sg["id"])
    with pytest.raises(exception.NotFound):
        neutron.show_security_group_rule(rule["security_group_rule"]["id"])


def test_entity_default_and_custom_kinds(cloud):
    client = cloud.client("entity")
    zone = client.create("dns_zone", {"ttl": 300}, name="example.org")
    assert (zone.status, zone.kind, zone.ttl) == ("CREATING", "dns_zone", 300)
    cloud.clock.advance(10)
    assert client.entities.get(zone).status == "ACTIVE"
    svc = cloud.service("entity")
    svc.define_kind(
        "lb",
        create=("PENDING_CREATE", "ONLINE"),
        actions={"drain": {"from": ["ONLINE"], "via": "DRAINING", "to": "DRAINED"}},
        error_status="FAILED",
    )
    lb = client.entities.create("lb", name="lb1")
    cloud.clock.advance(10)
    assert client.entities.get(lb).status == "ONLINE"
    client.entities.action(lb, "drain")
    assert client.entities.get(lb).status == "DRAINING"
    cloud.clock.advance(10)
    assert client.entities.get(lb).status == "DRAINED"
    with pytest.raises(exception.Conflict, match="Cannot 'drain' lb"):
        client.entities.action(lb, "drain")
    with pytest.raises(exception.BadRequest, match="has no action 'explode'"):
        client.entities.action(lb, "explode")
    assert [e.name for e in client.entities.list("lb")] == ["lb1"]
    client.entities.update(zone, {"ttl": 60})
    cloud.clock.advance(10)
    assert client.entities.get(zone).ttl == 60
    client.entities.delete(zone)
    cloud.clock.advance(10)
    with pytest.raises(exception.NotFound, match=f"Entity {zone.id} could not be found."):
        client.entities.get(zone)
    with pytest.raises(exception.ConfigurationError, match="entity kind 'Bad Kind'"):
        svc.define_kind("Bad Kind")


def test_deleting_a_network_deletes_its_subnets_as_neutron_does(cloud, neutron):
    # Neutron removes a network's subnets with it once no port is in use; nothing is left behind.
    net = neutron.create_network({"network": {"name": "gone"}})["network"]
    sub = neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.7.0.0/24"}})
    neutron.delete_network(net["id"])
    with pytest.raises(exception.NotFound):
        neutron.show_subnet(sub["subnet"]["id"])
    assert sub["subnet"]["id"] not in {s["id"] for s in neutron.list_subnets()["subnets"]}


def test_provider_attributes_are_kept_and_the_segment_is_an_integer(neutron):
    body = {"provider:network_type": "vlan", "provider:segmentation_id": "42"}
    net = neutron.create_network({"network": body})["network"]
    assert (net["provider:network_type"], net["provider:segmentation_id"]) == ("vlan", 42)
    plain = neutron.create_network({"network": {"name": "plain"}})["network"]
    assert plain["provider:network_type"] is None
    with pytest.raises(exception.BadRequest, match="provider:segmentation_id"):
        neutron.update_network(net["id"], {"network": {"provider:segmentation_id": "x"}})
