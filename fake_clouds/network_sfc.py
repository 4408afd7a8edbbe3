"""networking-sfc and tap-as-a-service on the network service (a mixin of
:class:`fake_clouds.network.NetworkService`, through
:class:`fake_clouds.network_extensions.NetworkExtensionHooks`).

Written from the two projects' API references:

* A **port pair** names existing ingress and egress ports (404); the same
  ingress/egress pair cannot be made twice (409). A **port pair group** holds
  existing port pairs (404), each in one group only (409), and draws the next
  ``group_id``. A **flow classifier** checks its protocol, ethertype, port
  ranges and logical ports. A **port chain** needs at least one existing group
  (400, 404); a group or a classifier belongs to one chain only (409).
* A **tap service** mirrors to an existing port (404) that no other tap service
  uses (409); a **tap flow** names an existing source port and tap service
  (404) with direction ``IN``, ``OUT`` or ``BOTH``. Deleting a tap service
  deletes its tap flows.
* Deleting a port pair in a group, a group or a classifier in a chain, or a
  port a port pair, classifier or tap service uses is refused (409).

Every one of them is ``ACTIVE`` once made (the status Heat's tap resources wait for).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from sdk import exception


def ext_error(cls: str, kind: str, message: str) -> exception.ClientError:
    """A typed error (``BadRequest``, ``NotFound``, ``Conflict``) with neutron's body."""
    error: type[exception.ClientError] = getattr(exception, cls)
    return error(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


def _bad(message: str) -> exception.ClientError:
    return ext_error("BadRequest", "InvalidInput", f"Invalid input for operation: {message}")


def _conflict(kind: str, message: str) -> exception.ClientError:
    return ext_error("Conflict", kind, message)


def _ids(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(f"{what} must be a list of ids")
    if len(set(value)) != len(value):
        raise _bad(f"{what} holds an id twice")
    return list(value)


class NetworkSfcHooks:
    """Preparation, update and deletion checks of the sfc and taas kinds."""

    _live: Any
    _need: Any
    _start: Any
    _set: Any
    _create: Any
    _store: Any
    _prepare_port: Any
    counters: dict[str, Any]

    # --- port pairs and groups ------------------------------------------------------

    def _prepare_port_pair(self, attrs: dict[str, Any]) -> str:
        ingress = self._need("port", attrs["ingress"], "PortNotFound")
        egress = self._need("port", attrs["egress"], "PortNotFound")
        for pair in self._live("port_pair"):
            if (pair.attrs["ingress"], pair.attrs["egress"]) == (ingress.id, egress.id):
                raise _conflict(
                    "PortPairIngressEgressInUse",
                    f"Port Pair with ingress port {ingress.id} and egress port {egress.id} "
                    f"is already used by another Port Pair {pair.id}.",
                )
        params = attrs["service_function_parameters"]
        if not isinstance(params, dict):
            raise _bad("service_function_parameters must be a mapping")
        attrs["service_function_parameters"] = {"correlation": None, "weight": 1, **params}
        return "ACTIVE"

    def _claim(self, kind: str, ids: list[str], owner_kind: str, key: str, me: Any) -> None:
        """Each of *ids* (of *kind*) exists and is in no other *owner_kind*'s *key*."""
        label = "".join(p.capitalize() for p in kind.split("_"))
        for ident in ids:
            self._need(kind, ident, f"{label}NotFound")
            for owner in self._live(owner_kind):
                if owner.id != me and ident in owner.attrs[key]:
                    raise _conflict(
                        f"{label}InUse",
                        f"{label} {ident} is already used by {owner_kind} {owner.id}.",
                    )

    def _next(self, counter: str) -> int:
        value = int(self.counters.get(counter, 0)) + 1
        self.counters[counter] = value
        return value

    def _prepare_port_pair_group(self, attrs: dict[str, Any]) -> str:
        attrs["port_pairs"] = _ids(attrs["port_pairs"], "port_pairs")
        self._claim("port_pair", attrs["port_pairs"], "port_pair_group", "port_pairs", None)
        params = attrs["port_pair_group_parameters"]
        if not isinstance(params, dict):
            raise _bad("port_pair_group_parameters must be a mapping")
        attrs["port_pair_group_parameters"] = {"lb_fields": [], **params}
        attrs["group_id"] = self._next("sfc_group_id")
        return "ACTIVE"

    def _update_port_pair_group(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        if "port_pairs" in changes:
            changes["port_pairs"] = _ids(changes["port_pairs"], "port_pairs")
            self._claim("port_pair", changes["port_pairs"], "port_pair_group", "port_pairs", ent.id)
        return changes

    def _check_delete_port_pair(self, ent: Any) -> None:
        self._refuse_if_held(ent, "port_pair_group", "port_pairs", "PortPairInUse")

    def _refuse_if_held(self, ent: Any, owner_kind: str, key: str, error: str) -> None:
        for owner in self._live(owner_kind):
            if ent.id in owner.attrs[key]:
                raise _conflict(error, f"{ent.kind} {ent.id} is in use by {owner_kind} {owner.id}.")

    # --- flow classifiers and chains --------------------------------------------------

    def _prepare_flow_classifier(self, attrs: dict[str, Any]) -> str:
        if attrs["ethertype"] not in ("IPv4", "IPv6"):
            raise _bad(f"ethertype {attrs['ethertype']!r} is not one of IPv4, IPv6")
        if attrs["protocol"] not in ("tcp", "udp", "icmp", None):
            raise _bad(f"protocol {attrs['protocol']!r} is not one of tcp, udp, icmp")
        for side in ("source", "destination"):
            prefix = attrs[f"{side}_ip_prefix"]
            if prefix is not None:
                try:
                    net = ipaddress.ip_network(str(prefix), strict=False)
                except ValueError:
                    raise _bad(f"{side}_ip_prefix {prefix!r} is not a valid CIDR") from None
                if net.version != int(attrs["ethertype"][-1]):
                    raise _bad(f"{side}_ip_prefix {prefix} does not match {attrs['ethertype']}")
            low, high = attrs[f"{side}_port_range_min"], attrs[f"{side}_port_range_max"]
            if (low is not None or high is not None) and attrs["protocol"] not in ("tcp", "udp"):
                raise _bad(f"{side} port ranges need protocol tcp or udp")
            if low is not None and high is not None and low > high:
                raise _bad(f"{side}_port_range_min {low} is above {side}_port_range_max {high}")
            port = attrs[f"logical_{side}_port"]
            if port is not None:
                self._need("port", port, "PortNotFound")
        return "ACTIVE"

    def _check_delete_flow_classifier(self, ent: Any) -> None:
        self._refuse_if_held(ent, "port_chain", "flow_classifiers", "FlowClassifierInUse")

    def _prepare_port_chain(self, attrs: dict[str, Any]) -> str:
        groups = _ids(attrs["port_pair_groups"], "port_pair_groups")
        if not groups:
            raise _bad("port_pair_groups must hold at least one port pair group")
        self._claim("port_pair_group", groups, "port_chain", "port_pair_groups", None)
        classifiers = _ids(attrs["flow_classifiers"], "flow_classifiers")
        self._claim("flow_classifier", classifiers, "port_chain", "flow_classifiers", None)
        params = attrs["chain_parameters"]
        if not isinstance(params, dict):
            raise _bad("chain_parameters must be a mapping")
        correlation = params.get("correlation", "mpls")
        if correlation not in ("mpls", "nsh"):
            raise _bad(f"chain_parameters correlation {correlation!r} is not one of mpls, nsh")
        attrs["chain_parameters"] = {"correlation": "mpls", "symmetric": False, **params}
        attrs["chain_id"] = self._next("sfc_chain_id")
        return "ACTIVE"

    def _update_port_chain(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        if "port_pair_groups" in changes:
            groups = _ids(changes["port_pair_groups"], "port_pair_groups")
            if not groups:
                raise _bad("port_pair_groups must hold at least one port pair group")
            self._claim("port_pair_group", groups, "port_chain", "port_pair_groups", ent.id)
        if "flow_classifiers" in changes:
            classifiers = _ids(changes["flow_classifiers"], "flow_classifiers")
            self._claim("flow_classifier", classifiers, "port_chain", "flow_classifiers", ent.id)
        return changes

    def _check_delete_port_pair_group(self, ent: Any) -> None:
        self._refuse_if_held(ent, "port_chain", "port_pair_groups", "PortPairGroupInUse")

    # --- tap-as-a-service -------------------------------------------------------------

    def _prepare_tap_service(self, attrs: dict[str, Any]) -> str:
        port = self._need("port", attrs["port_id"], "PortNotFound")
        for tap in self._live("tap_service"):
            if tap.attrs["port_id"] == port.id:
                raise _conflict(
                    "PortInUse", f"Port {port.id} is already the port of tap service {tap.id}."
                )
        return "ACTIVE"

    def _prepare_tap_flow(self, attrs: dict[str, Any]) -> str:
        self._need("port", attrs["source_port"], "PortNotFound")
        self._need("tap_service", attrs["tap_service_id"], "TapServiceNotFound")
        if attrs["direction"] not in ("IN", "OUT", "BOTH"):
            raise _bad(f"direction {attrs['direction']!r} is not one of IN, OUT, BOTH")
        return "ACTIVE"

    def _cascade_tap_service(self, ent: Any) -> None:
        for flow in self._live("tap_flow"):
            if flow.attrs["tap_service_id"] == ent.id:
                self._start(flow, "delete", None, None)

    # --- ports in use -----------------------------------------------------------------

    def _check_port_in_sfc(self, port: Any) -> None:
        """Refuse deleting a port a port pair, flow classifier or tap object uses (409)."""
        uses = (
            ("port_pair", ("ingress", "egress")),
            ("flow_classifier", ("logical_source_port", "logical_destination_port")),
            ("tap_service", ("port_id",)),
            ("tap_flow", ("source_port",)),
        )
        for kind, keys in uses:
            for ent in self._live(kind):
                if any(ent.attrs[k] == port.id for k in keys):
                    raise _conflict("PortInUse", f"Port {port.id} is in use by {kind} {ent.id}.")
