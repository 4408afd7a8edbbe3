"""The network service (neutron-like): networks, subnets, ports, routers, floating IPs,
security groups and rules.

Operations are ``<plural>.create|get|list|update|delete`` (``networks.create``,
``floatingips.update`` ...) plus ``routers.add_interface``,
``routers.remove_interface``, ``routers.set_gateway`` and
``routers.remove_gateway``. They take and return attribute dicts, as
neutron's API does. Network objects are ready at once: networks, subnets,
routers and security groups are ``ACTIVE``; a port is ``DOWN`` until bound to
a device; a floating IP is ``DOWN`` until associated with a port. A port
created without ``port_security_enabled`` takes its network's value (ports nova
creates for a server and router interface ports too).

Conflicts (409): deleting a network that still has ports, a subnet with
allocated addresses, a router with interfaces, a security group in use; a
duplicate security group rule; an exhausted subnet.
Quotas (defaults): ``network`` 100, ``subnet`` 100, ``port`` 500, ``router``
10, ``floatingip`` 50, ``security_group`` 10, ``security_group_rule`` 100,
``subnetpool`` 20, ``address_scope`` 20. Subnet pools and address scopes
follow :mod:`fake_clouds.network_pools`.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from fake_clouds import default_world
from fake_clouds.clients.network import NetworkClient
from fake_clouds.core.entities import Entity
from fake_clouds.core.network_schema import PLURALS, SCHEMAS, crud_operations
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from fake_clouds.core.tracking import plain
from fake_clouds.network_agents import NetworkAgentOperations
from fake_clouds.network_bgpvpn import BGPVPNHooks
from fake_clouds.network_extensions import NetworkExtensionHooks
from fake_clouds.network_pools import SubnetPoolHooks
from fake_clouds.network_port_ips import PortAddressHooks
from fake_clouds.network_segments import SegmentHooks
from fake_clouds.project_quotas import ProjectQuotas
from sdk import exception


def neutron_error(
    cls: type[exception.ClientError], kind: str, message: str
) -> exception.ClientError:
    """Build a typed error carrying neutron's error body."""
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


def _segmentation(attrs: dict[str, Any]) -> dict[str, Any]:
    """``provider:segmentation_id`` as neutron keeps it: an integer (given as text or not)."""
    key = "provider:segmentation_id"
    value = attrs.get(key)
    if value is None:
        return {}
    try:
        number = int(str(value))
    except ValueError:
        number = -1
    if isinstance(value, bool) or number < 0:
        raise neutron_error(
            exception.BadRequest, "InvalidInput", f"Invalid input for {key}: {value!r}"
        )
    return {key: number}


