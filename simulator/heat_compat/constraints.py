"""Custom constraints Heat's own plug-ins name that plugsim's library does not register.

Heat registers its custom constraints through its ``heat.constraints`` entry
points; plugsim's bundled OpenStack library registers the existence checks
its own types use (``neutron.network``, ``nova.flavor`` ...). Heat's in-tree
plug-ins also name format checks (``net_cidr``, ``ip_addr``, ``mac_addr``,
``ip_or_cidr``), ``nova.server`` and neutron objects the library has no type
for (``neutron.address_scope``, ``neutron.subnetpool``): this module provides them, written anew
on the standard library and the fake compute client, and
:func:`register_missing` adds them to a registry that lacks them when a Heat
plug-in is loaded.
"""

from __future__ import annotations

import abc
import ipaddress
import re
from typing import Any

from sdk import exception
from sdk.constraints import BaseCustomConstraint
from simulator.heat_compat import keystone_constraints
from simulator.heat_compat.ext_constraints import EXT_CONSTRAINTS


class _Format(BaseCustomConstraint, abc.ABC):
    """A constraint on the value's text alone (no client needed); subclasses say what is wrong."""

    @abc.abstractmethod
    def check(self, value: str) -> str | None:
        """Why *value* is invalid, or None when it is valid."""

    def validate(self, value: Any, context: Any = None) -> bool:
        """Valid when :meth:`check` finds nothing wrong with the text."""
        self._error_message = None
        problem = self.check(value if isinstance(value, str) else str(value))
        if problem is not None:
            self._error_message = problem
            return False
        return True


class IPAddressConstraint(_Format):
    """``ip_addr``: an IPv4 or IPv6 address."""

    def check(self, value: str) -> str | None:
        """None for an address; the reason otherwise."""
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return f"{value!r} is not a valid IP address"
        return None


class CIDRConstraint(_Format):
    """``net_cidr``: a network in CIDR notation (``10.0.0.0/24``), prefix length included."""

    def check(self, value: str) -> str | None:
        """None for a CIDR; the reason otherwise."""
        if "/" not in value:
            return f"{value!r} is not a valid CIDR: the prefix length is missing"
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError as ex:
            return f"{value!r} is not a valid CIDR: {ex}"
        return None


class IPOrCIDRConstraint(_Format):
    """``ip_or_cidr``: an address or a network in CIDR notation."""

    def check(self, value: str) -> str | None:
        """None for an address or a CIDR; the reason otherwise."""
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            return f"{value!r} is neither a valid IP address nor a CIDR"
        return None


_MAC = re.compile(r"[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){4}")


class MACAddressConstraint(_Format):
    """``mac_addr``: a MAC address of six hexadecimal pairs (``fa:16:3e:00:00:01``)."""

    def check(self, value: str) -> str | None:
        """None for a MAC address; the reason otherwise."""
        if _MAC.fullmatch(value) is None:
            return f"{value!r} is not a valid MAC address"
        return None


class ServerConstraint(BaseCustomConstraint):
    """``nova.server``: a server of the fake compute service, by id or name."""

    expected_exceptions = (exception.EntityNotFound, exception.NotFound)

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the server up through the context's compute client."""
        servers = client.client_plugin("compute").client().servers.list()
        for server in servers:
            if value in (getattr(server, "id", None), getattr(server, "name", None)):
                return
        raise exception.EntityNotFound(entity="Server", name=value)


class _NeutronObject(BaseCustomConstraint):
    """A neutron object of :attr:`kind` (plural :attr:`plural`), by id or by a unique name."""

    expected_exceptions = (exception.EntityNotFound, exception.NotFound, exception.Conflict)
    kind = ""
    plural = ""
    label = ""

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the object up through the context's network client."""
        neutron = client.client_plugin("network").client()
        items = getattr(neutron, f"list_{self.plural}")()[self.plural]
        if any(item.get("id") == value for item in items):
            return
        named = [item for item in items if item.get("name") == value]
        if len(named) > 1:
            raise exception.Conflict(f"Multiple {self.kind} matches found for name '{value}'")
        if not named:
            raise exception.EntityNotFound(entity=self.label, name=value)


class AddressScopeConstraint(_NeutronObject):
    """``neutron.address_scope``: an address scope of the fake network service."""

    kind, plural, label = "address_scope", "address_scopes", "AddressScope"


class SubnetPoolConstraint(_NeutronObject):
    """``neutron.subnetpool``: a subnet pool of the fake network service."""

    kind, plural, label = "subnetpool", "subnetpools", "SubnetPool"


#: The constraints of this module by Heat's names.
CONSTRAINTS: dict[str, type[BaseCustomConstraint]] = {
    "ip_addr": IPAddressConstraint,
    "ip_or_cidr": IPOrCIDRConstraint,
    "mac_addr": MACAddressConstraint,
    "net_cidr": CIDRConstraint,
    "neutron.address_scope": AddressScopeConstraint,
    "neutron.subnetpool": SubnetPoolConstraint,
    "nova.server": ServerConstraint,
    **EXT_CONSTRAINTS,  # the extension objects (QoS, sfc, taas, volume types)
    **keystone_constraints.CONSTRAINTS,
}


def register_missing(registry: Any) -> list[str]:
    """Register on *registry* each of :data:`CONSTRAINTS` it lacks; return the names added."""
    known = set(registry.names())
    added = []
    for name, constraint in CONSTRAINTS.items():
        if name not in known:
            registry.register(name, constraint, origin="plugsim heat_compat")
            added.append(name)
    return added


__all__ = [
    "CONSTRAINTS",
    "AddressScopeConstraint",
    "SubnetPoolConstraint",
    "CIDRConstraint",
    "IPAddressConstraint",
    "IPOrCIDRConstraint",
    "MACAddressConstraint",
    "ServerConstraint",
    "register_missing",
]
