"""Changing a port's ``fixed_ips`` (a mixin of :class:`fake_clouds.network.NetworkService`).

As neutron does on ``PUT /ports/{id}`` with ``fixed_ips``: the list given is
the port's new list. An entry with an ``ip_address`` asks for that address
(409 ``IpAddressAlreadyAllocated`` when another port holds it); an entry with
only a ``subnet_id`` keeps the address the port already has on that subnet,
or gets a free one from the subnet's pool. Addresses not asked for any more
are released. The MAC address and the port's id never change.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from sdk import exception


def _error(cls: type[exception.ClientError], kind: str, message: str) -> exception.ClientError:
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


class PortAddressHooks:
    """The ``fixed_ips`` update rule of ports."""

    def _update_port(self: Any, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        if "fixed_ips" not in changes:
            return changes
        wanted = changes["fixed_ips"]
        if not isinstance(wanted, list) or not all(isinstance(e, dict) for e in wanted):
            raise _error(
                exception.BadRequest, "InvalidInput", "Invalid input for fixed_ips: not a list"
            )
        have = list(ent.attrs["fixed_ips"])
        taken = {
            f["ip_address"]
            for p in self._live("port")
            if p.id != ent.id
            for f in p.attrs["fixed_ips"]
        }
        out = []
        for entry in wanted:
            address = entry.get("ip_address")
            subnet_id = entry.get("subnet_id")
            if subnet_id is None and address is None:
                raise _error(
                    exception.BadRequest,
                    "InvalidInput",
                    "Invalid input for fixed_ips: each entry needs a subnet_id or an ip_address.",
                )
            subnet = self._need("subnet", subnet_id, "SubnetNotFound") if subnet_id else None
            if subnet is None:
                subnet = self._subnet_holding(ent.attrs["network_id"], address)
            if subnet.attrs["network_id"] != ent.attrs["network_id"]:
                raise _error(
                    exception.BadRequest,
                    "InvalidInput",
                    f"Invalid input for fixed_ips: subnet {subnet.id} is not on the port's network.",
                )
            if address is None:
                kept = next((f for f in have if f["subnet_id"] == subnet.id), None)
                if kept is not None:
                    have.remove(kept)
                    out.append(dict(kept))
                    continue
                address = self._allocate(subnet)
            elif address in taken:
                raise _error(
                    exception.Conflict,
                    "IpAddressAlreadyAllocated",
                    f"IP address {address} already allocated in subnet {subnet.id}",
                )
            out.append({"subnet_id": subnet.id, "ip_address": address})
        return {**changes, "fixed_ips": out}

    def _subnet_holding(self: Any, network_id: str, address: Any) -> Any:
        """The subnet of *network_id* whose CIDR holds *address* (400 when none does)."""
        try:
            ip = ipaddress.ip_address(str(address))
        except ValueError:
            raise _error(
                exception.BadRequest, "InvalidInput", f"'{address}' is not a valid IP address"
            ) from None
        for subnet in self._live("subnet"):
            if subnet.attrs["network_id"] == network_id and ip in ipaddress.ip_network(
                subnet.attrs["cidr"]
            ):
                return subnet
        raise _error(
            exception.BadRequest,
            "InvalidInput",
            f"Invalid input for fixed_ips: no subnet of network {network_id} holds {address}.",
        )
