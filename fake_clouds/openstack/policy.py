"""Authorisation on the wire: the services' default policies, enforced in one place.

:meth:`ServiceAPI._handle <fake_clouds.openstack.base.ServiceAPI._handle>` calls
:func:`check_route` once the token is valid: the route's rules
(:mod:`fake_clouds.openstack.policy_rules`) decide, and a refusal is the real service's
403 (:func:`forbidden`). It then runs the handler :func:`acting_as` the token's caller,
so every lookup of a project's entity is scoped (:mod:`fake_clouds.core.scope`): another
project's server, volume, network, port or private image is the service's 404.

A few rules need the entity itself, and are checked here too:

* neutron: an entity the caller sees but does not own (a shared network, a subnet on
  it) may not be changed or deleted: 403 ``rule:update_network is disallowed by
  policy``; one it does not see is 404, as neutron answers;
* glance: the same for a public or shared image (``modify_image``, ``delete_image``);
* cinder: a URL naming another project than the token's is 400 ``Malformed request
  url``;
* nova and cinder list only the caller's project's servers and volumes, admins too,
  unless ``all_tenants`` (nova refuses it to non-admins; cinder ignores it).

Other front ends (the orchestration API) use :func:`enforce` with their own rules
(:data:`ACTIONS`).
"""

from __future__ import annotations

import json
from typing import Any

from fake_clouds.core import scope
from fake_clouds.core.scope import Caller, acting_as
from fake_clouds.openstack.policy_rules import TABLES, Rule
from fake_clouds.openstack.replies import ApiError, Reply

__all__ = ["ACTIONS", "Caller", "acting_as", "caller_of", "check_route", "enforce", "forbidden"]

#: keystone's implied roles in a fresh deployment: admin implies member implies reader.
IMPLIED = {"admin": ("member", "reader"), "member": ("reader",)}

#: (service, action) -> check, for front ends calling :func:`enforce` (Heat's defaults).
ACTIONS: dict[tuple[str, str], str] = {
    ("orchestration", "stacks:global_index"): "admin",
    ("orchestration", "stacks:create"): "member",
    ("orchestration", "stacks:update"): "member",
    ("orchestration", "stacks:delete"): "member",
    ("orchestration", "stacks:show"): "reader",
    ("orchestration", "stacks:index"): "reader",
    ("orchestration", "resource_types:OS::Nova::Flavor"): "admin",
    ("orchestration", "resource_types:OS::Keystone::*"): "admin",
}

_INDEX: dict[tuple[str, str, str], list[Rule]] = {}
for _prefix, _rules in TABLES.items():
    for _rule in _rules:
        _INDEX.setdefault((_prefix, _rule.method, _rule.path), []).append(_rule)


def roles_of(req: Any) -> frozenset[str]:
    """The names of the roles the request's token holds, implied roles included."""
    identity = req.api.cloud.service("identity")
    names = {role.id: role.name for role in identity._live("role")}
    held = {names.get(r, r) for r in (req.token or {}).get("roles", ())}
    for role in list(held):
        held.update(IMPLIED.get(role, ()))
    return frozenset(held)


#: (service prefix, route) whose lists show the caller's project only, unless ``all_tenants``.
OWN_PROJECT_LISTS = {
    ("compute", "/v2.1/servers"),
    ("compute", "/v2.1/servers/detail"),
    ("volume", "/v3/<project>/volumes"),
    ("volume", "/v3/<project>/volumes/detail"),
    ("volume", "/v3/<project>/snapshots"),
    ("volume", "/v3/<project>/snapshots/detail"),
    ("volume", "/v3/<project>/backups"),
    ("volume", "/v3/<project>/backups/detail"),
}


