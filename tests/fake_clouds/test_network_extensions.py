"""neutron's API extensions on the fake network: QoS, trunks, FWaaS v1, metering, RBAC,
L2 and network gateways, networking-sfc and tap-as-a-service.

Each checks what neutron answers: required fields (400), unknown ids (404),
conflicts (409) and the cascades neutron performs; every object is an
entity of the world, so one left behind is a leak.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from sdk import exception


def _error_type(info: pytest.ExceptionInfo) -> str:
    return info.value.body["NeutronError"]["type"]


def _net_with_ports(neutron, count: int = 2) -> tuple[dict, list[dict]]:
    net = neutron.create_network({"network": {"name": "n"}})["network"]
    neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.9.0.0/24"}})
    ports = [neutron.create_port({"port": {"network_id": net["id"]}})["port"] for _ in range(count)]
    return net, ports


# --- QoS ------------------------------------------------------------------------------


def test_a_qos_rule_lives_in_its_policy_and_goes_with_it(cloud, neutron):
    policy = neutron.create_qos_policy({"policy": {"name": "gold"}})["policy"]
    rule = neutron.create_bandwidth_limit_rule(
        policy["id"], {"bandwidth_limit_rule": {"max_kbps": 1000}}
    )["bandwidth_limit_rule"]
    assert (rule["max_kbps"], rule["max_burst_kbps"], rule["direction"]) == (1000, 0, "egress")
    shown = neutron.show_qos_policy(policy["id"])["policy"]
    assert [r["id"] for r in shown["rules"]] == [rule["id"]]
    assert neutron.list_qos_policies()["policies"][0]["name"] == "gold"
    assert neutron.list_bandwidth_limit_rules(policy["id"])["bandwidth_limit_rules"] == [rule]
    neutron.delete_qos_policy(policy["id"])
    assert cloud.leaks() == []


def test_a_qos_rule_needs_its_policy_and_one_rule_per_direction(neutron):
    with pytest.raises(exception.NotFound) as missing:
        neutron.create_dscp_marking_rule("nowhere", {"dscp_marking_rule": {"dscp_mark": 8}})
    assert _error_type(missing) == "QosPolicyNotFound"
    policy = neutron.create_qos_policy({"policy": {}})["policy"]["id"]
    body = {"minimum_bandwidth_rule": {"min_kbps": 10}}
    neutron.create_minimum_bandwidth_rule(policy, body)
    with pytest.raises(exception.Conflict, match="already exists in QoS policy"):
        neutron.create_minimum_bandwidth_rule(policy, body)
    ingress = {"minimum_bandwidth_rule": {"min_kbps": 10, "direction": "ingress"}}
    assert neutron.create_minimum_bandwidth_rule(policy, ingress)
    with pytest.raises(exception.BadRequest, match="Required attribute 'min_kbps'"):
        neutron.create_minimum_bandwidth_rule(policy, {"minimum_bandwidth_rule": {}})
    with pytest.raises(exception.BadRequest, match="not a valid DSCP mark"):
        neutron.create_dscp_marking_rule(policy, {"dscp_marking_rule": {"dscp_mark": 7}})


def test_a_rule_is_found_only_through_its_own_policy(neutron):
    first = neutron.create_qos_policy({"policy": {}})["policy"]["id"]
    other = neutron.create_qos_policy({"policy": {}})["policy"]["id"]
    rule = neutron.create_bandwidth_limit_rule(first, {"bandwidth_limit_rule": {"max_kbps": 5}})
    rule_id = rule["bandwidth_limit_rule"]["id"]
    with pytest.raises(exception.NotFound) as wrong:
        neutron.show_bandwidth_limit_rule(rule_id, other)
    assert _error_type(wrong) == "QosRuleNotFound"
    changed = neutron.update_bandwidth_limit_rule(
        rule_id, first, {"bandwidth_limit_rule": {"max_kbps": 9}}
    )
    assert changed["bandwidth_limit_rule"]["max_kbps"] == 9


# --- trunks ----------------------------------------------------------------------------


def test_a_trunk_holds_sub_ports_that_cannot_be_deleted_under_it(cloud, neutron):
    _net, (parent, sub, extra) = _net_with_ports(neutron, 3)
    trunk = neutron.create_trunk(
        {
            "trunk": {
                "port_id": parent["id"],
                "sub_ports": [
                    {"port_id": sub["id"], "segmentation_type": "vlan", "segmentation_id": 10}
                ],
            }
        }
    )["trunk"]
    assert trunk["status"] == "DOWN"  # its parent port is bound to nothing
    with pytest.raises(exception.Conflict) as in_use:
        neutron.delete_port(sub["id"])
    assert _error_type(in_use) == "PortInUseAsSubPort"
    with pytest.raises(exception.Conflict) as parent_in_use:
        neutron.delete_port(parent["id"])
    assert _error_type(parent_in_use) == "PortInUseAsTrunkParent"
    dup = {"sub_ports": [{"port_id": extra["id"], "segmentation_id": 10}]}
    with pytest.raises(exception.Conflict) as duplicate:
        neutron.trunk_add_subports(trunk["id"], dup)
    assert _error_type(duplicate) == "DuplicateSubPort"
    neutron.trunk_add_subports(
        trunk["id"], {"sub_ports": [{**dup["sub_ports"][0], "segmentation_id": 11}]}
    )
    assert [s["segmentation_id"] for s in neutron.trunk_get_subports(trunk["id"])["sub_ports"]] == [
        10,
        11,
    ]
    neutron.trunk_remove_subports(trunk["id"], {"sub_ports": [{"port_id": sub["id"]}]})
    with pytest.raises(exception.NotFound):
        neutron.trunk_remove_subports(trunk["id"], {"sub_ports": [{"port_id": sub["id"]}]})
    neutron.delete_port(sub["id"])
    neutron.delete_trunk(trunk["id"])
    neutron.delete_port(parent["id"])
    assert [i.kind for i in cloud.leaks()] == ["network", "port", "subnet"]


def test_a_port_is_the_parent_of_one_trunk_only_and_a_bound_trunk_stays(neutron):
    _net, (parent,) = _net_with_ports(neutron, 1)
    trunk = neutron.create_trunk({"trunk": {"port_id": parent["id"]}})["trunk"]
    with pytest.raises(exception.Conflict) as taken:
        neutron.create_trunk({"trunk": {"port_id": parent["id"]}})
    assert _error_type(taken) == "TrunkPortInUse"
    with pytest.raises(exception.NotFound):
        neutron.create_trunk({"trunk": {"port_id": "nowhere"}})
    neutron.update_port(parent["id"], {"port": {"device_id": "vm-1"}})
    with pytest.raises(exception.Conflict) as bound:
        neutron.delete_trunk(trunk["id"])
    assert _error_type(bound) == "TrunkInUse"


def test_a_trunk_parent_port_shows_its_trunk_details(neutron):
    _net, (parent, sub, extra) = _net_with_ports(neutron, 3)
    assert "trunk_details" not in neutron.show_port(parent["id"])["port"]
    vlan = {"port_id": sub["id"], "segmentation_type": "vlan", "segmentation_id": 10}
    body = {"trunk": {"port_id": parent["id"], "sub_ports": [vlan]}}
    trunk = neutron.create_trunk(body)["trunk"]["id"]
    details = neutron.show_port(parent["id"])["port"]["trunk_details"]
    assert details == {
        "trunk_id": trunk,
        "sub_ports": [{**vlan, "mac_address": sub["mac_address"]}],
    }
    more = {"port_id": extra["id"], "segmentation_type": "vlan", "segmentation_id": 11}
    neutron.trunk_add_subports(trunk, {"sub_ports": [more]})
    neutron.trunk_remove_subports(trunk, {"sub_ports": [{"port_id": sub["id"]}]})
    details = neutron.show_port(parent["id"])["port"]["trunk_details"]
    assert details["sub_ports"] == [{**more, "mac_address": extra["mac_address"]}]
    assert "trunk_details" not in neutron.show_port(sub["id"])["port"]
    neutron.delete_trunk(trunk)
    assert "trunk_details" not in neutron.show_port(parent["id"])["port"]


# --- FWaaS v1 ------------------------------------------------------------------------


def test_a_firewall_holds_its_policy_which_holds_its_rules(cloud, neutron):
    rule = neutron.create_firewall_rule(
        {"firewall_rule": {"protocol": "tcp", "destination_port": "22", "action": "allow"}}
    )["firewall_rule"]
    policy = neutron.create_firewall_policy({"firewall_policy": {"firewall_rules": [rule["id"]]}})[
        "firewall_policy"
    ]
    assert (
        neutron.show_firewall_rule(rule["id"])["firewall_rule"]["firewall_policy_id"]
        == (policy["id"])
    )
    with pytest.raises(exception.Conflict) as claimed:
        neutron.create_firewall_policy({"firewall_policy": {"firewall_rules": [rule["id"]]}})
    assert _error_type(claimed) == "FirewallRuleInUse"
    firewall = neutron.create_firewall({"firewall": {"firewall_policy_id": policy["id"]}})
    assert firewall["firewall"]["status"] in ("PENDING_CREATE", "INACTIVE")
    cloud.clock.advance(60)
    assert neutron.show_firewall(firewall["firewall"]["id"])["firewall"]["status"] == "INACTIVE"
    for victim, error in ((policy, "FirewallPolicyInUse"), (rule, "FirewallRuleInUse")):
        kind = "firewall_policy" if victim is policy else "firewall_rule"
        with pytest.raises(exception.Conflict) as in_use:
            getattr(neutron, f"delete_{kind}")(victim["id"])
        assert _error_type(in_use) == error
    neutron.delete_firewall(firewall["firewall"]["id"])
    neutron.delete_firewall_policy(policy["id"])
    assert neutron.show_firewall_rule(rule["id"])["firewall_rule"]["firewall_policy_id"] is None
    neutron.delete_firewall_rule(rule["id"])
    assert cloud.leaks() == []


def test_a_firewall_needs_an_existing_policy_and_rules_a_port_protocol(neutron):
    with pytest.raises(exception.NotFound) as missing:
        neutron.create_firewall({"firewall": {"firewall_policy_id": "nowhere"}})
    assert _error_type(missing) == "FirewallPolicyNotFound"
    with pytest.raises(exception.BadRequest, match="need protocol tcp or udp"):
        neutron.create_firewall_rule({"firewall_rule": {"protocol": "icmp", "source_port": "80"}})


# --- metering and RBAC ---------------------------------------------------------------


def test_metering_rules_belong_to_a_label_and_do_not_overlap(cloud, neutron):
    label = neutron.create_metering_label({"metering_label": {"name": "m"}})["metering_label"]
    rule = {"metering_label_id": label["id"], "remote_ip_prefix": "10.0.0.0/16"}
    neutron.create_metering_label_rule({"metering_label_rule": rule})
    with pytest.raises(exception.Conflict) as overlap:
        neutron.create_metering_label_rule(
            {"metering_label_rule": {**rule, "remote_ip_prefix": "10.0.5.0/24"}}
        )
    assert _error_type(overlap) == "MeteringLabelRuleOverlaps"
    egress = {**rule, "direction": "egress", "remote_ip_prefix": "10.0.5.0/24"}
    neutron.create_metering_label_rule({"metering_label_rule": egress})
    with pytest.raises(exception.NotFound):
        neutron.create_metering_label_rule(
            {"metering_label_rule": {**rule, "metering_label_id": "x"}}
        )
    neutron.delete_metering_label(label["id"])  # its rules go with it
    assert cloud.leaks() == []


def test_an_rbac_policy_names_a_real_object_once_and_goes_with_it(cloud, neutron):
    net = neutron.create_network({"network": {"name": "shared-me"}})["network"]
    spec = {
        "object_type": "network",
        "object_id": net["id"],
        "action": "access_as_shared",
        "target_tenant": "*",
    }
    neutron.create_rbac_policy({"rbac_policy": spec})
    with pytest.raises(exception.Conflict) as duplicate:
        neutron.create_rbac_policy({"rbac_policy": spec})
    assert _error_type(duplicate) == "DuplicateRbacPolicy"
    with pytest.raises(exception.NotFound):
        neutron.create_rbac_policy({"rbac_policy": {**spec, "object_id": "nowhere"}})
    policy = neutron.create_qos_policy({"policy": {}})["policy"]
    bad = {**spec, "object_type": "qos_policy", "object_id": policy["id"]}
    with pytest.raises(exception.BadRequest, match="not allowed for object_type qos_policy"):
        neutron.create_rbac_policy({"rbac_policy": {**bad, "action": "access_as_external"}})
    neutron.delete_network(net["id"])
    neutron.delete_qos_policy(policy["id"])
    assert cloud.leaks() == []


# --- gateways ------------------------------------------------------------------------


def test_an_l2_gateway_in_use_by_a_connection_cannot_be_deleted(cloud, neutron):
    with pytest.raises(exception.BadRequest, match="devices must be a non-empty list"):
        neutron.create_l2_gateway({"l2_gateway": {"name": "g", "devices": []}})
    devices = [{"device_name": "sw", "interfaces": [{"name": "eth1"}]}]
    gateway = neutron.create_l2_gateway({"l2_gateway": {"name": "g", "devices": devices}})
    gw_id = gateway["l2_gateway"]["id"]
    net = neutron.create_network({"network": {}})["network"]
    conn = {"l2_gateway_id": gw_id, "network_id": net["id"]}
    made = neutron.create_l2_gateway_connection({"l2_gateway_connection": conn})
    with pytest.raises(exception.Conflict):
        neutron.create_l2_gateway_connection({"l2_gateway_connection": conn})
    with pytest.raises(exception.Conflict) as in_use:
        neutron.delete_l2_gateway(gw_id)
    assert _error_type(in_use) == "L2GatewayInUse"
    neutron.delete_l2_gateway_connection(made["l2_gateway_connection"]["id"])
    neutron.delete_l2_gateway(gw_id)
    neutron.delete_network(net["id"])
    assert cloud.leaks() == []


def test_a_network_gateway_connection_plugs_a_port_into_the_network(cloud, neutron):
    devices = [{"id": "dev-1", "interface_name": "breth0"}]
    gateway = neutron.create_network_gateway({"network_gateway": {"devices": devices}})
    gw_id = gateway["network_gateway"]["id"]
    net, _ports = _net_with_ports(neutron, 0)
    info = neutron.connect_network_gateway(gw_id, {"network_id": net["id"]})["connection_info"]
    port = neutron.show_port(info["port_id"])["port"]
    assert (port["device_id"], port["network_id"]) == (gw_id, net["id"])
    with pytest.raises(exception.Conflict):
        neutron.delete_network(net["id"])  # the gateway's port is on it
    with pytest.raises(exception.Conflict) as in_use:
        neutron.delete_network_gateway(gw_id)
    assert _error_type(in_use) == "NetworkGatewayPortInUse"
    neutron.disconnect_network_gateway(gw_id, {"network_id": net["id"]})
    with pytest.raises(exception.NotFound):
        neutron.disconnect_network_gateway(gw_id, {"network_id": net["id"]})
    neutron.delete_network_gateway(gw_id)
    neutron.delete_network(net["id"])
    assert cloud.leaks() == []


# --- networking-sfc and taas -----------------------------------------------------------


def test_an_sfc_chain_claims_its_groups_pairs_and_ports(cloud, neutron):
    _net, (ingress, egress) = _net_with_ports(neutron, 2)
    pair = neutron.create_ext(
        "/sfc/port_pairs", {"port_pair": {"ingress": ingress["id"], "egress": egress["id"]}}
    )["port_pair"]
    assert pair["service_function_parameters"] == {"correlation": None, "weight": 1}
    with pytest.raises(exception.Conflict) as same_ports:
        neutron.create_port_pair({"port_pair": {"ingress": ingress["id"], "egress": egress["id"]}})
    assert _error_type(same_ports) == "PortPairIngressEgressInUse"
    group = neutron.create_port_pair_group({"port_pair_group": {"port_pairs": [pair["id"]]}})
    group_id = group["port_pair_group"]["id"]
    with pytest.raises(exception.Conflict) as claimed:
        neutron.create_port_pair_group({"port_pair_group": {"port_pairs": [pair["id"]]}})
    assert _error_type(claimed) == "PortPairInUse"
    classifier = neutron.create_flow_classifier(
        {"flow_classifier": {"protocol": "tcp", "logical_source_port": ingress["id"]}}
    )["flow_classifier"]
    with pytest.raises(exception.BadRequest, match="at least one port pair group"):
        neutron.create_port_chain({"port_chain": {"port_pair_groups": []}})
    chain = neutron.create_port_chain(
        {"port_chain": {"port_pair_groups": [group_id], "flow_classifiers": [classifier["id"]]}}
    )["port_chain"]
    assert chain["chain_parameters"] == {"correlation": "mpls", "symmetric": False}
    for kind, ident in (("port_pair_group", group_id), ("flow_classifier", classifier["id"])):
        with pytest.raises(exception.Conflict):
            getattr(neutron, f"delete_{kind}")(ident)
    with pytest.raises(exception.Conflict) as port_in_use:
        neutron.delete_port(ingress["id"])
    assert _error_type(port_in_use) == "PortInUse"
    neutron.delete_ext("/sfc/port_chains/%s", chain["id"])
    for kind, ident in (
        ("port_pair_group", group_id),
        ("port_pair", pair["id"]),
        ("flow_classifier", classifier["id"]),
    ):
        getattr(neutron, f"delete_{kind}")(ident)
    assert {i.kind for i in cloud.leaks()} == {"network", "subnet", "port"}


def test_an_unknown_extension_path_is_a_404(neutron):
    with pytest.raises(exception.NotFound, match="no extension collection at /sfc/nothing"):
        neutron.show_ext("/sfc/nothing/%s", "x")


def test_deleting_a_tap_service_deletes_its_tap_flows(cloud, neutron):
    _net, (mirror, source) = _net_with_ports(neutron, 2)
    service = neutron.create_tap_service({"tap_service": {"port_id": mirror["id"]}})["tap_service"]
    assert service["status"] == "ACTIVE"
    with pytest.raises(exception.Conflict):
        neutron.create_tap_service({"tap_service": {"port_id": mirror["id"]}})
    with pytest.raises(exception.NotFound) as missing:
        neutron.create_tap_flow(
            {"tap_flow": {"source_port": source["id"], "tap_service_id": "nowhere"}}
        )
    assert _error_type(missing) == "TapServiceNotFound"
    flow = {"source_port": source["id"], "tap_service_id": service["id"], "direction": "IN"}
    neutron.create_tap_flow({"tap_flow": flow})
    neutron.delete_tap_service(service["id"])
    assert neutron.list_tap_flows()["tap_flows"] == []
    assert {i.kind for i in cloud.leaks()} == {"network", "subnet", "port"}


def test_an_extension_object_left_behind_is_a_leak(cloud, neutron):
    mark = cloud.snapshot_inventory()
    policy = neutron.create_qos_policy({"policy": {"name": "left"}})["policy"]
    assert [(i.kind, i.id) for i in cloud.leaks(mark)] == [("qos_policy", policy["id"])]


@settings(max_examples=30, deadline=None)
@given(segs=st.lists(st.integers(min_value=-2, max_value=4100), min_size=1, max_size=5))
def test_trunk_sub_ports_take_unique_vlan_ids_in_range(segs):
    neutron = FakeCloud(seed=7).client("neutron")
    _net, ports = _net_with_ports(neutron, len(segs) + 1)
    subs = [
        {"port_id": p["id"], "segmentation_type": "vlan", "segmentation_id": s}
        for p, s in zip(ports[1:], segs, strict=True)
    ]
    valid = all(1 <= s <= 4094 for s in segs) and len(set(segs)) == len(segs)
    body = {"trunk": {"port_id": ports[0]["id"], "sub_ports": subs}}
    if valid:
        made = neutron.create_trunk(body)["trunk"]
        assert [s["segmentation_id"] for s in made["sub_ports"]] == segs
    else:
        with pytest.raises((exception.BadRequest, exception.Conflict)):
            neutron.create_trunk(body)
        assert neutron.list_trunks()["trunks"] == []


def test_a_qos_policy_in_use_by_a_port_or_network_stays(neutron):
    policy = neutron.create_qos_policy({"policy": {"name": "p"}})["policy"]["id"]
    with pytest.raises(exception.NotFound) as missing:
        neutron.create_network({"network": {"qos_policy_id": "nowhere"}})
    assert _error_type(missing) == "QosPolicyNotFound"
    net = neutron.create_network({"network": {"qos_policy_id": policy}})["network"]
    with pytest.raises(exception.Conflict) as in_use:
        neutron.delete_qos_policy(policy)
    assert _error_type(in_use) == "QosPolicyInUse"
    neutron.update_network(net["id"], {"network": {"qos_policy_id": None}})
    neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.3.0.0/24"}})
    port = neutron.create_port({"port": {"network_id": net["id"]}})["port"]
    neutron.update_port(port["id"], {"port": {"qos_policy_id": policy}})
    with pytest.raises(exception.Conflict):
        neutron.delete_qos_policy(policy)
    neutron.delete_port(port["id"])
    neutron.delete_qos_policy(policy)


def test_inherit_sub_ports_need_no_vlan_id(neutron):
    _net, (parent, first, second) = _net_with_ports(neutron, 3)
    subs = [{"port_id": p["id"], "segmentation_type": "inherit"} for p in (first, second)]
    trunk = neutron.create_trunk({"trunk": {"port_id": parent["id"], "sub_ports": subs}})
    assert [s["port_id"] for s in trunk["trunk"]["sub_ports"]] == [first["id"], second["id"]]
    with pytest.raises(exception.Conflict):
        neutron.trunk_add_subports(trunk["trunk"]["id"], {"sub_ports": subs[:1]})


def test_a_minimum_packet_rate_rule_may_apply_in_any_direction(neutron):
    """neutron's minimum packet rate rule takes 'any' as well as ingress and egress."""
    policy = neutron.create_qos_policy({"policy": {"name": "pps"}})["policy"]
    rule = neutron.create_minimum_packet_rate_rule(
        policy["id"], {"minimum_packet_rate_rule": {"min_kpps": 1000, "direction": "any"}}
    )["minimum_packet_rate_rule"]
    assert rule["direction"] == "any"
    with pytest.raises(exception.BadRequest, match="direction 'any'"):
        neutron.create_minimum_bandwidth_rule(
            policy["id"], {"minimum_bandwidth_rule": {"min_kbps": 10, "direction": "any"}}
        )


def test_a_policys_rules_are_numbered_in_its_order(neutron):
    rules = [
        neutron.create_firewall_rule({"firewall_rule": {"protocol": "tcp"}})["firewall_rule"]["id"]
        for _ in range(3)
    ]
    assert neutron.show_firewall_rule(rules[0])["firewall_rule"]["position"] is None
    policy = neutron.create_firewall_policy(
        {"firewall_policy": {"firewall_rules": [rules[2], rules[0]]}}
    )["firewall_policy"]
    positions = {r: neutron.show_firewall_rule(r)["firewall_rule"]["position"] for r in rules}
    assert positions == {rules[2]: 1, rules[0]: 2, rules[1]: None}
    neutron.update_firewall_policy(
        policy["id"], {"firewall_policy": {"firewall_rules": [rules[0]]}}
    )
    positions = {r: neutron.show_firewall_rule(r)["firewall_rule"]["position"] for r in rules}
    assert positions == {rules[0]: 1, rules[1]: None, rules[2]: None}
