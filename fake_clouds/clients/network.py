"""The neutron-like network client: dict in, dict out.

``create_<kind>({'<kind>': {...}})`` returns ``{'<kind>': {...}}``;
``list_<plural>(**filters)`` returns ``{'<plural>': [...]}``;
``show_<kind>(id)``, ``update_<kind>(id, {'<kind>': {...}})`` and
``delete_<kind>(id)`` as in python-neutronclient. Kinds: network, subnet,
port, router, floatingip, security_group, security_group_rule, subnetpool,
address_scope (every kind of :data:`fake_clouds.core.network_schema.PLURALS`). Routers also
have ``add_interface_router``, ``remove_interface_router``, ``add_extra_routes_to_router``,
``remove_extra_routes_from_router``,
``add_gateway_router`` and ``remove_gateway_router``. The extension kinds
(QoS, trunks, firewalls, metering, RBAC, gateways, sfc, taas) are served too
(:mod:`fake_clouds.clients.network_ext`); the quota calls are
:mod:`fake_clouds.clients.quotas`'.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.clients.network_ext import NetworkExtensionClient
from fake_clouds.clients.quotas import NetworkQuotaCalls
from fake_clouds.core.network_schema import PLURALS
from fake_clouds.network_bgpvpn import BGPVPNClientCalls
from sdk import exception

#: Every kind the network service serves, and its plural (python-neutronclient's names).
_KINDS = {kind: plural for kind, (plural, _limit) in PLURALS.items()}


def _unwrap(kind: str, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict) or not isinstance(body.get(kind), dict):
        msg = f"Request body must be {{'{kind}': {{...}}}}"
        raise exception.BadRequest(
            msg, body={"NeutronError": {"type": "HTTPBadRequest", "message": msg, "detail": ""}}
        )
    return body[kind]


class NetworkClient(NetworkExtensionClient, NetworkQuotaCalls, BGPVPNClientCalls):
    """A python-neutronclient-like client bound to one fake network service.

    neutron's extension kinds come through the same generic methods; the calls
    whose shape differs are :class:`~fake_clouds.clients.network_ext.NetworkExtensionClient`'s.
    """

    def __init__(self, service: Any) -> None:
        self.service = service

    def __getattr__(self, name: str) -> Any:
        verb, _, rest = name.partition("_")
        kind = rest
        if verb == "list":
            kind = next((k for k, p in _KINDS.items() if p == rest), "")
        if kind not in _KINDS or verb not in ("create", "show", "list", "update", "delete"):
            raise AttributeError(f"NetworkClient has no method {name!r}")
        svc = self.service
        if verb == "create":
            return lambda body: self._create(kind, body)
        if verb == "show":
            return lambda entity_id, **_: {
                kind: self._with_rules(kind, getattr(svc, f"get_{kind}")(entity_id))
            }
        if verb == "list":
            return lambda **filters: {
                rest: [self._with_rules(kind, i) for i in getattr(svc, f"list_{rest}")(**filters)]
            }
        if verb == "update":
            if not hasattr(svc, f"update_{kind}"):
                raise AttributeError(f"NetworkClient has no method {name!r}")
            return lambda entity_id, body: {
                kind: getattr(svc, f"update_{kind}")(entity_id, _unwrap(kind, body))
            }
        return lambda entity_id: getattr(svc, f"delete_{kind}")(entity_id)

    def _create(self, kind: str, body: Any) -> dict[str, Any]:
        """Create one object, or several from neutron's bulk body ``{plural: [{...}, ...]}``.

        A bulk create is all or nothing, as neutron's (its controller deletes what it made
        when a later item fails): Heat's SecurityGroup creates its rules in one bulk call.
        """
        create = getattr(self.service, f"create_{kind}")
        plural = _KINDS[kind]
        items = body.get(plural) if isinstance(body, dict) and kind not in body else None
        if not isinstance(items, list):
            return {kind: create(_unwrap(kind, body))}
        made: list[dict[str, Any]] = []
        try:
            for item in items:
                made.append(create(_unwrap(kind, {kind: item})))
        except Exception:
            for done in reversed(made):
                getattr(self.service, f"delete_{kind}")(done["id"])
            raise
        return {plural: made}

    def _with_rules(self, kind: str, item: dict[str, Any]) -> dict[str, Any]:
        """A security group's body carries its rules, as neutron's does."""
        if kind != "security_group":
            return item
        rules = [
            r
            for r in self.service.list_security_group_rules()
            if r["security_group_id"] == item["id"]
        ]
        return {**item, "security_group_rules": rules}

    def add_interface_router(self, router: str, body: dict[str, Any]) -> dict[str, Any]:
        """Attach ``{'subnet_id': ...}`` or ``{'port_id': ...}`` to a router."""
        return self.service.add_interface(router, body)

    def remove_interface_router(self, router: str, body: dict[str, Any]) -> dict[str, Any]:
        """Detach a subnet or port from a router."""
        return self.service.remove_interface(router, body)

    def add_gateway_router(self, router: str, body: dict[str, Any]) -> dict[str, Any]:
        """Set the router's external gateway (``{'network_id': ...}``)."""
        return {"router": self.service.set_gateway(router, body)}

    def remove_gateway_router(self, router: str) -> dict[str, Any]:
        """Clear the router's external gateway."""
        return {"router": self.service.remove_gateway(router)}

    def _routes(self, body: Any) -> list[dict[str, Any]]:
        routes = _unwrap("router", body).get("routes")
        if not isinstance(routes, list) or not all(isinstance(r, dict) for r in routes):
            msg = "Request body must be {'router': {'routes': [{destination, nexthop}, ...]}}"
            raise exception.BadRequest(
                msg, body={"NeutronError": {"type": "HTTPBadRequest", "message": msg, "detail": ""}}
            )
        return [dict(r) for r in routes]

    def add_extra_routes_to_router(self, router: str, body: dict[str, Any]) -> dict[str, Any]:
        """Add routes to the router's (``extraroute-atomic``): those it has already stay once."""
        current = list(self.service.get_router(router).get("routes") or [])
        added = [r for r in self._routes(body) if r not in current]
        return {"router": self.service.update_router(router, {"routes": current + added})}

    def remove_extra_routes_from_router(self, router: str, body: dict[str, Any]) -> dict[str, Any]:
        """Remove routes from the router's (``extraroute-atomic``); absent ones are ignored."""
        gone = self._routes(body)
        current = list(self.service.get_router(router).get("routes") or [])
        kept = [r for r in current if r not in gone]
        return {"router": self.service.update_router(router, {"routes": kept})}
