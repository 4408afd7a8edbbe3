"""A port's ``port_security_enabled`` defaults to its network's, as in neutron.

A port created without the attribute (or with ``None``) takes the value its
network has at that moment; a value given explicitly wins. Ports nova creates
for a booting server and the ports of router interfaces follow the same rule.
"""

from __future__ import annotations

import pytest
from fake_cloud_helpers import active_server
from hypothesis import given
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from sdk import exception

ABSENT = object()


def _network(neutron, port_security: bool) -> dict:
    net = neutron.create_network(
        {"network": {"name": "n", "port_security_enabled": port_security}}
    )["network"]
    neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.9.0.0/24"}})
    return net


@given(
    network_value=st.booleans(),
    port_value=st.sampled_from([ABSENT, None, True, False]),
)
def test_a_new_port_takes_its_networks_value_unless_it_gives_its_own(network_value, port_value):
    neutron = FakeCloud(seed=7).client("neutron")
    net = _network(neutron, network_value)
    attrs = {"network_id": net["id"]}
    if port_value is not ABSENT:
        attrs["port_security_enabled"] = port_value
    port = neutron.create_port({"port": attrs})["port"]
    expected = network_value if port_value in (ABSENT, None) else port_value
    assert port["port_security_enabled"] is expected
    assert neutron.show_port(port["id"])["port"]["port_security_enabled"] is expected


def test_the_network_value_at_creation_counts_and_existing_ports_keep_theirs(neutron):
    net = _network(neutron, False)
    before = neutron.create_port({"port": {"network_id": net["id"]}})["port"]
    neutron.update_network(net["id"], {"network": {"port_security_enabled": True}})
    after = neutron.create_port({"port": {"network_id": net["id"]}})["port"]
    assert neutron.show_port(before["id"])["port"]["port_security_enabled"] is False
    assert after["port_security_enabled"] is True


def test_a_port_on_a_missing_network_is_still_network_not_found(neutron):
    with pytest.raises(exception.NotFound, match="Network nope could not be found.") as info:
        neutron.create_port({"port": {"network_id": "nope"}})
    assert info.value.body["NeutronError"]["type"] == "NetworkNotFound"


def test_a_port_nova_creates_for_a_server_takes_its_networks_value(cloud, neutron):
    net = _network(neutron, False)
    server = active_server(cloud, networks=[{"uuid": net["id"]}])
    ports = neutron.list_ports(device_id=server.id)["ports"]
    assert [p["port_security_enabled"] for p in ports] == [False]


def test_a_router_interface_port_takes_its_networks_value(neutron):
    net = _network(neutron, False)
    subnet_id = neutron.show_network(net["id"])["network"]["subnets"][0]
    router = neutron.create_router({"router": {"name": "r"}})["router"]
    info = neutron.add_interface_router(router["id"], {"subnet_id": subnet_id})
    assert neutron.show_port(info["port_id"])["port"]["port_security_enabled"] is False