@register_service
class NetworkService(
    NetworkExtensionHooks,
    PortAddressHooks,
    SubnetPoolHooks,
    SegmentHooks,
    BGPVPNHooks,
    NetworkAgentOperations,
    ProjectQuotas,
    Service,
):
    """Neutron-like networking; generic CRUD comes from :mod:`fake_clouds.core.network_schema`."""

    name = "network"
    kinds = {kind: "ERROR" for kind in SCHEMAS}
    default_quotas = {  # noqa: RUF012
        **{kind: limit for kind, (_, limit) in PLURALS.items() if limit is not None},
        # neutron's quota of RBAC policies per project (option quota_rbac_policy, 10)
        "rbac_policy": 10,
    }
    client_class = NetworkClient

    def seed_defaults(self, world: Any = None) -> None:
        """Add the networks, subnets, routers and security groups of *world* (default world)."""
        for seed in default_world.seeds(self.name, world):
            attrs = {k: v for k, v in SCHEMAS[seed.kind][0].items() if k != "name"}
            attrs.update(seed.attrs)
            self._create(
                seed.kind, seed.name, seed.status, attrs, entity_id=seed.id, preseeded=True
            )

    # --- creation hooks (called by the generic create) --------------------------------

    def _prepare(self, kind: str, attrs: dict[str, Any]) -> str:
        """Validate/complete *attrs* for a new *kind*; return its initial status."""
        if kind in ("port", "network"):
            self._check_qos_policy_id(attrs)
        return getattr(self, f"_prepare_{kind}")(attrs)

    def _prepare_network(self, attrs: dict[str, Any]) -> str:
        attrs["subnets"] = []
        attrs.update(_segmentation(attrs))
        return "ACTIVE"

    def _prepare_subnet(self, attrs: dict[str, Any]) -> str:
        self._cidr_from_pool(attrs)
        net = self._need("network", attrs["network_id"], "NetworkNotFound")
        try:
            cidr = ipaddress.ip_network(str(attrs["cidr"]), strict=False)
        except ValueError:
            raise neutron_error(
                exception.BadRequest,
                "InvalidInput",
                f"Invalid input for cidr. Reason: '{attrs['cidr']}' is not a valid IP subnet.",
            ) from None
        if cidr.version != attrs["ip_version"]:
            raise neutron_error(
                exception.BadRequest,
                "InvalidInput",
                f"Invalid input: cidr {cidr} is not an IPv{attrs['ip_version']} subnet.",
            )
        for sid in net.attrs["subnets"]:
            other = self._store["subnet"].get(sid)
            if other is not None and cidr.overlaps(ipaddress.ip_network(other.attrs["cidr"])):
                raise neutron_error(
                    exception.BadRequest,
                    "InvalidInput",
                    f"Invalid input for operation: Requested subnet with cidr: {cidr} "
                    f"for network: {net.id} overlaps with another subnet.",
                )
        attrs["cidr"] = str(cidr)
        if attrs["gateway_ip"] is None:
            attrs["gateway_ip"] = str(next(cidr.hosts()))
        if not attrs["allocation_pools"]:
            hosts = list(_first_and_last(cidr))
            attrs["allocation_pools"] = [{"start": hosts[0], "end": hosts[1]}]
        return "ACTIVE"

    def _after_create_subnet(self, ent: Entity) -> None:
        net = self._store["network"][ent.attrs["network_id"]]
        net.attrs["subnets"] = [*net.attrs["subnets"], ent.id]

    def _prepare_port(self, attrs: dict[str, Any]) -> str:
        net = self._need("network", attrs["network_id"], "NetworkNotFound")
        if not attrs["fixed_ips"]:
            subnets = [s for s in net.attrs["subnets"] if s in self._store["subnet"]]
            attrs["fixed_ips"] = [{"subnet_id": subnets[0]}] if subnets else []
        fixed = []
        for entry in attrs["fixed_ips"]:
            if not isinstance(entry, dict) or "subnet_id" not in entry:
                raise neutron_error(
                    exception.BadRequest,
                    "InvalidInput",
                    "Invalid input for fixed_ips: each entry needs a subnet_id.",
                )
            subnet = self._need("subnet", entry["subnet_id"], "SubnetNotFound")
            ip = entry.get("ip_address") or self._allocate(subnet)
            fixed.append({"subnet_id": subnet.id, "ip_address": ip})
        attrs["fixed_ips"] = fixed
        if attrs["mac_address"] is None:
            attrs["mac_address"] = self._mac()
        if attrs["security_groups"] is None:
            default = [g for g in self._store["security_group"].values() if g.name == "default"]
            attrs["security_groups"] = [default[0].id] if default else []
        return "ACTIVE" if attrs["device_id"] else "DOWN"

    def _prepare_router(self, attrs: dict[str, Any]) -> str:
        if attrs["external_gateway_info"]:
            attrs["external_gateway_info"] = self._gateway(attrs["external_gateway_info"])
        attrs["interfaces"] = []
        return "ACTIVE"

    def _prepare_floatingip(self, attrs: dict[str, Any]) -> str:
        net = self._need("network", attrs["floating_network_id"], "NetworkNotFound")
        if not net.attrs.get("router:external"):
            raise neutron_error(
                exception.BadRequest,
                "BadRequest",
                f"Bad floatingip request: Network {net.id} is not a valid external network.",
            )
        subnets = [
            self._store["subnet"][s] for s in net.attrs["subnets"] if s in self._store["subnet"]
        ]
        if not subnets:
            raise neutron_error(
                exception.BadRequest,
                "BadRequest",
                f"Bad floatingip request: Network {net.id} has no subnet.",
            )
        if attrs["floating_ip_address"] is None:
            attrs["floating_ip_address"] = self._allocate(subnets[0])
        self._associate(attrs)
        return "ACTIVE" if attrs["port_id"] else "DOWN"

    def _prepare_security_group(self, attrs: dict[str, Any]) -> str:
        return "ACTIVE"

    def _prepare_security_group_rule(self, attrs: dict[str, Any]) -> str:
        self._need("security_group", attrs["security_group_id"], "SecurityGroupNotFound")
        if attrs["direction"] not in ("ingress", "egress"):
            raise neutron_error(
                exception.BadRequest,
                "InvalidInput",
                f"Invalid input for direction. Reason: '{attrs['direction']}' is not in ['ingress', 'egress'].",
            )
        if attrs["ethertype"] not in ("IPv4", "IPv6"):
            raise neutron_error(
                exception.BadRequest,
                "InvalidInput",
                f"Invalid input for ethertype: {attrs['ethertype']!r}.",
            )
        lo, hi = attrs["port_range_min"], attrs["port_range_max"]
        if lo is not None and hi is not None and lo > hi:
            raise neutron_error(
                exception.BadRequest,
                "SecurityGroupInvalidPortRange",
                "For TCP/UDP protocols, port_range_min must be <= port_range_max",
            )
        keys = (
            "security_group_id",
            "direction",
            "ethertype",
            "protocol",
            "port_range_min",
            "port_range_max",
            "remote_ip_prefix",
            "remote_group_id",
        )
        for rule in self._live("security_group_rule"):
            if all(rule.attrs.get(k) == attrs.get(k) for k in keys):
                raise neutron_error(
                    exception.Conflict,
                    "SecurityGroupRuleExists",
                    f"Security group rule already exists. Rule id is {rule.id}.",
                )
        return "ACTIVE"

    # --- deletion checks (called by the generic delete) --------------------------------

    def _check_delete(self, ent: Entity) -> None:
        self._check_delete_extension(ent)
        kind = ent.kind
        if kind == "network":
            ports = [
                p
                for p in self._live("port")
                if p.attrs["network_id"] == ent.id and p.attrs["device_owner"] != "network:dhcp"
            ]
            if ports:
                raise neutron_error(
                    exception.Conflict,
                    "NetworkInUse",
                    f"Unable to complete operation on network {ent.id}. "
                    "There are one or more ports still in use on the network.",
                )
        elif kind == "subnet":
            used = [
                p
                for p in self._live("port")
                if any(f["subnet_id"] == ent.id for f in p.attrs["fixed_ips"])
            ]
            if used:
                raise neutron_error(
                    exception.Conflict,
                    "SubnetInUse",
                    f"Unable to complete operation on subnet {ent.id}: "
                    "One or more ports have an IP allocation from this subnet.",
                )
        elif kind in ("subnetpool", "address_scope"):
            self._check_delete_pool(ent)
        elif kind == "router" and ent.attrs["interfaces"]:
            raise neutron_error(
                exception.Conflict, "RouterInUse", f"Router {ent.id} still has ports"
            )
        elif kind == "security_group":
            if any(ent.id in (p.attrs["security_groups"] or []) for p in self._live("port")):
                raise neutron_error(
                    exception.Conflict, "SecurityGroupInUse", f"Security Group {ent.id} in use."
                )
        elif kind == "port" and ent.attrs["device_owner"] == "network:router_interface":
            raise neutron_error(
                exception.Conflict,
                "PortInUse",
                f"Port {ent.id} cannot be deleted directly via the port API: "
                "has device owner network:router_interface.",
            )

    def _after_delete(self, ent: Entity) -> None:
        self._after_delete_extension(ent)
        if ent.kind == "network":
            # neutron deletes a network's subnets (and its DHCP ports) along with it
            for port in self._live("port"):
                if port.attrs["network_id"] == ent.id:
                    self._start(port, "delete", None, None)
            for subnet in self._live("subnet"):
                if subnet.attrs["network_id"] == ent.id:
                    self._start(subnet, "delete", None, None)
        elif ent.kind == "subnet":
            net = self._store["network"].get(ent.attrs["network_id"])
            if net is not None:
                net.attrs["subnets"] = [s for s in net.attrs["subnets"] if s != ent.id]
        elif ent.kind == "security_group":
            for rule in self._live("security_group_rule"):
                if rule.attrs["security_group_id"] == ent.id:
                    self._start(rule, "delete", None, None)
        elif ent.kind == "port":
            for fip in self._live("floatingip"):
                if fip.attrs["port_id"] == ent.id:
                    self._set(fip, port_id=None, fixed_ip_address=None)
                    fip.status = "DOWN"

    def _apply_update(self, ent: Entity, changes: dict[str, Any]) -> None:
        changes = self._check_update_extension(ent, changes)
        if ent.kind == "floatingip" and "port_id" in changes:
            # as in neutron, a new association without a fixed address takes the port's first
            attrs = {**ent.attrs, "fixed_ip_address": None, **changes}
            self._associate(attrs)
            changes = {**changes, "fixed_ip_address": attrs["fixed_ip_address"]}
            ent.status = "ACTIVE" if attrs["port_id"] else "DOWN"
        if ent.kind == "network":
            changes = {**changes, **_segmentation(changes)}
        if ent.kind == "router" and changes.get("external_gateway_info"):
            changes = {
                **changes,
                "external_gateway_info": self._gateway(changes["external_gateway_info"]),
            }
        if "name" in changes:
            ent.name = changes.pop("name") or ""
        self._set(ent, **changes)

    # --- helpers ---------------------------------------------------------------------

    def _need(self, kind: str, entity_id: Any, error_type: str) -> Entity:
        try:
            return self._get(kind, entity_id)
        except exception.NotFound:
            label = kind.replace("_", " ")
            raise neutron_error(
                exception.NotFound,
                error_type,
                f"{label.capitalize()} {entity_id} could not be found.",
            ) from None

    def _allocate(self, subnet: Entity) -> str:
        cidr = ipaddress.ip_network(subnet.attrs["cidr"])
        if not subnet.attrs["allocation_pools"]:  # only addresses asked for by name
            raise neutron_error(
                exception.Conflict,
                "IpAddressGenerationFailure",
                f"No more IP addresses available on network {subnet.attrs['network_id']}.",
            )
        pool = subnet.attrs["allocation_pools"][0]
        start, end = ipaddress.ip_address(pool["start"]), ipaddress.ip_address(pool["end"])
        used = {f["ip_address"] for p in self._live("port") for f in p.attrs["fixed_ips"]}
        used |= {f.attrs["floating_ip_address"] for f in self._live("floatingip")}
        used.add(subnet.attrs["gateway_ip"])
        nxt = self.counters.setdefault("next_ip", {}).get(subnet.id, int(start) - int(cidr[0]))
        total = int(end) - int(start) + 1
        for step in range(total):
            offset = (nxt - (int(start) - int(cidr[0])) + step) % total + (
                int(start) - int(cidr[0])
            )
            candidate = str(cidr[offset])
            if candidate not in used:
                self.counters["next_ip"][subnet.id] = offset + 1
                return candidate
        raise neutron_error(
            exception.Conflict,
            "IpAddressGenerationFailure",
            f"No more IP addresses available on network {subnet.attrs['network_id']}.",
        )

    def _mac(self) -> str:
        raw = self.world.rng.hex_id(6)
        return "fa:16:3e:" + ":".join(raw[i : i + 2] for i in (0, 2, 4))

    def _gateway(self, info: Any) -> dict[str, Any]:
        if not isinstance(info, dict) or "network_id" not in info:
            raise neutron_error(
                exception.BadRequest, "InvalidInput", "external_gateway_info needs a network_id"
            )
        net = self._need("network", info["network_id"], "NetworkNotFound")
        if not net.attrs.get("router:external"):
            raise neutron_error(
                exception.BadRequest,
                "BadRequest",
                f"Bad router request: Network {net.id} is not an external network.",
            )
        return {"network_id": net.id, "enable_snat": bool(info.get("enable_snat", True))}

    def _associate(self, attrs: dict[str, Any]) -> None:
        if not attrs.get("port_id"):
            attrs["port_id"] = None
            attrs["fixed_ip_address"] = None
            return
        port = self._need("port", attrs["port_id"], "PortNotFound")
        if not port.attrs["fixed_ips"]:
            raise neutron_error(
                exception.BadRequest,
                "BadRequest",
                f"Bad floatingip request: Port {port.id} has no fixed IP.",
            )
        attrs["fixed_ip_address"] = (
            attrs.get("fixed_ip_address") or port.attrs["fixed_ips"][0]["ip_address"]
        )

    # --- router interfaces and gateway --------------------------------------------------

    @operation("routers.add_interface", kind="router", id_arg="router_id")
    def add_interface(self, router_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Attach a subnet (a new port at its gateway IP) or an existing port to a router."""
        router = self._need("router", router_id, "RouterNotFound")
        if not isinstance(body, dict) or ("subnet_id" in body) == ("port_id" in body):
            raise neutron_error(
                exception.BadRequest,
                "BadRequest",
                "Bad router request: Must specify exactly one of subnet_id or port_id.",
            )
        if "subnet_id" in body:
            subnet = self._need("subnet", body["subnet_id"], "SubnetNotFound")
            if any(i["subnet_id"] == subnet.id for i in router.attrs["interfaces"]):
                raise neutron_error(
                    exception.BadRequest,
                    "BadRequest",
                    f"Router already has a port on subnet {subnet.id}.",
                )
            net = self._store["network"][subnet.attrs["network_id"]]
            port = self._create("port", "", "ACTIVE", _port_defaults(net, subnet, router.id))
            port.attrs["mac_address"] = self._mac()
        else:
            port = self._need("port", body["port_id"], "PortNotFound")
            if port.attrs["device_id"]:
                raise neutron_error(
                    exception.Conflict,
                    "PortInUse",
                    f"Port {port.id} is already in use by {port.attrs['device_id']}.",
                )
            self._set(port, device_id=router.id, device_owner="network:router_interface")
            port.status = "ACTIVE"
            subnet = self._need("subnet", port.attrs["fixed_ips"][0]["subnet_id"], "SubnetNotFound")
        info = {
            "id": router.id,
            "subnet_id": subnet.id,
            "port_id": port.id,
            "network_id": subnet.attrs["network_id"],
        }
        self._set(router, interfaces=[*router.attrs["interfaces"], info])
        return info

    @operation("routers.remove_interface", kind="router", id_arg="router_id")
    def remove_interface(self, router_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Detach a subnet or port from a router (the interface port is deleted)."""
        router = self._need("router", router_id, "RouterNotFound")
        body = body if isinstance(body, dict) else {}
        match = [
            i
            for i in router.attrs["interfaces"]
            if i["subnet_id"] == body.get("subnet_id") or i["port_id"] == body.get("port_id")
        ]
        if not match:
            raise neutron_error(
                exception.NotFound,
                "RouterInterfaceNotFound",
                f"Router {router.id} has no interface matching {body}.",
            )
        info = match[0]
        self._set(router, interfaces=[i for i in router.attrs["interfaces"] if i is not info])
        port = self._store["port"].get(info["port_id"])
        if port is not None:
            self._start(port, "delete", None, None)
        return info

    @operation("routers.set_gateway", kind="router", id_arg="router_id")
    def set_gateway(self, router_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Set a router's external gateway (``{'network_id': ...}``)."""
        router = self._need("router", router_id, "RouterNotFound")
        self._set(router, external_gateway_info=self._gateway(body))
        return router.view()

    @operation("routers.remove_gateway", kind="router", id_arg="router_id")
    def remove_gateway(self, router_id: str) -> dict[str, Any]:
        """Clear a router's external gateway."""
        router = self._need("router", router_id, "RouterNotFound")
        self._set(router, external_gateway_info=None)
        return router.view()

    # --- servers (used by compute, no latency of their own) ----------------------------

    def _plug_server(self, server_id: str, nets: list[Any]) -> dict[str, list[dict[str, Any]]]:
        """Bind ports for a booting server; return nova-style ``addresses``."""
        addresses: dict[str, list[dict[str, Any]]] = {}
        if not isinstance(nets, list):
            raise exception.BadRequest("Server networks must be a list")
        for entry in nets:
            if not isinstance(entry, dict):
                raise exception.BadRequest(f"Invalid server network entry {entry!r}")
            port_id = entry.get("port") or entry.get("port-id")
            if port_id:
                port = self._get("port", port_id, label="Port")
                if port.attrs["device_id"]:
                    raise exception.Conflict(f"Port {port.id} is still in use.")
                self._set(port, device_id=server_id, device_owner="compute:nova")
                port.status = "ACTIVE"
            else:
                net_id = entry.get("uuid") or entry.get("net-id") or entry.get("network")
                net = self._store["network"].get(net_id) if isinstance(net_id, str) else None
                if net is None or net.deleted:
                    raise exception.BadRequest(f"Network {net_id} could not be found.")
                attrs = plain(SCHEMAS["port"][0])
                attrs.update(
                    network_id=net.id,
                    device_id=server_id,
                    device_owner="compute:nova",
                    port_security_enabled=net.attrs["port_security_enabled"],
                )
                fixed = entry.get("fixed_ip") or entry.get("v4-fixed-ip")
                if fixed and net.attrs["subnets"]:
                    attrs["fixed_ips"] = [
                        {"subnet_id": net.attrs["subnets"][0], "ip_address": fixed}
                    ]
                self._prepare_port(attrs)
                port = self._create("port", "", "ACTIVE", attrs)
                self.counters.setdefault("nova_ports", []).append(port.id)
            net = self._store["network"][port.attrs["network_id"]]
            for fixed_ip in port.attrs["fixed_ips"]:
                addresses.setdefault(net.name, []).append(
                    {
                        "addr": fixed_ip["ip_address"],
                        "version": ipaddress.ip_address(fixed_ip["ip_address"]).version,
                        "OS-EXT-IPS:type": "fixed",
                        "OS-EXT-IPS-MAC:mac_addr": port.attrs["mac_address"],
                    }
                )
        return addresses

    def _unplug_server(self, server_id: str) -> None:
        """Release a deleted server's ports (its nova-created ports are deleted)."""
        for port in self._live("port"):
            if port.attrs["device_id"] == server_id:
                self._unplug_port(port)

    def _unplug_port(self, port: Any) -> None:
        """Release one port of a server: deleted if nova made it, else left ``DOWN``."""
        if port.id in self.counters.get("nova_ports", []):
            self.counters["nova_ports"].remove(port.id)
            self._after_delete(port)
            self._start(port, "delete", None, None)
        else:
            self._set(port, device_id="", device_owner="")
            port.status = "DOWN"


for _name, _method in crud_operations().items():
    setattr(NetworkService, _name, _method)

#: The generic ``ports.create`` body, without its operation wrapper (dispatch happens once).
_generic_create_port = NetworkService.create_port.__wrapped__


@operation("ports.create", kind="port")
def _create_port(self: NetworkService, attrs: dict[str, Any]) -> dict[str, Any]:
    """Create a port; without ``port_security_enabled`` it takes its network's value."""
    return _generic_create_port(self, _inherit_port_security(self, attrs))


NetworkService.create_port = _create_port  # type: ignore[method-assign]


def _inherit_port_security(service: NetworkService, attrs: Any) -> Any:
    """*attrs* with the network's ``port_security_enabled`` when the port names none.

    Neutron gives a port created without the attribute (or with null) the value
    its network has at that moment. Anything else (not a mapping, no such
    network) is left for the generic create to refuse with its own message.
    """
    if not isinstance(attrs, dict) or attrs.get("port_security_enabled") is not None:
        return attrs
    network_id = attrs.get("network_id")
    net = service._store["network"].get(network_id) if isinstance(network_id, str) else None
    if net is None or net.deleted:
        return attrs
    return {**attrs, "port_security_enabled": net.attrs["port_security_enabled"]}


def _first_and_last(cidr: Any) -> tuple[str, str]:
    first = cidr[2] if cidr.num_addresses > 4 else cidr[1]
    last = cidr[-2] if cidr.version == 4 else cidr[-1]
    return str(first), str(last)


def _port_defaults(net: Entity, subnet: Entity, router_id: str) -> dict[str, Any]:
    attrs = plain(SCHEMAS["port"][0])
    attrs.update(
        network_id=net.id,
        port_security_enabled=net.attrs["port_security_enabled"],
        fixed_ips=[{"subnet_id": subnet.id, "ip_address": subnet.attrs["gateway_ip"]}],
        device_id=router_id,
        device_owner="network:router_interface",
        security_groups=[],
    )
    return attrs
