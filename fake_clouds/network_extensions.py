"""neutron's API extensions on the network service (a mixin of
:class:`fake_clouds.network.NetworkService`): QoS, trunks, FWaaS v1,
metering, RBAC and gateways. networking-sfc and tap-as-a-service are in
:mod:`fake_clouds.network_sfc`.

The generic CRUD of :mod:`fake_clouds.core.network_schema` serves these kinds;
this mixin adds neutron's checks, all written from neutron's API reference:

* **QoS**: a rule names an existing policy (404) and a policy holds at most one
  rule of a type per direction (409); deleting a policy deletes its rules and
  the RBAC policies sharing it, and is refused while a port or network uses it.
* **Trunks**: the parent port exists and is no other trunk's parent or
  sub-port (409); sub-ports have a unique ``segmentation_id`` in the trunk
  (409) and are added/removed with ``trunks.add_subports`` /
  ``trunks.remove_subports``. A trunk is ``DOWN`` until its parent port is
  bound (``ACTIVE`` then); a trunk whose parent is bound cannot be deleted, nor
  a port that is a trunk's parent or sub-port (409).
* **FWaaS v1**: a firewall names an existing policy (404) and goes
  ``PENDING_CREATE`` -> ``ACTIVE`` (with routers) or ``INACTIVE``; a policy's
  rules exist (404) and belong to no other policy (409). A policy in use by a
  firewall, or a rule in a policy, cannot be deleted (409).
* **Metering**: a rule names an existing label (404), a valid CIDR (400) and
  does not repeat one of its label (409); deleting a label deletes its rules.
* **RBAC**: the object exists (404), the action suits its type (400), the same
  policy cannot exist twice (409); deleting the object deletes its policies.
* **L2 gateways**: devices are given (400); a connection names an existing
  gateway and network (404), once per pair (409); a gateway with connections
  cannot be deleted (409).
* **Network gateways**: ``network_gateways.connect`` plugs a network in through a
  port of the gateway's (so the network is in use while connected); a
  gateway with connections cannot be deleted (409).
"""

from __future__ import annotations

import copy
import ipaddress
from typing import Any

from fake_clouds.core.network_ext_schema import QOS_RULES
from fake_clouds.core.network_schema import SCHEMAS
from fake_clouds.core.service import operation
from fake_clouds.core.tracking import plain
from fake_clouds.network_sfc import NetworkSfcHooks, ext_error
from fake_clouds.network_vpn import VPN_CREATING, VPNHooks

#: Status an entity shows while neutron creates it, when not ``BUILD``.
_CREATING = {"firewall": "PENDING_CREATE", **VPN_CREATING}
#: RBAC object types and the actions neutron allows on them.
_RBAC_ACTIONS = {
    "network": ("access_as_shared", "access_as_external"),
    "qos_policy": ("access_as_shared",),
    "security_group": ("access_as_shared",),
    "address_scope": ("access_as_shared",),
    "subnetpool": ("access_as_shared",),
}
_FW_PROTOCOLS = ("tcp", "udp", "icmp", None)


def _bad(message: str) -> Any:
    return ext_error("BadRequest", "InvalidInput", f"Invalid input for operation: {message}")


def _conflict(kind: str, message: str) -> Any:
    return ext_error("Conflict", kind, message)


def _rule_type(kind: str) -> str:
    return kind[: -len("_rule")]