def caller_of(req: Any, path: str | None = None) -> Caller | None:
    """The :class:`Caller` of a request with a token (None on public routes).

    For a list route of :data:`OWN_PROJECT_LISTS` (*path* is the route's rule), an
    admin's list is narrowed to its project unless the query says ``all_tenants``
    (``all_projects`` too, as cinder's v3 accepts).
    """
    if req.token is None:
        return None
    project = req.token.get("project") or {}
    roles = roles_of(req)
    everything = True
    if path is not None and (req.api.prefix, path) in OWN_PROJECT_LISTS:
        asked = req.args.get("all_tenants", req.args.get("all_projects"))
        everything = asked is not None and asked.lower() not in ("0", "false", "no")
    return Caller(str(project.get("id") or ""), req.user_id, roles, lists_all=everything)


def forbidden(prefix: str, name: str) -> Reply:
    """The 403 the service at *prefix* answers when policy *name* refuses a call."""
    if prefix == "identity":
        message = f"You are not authorized to perform the requested action: {name}."
        body: Any = {"error": {"code": 403, "title": "Forbidden", "message": message}}
    elif prefix in ("compute", "volume"):
        body = {
            "forbidden": {"code": 403, "message": f"Policy doesn't allow {name} to be performed."}
        }
    elif prefix == "network":
        message = f"{name} is disallowed by policy"
        body = {"NeutronError": {"type": "PolicyNotAuthorized", "message": message, "detail": ""}}
    elif prefix == "image":
        message = f"You are not authorized to complete {name} action."
        body = {"code": 403, "title": "Forbidden", "message": message}
    elif prefix == "object-store":
        body = "<html><h1>Forbidden</h1><p>Access was denied to this resource.</p></html>"
    elif prefix == "orchestration":
        body = {
            "code": 403,
            "title": "Forbidden",
            "explanation": "Access was denied to this resource.",
            "error": {
                "type": "Forbidden",
                "message": f"You are not authorized to use {name}.",
                "traceback": None,
            },
        }
    else:
        body = {"error": {"code": 403, "message": f"Policy doesn't allow {name}."}}
    return Reply(403, body)


def _passes(check: str, caller: Caller, req: Any, params: dict[str, Any]) -> bool:
    kind, _, param = check.partition(":")
    value = params.get(param) if param else None
    if kind == "@":
        return True
    if caller.is_admin and kind != "own_account":
        return True
    if kind in ("admin", "member", "reader"):
        return kind in caller.roles
    if kind == "admin_or_user":
        return value == caller.user_id
    if kind == "admin_or_project":
        return value == caller.project_id
    if kind == "admin_or_domain":
        project = (req.token or {}).get("project") or {}
        return value is not None and value == project.get("domain_id")
    if kind == "own_account":
        return value == f"AUTH_{caller.project_id}"
    raise ValueError(f"unknown policy check {check!r}")


