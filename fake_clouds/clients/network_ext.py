"""python-neutronclient's calls for neutron's extensions, a mixin of
:class:`fake_clouds.clients.network.NetworkClient`.

The extension kinds of :mod:`fake_clouds.core.network_ext_schema` come through
the client's generic ``create_<kind>`` / ``list_<plural>`` ... methods; this
mixin adds the calls whose shape differs, as python-neutronclient names them:

* QoS policies travel under ``policy`` / ``policies``
  (``create_qos_policy({'policy': {...}})``); QoS rules are nested in their
  policy (``create_bandwidth_limit_rule(policy, body)``,
  ``show_..._rule(rule, policy)``, ``update_..._rule(rule, policy, body)``,
  ``delete_..._rule(rule, policy)``, ``list_..._rules(policy_id)``);
* ``trunk_add_subports``, ``trunk_remove_subports``, ``trunk_get_subports``;
* ``connect_network_gateway`` / ``disconnect_network_gateway``;
* the path-addressed calls Heat's sfc and taas plug-ins use: ``create_ext``,
  ``show_ext``, ``list_ext``, ``update_ext``, ``delete_ext``
  (``/sfc/port_pairs``, ``/taas/tap_services`` ...; a ``%s`` path takes the id).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fake_clouds.core.network_ext_schema import BODY_KEYS, EXT_PATHS, QOS_RULES
from sdk import exception


def _member(key: str, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        msg = f"Request body must be {{'{key}': {{...}}}}"
        raise exception.BadRequest(
            msg, body={"NeutronError": {"type": "HTTPBadRequest", "message": msg, "detail": ""}}
        )
    return dict(body[key])


def _path_kind(path: Any) -> str:
    base = str(path).removesuffix("/%s")
    kind = EXT_PATHS.get(base)
    if kind is None:
        msg = f"The resource could not be found: no extension collection at {base}"
        raise exception.NotFound(
            msg, body={"NeutronError": {"type": "HTTPNotFound", "message": msg, "detail": ""}}
        )
    return kind


class NetworkExtensionClient:
    """The extension calls of python-neutronclient over the fake network service."""

    service: Any

    # --- QoS policies (``policy`` bodies) ---------------------------------------------

    def create_qos_policy(self, body: Any) -> dict[str, Any]:
        """Create a QoS policy from ``{'policy': {...}}``."""
        return {"policy": self.service.create_qos_policy(_member("policy", body))}

    def show_qos_policy(self, policy: str, **_: Any) -> dict[str, Any]:
        """``{'policy': {...}}`` of one QoS policy."""
        return {"policy": self.service.get_qos_policy(policy)}

    def list_qos_policies(self, **filters: Any) -> dict[str, Any]:
        """``{'policies': [...]}``."""
        filters.pop("retrieve_all", None)
        return {"policies": self.service.list_qos_policies(**filters)}

    def update_qos_policy(self, policy: str, body: Any) -> dict[str, Any]:
        """Change a QoS policy from ``{'policy': {...}}``."""
        return {"policy": self.service.update_qos_policy(policy, _member("policy", body))}

    # --- trunks and network gateways --------------------------------------------------

    def trunk_add_subports(self, trunk: str, body: Any) -> dict[str, Any]:
        """Add ``{'sub_ports': [...]}`` to a trunk; return the trunk's body."""
        subs = body.get("sub_ports") if isinstance(body, dict) else None
        return dict(self.service.trunk_add_subports(trunk, subs))

    def trunk_remove_subports(self, trunk: str, body: Any) -> dict[str, Any]:
        """Remove ``{'sub_ports': [{'port_id': ...}]}`` from a trunk."""
        subs = body.get("sub_ports") if isinstance(body, dict) else None
        return dict(self.service.trunk_remove_subports(trunk, subs))

    def trunk_get_subports(self, trunk: str, **_: Any) -> dict[str, Any]:
        """``{'sub_ports': [...]}`` of a trunk."""
        return {"sub_ports": self.service.get_trunk(trunk)["sub_ports"]}

    def connect_network_gateway(self, gateway_id: str, body: Any = None) -> dict[str, Any]:
        """Connect ``{'network_id', 'segmentation_type', 'segmentation_id'}`` to a gateway."""
        return dict(self.service.connect_network_gateway(gateway_id, body))

    def disconnect_network_gateway(self, gateway_id: str, body: Any = None) -> None:
        """Disconnect a network from a gateway."""
        self.service.disconnect_network_gateway(gateway_id, body)

    # --- path-addressed extension calls -----------------------------------------------

    def create_ext(self, path: str, body: Any = None) -> dict[str, Any]:
        """Create at *path* (``/sfc/port_pairs``) from ``{kind: {...}}``."""
        kind = _path_kind(path)
        return {kind: getattr(self.service, f"create_{kind}")(_member(kind, body))}

    def show_ext(self, path: str, ident: str, **_: Any) -> dict[str, Any]:
        """``{kind: {...}}`` of the object *ident* at *path* (``/sfc/port_pairs/%s``)."""
        kind = _path_kind(path)
        return {kind: getattr(self.service, f"get_{kind}")(ident)}

    def list_ext(
        self, collection: str, path: str, retrieve_all: bool = True, **filters: Any
    ) -> Any:
        """``{collection: [...]}`` of the objects at *path*."""
        kind = _path_kind(path)
        plural = BODY_KEYS.get(kind, (kind, kind + "s"))[1]
        return {collection or plural: getattr(self.service, f"list_{kind}s")(**filters)}

    def update_ext(self, path: str, ident: str, body: Any = None) -> dict[str, Any]:
        """Change the object *ident* at *path* from ``{kind: {...}}``."""
        kind = _path_kind(path)
        return {kind: getattr(self.service, f"update_{kind}")(ident, _member(kind, body))}

    def delete_ext(self, path: str, ident: str) -> None:
        """Delete the object *ident* at *path*."""
        kind = _path_kind(path)
        getattr(self.service, f"delete_{kind}")(ident)


