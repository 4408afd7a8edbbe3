"""The attributes of ``OS::Nova::Server`` (``addresses``, ``networks``, ``first_address``, names).

Read from the fake compute service at the time they are asked for, as Heat's are: ``addresses``
names each entry's port (matched by IP and MAC), and both ``addresses`` and ``networks`` are also
keyed by each network's id when its name is unique, as Heat 27 does.
"""

from __future__ import annotations

from typing import Any


def _first_address(addresses: dict[str, Any]) -> str:
    for net in sorted(addresses):
        for addr in addresses[net]:
            if addr.get("version") == 4 or not addr.get("version"):
                return addr.get("addr", "")
    return ""


class ServerAttributes:
    """The attribute half of :class:`~simulator.resources.openstack.server.Server`."""

    resource_id: Any
    client: Any

    def _with_ports(self, addresses: dict[str, Any]) -> dict[str, Any]:
        """Heat's ``addresses``: nova's, each entry naming its ``port`` (matched by IP and MAC)."""
        ports = self.client("network").list_ports(device_id=self.resource_id)["ports"]
        by_address = {
            (ip["ip_address"], port.get("mac_address")): port["id"]
            for port in ports
            for ip in port.get("fixed_ips", [])
        }
        out: dict[str, Any] = {}
        for net_name, entries in addresses.items():
            out[net_name] = [
                {
                    **entry,
                    "port": by_address.get(
                        (entry.get("addr"), entry.get("OS-EXT-IPS-MAC:mac_addr"))
                    ),
                }
                for entry in entries
            ]
        return out

    def _by_network_id(self, by_name: dict[str, Any]) -> dict[str, Any]:
        """*by_name* with each entry also under its network's id (a unique name), as Heat 27
        extends ``addresses`` and ``networks``."""
        out = dict(by_name)
        neutron = self.client("network")
        for net_name in sorted(by_name):
            found = neutron.list_networks(name=net_name)["networks"]
            if len(found) == 1:
                out[found[0]["id"]] = by_name[net_name]
        return out

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        server = self.client().servers.get(self.resource_id)
        addresses = server.addresses or {}
        if name == "first_address":
            return _first_address(addresses)
        if name == "addresses":
            return self._by_network_id(self._with_ports(addresses))
        if name == "networks":
            return self._by_network_id(dict(server.networks))
        if name in ("name", "instance_name"):
            return server.name
        return None
