"""Identity v3 on the wire (keystone): tokens, the service catalog and the identity entities.

``POST /v3/auth/tokens`` accepts the ``password``, ``token`` and
``application_credential`` methods, scoped to a project (by id, or by name
and domain), a domain, or unscoped; the answer carries ``X-Subject-Token``
and, for a scoped token, the catalog of every service the wire serves (one
endpoint per interface in ``RegionOne``). Tokens expire in virtual time
(:data:`fake_clouds.identity.TOKEN_TTL`). What a token may do is keystone's
default policy (:mod:`fake_clouds.openstack.policy_rules`): a member reads
itself and its project; grants and user, project and domain management are
the admin's.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.identity import SCHEMAS, digest, fixed_id
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, bad, route
from fake_clouds.openstack.identity_domain_config import DomainConfigRoutes
from fake_clouds.openstack.identity_endpoint_groups import EndpointGroupRoutes
from fake_clouds.openstack.identity_grants import GrantRoutes
from fake_clouds.openstack.identity_limits import LimitRoutes
from fake_clouds.openstack.name_fields import check_keystone_name
from fake_clouds.rest.common import iso
from sdk import exception

_TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}
_TITLES.update({405: "Method Not Allowed", 409: "Conflict", 413: "Request Entity Too Large"})
#: URL collection -> entity kind of the plain CRUD routes.
_COLLECTIONS = {
    "domains": "domain",
    "projects": "project",
    "users": "user",
    "groups": "group",
    "roles": "role",
    "regions": "region",
    "services": "service",
    "endpoints": "endpoint",
    "registered_limits": "registered_limit",
    "limits": "limit",
}
_V3 = {
    "id": "v3.14",
    "status": "stable",
    "updated": "2020-04-07T00:00:00Z",
    "media-types": [
        {"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}
    ],
}


#: Added to a token's ``expires_at`` as shown. Real clients compare it with the wall clock,
#: which has nothing to do with virtual time; shown unshifted, every token would look
#: expired and keystoneauth would log in again before each call. Shifted a century ahead
#: it looks valid, and the fake's own 401 (virtual expiry) makes clients re-authenticate.
EXPIRY_SHIFT = 100 * 365.25 * 86400


def _op(kind: str, verb: str) -> tuple[str, str, str]:
    return ("identity", f"{SCHEMAS[kind][0]}.{verb}", kind)


class IdentityAPI(GrantRoutes, LimitRoutes, EndpointGroupRoutes, DomainConfigRoutes, ServiceAPI):
    """Keystone v3 (``/identity/v3``)."""

    prefix = "identity"
    catalog_type = "identity"
    catalog_name = "keystone"

    @property
    def service(self) -> Any:
        """The identity service of the world."""
        return self.cloud.service("identity")

    def error_body(self, status: int, message: str) -> Any:
        """Keystone's ``{"error": {"code", "title", "message"}}``."""
        return {
            "error": {"code": status, "title": _TITLES.get(status, "Error"), "message": message}
        }

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Keep keystone-shaped bodies of the identity service."""
        body = ex.body
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            return body
        return self.error_body(status, str(ex))

    def unauthorized(self) -> Reply:
        """Keystone's 401 with ``WWW-Authenticate``."""
        body = self.error_body(401, "The request you have made requires authentication.")
        return Reply(401, body, {"WWW-Authenticate": f'Keystone uri="{self.url()}"'})

    def check_token(self, token_id: Any) -> dict[str, Any] | None:
        """Return the live token record for a request's ``X-Auth-Token`` (no dispatch)."""
        return self.service.token(token_id)

    # --- versions -------------------------------------------------------------------------

    def _version(self) -> dict[str, Any]:
        return {**_V3, "links": [{"rel": "self", "href": self.url("/v3/")}]}

    @route("GET", "/", public=True)
    def versions(self, req: ApiRequest) -> Reply:
        """``GET /identity``: the version list."""
        return Reply(300, {"versions": {"values": [self._version()]}})

    @route("GET", "/v3", public=True)
    def version(self, req: ApiRequest) -> Reply:
        """``GET /identity/v3``: the v3 document."""
        return Reply(200, {"version": self._version()})

    # --- tokens ---------------------------------------------------------------------------

    @route("POST", "/v3/auth/tokens", op=("identity", "tokens.issue", None), public=True)
    def issue(self, req: ApiRequest) -> Reply:
        """Authenticate and issue a token."""
        auth = req.member("auth")
        ident = auth.get("identity")
        if not isinstance(ident, dict) or not isinstance(ident.get("methods"), list):
            raise bad("Invalid input for field 'identity': 'methods' is a required property")
        methods = ident["methods"]
        svc = self.service
        scope = auth.get("scope")
        project_id = None
        if "password" in methods:
            user_ref = (ident.get("password") or {}).get("user")
            if not isinstance(user_ref, dict):
                raise bad("Invalid input for field 'identity/password/user'")
            user = svc.authenticate_password(user_ref, user_ref.get("password"))
            user_id = user.id
        elif "token" in methods:
            old = svc.token((ident.get("token") or {}).get("id"))
            if old is None:
                return self.unauthorized()
            user_id = old["user"]["id"]
            project_id = (old.get("project") or {}).get("id")
        elif "application_credential" in methods:
            user_id, project_id = self._app_cred(ident.get("application_credential") or {})
            scope = None
        else:
            raise bad(f"Unsupported authentication methods: {methods}")
        domain = None
        if isinstance(scope, dict) and isinstance(scope.get("project"), dict):
            proj = scope["project"]
            project_id = proj.get("id") or svc.project_named(
                proj.get("name"), proj.get("domain") or {}
            )
        elif isinstance(scope, dict) and isinstance(scope.get("domain"), dict):
            dom = scope["domain"]
            domain = dom.get("id") or svc._domain_named(dom.get("name"))
            project_id = None
        elif scope is not None and not isinstance(scope, dict | str):
            raise bad("Invalid input for field 'scope'")
        token = svc.issue_token(user_id, project_id, methods, domain=domain)
        return Reply(201, {"token": self.token_body(token)}, {"X-Subject-Token": token["id"]})

    def _app_cred(self, ref: dict[str, Any]) -> tuple[str, str | None]:
        svc = self.service
        secret = ref.get("secret")
        for ent in svc._live("application_credential"):
            if ref.get("id") not in (None, ent.id):
                continue
            if ref.get("id") is None and ent.name != ref.get("name"):
                continue
            if isinstance(secret, str) and ent.attrs["secret_digest"] == digest(secret):
                return ent.attrs["user_id"], ent.attrs["project_id"]
        raise ApiError(401, "The request you have made requires authentication.")

    def token_body(self, token: dict[str, Any]) -> dict[str, Any]:
        """Return keystone's token document (with the catalog when scoped)."""
        svc = self.service
        user = token["user"]
        names = {r.id: r.name for r in svc._live("role")}
        body: dict[str, Any] = {
            "methods": token["methods"],
            "user": {
                "id": user["id"],
                "name": user["name"],
                "domain": self._domain_ref(user["domain_id"]),
                "password_expires_at": None,
            },
            "audit_ids": [token["id"][:22]],
            "issued_at": iso(token["issued_at"])[:-1] + ".000000Z",
            "expires_at": iso(token["expires_at"] + EXPIRY_SHIFT)[:-1] + ".000000Z",
            "roles": [{"id": r, "name": names.get(r, r)} for r in token["roles"]],
            "is_domain": False,
        }
        project = token.get("project")
        if project is not None:
            body["project"] = {
                "id": project["id"],
                "name": project["name"],
                "domain": self._domain_ref(project["domain_id"]),
            }
            body["catalog"] = self.app.catalog(project["id"])
        elif token.get("domain"):
            body["domain"] = self._domain_ref(token["domain"])
            body["catalog"] = self.app.catalog(None)
        return body

    def _domain_ref(self, domain_id: str) -> dict[str, str]:
        ent = self.service._store["domain"].get(domain_id)
        return {"id": domain_id, "name": ent.name if ent is not None else domain_id}

    def _subject(self, req: ApiRequest) -> dict[str, Any]:
        token = self.service.token(req.headers.get("X-Subject-Token"))
        if token is None:
            raise ApiError(404, f"Could not find token: {req.headers.get('X-Subject-Token')}.")
        return token

    @route("GET", "/v3/auth/tokens", op=("identity", "tokens.validate", None))
    def validate(self, req: ApiRequest) -> Reply:
        """Validate ``X-Subject-Token``."""
        token = self._subject(req)
        return Reply(200, {"token": self.token_body(token)}, {"X-Subject-Token": token["id"]})

    @route("HEAD", "/v3/auth/tokens", op=("identity", "tokens.validate", None))
    def check(self, req: ApiRequest) -> Reply:
        """Check ``X-Subject-Token`` (200 or 404)."""
        self._subject(req)
        return Reply(200)

    @route("DELETE", "/v3/auth/tokens", op=("identity", "tokens.revoke", None))
    def revoke(self, req: ApiRequest) -> Reply:
        """Revoke ``X-Subject-Token``."""
        self.service.revoke_token(self._subject(req)["id"])
        return Reply(204)

    @route("GET", "/v3/auth/catalog")
    def auth_catalog(self, req: ApiRequest) -> Reply:
        """The caller's catalog."""
        return Reply(200, {"catalog": self.app.catalog(req.project_id)})

    @route("GET", "/v3/auth/projects", op=_op("project", "list"))
    def auth_projects(self, req: ApiRequest) -> Reply:
        """Projects the caller holds a role on."""
        ids = {a["project_id"] for a in self.service.list_role_assignments(user_id=req.user_id)}
        projects = [p for p in self.service.list_projects() if p["id"] in ids]
        return Reply(200, {"projects": [self._entity("projects", p) for p in projects]})

    def _builtin(self, collection: str) -> list[dict[str, Any]]:
        """The fake's own services or endpoints (the wire's catalog), keystone-shaped."""
        out = []
        for entry in self.app.catalog(None, registered=False):
            service_id = fixed_id("service", entry["type"])
            if collection == "services":
                out.append(
                    {
                        "id": service_id,
                        "type": entry["type"],
                        "name": entry["name"],
                        "enabled": True,
                        "description": "",
                    }
                )
            else:
                out += [
                    {**ep, "service_id": service_id, "enabled": True} for ep in entry["endpoints"]
                ]
        return out

    @route("GET", "/v3/services", op=_op("service", "list"))
    @route("GET", "/v3/endpoints", op=_op("endpoint", "list"))
    def catalog_entries(self, req: ApiRequest) -> Reply:
        """The fake's own services (or endpoints) and the registered ones, filtered."""
        collection = req.raw.path.rstrip("/").rsplit("/", 1)[-1]
        kind = _COLLECTIONS[collection]
        registered = [self._entity(collection, i) for i in self._call(kind, "list")]
        items = self._builtin(collection) + registered
        for key in ("name", "type", "service_id", "interface", "region_id"):
            if key in req.args:
                items = [i for i in items if str(i.get(key)) == req.args[key]]
        return Reply(200, {collection: items})

    # --- generic collections ----------------------------------------------------------------

    def _entity(self, collection: str, item: dict[str, Any]) -> dict[str, Any]:
        out = dict(item)
        out["links"] = {"self": self.url(f"/v3/{collection}/{item['id']}")}
        if collection == "endpoints":
            out["region"] = out.get("region_id")
            out.pop("name", None)
        if collection == "domains":
            out.pop("config", None)
        return out

    def op_list(self, req: ApiRequest, collection: str) -> Any:
        """The operation a collection list dispatches as."""
        return self._op(collection, "list")

    def op_create(self, req: ApiRequest, collection: str) -> Any:
        """The operation a create dispatches as."""
        return self._op(collection, "create")

    def op_get(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation a show dispatches as."""
        return self._op(collection, "get")

    def op_update(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation an update dispatches as."""
        return self._op(collection, "update")

    def op_delete(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation a delete dispatches as."""
        return self._op(collection, "delete")

    def _op(self, collection: str, verb: str) -> Any:
        kind = _COLLECTIONS.get(collection)
        return None if kind is None else _op(kind, verb)

    def _kind(self, collection: str) -> str:
        kind = _COLLECTIONS.get(collection)
        if kind is None:
            raise ApiError(404, "The resource could not be found.", unserved=True)
        return kind

    def _filters(self, req: ApiRequest, kind: str) -> dict[str, Any]:
        allowed = set(SCHEMAS[kind][1]) | {"name"}
        out: dict[str, Any] = {}
        for key in sorted(req.args):
            if key in allowed:
                value: Any = req.args[key]
                if key == "enabled":
                    value = value.lower() not in ("false", "0", "no")
                out[key] = value
        return out

    @route("GET", "/v3/<collection>", op="op_list")
    def list_collection(self, req: ApiRequest, collection: str) -> Reply:
        """``GET /v3/{domains,projects,users,groups,roles,regions}`` with attribute filters."""
        kind = self._kind(collection)
        items = self._call(kind, "list", **self._filters(req, kind))
        body = {collection: [self._entity(collection, i) for i in items]}
        body["links"] = {"self": self.url(f"/v3/{collection}"), "next": None, "previous": None}
        return Reply(200, body)

    @route("POST", "/v3/<collection>", op="op_create")
    def create_collection(self, req: ApiRequest, collection: str) -> Reply:
        """Create a domain, project, user, group, role or region."""
        kind = self._kind(collection)
        attrs = dict(req.member(kind))
        check_keystone_name(kind, attrs)
        if kind == "user" and "password" in attrs:
            password = attrs.pop("password")
            if password is not None and not isinstance(password, str):
                raise bad("Invalid input for field 'password': expected a string")
            attrs["password_digest"] = digest(password) if password else None
        if kind == "region" and "id" not in attrs:
            attrs["id"] = self.cloud.rng.hex_id(32)
        if kind == "endpoint":
            attrs.setdefault("region_id", attrs.pop("region", None))
            known = {s["id"] for s in self._builtin("services")}
            known |= {s["id"] for s in self.service.list_services()}
            if attrs.get("service_id") not in known:
                raise bad(f"Could not find service: {attrs.get('service_id')}.")
        self._types(kind, attrs)
        item = self._call(kind, "create", attrs)
        return Reply(201, {kind: self._entity(collection, item)})

    def _types(self, kind: str, attrs: dict[str, Any]) -> None:
        defaults = SCHEMAS[kind][1]
        for key, value in attrs.items():
            if key == "name" and not isinstance(value, str):
                raise bad(f"Invalid input for field 'name': {value!r} is not of type 'string'")
            default = defaults.get(key)
            if isinstance(default, bool) and not isinstance(value, bool):
                raise bad(f"Invalid input for field '{key}': {value!r} is not of type 'boolean'")

    def _call(self, kind: str, verb: str, *args: Any, **kwargs: Any) -> Any:
        plural = SCHEMAS[kind][0]
        method = {"list": f"list_{plural}"}.get(verb, f"{verb}_{kind}")
        return getattr(self.service, method)(*args, **kwargs)

    @route("GET", "/v3/<collection>/<ident>", op="op_get")
    def show(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Show one entity."""
        kind = self._kind(collection)
        builtin = self._builtin_entry(collection, ident)
        if builtin is not None:
            return Reply(200, {kind: builtin})
        return Reply(200, {kind: self._entity(collection, self._call(kind, "get", ident))})

    def _builtin_entry(self, collection: str, ident: str) -> dict[str, Any] | None:
        if collection not in ("services", "endpoints"):
            return None
        return next((i for i in self._builtin(collection) if i["id"] == ident), None)

    def _refuse_builtin(self, collection: str, ident: str) -> None:
        if self._builtin_entry(collection, ident) is not None:
            raise ApiError(403, f"The fake's own {collection[:-1]} {ident} cannot be changed.")

    @route("PATCH", "/v3/<collection>/<ident>", op="op_update")
    def update(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Update one entity."""
        kind = self._kind(collection)
        self._refuse_builtin(collection, ident)
        attrs = dict(req.member(kind))
        check_keystone_name(kind, attrs)
        if kind == "user" and "password" in attrs:
            attrs["password_digest"] = digest(str(attrs.pop("password")))
        self._types(kind, attrs)
        item = self._call(kind, "update", ident, attrs)
        return Reply(200, {kind: self._entity(collection, item)})

    @route("DELETE", "/v3/<collection>/<ident>", op="op_delete")
    def delete(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Delete one entity."""
        kind = self._kind(collection)
        self._refuse_builtin(collection, ident)
        self._call(kind, "delete", ident)
        return Reply(204)
