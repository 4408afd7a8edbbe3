"""Subnet pools and address scopes of the network service (a mixin of
:class:`fake_clouds.network.NetworkService`).

A subnet pool holds prefixes (CIDRs of one IP version) and prefix length
bounds (``min_prefixlen`` <= ``default_prefixlen`` <= ``max_prefixlen``). A
subnet created with a ``subnetpool_id`` and no ``cidr`` gets the first free
block of ``prefixlen`` (default: the pool's ``default_prefixlen``) inside the
pool's prefixes; a block is free when no live subnet of the pool overlaps it.
A pool may belong to an address scope of the same IP version. Deleting a pool
that subnets were allocated from, or a scope that pools belong to, is a
Conflict (409), as neutron answers.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from sdk import exception


def _error(cls: type[exception.ClientError], kind: str, message: str) -> exception.ClientError:
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


def _invalid(message: str) -> exception.ClientError:
    return _error(exception.BadRequest, "InvalidInput", f"Invalid input for operation: {message}")


def _length(value: Any, name: str) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(f"'{value}' is not an integer for {name}.")
    return value


class SubnetPoolHooks:
    """Creation, allocation and deletion rules of subnet pools and address scopes."""

    def _prepare_address_scope(self: Any, attrs: dict[str, Any]) -> str:
        if attrs["ip_version"] not in (4, 6):
            raise _invalid(f"{attrs['ip_version']!r} is not a valid IP version (4 or 6).")
        return "ACTIVE"

    def _prepare_subnetpool(self: Any, attrs: dict[str, Any]) -> str:
        prefixes = attrs["prefixes"]
        if not isinstance(prefixes, list) or not prefixes:
            raise _invalid("a subnet pool needs a non-empty list of prefixes.")
        try:
            nets = [ipaddress.ip_network(str(p), strict=False) for p in prefixes]
        except ValueError as ex:
            raise _invalid(f"invalid prefix: {ex}") from None
        versions = {n.version for n in nets}
        if len(versions) != 1:
            raise _invalid("the prefixes of a subnet pool must share one IP version.")
        version = versions.pop()
        if attrs.get("ip_version") not in (None, version):
            raise _invalid(f"ip_version {attrs['ip_version']} does not match the prefixes.")
        width = 32 if version == 4 else 128
        low = _length(attrs["min_prefixlen"], "min_prefixlen")
        high = _length(
            attrs["max_prefixlen"] if attrs["max_prefixlen"] is not None else width,
            "max_prefixlen",
        )
        default = _length(
            attrs["default_prefixlen"] if attrs["default_prefixlen"] is not None else low,
            "default_prefixlen",
        )
        if not 0 <= low <= default <= high <= width:
            raise _invalid(
                f"prefix lengths must satisfy 0 <= min ({low}) <= default ({default}) "
                f"<= max ({high}) <= {width}."
            )
        scope_id = attrs.get("address_scope_id")
        if scope_id is not None:
            scope = self._need("address_scope", scope_id, "AddressScopeNotFound")
            if scope.attrs["ip_version"] != version:
                raise _invalid(
                    f"address scope {scope_id} is IPv{scope.attrs['ip_version']}, "
                    f"the pool IPv{version}."
                )
        attrs.update(
            prefixes=[str(n) for n in ipaddress.collapse_addresses(nets)],  # type: ignore[type-var]
            ip_version=version,
            min_prefixlen=low,
            max_prefixlen=high,
            default_prefixlen=default,
        )
        return "ACTIVE"

    def _cidr_from_pool(self: Any, attrs: dict[str, Any]) -> None:
        """Fill a new subnet's ``cidr`` from its ``subnetpool_id`` (drop ``prefixlen``)."""
        requested = attrs.pop("prefixlen", None)
        pool_id = attrs.get("subnetpool_id")
        if pool_id is None:
            if attrs.get("cidr") is None:
                raise _error(
                    exception.BadRequest,
                    "HTTPBadRequest",
                    "Failed to parse request. Required attribute 'cidr' not specified "
                    "(nor a subnetpool_id to allocate it from)",
                )
            return
        pool = self._need("subnetpool", pool_id, "SubnetPoolNotFound")
        if pool.attrs["ip_version"] != attrs["ip_version"]:
            raise _invalid(f"subnet pool {pool_id} is IPv{pool.attrs['ip_version']}.")
        length = _length(
            requested if requested is not None else pool.attrs["default_prefixlen"], "prefixlen"
        )
        if not pool.attrs["min_prefixlen"] <= length <= pool.attrs["max_prefixlen"]:
            raise _invalid(
                f"prefixlen {length} is outside the pool's range "
                f"{pool.attrs['min_prefixlen']}-{pool.attrs['max_prefixlen']}."
            )
        taken = [
            ipaddress.ip_network(s.attrs["cidr"])
            for s in self._live("subnet")
            if s.attrs.get("subnetpool_id") == pool.id
        ]
        if attrs.get("cidr") is not None:
            wanted = ipaddress.ip_network(str(attrs["cidr"]), strict=False)
            inside = any(wanted.subnet_of(ipaddress.ip_network(p)) for p in pool.attrs["prefixes"])
            if not inside or any(wanted.overlaps(t) for t in taken):
                raise _error(
                    exception.Conflict,
                    "SubnetAllocationError",
                    f"Failed to allocate subnet: {wanted} is not free in pool {pool.id}.",
                )
            return
        for prefix in pool.attrs["prefixes"]:
            network = ipaddress.ip_network(prefix)
            if network.prefixlen > length:
                continue
            for block in network.subnets(new_prefix=length):
                if not any(block.overlaps(t) for t in taken):
                    attrs["cidr"] = str(block)
                    return
        raise _error(
            exception.Conflict,
            "SubnetAllocationError",
            f"Failed to allocate subnet: insufficient prefix space in pool {pool.id} "
            f"for a /{length}.",
        )

    def _check_delete_pool(self: Any, ent: Any) -> None:
        """Refuse to delete a pool with subnets or a scope with pools (neutron's 409)."""
        if ent.kind == "subnetpool" and any(
            s.attrs.get("subnetpool_id") == ent.id for s in self._live("subnet")
        ):
            raise _error(
                exception.Conflict,
                "SubnetPoolInUse",
                f"Unable to complete operation on subnet pool {ent.id}: "
                "subnets were allocated from it.",
            )
        if ent.kind == "address_scope" and any(
            p.attrs.get("address_scope_id") == ent.id for p in self._live("subnetpool")
        ):
            raise _error(
                exception.Conflict,
                "AddressScopeInUse",
                f"Unable to complete operation on address scope {ent.id}: "
                "subnet pools belong to it.",
            )