class NetworkExtensionHooks(NetworkSfcHooks, VPNHooks):
    """Preparation, update and deletion checks of the extension kinds."""

    # --- dispatch from the generic CRUD ---------------------------------------------

    def _creating_status(self, kind: str) -> str:
        """The status of a *kind* being created."""
        return _CREATING.get(kind, "BUILD")

    def _check_delete_extension(self, ent: Any) -> None:
        """Refuse deleting *ent* while an extension object uses it (409)."""
        if ent.kind == "port":
            self._check_port_in_use(ent)
        check = getattr(self, f"_check_delete_{ent.kind}", None)
        if check is not None:
            check(ent)

    def _after_delete_extension(self, ent: Any) -> None:
        """Delete what goes with *ent* (rules with their policy or label, its RBAC policies)."""
        for rbac in self._live("rbac_policy"):
            if rbac.attrs["object_id"] == ent.id and rbac.attrs["object_type"] == ent.kind:
                self._start(rbac, "delete", None, None)
        cascade = getattr(self, f"_cascade_{ent.kind}", None)
        if cascade is not None:
            cascade(ent)

    def _check_update_extension(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        """Validate *changes* to *ent*; return them as they are to be applied."""
        if ent.kind in ("port", "network"):
            self._check_qos_policy_id(changes)
        check = getattr(self, f"_update_{ent.kind}", None)
        return check(ent, changes) if check is not None else changes

    def _check_qos_policy_id(self, attrs: dict[str, Any]) -> None:
        """A port's or network's ``qos_policy_id`` names an existing QoS policy (404)."""
        if attrs.get("qos_policy_id") is not None:
            self._need("qos_policy", attrs["qos_policy_id"], "QosPolicyNotFound")

    # --- QoS ----------------------------------------------------------------------------

    def _prepare_qos_policy(self, attrs: dict[str, Any]) -> str:
        attrs["rules"] = []
        return "ACTIVE"

    def _prepare_qos_rule(self, kind: str, attrs: dict[str, Any]) -> str:
        policy = self._need("qos_policy", attrs["qos_policy_id"], "QosPolicyNotFound")
        self._check_qos_values(kind, attrs)
        direction = attrs.get("direction")
        for rule in policy.attrs["rules"]:
            if rule["type"] == _rule_type(kind) and rule.get("direction") == direction:
                raise _conflict(
                    "QoSRulesConflict",
                    f"Rule {_rule_type(kind)} already exists in QoS policy {policy.id}"
                    + (f" for direction {direction}." if direction else "."),
                )
        return "ACTIVE"

    def _check_qos_values(self, kind: str, attrs: dict[str, Any]) -> None:
        own = QOS_RULES[kind][0]
        for key in own:
            if key == "direction":
                packet_rate = kind == "minimum_packet_rate_rule"
                allowed = ("ingress", "egress", "any") if packet_rate else ("ingress", "egress")
                if attrs[key] not in allowed:
                    raise _bad(f"direction {attrs[key]!r} is not one of {', '.join(allowed)}")
                continue
            value = attrs[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _bad(f"{key} must be a non-negative integer, not {value!r}")
        if kind == "dscp_marking_rule" and (attrs["dscp_mark"] > 56 or attrs["dscp_mark"] % 2):
            raise _bad(f"dscp_mark {attrs['dscp_mark']} is not a valid DSCP mark (even, 0-56)")

    def _after_create_qos_rule(self, ent: Any) -> None:
        policy = self._store["qos_policy"][ent.attrs["qos_policy_id"]]
        entry = {"id": ent.id, "type": _rule_type(ent.kind)}
        if "direction" in ent.attrs:
            entry["direction"] = ent.attrs["direction"]
        self._set(policy, rules=[*policy.attrs["rules"], entry])

    def _drop_qos_rule(self, ent: Any) -> None:
        policy = self._store["qos_policy"].get(ent.attrs["qos_policy_id"])
        if policy is not None:
            self._set(policy, rules=[r for r in policy.attrs["rules"] if r["id"] != ent.id])

    def _update_qos_rule(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        merged = {**ent.attrs, **changes}
        self._check_qos_values(ent.kind, merged)
        if "direction" in changes and changes["direction"] != ent.attrs.get("direction"):
            policy = self._store["qos_policy"][ent.attrs["qos_policy_id"]]
            for rule in policy.attrs["rules"]:
                same = rule["type"] == _rule_type(ent.kind) and rule["id"] != ent.id
                if same and rule.get("direction") == changes["direction"]:
                    raise _conflict(
                        "QoSRulesConflict",
                        f"Rule {rule['type']} already exists in QoS policy {policy.id} "
                        f"for direction {changes['direction']}.",
                    )
            rules = [
                {**r, "direction": changes["direction"]} if r["id"] == ent.id else r
                for r in policy.attrs["rules"]
            ]
            self._set(policy, rules=rules)
        return changes

    def _check_delete_qos_policy(self, ent: Any) -> None:
        users = [
            e.id
            for kind in ("port", "network")
            for e in self._live(kind)
            if e.attrs.get("qos_policy_id") == ent.id
        ]
        if users:
            raise _conflict(
                "QosPolicyInUse",
                f"QoS Policy {ent.id} is used by {', '.join(users)}.",
            )

    def _cascade_qos_policy(self, ent: Any) -> None:
        for kind in QOS_RULES:
            for rule in self._live(kind):
                if rule.attrs["qos_policy_id"] == ent.id:
                    self._start(rule, "delete", None, None)

    # --- trunks -------------------------------------------------------------------------

    def _trunk_roles(self, port_id: str, skip: str | None = None) -> tuple[str, str] | None:
        """``(trunk id, 'parent'|'subport')`` of the live trunk using *port_id*, if any."""
        for trunk in self._live("trunk"):
            if trunk.id == skip:
                continue
            if trunk.attrs["port_id"] == port_id:
                return trunk.id, "parent"
            if any(s["port_id"] == port_id for s in trunk.attrs["sub_ports"]):
                return trunk.id, "subport"
        return None

    def _prepare_trunk(self, attrs: dict[str, Any]) -> str:
        parent = self._need("port", attrs["port_id"], "PortNotFound")
        used = self._trunk_roles(parent.id)
        if used is not None:
            raise _conflict(
                "TrunkPortInUse",
                f"Port {parent.id} is currently in use and is not eligible for use as a "
                f"parent port (it is the {used[1]} port of trunk {used[0]}).",
            )
        attrs["sub_ports"] = self._subports(parent.id, [], attrs["sub_ports"], None)
        return "ACTIVE" if parent.attrs["device_id"] else "DOWN"

    def _subports(
        self, parent_id: str, current: list[Any], new: Any, trunk_id: str | None
    ) -> list[dict[str, Any]]:
        if not isinstance(new, list) or not all(isinstance(s, dict) for s in new):
            raise _bad("sub_ports must be a list of objects")
        out = [dict(s) for s in current]
        for spec in new:
            port = self._need("port", spec.get("port_id"), "PortNotFound")
            kind = spec.get("segmentation_type", "vlan")
            seg = spec.get("segmentation_id")
            if kind not in ("vlan", "inherit"):
                raise _bad(f"segmentation_type {kind!r} is not one of vlan, inherit")
            if kind == "vlan" and (isinstance(seg, bool) or not isinstance(seg, int)):
                raise _bad(f"segmentation_id {seg!r} must be an integer for a vlan sub-port")
            if kind == "vlan" and not 1 <= seg <= 4094:
                raise _bad(f"segmentation_id {seg} is not in the range 1-4094")
            if port.id == parent_id or self._trunk_roles(port.id, skip=trunk_id) is not None:
                raise _conflict("PortInUse", f"Port {port.id} is currently in use by a trunk.")
            same_vlan = kind == "vlan" and any(
                s["segmentation_type"] == "vlan" and s["segmentation_id"] == seg for s in out
            )
            if same_vlan or any(s["port_id"] == port.id for s in out):
                raise _conflict(
                    "DuplicateSubPort",
                    f"segmentation_type {kind}, segmentation_id {seg} and port_id {port.id} "
                    "are already in use by a sub-port of this trunk.",
                )
            out.append({"port_id": port.id, "segmentation_type": kind, "segmentation_id": seg})
        return out

    def _after_create_trunk(self, ent: Any) -> None:
        self._trunk_details(ent)

    def _cascade_trunk(self, ent: Any) -> None:
        self._trunk_details(ent, gone=True)

    def _trunk_details(self, trunk: Any, gone: bool = False) -> None:
        """Keep the parent port's ``trunk_details`` (neutron's trunk-details extension: the
        trunk's id and its sub-ports with their MAC addresses) in step with *trunk*."""
        parent = self._store["port"].get(trunk.attrs["port_id"])
        if parent is None:
            return
        if gone:
            parent.attrs.pop("trunk_details", None)
            return
        subs = []
        for sub in trunk.attrs["sub_ports"]:
            port = self._store["port"].get(sub["port_id"])
            subs.append({**sub, "mac_address": port.attrs["mac_address"] if port else None})
        parent.attrs["trunk_details"] = {"trunk_id": trunk.id, "sub_ports": subs}

    @operation("trunks.add_subports", kind="trunk", id_arg="trunk_id")
    def trunk_add_subports(self, trunk_id: str, sub_ports: Any) -> dict[str, Any]:
        """Add sub-ports to a trunk; return the trunk."""
        trunk = self._need("trunk", trunk_id, "TrunkNotFound")
        subs = self._subports(trunk.attrs["port_id"], trunk.attrs["sub_ports"], sub_ports, trunk.id)
        self._set(trunk, sub_ports=subs)
        self._trunk_details(trunk)
        return trunk.view()

    @operation("trunks.remove_subports", kind="trunk", id_arg="trunk_id")
    def trunk_remove_subports(self, trunk_id: str, sub_ports: Any) -> dict[str, Any]:
        """Remove sub-ports (by ``port_id``) from a trunk; 404 for a port not in it."""
        trunk = self._need("trunk", trunk_id, "TrunkNotFound")
        if not isinstance(sub_ports, list) or not all(isinstance(s, dict) for s in sub_ports):
            raise _bad("sub_ports must be a list of objects")
        current = trunk.attrs["sub_ports"]
        for spec in sub_ports:
            if not any(s["port_id"] == spec.get("port_id") for s in current):
                raise ext_error(
                    "NotFound",
                    "SubPortNotFound",
                    f"SubPort on trunk {trunk.id} with parent port {trunk.attrs['port_id']} "
                    f"could not be found (port {spec.get('port_id')}).",
                )
        gone = {s.get("port_id") for s in sub_ports}
        self._set(trunk, sub_ports=[s for s in current if s["port_id"] not in gone])
        self._trunk_details(trunk)
        return trunk.view()

    def _check_delete_trunk(self, ent: Any) -> None:
        port = self._store["port"].get(ent.attrs["port_id"])
        if port is not None and not port.deleted and port.attrs["device_id"]:
            raise _conflict(
                "TrunkInUse",
                f"Trunk {ent.id} is currently in use (its parent port is bound to "
                f"{port.attrs['device_id']}).",
            )

    def _check_port_in_use(self, port: Any) -> None:
        used = self._trunk_roles(port.id)
        if used is not None:
            kind = "PortInUseAsTrunkParent" if used[1] == "parent" else "PortInUseAsSubPort"
            raise _conflict(kind, f"Port {port.id} is in use by trunk {used[0]} ({used[1]}).")
        self._check_port_in_sfc(port)

    # --- FWaaS v1 -----------------------------------------------------------------------

    def _prepare_firewall(self, attrs: dict[str, Any]) -> str:
        self._need("firewall_policy", attrs["firewall_policy_id"], "FirewallPolicyNotFound")
        for router in attrs["router_ids"]:
            self._need("router", router, "RouterNotFound")
        return "ACTIVE" if attrs["router_ids"] else "INACTIVE"

    def _update_firewall(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        if "firewall_policy_id" in changes:
            self._need("firewall_policy", changes["firewall_policy_id"], "FirewallPolicyNotFound")
        if "router_ids" in changes:
            for router in changes["router_ids"] or []:
                self._need("router", router, "RouterNotFound")
            ent.status = "ACTIVE" if changes["router_ids"] else "INACTIVE"
        return changes

    def _claim_rules(self, rules: Any, policy_id: str | None) -> list[str]:
        if not isinstance(rules, list):
            raise _bad("firewall_rules must be a list of rule ids")
        for rule_id in rules:
            rule = self._need("firewall_rule", rule_id, "FirewallRuleNotFound")
            owner = rule.attrs["firewall_policy_id"]
            if owner and owner != policy_id:
                raise _conflict(
                    "FirewallRuleInUse", f"Firewall rule {rule.id} is being used by {owner}."
                )
        return list(rules)

    def _prepare_firewall_policy(self, attrs: dict[str, Any]) -> str:
        attrs["firewall_rules"] = self._claim_rules(attrs["firewall_rules"], None)
        return "ACTIVE"

    def _after_create_firewall_policy(self, ent: Any) -> None:
        self._own_rules(ent.id, [], ent.attrs["firewall_rules"])

    def _own_rules(self, policy_id: str, old: list[str], new: list[str]) -> None:
        for rule_id in old:
            rule = self._store["firewall_rule"].get(rule_id)
            if rule is not None and rule_id not in new:
                self._set(rule, firewall_policy_id=None, position=None)
        for number, rule_id in enumerate(new, start=1):  # neutron numbers a policy's rules
            self._set(
                self._store["firewall_rule"][rule_id], firewall_policy_id=policy_id, position=number
            )

    def _update_firewall_policy(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        if "firewall_rules" in changes:
            rules = self._claim_rules(changes["firewall_rules"], ent.id)
            self._own_rules(ent.id, ent.attrs["firewall_rules"], rules)
        return changes

    def _check_delete_firewall_policy(self, ent: Any) -> None:
        users = [f.id for f in self._live("firewall") if f.attrs["firewall_policy_id"] == ent.id]
        if users:
            raise _conflict(
                "FirewallPolicyInUse", f"Firewall policy {ent.id} is being used by {users[0]}."
            )

    def _cascade_firewall_policy(self, ent: Any) -> None:
        self._own_rules(ent.id, ent.attrs["firewall_rules"], [])

    def _prepare_firewall_rule(self, attrs: dict[str, Any]) -> str:
        self._check_firewall_rule(attrs)
        return "ACTIVE"

    def _check_firewall_rule(self, attrs: dict[str, Any]) -> None:
        if attrs["protocol"] == "any":
            attrs["protocol"] = None
        if attrs["protocol"] not in _FW_PROTOCOLS:
            raise _bad(f"protocol {attrs['protocol']!r} is not one of tcp, udp, icmp, any")
        if attrs["action"] not in ("allow", "deny", "reject"):
            raise _bad(f"action {attrs['action']!r} is not one of allow, deny, reject")
        if str(attrs["ip_version"]) not in ("4", "6"):
            raise _bad(f"ip_version {attrs['ip_version']!r} is not 4 or 6")
        attrs["ip_version"] = int(attrs["ip_version"])  # neutron converts '4' as well
        ports = attrs["source_port"] or attrs["destination_port"]
        if ports and attrs["protocol"] not in ("tcp", "udp"):
            raise _bad("source_port and destination_port need protocol tcp or udp")

    def _update_firewall_rule(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        merged = {**ent.attrs, **changes}
        self._check_firewall_rule(merged)
        return {**changes, **{k: merged[k] for k in ("protocol", "ip_version") if k in changes}}

    def _check_delete_firewall_rule(self, ent: Any) -> None:
        owner = ent.attrs["firewall_policy_id"]
        if owner and any(p.id == owner for p in self._live("firewall_policy")):
            raise _conflict(
                "FirewallRuleInUse", f"Firewall rule {ent.id} is being used by {owner}."
            )

    # --- metering -----------------------------------------------------------------------

    def _prepare_metering_label(self, attrs: dict[str, Any]) -> str:
        return "ACTIVE"

    def _prepare_metering_label_rule(self, attrs: dict[str, Any]) -> str:
        label = self._need("metering_label", attrs["metering_label_id"], "MeteringLabelNotFound")
        try:
            prefix = ipaddress.ip_network(str(attrs["remote_ip_prefix"]), strict=False)
        except ValueError:
            raise _bad(f"'{attrs['remote_ip_prefix']}' is not a valid IP subnet") from None
        if attrs["direction"] not in ("ingress", "egress"):
            raise _bad(f"direction {attrs['direction']!r} is not one of ingress, egress")
        for rule in self._live("metering_label_rule"):
            same = all(
                rule.attrs[k] == attrs[k] for k in ("metering_label_id", "direction", "excluded")
            )
            other = ipaddress.ip_network(rule.attrs["remote_ip_prefix"])
            if same and other.version == prefix.version and other.overlaps(prefix):
                raise _conflict(
                    "MeteringLabelRuleOverlaps",
                    f"Metering label rule with remote_ip_prefix {prefix} overlaps another "
                    f"of label {label.id}.",
                )
        attrs["remote_ip_prefix"] = str(prefix)
        return "ACTIVE"

    def _cascade_metering_label(self, ent: Any) -> None:
        for rule in self._live("metering_label_rule"):
            if rule.attrs["metering_label_id"] == ent.id:
                self._start(rule, "delete", None, None)

    # --- RBAC ---------------------------------------------------------------------------

    def _prepare_rbac_policy(self, attrs: dict[str, Any]) -> str:
        kind = attrs["object_type"]
        if kind not in _RBAC_ACTIONS:
            raise _bad(f"object_type {kind!r} is not one of {', '.join(sorted(_RBAC_ACTIONS))}")
        label = "".join(p.capitalize() for p in kind.split("_"))
        self._need(kind, attrs["object_id"], f"{label}NotFound")
        if attrs["action"] not in _RBAC_ACTIONS[kind]:
            raise _bad(f"action {attrs['action']!r} is not allowed for object_type {kind}")
        self._unique_rbac(attrs, None)
        return "ACTIVE"

    def _unique_rbac(self, attrs: dict[str, Any], skip: str | None) -> None:
        keys = ("object_type", "object_id", "action", "target_tenant")
        for rbac in self._live("rbac_policy"):
            if rbac.id != skip and all(rbac.attrs[k] == attrs[k] for k in keys):
                raise _conflict(
                    "DuplicateRbacPolicy",
                    "An RBAC policy already exists with those values.",
                )

    def _update_rbac_policy(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        self._unique_rbac({**ent.attrs, **changes}, ent.id)
        return changes

    # --- L2 gateways and network gateways ---------------------------------------------

    def _prepare_l2_gateway(self, attrs: dict[str, Any]) -> str:
        devices = attrs["devices"]
        if not isinstance(devices, list) or not devices:
            raise _bad("devices must be a non-empty list")
        for device in devices:
            if not isinstance(device, dict) or not device.get("device_name"):
                raise _bad("each device needs a device_name")
            if not isinstance(device.get("interfaces"), list) or not device["interfaces"]:
                raise _bad(f"device {device['device_name']} needs a list of interfaces")
        return "ACTIVE"

    def _update_l2_gateway(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        if "devices" in changes:
            self._prepare_l2_gateway(copy.deepcopy({**ent.attrs, **changes}))
        return changes

    def _prepare_l2_gateway_connection(self, attrs: dict[str, Any]) -> str:
        gateway = self._need("l2_gateway", attrs["l2_gateway_id"], "L2GatewayNotFound")
        net = self._need("network", attrs["network_id"], "NetworkNotFound")
        for conn in self._live("l2_gateway_connection"):
            if (conn.attrs["l2_gateway_id"], conn.attrs["network_id"]) == (gateway.id, net.id):
                raise _conflict(
                    "L2GatewayConnectionExists",
                    f"The network {net.id} is already connected to l2 gateway {gateway.id}.",
                )
        return "ACTIVE"

    def _check_delete_l2_gateway(self, ent: Any) -> None:
        if any(c.attrs["l2_gateway_id"] == ent.id for c in self._live("l2_gateway_connection")):
            raise _conflict("L2GatewayInUse", f"L2 Gateway {ent.id} is in use by a connection.")

    def _check_delete_network(self, ent: Any) -> None:
        if any(c.attrs["network_id"] == ent.id for c in self._live("l2_gateway_connection")):
            raise _conflict("NetworkInUse", f"Network {ent.id} is connected to an L2 gateway.")

    def _prepare_network_gateway(self, attrs: dict[str, Any]) -> str:
        devices = attrs["devices"]
        if not isinstance(devices, list) or not devices:
            raise _bad("devices must be a non-empty list")
        for device in devices:
            if not isinstance(device, dict) or not device.get("id"):
                raise _bad("each device needs an id and an interface_name")
            if not device.get("interface_name"):
                raise _bad(f"device {device['id']} needs an interface_name")
        attrs["ports"] = []
        return "ACTIVE"

    @operation("network_gateways.connect", kind="network_gateway", id_arg="gateway_id")
    def connect_network_gateway(self, gateway_id: str, body: Any) -> dict[str, Any]:
        """Connect a network to the gateway (a port of the gateway's on it); 409 if connected."""
        gateway = self._need("network_gateway", gateway_id, "NetworkGatewayNotFound")
        if not isinstance(body, dict):
            raise _bad("a connection is an object with network_id")
        net = self._need("network", body.get("network_id"), "NetworkNotFound")
        seg_type = body.get("segmentation_type") or "flat"
        seg_id = body.get("segmentation_id")
        if seg_type not in ("flat", "vlan"):
            raise _bad(f"segmentation_type {seg_type!r} is not one of flat, vlan")
        if seg_type == "vlan" and (isinstance(seg_id, bool) or not isinstance(seg_id, int)):
            raise _bad("a vlan connection needs an integer segmentation_id")
        for conn in gateway.attrs["ports"]:
            if (conn["network_id"], conn["segmentation_type"]) == (net.id, seg_type) and conn[
                "segmentation_id"
            ] == seg_id:
                raise _conflict(
                    "GatewayConnectionInUse",
                    f"The network {net.id} is already connected to gateway {gateway.id}.",
                )
        attrs = plain(SCHEMAS["port"][0])
        attrs.update(
            network_id=net.id,
            device_id=gateway.id,
            device_owner="network:gateway-interface",
            port_security_enabled=net.attrs["port_security_enabled"],
        )
        port = self._create("port", "", self._prepare_port(attrs), attrs)
        conn = {
            "network_id": net.id,
            "segmentation_type": seg_type,
            "segmentation_id": seg_id,
            "port_id": port.id,
        }
        self._set(gateway, ports=[*gateway.attrs["ports"], conn])
        return {
            "connection_info": {
                "network_gateway_id": gateway.id,
                "network_id": net.id,
                "port_id": port.id,
            }
        }

    @operation("network_gateways.disconnect", kind="network_gateway", id_arg="gateway_id")
    def disconnect_network_gateway(self, gateway_id: str, body: Any) -> None:
        """Disconnect a network (its gateway port is deleted); 404 if not connected."""
        gateway = self._need("network_gateway", gateway_id, "NetworkGatewayNotFound")
        body = body if isinstance(body, dict) else {}
        match = [
            c
            for c in gateway.attrs["ports"]
            if c["network_id"] == body.get("network_id")
            and (
                "segmentation_type" not in body
                or c["segmentation_type"] == (body["segmentation_type"] or "flat")
            )
            and ("segmentation_id" not in body or c["segmentation_id"] == body["segmentation_id"])
        ]
        if not match:
            raise ext_error(
                "NotFound",
                "GatewayConnectionNotFound",
                f"Network {body.get('network_id')} is not connected to gateway {gateway.id}.",
            )
        self._set(gateway, ports=[c for c in gateway.attrs["ports"] if c is not match[0]])
        port = self._store["port"].get(match[0]["port_id"])
        if port is not None and not port.deleted:
            self._start(port, "delete", None, None)

    def _check_delete_network_gateway(self, ent: Any) -> None:
        if ent.attrs["ports"]:
            raise _conflict(
                "NetworkGatewayPortInUse",
                f"Port {ent.attrs['ports'][0]['port_id']} is owned by network gateway {ent.id}: "
                "disconnect its networks first.",
            )


def _bind_qos_rule_hooks() -> None:
    for kind in QOS_RULES:

        def prepare(self: Any, attrs: dict[str, Any], _kind: str = kind) -> str:
            return self._prepare_qos_rule(_kind, attrs)

        setattr(NetworkExtensionHooks, f"_prepare_{kind}", prepare)
        setattr(NetworkExtensionHooks, f"_after_create_{kind}", _after_create_qos)
        setattr(NetworkExtensionHooks, f"_cascade_{kind}", _drop_qos)
        setattr(NetworkExtensionHooks, f"_update_{kind}", _update_qos)


def _after_create_qos(self: Any, ent: Any) -> None:
    self._after_create_qos_rule(ent)


def _drop_qos(self: Any, ent: Any) -> None:
    self._drop_qos_rule(ent)


def _update_qos(self: Any, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
    return self._update_qos_rule(ent, changes)


_bind_qos_rule_hooks()
