"""neutron's VPN-as-a-service kinds on the fake network (a mixin of
:class:`fake_clouds.network.NetworkService`).

* A **VPN service** names a router that exists (404 otherwise) and, in the
  older form, one of its subnets; it is ``PENDING_CREATE`` until a site
  connection uses it, then ``ACTIVE``, as neutron reports it.
* An **IKE policy** and an **IPsec policy** hold negotiation settings; their
  lifetimes are ``{'units': 'seconds', 'value': N}`` with N of at least 60.
* An **IPsec site connection** joins a VPN service, an IKE policy and an
  IPsec policy (each must exist: 404) to a peer: its address, id, CIDRs
  (a list of valid CIDRs) and a non-empty pre-shared key (400 otherwise).
* A VPN service, an IKE policy or an IPsec policy that a connection uses
  cannot be deleted (409 ``VPNServiceInUse``, ``IKEPolicyInUse``,
  ``IPsecPolicyInUse``); deleting the last connection of a service puts it
  back to ``PENDING_CREATE``.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from fake_clouds.network_sfc import ext_error

_COMMON = {"name": "", "description": "", "tenant_id": "plugsim", "project_id": "plugsim"}
_NAMED = ("name", "description")
_LIFETIME = {"units": "seconds", "value": 3600}

#: kind -> (attribute defaults, required attributes, updatable attributes)
VPN_SCHEMAS: dict[str, tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]] = {
    "vpnservice": (
        {**_COMMON, "router_id": None, "subnet_id": None, "admin_state_up": True},
        ("router_id",),
        (*_NAMED, "admin_state_up"),
    ),
    "ikepolicy": (
        {
            **_COMMON,
            "auth_algorithm": "sha1",
            "encryption_algorithm": "aes-128",
            "phase1_negotiation_mode": "main",
            "lifetime": dict(_LIFETIME),
            "pfs": "group5",
            "ike_version": "v1",
        },
        (),
        (
            *_NAMED,
            "auth_algorithm",
            "encryption_algorithm",
            "phase1_negotiation_mode",
            "lifetime",
            "pfs",
            "ike_version",
        ),
    ),
    "ipsecpolicy": (
        {
            **_COMMON,
            "transform_protocol": "esp",
            "encapsulation_mode": "tunnel",
            "auth_algorithm": "sha1",
            "encryption_algorithm": "aes-128",
            "lifetime": dict(_LIFETIME),
            "pfs": "group5",
        },
        (),
        (
            *_NAMED,
            "transform_protocol",
            "encapsulation_mode",
            "auth_algorithm",
            "encryption_algorithm",
            "lifetime",
            "pfs",
        ),
    ),
    "ipsec_site_connection": (
        {
            **_COMMON,
            "peer_address": None,
            "peer_id": None,
            "peer_cidrs": [],
            "mtu": 1500,
            "dpd": {"action": "hold", "interval": 30, "timeout": 120},
            "psk": None,
            "initiator": "bi-directional",
            # read-only in neutron-vpnaas's attribute map (allow_post False)
            "auth_mode": "psk",
            "route_mode": "static",
            "admin_state_up": True,
            "ikepolicy_id": None,
            "ipsecpolicy_id": None,
            "vpnservice_id": None,
        },
        (
            "peer_address",
            "peer_id",
            "peer_cidrs",
            "psk",
            "ikepolicy_id",
            "ipsecpolicy_id",
            "vpnservice_id",
        ),
        (
            *_NAMED,
            "peer_address",
            "peer_id",
            "peer_cidrs",
            "mtu",
            "dpd",
            "psk",
            "initiator",
            "admin_state_up",
        ),
    ),
}

VPN_NOT_FOUND = {
    "vpnservice": "VPNServiceNotFound",
    "ikepolicy": "IKEPolicyNotFound",
    "ipsecpolicy": "IPsecPolicyNotFound",
    "ipsec_site_connection": "IPsecSiteConnectionNotFound",
}

#: Status each kind shows while neutron creates it.
VPN_CREATING = {kind: "PENDING_CREATE" for kind in VPN_SCHEMAS}

_IN_USE = {
    "vpnservice": ("vpnservice_id", "VPNServiceInUse"),
    "ikepolicy": ("ikepolicy_id", "IKEPolicyInUse"),
    "ipsecpolicy": ("ipsecpolicy_id", "IPsecPolicyInUse"),
}


def _bad(message: str) -> Any:
    return ext_error("BadRequest", "InvalidInput", f"Invalid input for operation: {message}")


def _check_lifetime(attrs: dict[str, Any]) -> None:
    lifetime = attrs.get("lifetime")
    if lifetime is None:
        return
    if not isinstance(lifetime, dict) or lifetime.get("units", "seconds") != "seconds":
        raise _bad("lifetime units must be 'seconds'")
    value = lifetime.get("value", 3600)
    if not isinstance(value, int) or isinstance(value, bool) or value < 60:
        raise _bad(f"lifetime value {value!r} must be an integer of at least 60")


class VPNHooks:
    """Preparation, update and deletion checks of the VPN kinds."""

    _live: Any
    _need: Any

    def _prepare_vpnservice(self, attrs: dict[str, Any]) -> str:
        router = self._need("router", attrs["router_id"], "RouterNotFound")
        if attrs.get("subnet_id") is not None:
            self._need("subnet", attrs["subnet_id"], "SubnetNotFound")
        attrs["router_id"] = router.id
        return "PENDING_CREATE"

    def _prepare_ikepolicy(self, attrs: dict[str, Any]) -> str:
        _check_lifetime(attrs)
        return "ACTIVE"

    def _prepare_ipsecpolicy(self, attrs: dict[str, Any]) -> str:
        _check_lifetime(attrs)
        return "ACTIVE"

    def _prepare_ipsec_site_connection(self, attrs: dict[str, Any]) -> str:
        service = self._need("vpnservice", attrs["vpnservice_id"], "VPNServiceNotFound")
        self._need("ikepolicy", attrs["ikepolicy_id"], "IKEPolicyNotFound")
        self._need("ipsecpolicy", attrs["ipsecpolicy_id"], "IPsecPolicyNotFound")
        self._check_peer(attrs)
        service.status = "ACTIVE"
        return "ACTIVE"

    def _update_ipsec_site_connection(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        self._check_peer({**ent.attrs, **changes})
        return changes

    def _update_ikepolicy(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        _check_lifetime(changes)
        return changes

    def _update_ipsecpolicy(self, ent: Any, changes: dict[str, Any]) -> dict[str, Any]:
        _check_lifetime(changes)
        return changes

    @staticmethod
    def _check_peer(attrs: dict[str, Any]) -> None:
        if not attrs.get("psk"):
            raise _bad("psk must not be empty")
        cidrs = attrs.get("peer_cidrs")
        if not isinstance(cidrs, list) or not cidrs:
            raise _bad("peer_cidrs must be a non-empty list of CIDRs")
        for cidr in cidrs:
            try:
                ipaddress.ip_network(str(cidr), strict=False)
            except ValueError:
                raise _bad(f"'{cidr}' is not a valid IP subnet") from None

    def _connections_of(self, service_id: str) -> list[Any]:
        return [
            c for c in self._live("ipsec_site_connection") if c.attrs["vpnservice_id"] == service_id
        ]

    def _check_delete_vpn(self, ent: Any) -> None:
        key, error = _IN_USE[ent.kind]
        users = sorted(c.id for c in self._live("ipsec_site_connection") if c.attrs[key] == ent.id)
        if users:
            raise ext_error(
                "Conflict", error, f"{ent.kind} {ent.id} is in use by connection {users[0]}"
            )

    def _check_delete_vpnservice(self, ent: Any) -> None:
        self._check_delete_vpn(ent)

    def _check_delete_ikepolicy(self, ent: Any) -> None:
        self._check_delete_vpn(ent)

    def _check_delete_ipsecpolicy(self, ent: Any) -> None:
        self._check_delete_vpn(ent)

    def _cascade_ipsec_site_connection(self, ent: Any) -> None:
        service_id = ent.attrs["vpnservice_id"]
        rest = [c for c in self._connections_of(service_id) if c.id != ent.id]
        service = next((s for s in self._live("vpnservice") if s.id == service_id), None)
        if service is not None and not rest:
            service.status = "PENDING_CREATE"