def _rule_methods(kind: str) -> dict[str, Callable[..., Any]]:
    def create(self: Any, policy: str, body: Any) -> dict[str, Any]:
        attrs = {**_member(kind, body), "qos_policy_id": policy}
        return {kind: _rule_view(getattr(self.service, f"create_{kind}")(attrs))}

    def show(self: Any, rule: str, policy: str, **_: Any) -> dict[str, Any]:
        return {kind: _rule_view(_rule_of(self.service, kind, rule, policy))}

    def update(self: Any, rule: str, policy: str, body: Any) -> dict[str, Any]:
        _rule_of(self.service, kind, rule, policy)
        changed = getattr(self.service, f"update_{kind}")(rule, _member(kind, body))
        return {kind: _rule_view(changed)}

    def delete(self: Any, rule: str, policy: str) -> None:
        _rule_of(self.service, kind, rule, policy)
        getattr(self.service, f"delete_{kind}")(rule)

    def list_(self: Any, policy_id: str, retrieve_all: bool = True, **_: Any) -> dict[str, Any]:
        self.service.get_qos_policy(policy_id)
        rules = getattr(self.service, f"list_{kind}s")(qos_policy_id=policy_id)
        return {f"{kind}s": [_rule_view(r) for r in rules]}

    create.__doc__ = f"Create a {kind} in a QoS policy (``{{'{kind}': {{...}}}}``)."
    show.__doc__ = f"One {kind} of a QoS policy."
    update.__doc__ = f"Change a {kind} of a QoS policy."
    delete.__doc__ = f"Delete a {kind} of a QoS policy."
    list_.__doc__ = f"The {kind}s of a QoS policy."
    return {
        f"create_{kind}": create,
        f"show_{kind}": show,
        f"update_{kind}": update,
        f"delete_{kind}": delete,
        f"list_{kind}s": list_,
    }


def _rule_of(service: Any, kind: str, rule: str, policy: str) -> dict[str, Any]:
    """The rule *rule* of *policy* (404 when the policy lacks it)."""
    service.get_qos_policy(policy)
    found = dict(getattr(service, f"get_{kind}")(rule))
    if found.get("qos_policy_id") != policy:
        msg = f"QoS rule {rule} for policy {policy} could not be found."
        raise exception.NotFound(
            msg, body={"NeutronError": {"type": "QosRuleNotFound", "message": msg, "detail": ""}}
        )
    return found


def _rule_view(rule: dict[str, Any]) -> dict[str, Any]:
    """A QoS rule as neutron shows it: no name, description or status of its own."""
    return {k: v for k, v in rule.items() if k not in ("name", "description", "status")}


for _kind in QOS_RULES:
    for _name, _method in _rule_methods(_kind).items():
        setattr(NetworkExtensionClient, _name, _method)
