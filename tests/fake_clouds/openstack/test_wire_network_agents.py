"""Neutron agents on the wire: the network service's agents, hosting networks and routers."""

from __future__ import annotations

import uuid

import pytest

openstack = pytest.importorskip("openstack")


def _agent(network, agent_type):
    return next(a for a in network.agents() if a.agent_type == agent_type)


def test_agents_are_listed_shown_and_updated(openstack_connection, fake_cloud):
    network = openstack_connection.network
    agents = list(network.agents())
    assert [a.agent_type for a in agents][:2] == ["DHCP agent", "L3 agent"]
    assert all(str(uuid.UUID(a.id)) == a.id and a.is_alive for a in agents)
    l3 = network.update_agent(agents[1].id, description="routers here", is_admin_state_up=False)
    assert (l3.description, l3.is_admin_state_up) == ("routers here", False)
    assert network.get_agent(l3.id).description == "routers here"
    assert fake_cloud.service("network").get_agent(l3.id)["admin_state_up"] is False
    with pytest.raises(openstack.exceptions.NotFoundException):
        network.get_agent("no-such-agent")


def test_dhcp_agent_hosts_networks_and_l3_agent_hosts_routers(openstack_connection):
    network = openstack_connection.network
    net = network.create_network(name="hosted")
    router = network.create_router(name="hosted-r")
    dhcp, l3 = _agent(network, "DHCP agent"), _agent(network, "L3 agent")
    dhcp.add_agent_to_network(network, network_id=net.id)
    assert [n.id for n in network.dhcp_agent_hosting_networks(dhcp.id)] == [net.id]
    dhcp.remove_agent_from_network(network, network_id=net.id)
    assert list(network.dhcp_agent_hosting_networks(dhcp.id)) == []
    network.add_router_to_agent(l3, router)
    assert [r.id for r in network.agent_hosted_routers(l3)] == [router.id]
    again = network.post(f"/agents/{l3.id}/l3-routers", json={"router_id": router.id})
    assert again.status_code == 409
    assert "already hosted" in again.json()["NeutronError"]["message"]
    network.delete_router(router)
    assert list(network.agent_hosted_routers(l3)) == []
