"""A server's ``addresses`` as Nova shows them: fixed addresses and the floating IPs on its ports.

Nova fills a server's ``addresses`` from its network info cache, which neutron
refreshes when a floating IP is associated with one of the server's ports: the
floating address appears under the port's network with ``OS-EXT-IPS:type:
floating`` (and leaves when it is disassociated). The compute service keeps
the fixed addresses it bound at boot; this adds the floating ones at read time,
from the network service's live floating IPs, so every path that associates or
releases one (neutron's API, shade's ``auto_ip``, a port's deletion) shows.
"""

from __future__ import annotations

import copy
import ipaddress
from typing import Any


def nova_addresses(cloud: Any, server: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Return *server*'s addresses with the floating IPs associated with its ports."""
    addresses: dict[str, list[dict[str, Any]]] = copy.deepcopy(server.get("addresses") or {})
    if "network" not in cloud.service_names():
        return addresses
    network = cloud.service("network")
    ports = {p.id: p for p in network._live("port") if p.attrs.get("device_id") == server["id"]}
    if not ports:
        return addresses
    for fip in sorted(network._live("floatingip"), key=lambda f: f.attrs["floating_ip_address"]):
        port = ports.get(fip.attrs.get("port_id"))
        net = network._store["network"].get(port.attrs["network_id"]) if port else None
        if port is None or net is None:
            continue
        address = fip.attrs["floating_ip_address"]
        entry = {
            "addr": address,
            "version": ipaddress.ip_address(address).version,
            "OS-EXT-IPS:type": "floating",
            "OS-EXT-IPS-MAC:mac_addr": port.attrs["mac_address"],
        }
        shown = addresses.setdefault(net.name, [])
        if entry not in shown:
            shown.append(entry)
    return addresses