def _body(req: Any) -> Any:
    """The request's JSON body for a rule's condition; None when it cannot be read (the
    handler's own parsing then answers the service's 400, deep nesting included)."""
    try:
        return json.loads(req.raw.get_data() or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _holds(when: str | None, req: Any, params: dict[str, Any]) -> bool:
    if when is None:
        return True
    kind, _, what = when.partition(":")
    if kind == "arg":
        value = req.args.get(what)
        return value is not None and value.lower() not in ("0", "false", "no")
    if kind == "param":
        name, _, values = what.partition("=")
        return str(params.get(name)) in values.split("|")
    if kind == "body":
        path, _, expected = what.partition("=")
        obj, _, key = path.partition(".")
        body = _body(req)
        inner = body.get(obj) if isinstance(body, dict) and obj else body
        if not isinstance(inner, dict):
            return False
        if not key:
            return obj in body if isinstance(body, dict) else False
        value = inner.get(key)
        return str(value) == expected if expected else bool(value)
    if kind == "patch":
        path, _, expected = what.partition("=")
        ops = _body(req)
        return isinstance(ops, list) and any(
            isinstance(op, dict)
            and op.get("path") == path
            and op.get("op") in ("add", "replace")
            and str(op.get("value")) == expected
            for op in ops
        )
    raise ValueError(f"unknown policy condition {when!r}")


def _name(rule: Rule, params: dict[str, Any]) -> str:
    collection = str(params.get("collection", ""))
    kind = _network_kind(params) or collection.replace("-", "_")
    kind = kind[:-1] if kind == collection.replace("-", "_") and kind.endswith("s") else kind
    return rule.name.format(kind=kind)


def check_route(api: Any, method: str, path: str, req: Any, params: dict[str, Any]) -> Reply | None:
    """Return the service's refusal of this request, or None when policy allows it."""
    caller = caller_of(req)
    if caller is None:
        return None
    for rule in _INDEX.get((api.prefix, method, path), ()):
        if _holds(rule.when, req, params):
            if not _passes(rule.check, caller, req, params):
                return _refuse(api.prefix, rule, params)
            break
    return _entity_checks(api, method, path, req, params, caller)


def _refuse(prefix: str, rule: Rule, params: dict[str, Any]) -> Reply:
    if rule.refusal is None:
        return forbidden(prefix, _name(rule, params))
    kind, _, rest = rule.refusal.partition(":")
    if kind == "empty":
        return Reply(200, {rest: []})
    label, _, param = rest.partition(":")
    message = f"{label} {params.get(param)} could not be found."
    body = {"NeutronError": {"type": f"{label}NotFound", "message": message, "detail": ""}}
    return Reply(404, body)


def _entity_checks(
    api: Any, method: str, path: str, req: Any, params: dict[str, Any], caller: Caller
) -> Reply | None:
    if api.prefix == "volume" and "project" in params and params["project"] != caller.project_id:
        raise ApiError(400, "Malformed request url")
    if caller.is_admin or method not in ("PUT", "PATCH", "DELETE"):
        return None
    verb = "delete" if method == "DELETE" else "update"
    if api.prefix == "network" and path == "/v2.0/<collection>/<ident>":
        kind = _network_kind(params)
        return _not_owned(api, "network", kind, params["ident"], caller, f"rule:{verb}_{kind}")
    if api.prefix == "image" and path == "/v2/images/<iid>":
        action = "delete_image" if verb == "delete" else "modify_image"
        return _not_owned(api, "compute", "image", params["iid"], caller, action)
    return None


def _network_kind(params: dict[str, Any]) -> str | None:
    from fake_clouds.core.network_schema import PLURALS

    collection = str(params.get("collection", "")).replace("-", "_")
    return next((kind for kind, (plural, _) in PLURALS.items() if plural == collection), None)


def _not_owned(
    api: Any, service: str, kind: str | None, ident: Any, caller: Caller, name: str
) -> Reply | None:
    """403 when the caller sees the entity but its project does not own it."""
    if kind is None or not scope.is_scoped(service, kind):
        return None
    svc = api.cloud.service(service)
    ent = svc._store.get(kind, {}).get(ident) if isinstance(ident, str) else None
    if ent is None or ent.deleted or scope.owns(ent, caller):
        return None
    if scope.visible(svc, ent, caller):
        return forbidden(api.prefix, name)
    return None


def enforce(req: Any, service: str, action: str, target: dict[str, Any] | None = None) -> None:
    """Raise the service's 403 unless the caller may do *action* on *target*.

    *action* is a key of :data:`ACTIONS` (``("orchestration", "stacks:create")``); a
    *target* with ``project_id`` also requires that project to be the caller's (admins
    excepted). The 403 body is the service's (:func:`forbidden`).
    """
    caller = caller_of(req)
    if caller is None:
        return
    check = ACTIONS.get((service, action))
    if check is None:
        raise ValueError(f"no policy for {service} {action}")
    allowed = _passes(check, caller, req, {})
    project = (target or {}).get("project_id")
    if allowed and project is not None and not caller.is_admin:
        allowed = project == caller.project_id
    if not allowed:
        reply = forbidden(service, action)
        raise ApiError(403, f"policy refuses {action}", body=reply.body)


def visible_project(req: Any, project_id: str | None) -> bool:
    """Whether the caller may see what *project_id* owns (its own project, or admin)."""
    caller = caller_of(req)
    return caller is None or caller.is_admin or project_id in (None, caller.project_id)
