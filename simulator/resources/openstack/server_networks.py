"""How ``OS::Nova::Server`` changes its ``networks`` in place, as Heat does.

Heat keeps every interface whose new ``networks`` entry still describes it,
and touches only the rest:

1. Each old entry is completed from the server's interfaces: an entry that
   named no port is matched with the interface it made (by network, subnet or
   fixed IP), and takes that interface's port, network, subnet and first fixed
   IP. An entry given by subnet only is first given the subnet's network.
2. Each new entry is then looked for among the completed old ones, keys left
   empty in the new entry ignored: one naming a port matches the old entry of
   that port, one naming a fixed IP the old entry of that address, any other
   the old entry sharing the most of its keys (the first on a tie). A matched
   pair is left alone -- so ``{network: N}`` -> ``{subnet: S}`` keeps the port
   when S is the subnet the port is on, and a reordered list moves nothing.
3. Old entries left over are detached (ports the server made itself for a
   ``subnet`` entry are then deleted); new entries left over are attached: a
   port as given, a new port on a ``subnet``, or nova's port on a network
   (with the ``fixed_ip`` asked for).

Without any old entry, the server had nova's default NIC: it is detached. With
neither old nor new entries there is nothing to do; with no new entry and no
kept one, nova is asked for its default NIC again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulator.resources.openstack._base import neutron_id

__all__ = ["NetworkPlan", "NetworkUpdates", "plan_network_update"]

#: the keys an interface can tell about itself
MANAGED = ("port", "network", "fixed_ip", "subnet")


class NetworkPlan:
    """What an update of ``networks`` does: the ports to detach, the entries to attach."""

    def __init__(self, detach: list[str], attach: list[dict[str, Any]]) -> None:
        self.detach = detach
        self.attach = attach

    def __repr__(self) -> str:
        return f"NetworkPlan(detach={self.detach!r}, attach={self.attach!r})"


def _subset(wanted: dict[str, Any], have: dict[str, Any]) -> bool:
    return all(k in have and have[k] == v for k, v in wanted.items())


def _best_match(candidates: list[dict[str, Any]], wanted: dict[str, Any]) -> Any:
    """The candidate *wanted* describes (see the module's step 2), or None."""
    for key in ("port", "fixed_ip"):
        if wanted.get(key) is not None:
            return next(
                (c for c in candidates if c.get(key) == wanted[key] and _subset(wanted, c)), None
            )
    best, score = None, 0
    for cand in candidates:
        if not _subset(wanted, cand):
            continue
        shared = sum(1 for k, v in wanted.items() if cand.get(k) == v)
        if shared > score:
            best, score = cand, shared
    return best


def _given(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in MANAGED if entry.get(k) is not None}


def plan_network_update(
    old: list[dict[str, Any]] | None,
    new: list[dict[str, Any]] | None,
    interfaces: list[dict[str, Any]],
    network_of_subnet: Callable[[str], str],
) -> NetworkPlan:
    """Plan the change from *old* to *new* entries (ids resolved, keys of :data:`MANAGED`).

    *interfaces* are the server's, each ``{"port", "network", "fixed_ip",
    "subnet"}``; *network_of_subnet* gives a subnet's network id.
    """
    old = [{k: e.get(k) or None for k in MANAGED} for e in old or []]
    new = [{k: e.get(k) or None for k in MANAGED} for e in new or []]
    if not old and not new:
        return NetworkPlan([], [])
    if not old:
        return NetworkPlan([i["port"] for i in interfaces], new or [{}])
    pool = [dict(i) for i in interfaces]
    for entry in old:
        if entry["port"] is None and entry["network"] is None and entry["subnet"]:
            entry["network"] = network_of_subnet(entry["subnet"])
        found = _best_match(pool, _given(entry))
        if found is not None:
            entry.update(found)
            pool.remove(found)
    kept = 0
    for entry in list(new):
        found = _best_match(old, _given(entry))
        if found is not None:
            old.remove(found)
            new.remove(entry)
            kept += 1
    detach = [e["port"] for e in old if e["port"]]
    attach = new if new or kept else [{}]
    return NetworkPlan(detach, attach)


class NetworkUpdates:
    """The server's side: read its interfaces, plan, detach and attach (mixed into the
    ``OS::Nova::Server`` type, whose ``_internal_port`` makes the port of a ``subnet``)."""

    def _resolved(self: Any, entries: Any) -> list[dict[str, Any]]:
        """*entries* of ``networks`` with names of networks, subnets and ports made ids."""
        neutron = self.client("network")
        out = []
        for entry in entries or []:
            item = {k: entry.get(k) for k in ("network", "subnet", "port", "fixed_ip")}
            for kind in ("network", "subnet", "port"):
                if item[kind]:
                    item[kind] = neutron_id(neutron, kind, item[kind])
            out.append(item)
        return out

    def _update_networks(self: Any, new: Any) -> None:
        """Detach and attach interfaces as Heat does (see :mod:`.server_networks`)."""
        neutron = self.client("network")
        servers = self.client().servers
        interfaces = []
        for iface in servers.interface_list(self.resource_id):
            first = iface.fixed_ips[0] if iface.fixed_ips else {}
            interfaces.append(
                {
                    "port": iface.port_id,
                    "network": iface.net_id,
                    "fixed_ip": first.get("ip_address"),
                    "subnet": first.get("subnet_id"),
                }
            )
        plan = plan_network_update(
            self._resolved(self.properties["networks"]),
            self._resolved(new),
            interfaces,
            lambda subnet: neutron.show_subnet(subnet)["subnet"]["network_id"],
        )
        internal = list(self.data().get("internal_ports", []))
        for port in plan.detach:
            servers.interface_detach(self.resource_id, port)
            if port in internal:
                try:
                    neutron.delete_port(port)
                except Exception as ex:  # noqa: BLE001 - gone already is fine
                    self.client_plugin("network").ignore_not_found(ex)
                internal.remove(port)
        self.data_set("internal_ports", internal)
        for entry in plan.attach:
            if entry.get("port"):
                servers.interface_attach(self.resource_id, entry["port"], None)
            elif entry.get("subnet"):
                port = self._internal_port(neutron, entry)
                servers.interface_attach(self.resource_id, port, None)
            else:
                servers.interface_attach(
                    self.resource_id, None, entry.get("network"), entry.get("fixed_ip")
                )
