"""Attribute schemas of the network service's extension kinds.

neutron's API extensions plugsim's fake network serves beyond the core
(:mod:`fake_clouds.core.network_schema`): QoS policies and their rules, trunks,
FWaaS v1 firewalls, metering labels, RBAC policies, L2 gateways, network
gateways, networking-sfc (port pairs, port pair groups, flow classifiers,
port chains) and tap-as-a-service. Each kind lists its attribute defaults, its
required attributes and the ones an update may change, in the same shape as
the core table, which merges these in (so the generic CRUD, the client and the
leak check see them like any other kind). None of them has a default quota.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.network_vpn import VPN_NOT_FOUND, VPN_SCHEMAS

_COMMON = {"name": "", "description": "", "tenant_id": "plugsim", "project_id": "plugsim"}
_NAMED = ("name", "description")

#: The QoS rule kinds: kind -> (its own attributes, required ones, updatable ones).
QOS_RULES: dict[str, tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]] = {
    "bandwidth_limit_rule": (
        {"max_kbps": None, "max_burst_kbps": 0, "direction": "egress"},
        ("max_kbps",),
        ("max_kbps", "max_burst_kbps", "direction"),
    ),
    "dscp_marking_rule": ({"dscp_mark": None}, ("dscp_mark",), ("dscp_mark",)),
    "minimum_bandwidth_rule": (
        {"min_kbps": None, "direction": "egress"},
        ("min_kbps",),
        ("min_kbps", "direction"),
    ),
    "minimum_packet_rate_rule": (
        {"min_kpps": None, "direction": "egress"},
        ("min_kpps",),
        ("min_kpps", "direction"),
    ),
}

#: kind -> (attribute defaults, required attributes, updatable attributes)
EXT_SCHEMAS: dict[str, tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]] = {
    "qos_policy": (
        {**_COMMON, "shared": False, "is_default": False, "rules": []},
        (),
        (*_NAMED, "shared", "is_default"),
    ),
    **{
        kind: ({**_COMMON, "qos_policy_id": None, **own}, ("qos_policy_id", *required), updatable)
        for kind, (own, required, updatable) in QOS_RULES.items()
    },
    "trunk": (
        {**_COMMON, "port_id": None, "admin_state_up": True, "sub_ports": []},
        ("port_id",),
        (*_NAMED, "admin_state_up"),
    ),
    "firewall": (
        {
            **_COMMON,
            "firewall_policy_id": None,
            "admin_state_up": True,
            "shared": False,
            "router_ids": [],
        },
        ("firewall_policy_id",),
        (*_NAMED, "firewall_policy_id", "admin_state_up", "shared", "router_ids"),
    ),
    "firewall_policy": (
        {**_COMMON, "firewall_rules": [], "shared": False, "audited": False},
        (),
        (*_NAMED, "firewall_rules", "shared", "audited"),
    ),
    "firewall_rule": (
        {
            **_COMMON,
            "protocol": None,
            "ip_version": 4,
            "source_ip_address": None,
            "destination_ip_address": None,
            "source_port": None,
            "destination_port": None,
            "action": "deny",
            "enabled": True,
            "shared": False,
            "firewall_policy_id": None,
            "position": None,
        },
        (),
        (
            *_NAMED,
            "protocol",
            "ip_version",
            "source_ip_address",
            "destination_ip_address",
            "source_port",
            "destination_port",
            "action",
            "enabled",
            "shared",
        ),
    ),
    "metering_label": ({**_COMMON, "shared": False}, (), ()),
    "metering_label_rule": (
        {
            **_COMMON,
            "metering_label_id": None,
            "remote_ip_prefix": None,
            "direction": "ingress",
            "excluded": False,
        },
        ("metering_label_id", "remote_ip_prefix"),
        (),
    ),
    "rbac_policy": (
        {
            **_COMMON,
            "object_type": None,
            "object_id": None,
            "action": None,
            "target_tenant": None,
        },
        ("object_type", "object_id", "action", "target_tenant"),
        ("target_tenant",),
    ),
    "l2_gateway": ({**_COMMON, "devices": []}, ("devices",), ("name", "devices")),
    "l2_gateway_connection": (
        {**_COMMON, "l2_gateway_id": None, "network_id": None, "segmentation_id": None},
        ("l2_gateway_id", "network_id"),
        (),
    ),
    "network_gateway": (
        {**_COMMON, "devices": [], "default": False, "ports": []},
        ("devices",),
        ("name",),
    ),
    "port_pair": (
        {**_COMMON, "ingress": None, "egress": None, "service_function_parameters": {}},
        ("ingress", "egress"),
        _NAMED,
    ),
    "port_pair_group": (
        {
            **_COMMON,
            "port_pairs": [],
            "port_pair_group_parameters": {},
            "group_id": None,
            "tap_enabled": False,
        },
        (),
        (*_NAMED, "port_pairs"),
    ),
    "flow_classifier": (
        {
            **_COMMON,
            "ethertype": "IPv4",
            "protocol": None,
            "source_ip_prefix": None,
            "destination_ip_prefix": None,
            "source_port_range_min": None,
            "source_port_range_max": None,
            "destination_port_range_min": None,
            "destination_port_range_max": None,
            "logical_source_port": None,
            "logical_destination_port": None,
            "l7_parameters": {},
        },
        (),
        _NAMED,
    ),
    "port_chain": (
        {
            **_COMMON,
            "port_pair_groups": [],
            "flow_classifiers": [],
            "chain_parameters": {},
            "chain_id": None,
        },
        ("port_pair_groups",),
        (*_NAMED, "port_pair_groups", "flow_classifiers"),
    ),
    "tap_service": ({**_COMMON, "port_id": None}, ("port_id",), _NAMED),
    "tap_flow": (
        {
            **_COMMON,
            "source_port": None,
            "tap_service_id": None,
            "direction": "BOTH",
            "vlan_filter": None,
        },
        ("source_port", "tap_service_id"),
        _NAMED,
    ),
}

EXT_SCHEMAS.update(VPN_SCHEMAS)

#: kind -> (plural used in operation names and python-neutronclient's methods, quota: none)
EXT_PLURALS: dict[str, tuple[str, int | None]] = {
    kind: (kind[: -len("policy")] + "policies" if kind.endswith("policy") else kind + "s", None)
    for kind in EXT_SCHEMAS
}

#: neutron's error type of an unknown id, per kind.
EXT_NOT_FOUND: dict[str, str] = {
    "qos_policy": "QosPolicyNotFound",
    **{kind: "QosRuleNotFound" for kind in QOS_RULES},
    "trunk": "TrunkNotFound",
    "firewall": "FirewallNotFound",
    "firewall_policy": "FirewallPolicyNotFound",
    "firewall_rule": "FirewallRuleNotFound",
    "metering_label": "MeteringLabelNotFound",
    "metering_label_rule": "MeteringLabelRuleNotFound",
    "rbac_policy": "RbacPolicyNotFound",
    "l2_gateway": "L2GatewayNotFound",
    "l2_gateway_connection": "L2GatewayConnectionNotFound",
    "network_gateway": "NetworkGatewayNotFound",
    "port_pair": "PortPairNotFound",
    "port_pair_group": "PortPairGroupNotFound",
    "flow_classifier": "FlowClassifierNotFound",
    "port_chain": "PortChainNotFound",
    "tap_service": "TapServiceNotFound",
    "tap_flow": "TapFlowNotFound",
    **VPN_NOT_FOUND,
}

#: Body keys python-neutronclient uses when they differ from the kind: (member, collection).
BODY_KEYS: dict[str, tuple[str, str]] = {"qos_policy": ("policy", "policies")}

#: The URL paths of the kinds served under a sub-path (neutron's ``*_ext`` client calls).
EXT_PATHS: dict[str, str] = {
    "/sfc/port_pairs": "port_pair",
    "/sfc/port_pair_groups": "port_pair_group",
    "/sfc/flow_classifiers": "flow_classifier",
    "/sfc/port_chains": "port_chain",
    "/taas/tap_services": "tap_service",
    "/taas/tap_flows": "tap_flow",
}
