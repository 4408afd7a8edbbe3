"""A server's interfaces: attach a port or a network, detach, list (nova's os-interface)."""

from __future__ import annotations

import pytest
from fake_cloud_helpers import active_server

from sdk import exception


def _net_with_subnet(neutron, name: str, cidr: str) -> tuple[str, str]:
    net = neutron.create_network({"network": {"name": name}})["network"]["id"]
    body = {"subnet": {"network_id": net, "cidr": cidr, "ip_version": 4}}
    return net, neutron.create_subnet(body)["subnet"]["id"]


def test_attach_network_then_port_appends_addresses_in_order(cloud, nova, neutron):
    net, subnet = _net_with_subnet(neutron, "ifnet", "10.9.0.0/24")
    server = active_server(cloud, networks=[{"uuid": net}])
    first = nova.servers.interface_list(server)
    assert [i.net_id for i in first] == [net]
    body = {
        "port": {"network_id": net, "fixed_ips": [{"subnet_id": subnet, "ip_address": "10.9.0.50"}]}
    }
    port = neutron.create_port(body)["port"]["id"]
    nova.servers.interface_attach(server, None, net, "10.9.0.40")
    nova.servers.interface_attach(server, port, None)
    addrs = [a["addr"] for a in nova.servers.get(server.id).addresses["ifnet"]]
    assert addrs[1:] == ["10.9.0.40", "10.9.0.50"]
    assert [i.port_id for i in nova.servers.interface_list(server)][-1] == port
    assert neutron.show_port(port)["port"]["device_id"] == server.id


def test_detach_deletes_a_nova_port_and_frees_a_user_port(cloud, nova, neutron):
    net, subnet = _net_with_subnet(neutron, "ifnet", "10.9.0.0/24")
    port = neutron.create_port({"port": {"network_id": net}})["port"]["id"]
    server = active_server(cloud, networks=[{"uuid": net}, {"port": port}])
    nova_port = nova.servers.interface_list(server)[0].port_id
    nova.servers.interface_detach(server, port)
    nova.servers.interface_detach(server, nova_port)
    assert nova.servers.get(server.id).addresses == {}
    assert nova.servers.interface_list(server) == []
    assert neutron.show_port(port)["port"]["device_id"] == ""
    cloud.clock.advance(60)
    assert nova_port not in [p["id"] for p in neutron.list_ports()["ports"]]
    with pytest.raises(exception.NotFound, match="not attached"):
        nova.servers.interface_detach(server, port)


def test_attach_takes_a_port_or_a_network_not_both(cloud, nova, neutron):
    net, _subnet = _net_with_subnet(neutron, "ifnet", "10.9.0.0/24")
    port = neutron.create_port({"port": {"network_id": net}})["port"]["id"]
    server = active_server(cloud)
    with pytest.raises(exception.BadRequest, match="not both"):
        nova.servers.interface_attach(server, port, net)
