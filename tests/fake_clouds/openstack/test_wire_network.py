"""Network v2.0 on the wire: openstacksdk and neutronclient against the in-process fake."""

from __future__ import annotations

import pytest
import requests

pytest.importorskip("openstack")


def test_openstacksdk_network_subnet_port_router_lifecycle(openstack_connection, fake_cloud):
    net_api = openstack_connection.network
    net = net_api.create_network(name="n1")
    subnet = net_api.create_subnet(network_id=net.id, cidr="10.1.0.0/24", ip_version=4, name="s1")
    port = net_api.create_port(network_id=net.id, name="p1")
    router = net_api.create_router(name="r1")
    assert net_api.get_network(net.id).subnet_ids == [subnet.id]
    assert net_api.get_subnet(subnet.id).cidr == "10.1.0.0/24"
    assert net_api.get_port(port.id).fixed_ips[0]["subnet_id"] == subnet.id
    assert net_api.get_router(router.id).name == "r1"
    assert "n1" in [n.name for n in net_api.networks()]
    assert [p.id for p in net_api.ports(network_id=net.id)] == [port.id]
    net_api.add_interface_to_router(router, subnet_id=subnet.id)
    public = net_api.find_network("public")
    net_api.update_router(router, external_gateway_info={"network_id": public.id})
    assert net_api.get_router(router.id).external_gateway_info["network_id"] == public.id
    # the engine's Python client sees the same entities
    neutron = fake_cloud.client("network")
    assert neutron.show_router(router.id)["router"]["name"] == "r1"
    net_api.remove_interface_from_router(router, subnet_id=subnet.id)
    for delete, item in (
        (net_api.delete_router, router),
        (net_api.delete_port, port),
        (net_api.delete_subnet, subnet),
        (net_api.delete_network, net),
    ):
        delete(item)
    assert "n1" not in [n.name for n in net_api.networks()]
    assert openstack_connection.plugsim_wire.bugs() == []


def test_floating_ips_and_security_groups(openstack_connection):
    net_api = openstack_connection.network
    group = net_api.create_security_group(name="web")
    rule = net_api.create_security_group_rule(
        security_group_id=group.id,
        direction="ingress",
        protocol="tcp",
        port_range_min=80,
        port_range_max=80,
    )
    assert [r["id"] for r in net_api.get_security_group(group.id).security_group_rules] == [rule.id]
    public = net_api.find_network("public")
    fip = net_api.create_ip(floating_network_id=public.id)
    assert fip.floating_ip_address.startswith("172.24.4.")
    net_api.delete_ip(fip)
    net_api.delete_security_group(group)


def test_network_created_by_engine_is_listed_with_filters_and_fields(wire, token, world):
    world.client("network").create_network({"network": {"name": "eng", "shared": True}})
    base = f"{wire.base_url}/network/v2.0/networks"
    headers = {"X-Auth-Token": token}
    r = requests.get(f"{base}?shared=true&fields=name&fields=id", headers=headers)
    assert r.status_code == 200
    assert [sorted(n) for n in r.json()["networks"]] == [["id", "name"]]
    assert [n["name"] for n in r.json()["networks"]] == ["eng"]
    r = requests.get(f"{base}?name=eng&name=public", headers=headers)
    assert sorted(n["name"] for n in r.json()["networks"]) == ["eng", "public"]


def test_limit_and_marker_page_like_neutron(wire, token, world):
    for name in ("a", "b", "c"):
        world.client("network").create_network({"network": {"name": name}})
    headers = {"X-Auth-Token": token}
    r = requests.get(f"{wire.base_url}/network/v2.0/networks?limit=2", headers=headers)
    body = r.json()
    assert len(body["networks"]) == 2
    nxt = body["networks_links"][0]["href"]
    rest = requests.get(nxt, headers=headers).json()["networks"]
    assert len(rest) == 2 and "networks_links" not in requests.get(nxt, headers=headers).json()


def test_neutronclient_create_show_delete(session):
    from neutronclient.v2_0 import client as neutron_client

    neutron = neutron_client.Client(session=session)
    net = neutron.create_network({"network": {"name": "nc"}})["network"]
    assert neutron.show_network(net["id"])["network"]["name"] == "nc"
    neutron.delete_network(net["id"])
    assert "nc" not in [n["name"] for n in neutron.list_networks()["networks"]]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{oops", "Malformed request body"),
        (b'{"network": {"admin_state_up": "yes"}}', "not a valid boolean"),
        (b'{"network": {"colour": "red"}}', "Unrecognized attribute"),
        (b'{"subnet": {"network_id": "nope", "cidr": "10.0.0.0/24"}}', "could not be found"),
    ],
)
def test_bad_network_bodies_are_neutron_errors(wire, token, body, message):
    collection = "subnets" if b"subnet" in body else "networks"
    r = requests.post(
        f"{wire.base_url}/network/v2.0/{collection}",
        data=body,
        headers={"X-Auth-Token": token, "Content-Type": "application/json"},
    )
    assert r.status_code in (400, 404)
    assert message in r.json()["NeutronError"]["message"]
    assert wire.bugs() == []


def test_delete_network_in_use_is_409(wire, token, world):
    neutron = world.client("network")
    net = neutron.create_network({"network": {"name": "busy"}})["network"]
    neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.9.0.0/24"}})
    neutron.create_port({"port": {"network_id": net["id"]}})
    r = requests.delete(
        f"{wire.base_url}/network/v2.0/networks/{net['id']}", headers={"X-Auth-Token": token}
    )
    assert r.status_code == 409
    assert r.json()["NeutronError"]["type"] == "NetworkInUse"


def test_unknown_collection_is_counted(wire, token):
    r = requests.get(
        f"{wire.base_url}/network/v2.0/vpn/ikepolicies", headers={"X-Auth-Token": token}
    )
    assert r.status_code == 404
    assert "NeutronError" in r.json()
    assert [(u.service, u.path) for u in wire.unserved()] == [("network", "/v2.0/vpn/ikepolicies")]


def test_extensions_list(wire, token):
    r = requests.get(f"{wire.base_url}/network/v2.0/extensions", headers={"X-Auth-Token": token})
    aliases = {e["alias"] for e in r.json()["extensions"]}
    assert {"router", "security-group", "external-net"} <= aliases


def test_tags_on_networks(openstack_connection):
    net_api = openstack_connection.network
    net = net_api.create_network(name="tagged")
    net_api.set_tags(net, ["blue", "red"])
    assert sorted(net_api.get_network(net.id).tags) == ["blue", "red"]
    net.remove_tag(net_api, "red")
    assert net_api.get_network(net.id).tags == ["blue"]


def test_floating_ip_port_details_and_availability_zones(openstack_connection, fake_cloud):
    network = openstack_connection.network
    public = next(n for n in network.networks() if n.is_router_external)
    net = network.create_network(name="fip-net")
    network.create_subnet(network_id=net.id, cidr="10.8.0.0/24", ip_version=4)
    port = network.create_port(network_id=net.id, name="fip-port")
    fip = network.create_ip(floating_network_id=public.id)
    assert fip.port_details is None
    fip = network.update_ip(fip, port_id=port.id)
    assert (fip.port_details["name"], fip.port_details["network_id"]) == ("fip-port", net.id)
    zones = {(z.name, z.resource) for z in network.availability_zones()}
    assert zones == {("nova", "network"), ("nova", "router")}
