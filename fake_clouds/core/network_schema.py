"""Attribute schemas of the network entities and their generic CRUD operations.

Each kind lists its attributes with defaults, the required ones and the ones
an update may change. :func:`crud_operations` builds the
``<plural>.create|get|list|update|delete`` operations of
:class:`fake_clouds.network.NetworkService` from these tables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fake_clouds.core.network_ext_schema import EXT_NOT_FOUND, EXT_PLURALS, EXT_SCHEMAS
from fake_clouds.core.service import operation
from fake_clouds.core.tracking import plain
from sdk import exception

_COMMON = {"name": "", "description": "", "tenant_id": "plugsim", "project_id": "plugsim"}

#: kind -> (attribute defaults, required attributes, updatable attributes)
SCHEMAS: dict[str, tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]] = {
    "network": (
        {
            **_COMMON,
            "admin_state_up": True,
            "shared": False,
            "router:external": False,
            "mtu": 1500,
            "port_security_enabled": True,
            # neutron's l2_adjacency and network availability zone extensions
            "l2_adjacency": True,
            "availability_zone_hints": [],
            # neutron's provider extension (what an admin gives; None when unset)
            "provider:network_type": None,
            "provider:physical_network": None,
            "provider:segmentation_id": None,
            "qos_policy_id": None,  # neutron's qos extension
        },
        (),
        (
            "name",
            "description",
            "admin_state_up",
            "shared",
            "router:external",
            "mtu",
            "port_security_enabled",
            "provider:network_type",
            "provider:physical_network",
            "provider:segmentation_id",
            "qos_policy_id",
        ),
    ),
    "subnet": (
        {
            **_COMMON,
            "network_id": None,
            "cidr": None,
            "ip_version": 4,
            "gateway_ip": None,
            "enable_dhcp": True,
            "allocation_pools": [],
            "dns_nameservers": [],
            "host_routes": [],
            "subnetpool_id": None,
            "prefixlen": None,
        },
        ("network_id",),
        (
            "name",
            "description",
            "gateway_ip",
            "enable_dhcp",
            "dns_nameservers",
            "host_routes",
            "allocation_pools",
        ),
    ),
    "port": (
        {
            **_COMMON,
            "network_id": None,
            "fixed_ips": [],
            "mac_address": None,
            "device_id": "",
            "device_owner": "",
            "security_groups": None,
            "admin_state_up": True,
            "binding:vnic_type": "normal",
            "port_security_enabled": True,
            "allowed_address_pairs": [],
            # neutron's dns-integration extension (no DNS domain here: nothing assigned)
            "dns_assignment": [],
            "qos_policy_id": None,  # neutron's qos extension
            "propagate_uplink_status": False,
        },
        ("network_id",),
        (
            "name",
            "description",
            "device_id",
            "device_owner",
            "security_groups",
            "admin_state_up",
            "allowed_address_pairs",
            "port_security_enabled",
            "qos_policy_id",
            "fixed_ips",
        ),
    ),
    "router": (
        {
            **_COMMON,
            "admin_state_up": True,
            "external_gateway_info": None,
            "distributed": False,
            "ha": False,
            "routes": [],
        },
        (),
        ("name", "description", "admin_state_up", "external_gateway_info", "routes"),
    ),
    "floatingip": (
        {
            **_COMMON,
            "floating_network_id": None,
            "floating_ip_address": None,
            "port_id": None,
            "fixed_ip_address": None,
            "router_id": None,
        },
        ("floating_network_id",),
        ("description", "port_id", "fixed_ip_address"),
    ),
    "security_group": (
        {**_COMMON, "stateful": True},
        (),
        ("name", "description"),
    ),
    "security_group_rule": (
        {
            **_COMMON,
            "security_group_id": None,
            "direction": None,
            "ethertype": "IPv4",
            "protocol": None,
            "port_range_min": None,
            "port_range_max": None,
            "remote_ip_prefix": None,
            "remote_group_id": None,
        },
        ("security_group_id", "direction"),
        (),
    ),
    "subnetpool": (
        {
            **_COMMON,
            "prefixes": [],
            "min_prefixlen": 8,
            "max_prefixlen": None,
            "default_prefixlen": None,
            "default_quota": None,
            "shared": False,
            "is_default": False,
            "address_scope_id": None,
            "ip_version": None,
        },
        ("prefixes",),
        (
            "name",
            "description",
            "min_prefixlen",
            "max_prefixlen",
            "default_prefixlen",
            "default_quota",
            "is_default",
            "address_scope_id",
        ),
    ),
    "address_scope": (
        {**_COMMON, "ip_version": None, "shared": False},
        ("ip_version",),
        ("name", "shared"),
    ),
    # neutron's segments extension: a network's physical segments
    "segment": (
        {
            **_COMMON,
            "network_id": None,
            "network_type": None,
            "physical_network": None,
            "segmentation_id": None,
        },
        ("network_id", "network_type"),
        ("name", "description"),
    ),
    # networking-bgpvpn's BGP VPNs and their associations (fake_clouds.network_bgpvpn)
    "bgpvpn": (
        {
            **_COMMON,
            "type": "l3",
            "route_distinguishers": [],
            "import_targets": [],
            "export_targets": [],
            "route_targets": [],
            "local_pref": None,
            "vni": None,
        },
        (),
        (
            "name",
            "route_distinguishers",
            "import_targets",
            "export_targets",
            "route_targets",
            "local_pref",
        ),
    ),
    "bgpvpn_network_association": (
        {"tenant_id": "plugsim", "project_id": "plugsim", "bgpvpn_id": None, "network_id": None},
        ("bgpvpn_id", "network_id"),
        (),
    ),
    "bgpvpn_router_association": (
        {
            "tenant_id": "plugsim",
            "project_id": "plugsim",
            "bgpvpn_id": None,
            "router_id": None,
            "advertise_extra_routes": True,
        },
        ("bgpvpn_id", "router_id"),
        ("advertise_extra_routes",),
    ),
    "bgpvpn_port_association": (
        {
            "tenant_id": "plugsim",
            "project_id": "plugsim",
            "bgpvpn_id": None,
            "port_id": None,
            "routes": [],
            "advertise_fixed_ips": True,
        },
        ("bgpvpn_id", "port_id"),
        ("routes", "advertise_fixed_ips"),
    ),
    # neutron's floating-ip-port-forwarding extension (a floating IP's sub-resource)
    "port_forwarding": (
        {
            "description": "",
            "floatingip_id": None,
            "internal_port_id": None,
            "internal_ip_address": None,
            "internal_port": None,
            "external_port": None,
            "protocol": None,
        },
        ("floatingip_id", "internal_port_id", "internal_ip_address", "external_port", "protocol"),
        (
            "description",
            "internal_port_id",
            "internal_ip_address",
            "internal_port",
            "external_port",
            "protocol",
        ),
    ),
}

#: kind -> (plural used in operation names and neutron bodies, default quota; None: no quota)
PLURALS: dict[str, tuple[str, int | None]] = {
    "network": ("networks", 100),
    "subnet": ("subnets", 100),
    "port": ("ports", 500),
    "router": ("routers", 10),
    "floatingip": ("floatingips", 50),
    "security_group": ("security_groups", 10),
    "security_group_rule": ("security_group_rules", 100),
    "subnetpool": ("subnetpools", 20),
    "address_scope": ("address_scopes", 20),
    "segment": ("segments", 100),
    "port_forwarding": ("port_forwardings", 100),
    "bgpvpn": ("bgpvpns", 20),
    "bgpvpn_network_association": ("bgpvpn_network_associations", 100),
    "bgpvpn_router_association": ("bgpvpn_router_associations", 100),
    "bgpvpn_port_association": ("bgpvpn_port_associations", 100),
}

_NOT_FOUND = {
    "network": "NetworkNotFound",
    "subnet": "SubnetNotFound",
    "port": "PortNotFound",
    "router": "RouterNotFound",
    "floatingip": "FloatingIPNotFound",
    "security_group": "SecurityGroupNotFound",
    "security_group_rule": "SecurityGroupRuleNotFound",
    "subnetpool": "SubnetPoolNotFound",
    "address_scope": "AddressScopeNotFound",
    "segment": "SegmentNotFound",
    "port_forwarding": "PortForwardingNotFound",
    "bgpvpn": "BGPVPNNotFound",
    "bgpvpn_network_association": "BGPVPNNetAssocNotFound",
    "bgpvpn_router_association": "BGPVPNRouterAssocNotFound",
    "bgpvpn_port_association": "BGPVPNPortAssocNotFound",
}

# neutron's extension kinds (:mod:`fake_clouds.core.network_ext_schema`) share the generic CRUD
SCHEMAS.update(EXT_SCHEMAS)
PLURALS.update(EXT_PLURALS)
_NOT_FOUND.update(EXT_NOT_FOUND)


def _error(cls: type[exception.ClientError], kind: str, message: str) -> exception.ClientError:
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


def _check_attrs(kind: str, attrs: Any, allowed: tuple[str, ...] | set[str], verb: str) -> None:
    if not isinstance(attrs, dict):
        raise _error(
            exception.BadRequest,
            "BadRequest",
            f"Invalid {verb} request for {kind}: expected an attribute mapping",
        )
    unknown = sorted(set(attrs) - set(allowed))
    if unknown:
        quoted = ", ".join(f"'{u}'" for u in unknown)
        raise _error(exception.BadRequest, "HTTPBadRequest", f"Unrecognized attribute(s) {quoted}")


def _make(kind: str) -> dict[str, Callable[..., Any]]:
    plural = PLURALS[kind][0]
    defaults, required, updatable = SCHEMAS[kind]

    @operation(f"{plural}.create", kind=kind)
    def create(self: Any, attrs: dict[str, Any]) -> dict[str, Any]:
        _check_attrs(kind, attrs, set(defaults), "create")
        for key in required:
            if attrs.get(key) is None:
                raise _error(
                    exception.BadRequest,
                    "HTTPBadRequest",
                    f"Failed to parse request. Required attribute '{key}' not specified",
                )
        self._check_quota(kind, self._count(kind))
        full = plain(defaults)  # copy.deepcopy of JSON-like data, at a fraction of the cost
        full.update(plain(attrs))
        status = self._prepare(kind, full)
        name = full.pop("name", None) or ""  # a port forwarding has no name
        creating = self._creating_status(kind)
        ent = self._create(kind, name, creating, full)
        hook = getattr(self, f"_after_create_{kind}", None)
        if hook is not None:
            hook(ent)
        self._start(ent, "create", creating, status)
        self._refresh(kind)
        return ent.view()

    @operation(f"{plural}.get", kind=kind, id_arg="entity_id")
    def get(self: Any, entity_id: str) -> dict[str, Any]:
        return self._need(kind, entity_id, _NOT_FOUND[kind]).view()

    @operation(f"{plural}.list", kind=kind)
    def list_(self: Any, **filters: Any) -> list[dict[str, Any]]:
        return [e.view() for e in self._list(kind, **filters)]

    @operation(f"{plural}.update", kind=kind, id_arg="entity_id")
    def update(self: Any, entity_id: str, attrs: dict[str, Any]) -> dict[str, Any]:
        ent = self._need(kind, entity_id, _NOT_FOUND[kind])
        _check_attrs(kind, attrs, set(defaults), "update")
        frozen = sorted(set(attrs) - set(updatable))
        if frozen:
            raise _error(
                exception.BadRequest,
                "HTTPBadRequest",
                f"Cannot update read-only attribute {frozen[0]}",
            )
        self._apply_update(ent, plain(attrs))
        return ent.view()

    @operation(f"{plural}.delete", kind=kind, id_arg="entity_id")
    def delete(self: Any, entity_id: str) -> None:
        ent = self._need(kind, entity_id, _NOT_FOUND[kind])
        self._check_delete(ent)
        self._after_delete(ent)
        self._start(ent, "delete", None, None)

    create.__doc__ = f"Create a {kind} from an attribute mapping; return its attributes."
    get.__doc__ = f"Return one {kind}."
    list_.__doc__ = f"Return every {kind} whose attributes equal the filters."
    update.__doc__ = f"Change updatable attributes of a {kind}."
    delete.__doc__ = f"Delete a {kind} (Conflict while in use)."
    methods = {
        f"create_{kind}": create,
        f"get_{kind}": get,
        f"list_{plural}": list_,
        f"delete_{kind}": delete,
    }
    if updatable:
        methods[f"update_{kind}"] = update
    return methods


def crud_operations() -> dict[str, Callable[..., Any]]:
    """Return every generic CRUD operation method keyed by method name."""
    out: dict[str, Callable[..., Any]] = {}
    for kind in SCHEMAS:
        out.update(_make(kind))
    return out
