"""BGP VPNs of the network service (networking-bgpvpn's API), a mixin of
:class:`fake_clouds.network.NetworkService` and of its client.

A BGP VPN (``l2`` or ``l3``) carries route targets and route distinguishers
(``ASN:number`` or ``IP:number``); networks, routers and ports join it
through *associations*, each naming a live BGP VPN and a live network,
router or port, at most once per pair (409 otherwise). The client calls
are python-neutronclient's: ``create_bgpvpn_network_assoc(bgpvpn,
{'network_association': {...}})``, ``show_...``, ``delete_...`` for
networks, routers and ports.
"""

from __future__ import annotations

import re
from typing import Any

from sdk import exception

_TARGET = re.compile(r"^(\d+|\d+\.\d+\.\d+\.\d+):\d+$")
#: association kind -> (the kind it names, its id attribute, neutronclient's body key)
ASSOCIATIONS = {
    "bgpvpn_network_association": ("network", "network_id", "network_association"),
    "bgpvpn_router_association": ("router", "router_id", "router_association"),
    "bgpvpn_port_association": ("port", "port_id", "port_association"),
}
_SHORT = {"network": "bgpvpn_network_association", "router": "bgpvpn_router_association"}
_SHORT["port"] = "bgpvpn_port_association"


def _error(cls: type[exception.ClientError], kind: str, message: str) -> exception.ClientError:
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


class BGPVPNHooks:
    """Creation and deletion rules of BGP VPNs and their associations."""

    def _prepare_bgpvpn(self: Any, attrs: dict[str, Any]) -> str:
        if attrs["type"] not in ("l2", "l3"):
            msg = f"Invalid input for type. Reason: {attrs['type']!r} is not in ['l2', 'l3']."
            raise _error(exception.BadRequest, "InvalidInput", msg)
        for key in ("route_distinguishers", "import_targets", "export_targets", "route_targets"):
            for value in attrs[key] or []:
                if not _TARGET.match(str(value)):
                    msg = f"Invalid input for {key}. Reason: {value!r} is not a valid RT."
                    raise _error(exception.BadRequest, "InvalidInput", msg)
        return "ACTIVE"

    def _prepare_association(self: Any, kind: str, attrs: dict[str, Any]) -> str:
        target, key, _body = ASSOCIATIONS[kind]
        self._need("bgpvpn", attrs["bgpvpn_id"], "BGPVPNNotFound")
        self._need(target, attrs[key], f"{target.capitalize()}NotFound")
        for other in self._live(kind):
            if (other.attrs["bgpvpn_id"], other.attrs[key]) == (attrs["bgpvpn_id"], attrs[key]):
                msg = (
                    f"{target} {attrs[key]} is already associated with BGPVPN {attrs['bgpvpn_id']}"
                )
                raise _error(exception.Conflict, "BGPVPNAssociationExists", msg)
        return "ACTIVE"

    def _prepare_bgpvpn_network_association(self: Any, attrs: dict[str, Any]) -> str:
        return BGPVPNHooks._prepare_association(self, "bgpvpn_network_association", attrs)

    def _prepare_bgpvpn_router_association(self: Any, attrs: dict[str, Any]) -> str:
        return BGPVPNHooks._prepare_association(self, "bgpvpn_router_association", attrs)

    def _prepare_bgpvpn_port_association(self: Any, attrs: dict[str, Any]) -> str:
        return BGPVPNHooks._prepare_association(self, "bgpvpn_port_association", attrs)


class BGPVPNClientCalls:
    """python-neutronclient's BGP VPN association calls (a mixin of the network client)."""

    service: Any

    def _association(self, what: str, bgpvpn: str, assoc: str) -> dict[str, Any]:
        kind = _SHORT[what]
        found = getattr(self.service, f"get_{kind}")(assoc)
        if found["bgpvpn_id"] != bgpvpn:
            msg = f"{ASSOCIATIONS[kind][2]} {assoc} of BGPVPN {bgpvpn} could not be found"
            raise _error(exception.NotFound, "BGPVPNAssocNotFound", msg)
        return found  # type: ignore[no-any-return]

    def _create_assoc(self, what: str, bgpvpn: str, body: Any) -> dict[str, Any]:
        kind = _SHORT[what]
        key = ASSOCIATIONS[kind][2]
        if not isinstance(body, dict) or not isinstance(body.get(key), dict):
            msg = f"Request body must be {{'{key}': {{...}}}}"
            raise _error(exception.BadRequest, "HTTPBadRequest", msg)
        attrs = {**body[key], "bgpvpn_id": bgpvpn}
        return {key: getattr(self.service, f"create_{kind}")(attrs)}

    def create_bgpvpn_network_assoc(self, bgpvpn: str, body: Any) -> dict[str, Any]:
        """Associate a network with *bgpvpn*."""
        return self._create_assoc("network", bgpvpn, body)

    def show_bgpvpn_network_assoc(self, bgpvpn: str, assoc: str, **_: Any) -> dict[str, Any]:
        """One network association of *bgpvpn*."""
        return {"network_association": self._association("network", bgpvpn, assoc)}

    def delete_bgpvpn_network_assoc(self, bgpvpn: str, assoc: str) -> None:
        """Remove a network association of *bgpvpn*."""
        self.service.delete_bgpvpn_network_association(
            self._association("network", bgpvpn, assoc)["id"]
        )

    def create_bgpvpn_router_assoc(self, bgpvpn: str, body: Any) -> dict[str, Any]:
        """Associate a router with *bgpvpn*."""
        return self._create_assoc("router", bgpvpn, body)

    def show_bgpvpn_router_assoc(self, bgpvpn: str, assoc: str, **_: Any) -> dict[str, Any]:
        """One router association of *bgpvpn*."""
        return {"router_association": self._association("router", bgpvpn, assoc)}

    def delete_bgpvpn_router_assoc(self, bgpvpn: str, assoc: str) -> None:
        """Remove a router association of *bgpvpn*."""
        self.service.delete_bgpvpn_router_association(
            self._association("router", bgpvpn, assoc)["id"]
        )

    def create_bgpvpn_port_assoc(self, bgpvpn: str, body: Any) -> dict[str, Any]:
        """Associate a port with *bgpvpn*."""
        return self._create_assoc("port", bgpvpn, body)

    def show_bgpvpn_port_assoc(self, bgpvpn: str, assoc: str, **_: Any) -> dict[str, Any]:
        """One port association of *bgpvpn*."""
        return {"port_association": self._association("port", bgpvpn, assoc)}

    def delete_bgpvpn_port_assoc(self, bgpvpn: str, assoc: str) -> None:
        """Remove a port association of *bgpvpn*."""
        self.service.delete_bgpvpn_port_association(self._association("port", bgpvpn, assoc)["id"])
