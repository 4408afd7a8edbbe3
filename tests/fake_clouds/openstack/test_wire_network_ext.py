"""neutron's API extensions on the wire: openstacksdk and python-neutronclient against the fake.

What the clients make over HTTP is the network service's, so the engine's
Python client sees it and the leak check counts it.
"""

from __future__ import annotations

import pytest

pytest.importorskip("openstack")


def test_openstacksdk_qos_policy_with_a_bandwidth_rule(openstack_connection, fake_cloud):
    net_api = openstack_connection.network
    policy = net_api.create_qos_policy(name="gold")
    rule = net_api.create_qos_bandwidth_limit_rule(policy, max_kbps=1000, max_burst_kbps=100)
    assert (rule.max_kbps, rule.direction) == (1000, "egress")
    assert net_api.get_qos_policy(policy.id).rules[0]["id"] == rule.id
    net_api.update_qos_bandwidth_limit_rule(rule, policy, max_kbps=2000)
    assert net_api.get_qos_bandwidth_limit_rule(rule, policy).max_kbps == 2000
    assert [p.name for p in net_api.qos_policies()] == ["gold"]
    neutron = fake_cloud.client("network")
    assert neutron.show_qos_policy(policy.id)["policy"]["name"] == "gold"
    net_api.delete_qos_policy(policy)  # its rules go with it
    assert fake_cloud.leaks() == []
    assert openstack_connection.plugsim_wire.bugs() == []


def test_openstacksdk_trunk_sub_ports_and_conflicts(openstack_connection, fake_cloud):
    from openstack import exceptions

    net_api = openstack_connection.network
    net = net_api.create_network(name="t")
    net_api.create_subnet(network_id=net.id, cidr="10.7.0.0/24", ip_version=4)
    parent, sub = (net_api.create_port(network_id=net.id) for _ in range(2))
    trunk = net_api.create_trunk(port_id=parent.id)
    assert trunk.status == "DOWN"
    with pytest.raises(exceptions.ConflictException):
        net_api.create_trunk(port_id=parent.id)
    net_api.add_trunk_subports(
        trunk, [{"port_id": sub.id, "segmentation_type": "vlan", "segmentation_id": 42}]
    )
    assert net_api.get_trunk_subports(trunk)["sub_ports"][0]["segmentation_id"] == 42
    with pytest.raises(exceptions.ConflictException):
        net_api.delete_port(sub)
    net_api.delete_trunk_subports(trunk, [{"port_id": sub.id}])
    net_api.delete_trunk(trunk)
    for port in (parent, sub):
        net_api.delete_port(port)
    net_api.delete_network(net)
    assert fake_cloud.leaks() == []
    assert openstack_connection.plugsim_wire.bugs() == []


def test_openstacksdk_rbac_metering_sfc_and_taas(openstack_connection, fake_cloud):
    from openstack import exceptions

    net_api = openstack_connection.network
    net = net_api.create_network(name="shared")
    net_api.create_subnet(network_id=net.id, cidr="10.8.0.0/24", ip_version=4)
    rbac = net_api.create_rbac_policy(
        object_type="network", object_id=net.id, action="access_as_shared", target_tenant="*"
    )
    with pytest.raises(exceptions.ConflictException):
        net_api.create_rbac_policy(
            object_type="network", object_id=net.id, action="access_as_shared", target_tenant="*"
        )
    label = net_api.create_metering_label(name="m")
    net_api.create_metering_label_rule(metering_label_id=label.id, remote_ip_prefix="10.0.0.0/8")
    assert len(list(net_api.metering_label_rules())) == 1
    ports = [net_api.create_port(network_id=net.id) for _ in range(2)]
    pair = net_api.create_sfc_port_pair(ingress=ports[0].id, egress=ports[1].id)
    assert [p.id for p in net_api.sfc_port_pairs()] == [pair.id]
    tap = net_api.create_tap_service(port_id=ports[0].id)
    net_api.create_tap_flow(source_port=ports[1].id, tap_service_id=tap.id, direction="IN")
    with pytest.raises(exceptions.NotFoundException):
        net_api.get_tap_service("nowhere")
    net_api.delete_tap_service(tap)  # its tap flow goes with it
    net_api.delete_sfc_port_pair(pair)
    net_api.delete_metering_label(label)
    for port in ports:
        net_api.delete_port(port)
    net_api.delete_network(net)  # its RBAC policy goes with it
    assert fake_cloud.leaks() == []
    assert rbac.id not in [r.id for r in net_api.rbac_policies()]
    assert openstack_connection.plugsim_wire.bugs() == []


def test_neutronclient_firewall_and_network_gateway(session, world):
    from neutronclient.common import exceptions
    from neutronclient.v2_0 import client as neutron_client

    neutron = neutron_client.Client(session=session)
    rule = neutron.create_firewall_rule({"firewall_rule": {"protocol": "tcp", "action": "allow"}})
    rule_id = rule["firewall_rule"]["id"]
    policy = neutron.create_firewall_policy({"firewall_policy": {"firewall_rules": [rule_id]}})
    policy_id = policy["firewall_policy"]["id"]
    firewall = neutron.create_firewall({"firewall": {"firewall_policy_id": policy_id}})
    with pytest.raises(exceptions.Conflict):
        neutron.delete_firewall_policy(policy_id)
    neutron.delete_firewall(firewall["firewall"]["id"])
    neutron.delete_firewall_policy(policy_id)
    neutron.delete_firewall_rule(rule_id)
    gw = neutron.create_network_gateway(
        {"network_gateway": {"devices": [{"id": "d1", "interface_name": "breth0"}]}}
    )["network_gateway"]
    net = neutron.create_network({"network": {"name": "g"}})["network"]
    info = neutron.connect_network_gateway(gw["id"], {"network_id": net["id"]})
    assert info["connection_info"]["network_gateway_id"] == gw["id"]
    with pytest.raises(exceptions.Conflict):
        neutron.delete_network_gateway(gw["id"])
    neutron.disconnect_network_gateway(gw["id"], {"network_id": net["id"]})
    neutron.delete_network_gateway(gw["id"])
    neutron.delete_network(net["id"])
    assert world.leaks() == []
