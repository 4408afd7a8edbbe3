"""The identity service (keystone-like): domains, projects, users, groups, roles,
role assignments, application credentials and tokens in virtual time.

Operations are ``<plural>.create|get|list|update|delete`` for ``domains``,
``projects``, ``users``, ``groups``, ``roles``, ``regions``, ``credentials`` (EC2 keypairs
of a user, gone with the user), ``services``,
``endpoints`` (registered ones: the fake's own services are the wire's
catalog) and ``application_credentials``, plus ``tokens.issue|validate|revoke``,
``role_assignments.grant|revoke|list`` and ``groups.add_user|remove_user``.

A new service bootstraps keystone's usual start: the ``default`` domain, the
``admin`` project and user (password ``plugsim``), the ``admin``, ``member``
and ``reader`` roles, admin holding ``admin`` on its project, and the region
``RegionOne``. Their ids are fixed (derived from the names), so adding the
service draws nothing from the seeded streams. Tokens expire
:data:`TOKEN_TTL` virtual seconds after issue; passwords are kept as SHA-256
digests.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any

from fake_clouds.clients.identity import IdentityClient
from fake_clouds.core.entities import Entity
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from fake_clouds.identity_access_rules import AccessRuleOperations
from sdk import exception

#: Seconds of virtual time a token lives.
TOKEN_TTL = 3600.0
#: The bootstrap password of the ``admin`` user.
ADMIN_PASSWORD = "plugsim"

#: kind -> (plural, attribute defaults, required attributes)
SCHEMAS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "domain": (
        "domains",
        {"description": "", "enabled": True, "tags": [], "config": None},
        ("name",),
    ),
    "project": (
        "projects",
        {
            "description": "",
            "enabled": True,
            "domain_id": "default",
            "parent_id": None,
            "is_domain": False,
            "tags": [],
        },
        ("name",),
    ),
    "user": (
        "users",
        {
            "description": "",
            "enabled": True,
            "domain_id": "default",
            "default_project_id": None,
            "email": None,
            "password_digest": None,
            "password_expires_at": None,
            "options": {},
        },
        ("name",),
    ),
    "group": ("groups", {"description": "", "domain_id": "default", "members": []}, ("name",)),
    "role": ("roles", {"description": "", "domain_id": None, "options": {}}, ("name",)),
    "region": ("regions", {"description": "", "parent_region_id": None}, ()),
    "application_credential": (
        "application_credentials",
        {
            "description": "",
            "user_id": None,
            "project_id": None,
            "roles": [],
            "expires_at": None,
            "unrestricted": False,
            "secret_digest": None,
            "access_rules": [],
        },
        ("name", "user_id"),
    ),
    "credential": (
        "credentials",
        {"user_id": None, "project_id": None, "type": "ec2", "blob": None},
        ("user_id", "type"),
    ),
    "service": ("services", {"type": None, "description": "", "enabled": True}, ("type",)),
    "endpoint": (
        "endpoints",
        {"service_id": None, "interface": None, "url": None, "region_id": None, "enabled": True},
        ("service_id", "interface", "url"),
    ),
    "endpoint_group": (
        "endpoint_groups",
        {"description": None, "filters": {}, "projects": []},
        ("name",),
    ),
    "registered_limit": (
        "registered_limits",
        {
            "service_id": None,
            "region_id": None,
            "resource_name": None,
            "default_limit": None,
            "description": None,
        },
        ("service_id", "resource_name"),
    ),
    "limit": (
        "limits",
        {
            "service_id": None,
            "region_id": None,
            "resource_name": None,
            "resource_limit": None,
            "description": None,
            "project_id": None,
            "domain_id": None,
        },
        ("service_id", "resource_name"),
    ),
    "role_assignment": (
        "role_assignments",
        {"role_id": None, "user_id": None, "group_id": None, "project_id": None, "domain_id": None},
        ("role_id",),
    ),
}
_LABELS = {
    "domain": "Domain",
    "project": "Project",
    "user": "User",
    "group": "Group",
    "role": "Role",
    "region": "Region",
    "application_credential": "Application Credential",
    "credential": "Credential",
    "service": "Service",
    "endpoint": "Endpoint",
    "endpoint_group": "Endpoint group",
    "registered_limit": "Registered limit",
    "limit": "Limit",
    "role_assignment": "Role assignment",
}
_INTERFACES = ("public", "internal", "admin")


def fixed_id(kind: str, name: str) -> str:
    """Return the stable id of a bootstrap entity (32 hex digits, keystone's shape)."""
    return hashlib.md5(f"{kind}:{name}".encode(), usedforsecurity=False).hexdigest()


def digest(secret: str) -> str:
    """Return the SHA-256 digest a password or secret is kept as."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _error(cls: type[exception.ClientError], message: str) -> exception.ClientError:
    code = cls.code
    title = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 409: "Conflict"}
    return cls(
        message,
        body={"error": {"code": code, "title": title.get(code, "Error"), "message": message}},
    )


def _check_limit_value(value: Any, field: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise _error(
            exception.BadRequest,
            f"Invalid input for field '{field}': {value!r} is not an integer >= -1",
        )


def _make(kind: str) -> dict[str, Callable[..., Any]]:
    plural, defaults, required = SCHEMAS[kind]

    @operation(f"{plural}.create", kind=kind)
    def create(self: IdentityService, attrs: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(attrs, dict):
            raise _error(exception.BadRequest, f"Invalid input for {kind}: expected an object")
        for key in required:
            if not attrs.get(key):
                raise _error(exception.BadRequest, f"'{key}' is a required property")
        full = copy.deepcopy(defaults)
        full.update(copy.deepcopy(attrs))
        if kind == "endpoint" and full["interface"] not in _INTERFACES:
            raise _error(
                exception.BadRequest,
                f"Invalid input for field 'interface': {full['interface']!r} is not one of "
                f"{', '.join(_INTERFACES)}",
            )
        check = getattr(self, f"_check_{kind}", None)
        if check is not None:
            check(full)
        name = str(full.pop("name", "") or "")
        self._check_unique(kind, name, full)
        ent = self._create(kind, name, "ACTIVE", full, entity_id=full.pop("id", None))
        return self._view(ent)

    @operation(f"{plural}.get", kind=kind, id_arg="entity_id")
    def get(self: IdentityService, entity_id: str) -> dict[str, Any]:
        return self._view(self._find(kind, entity_id))

    @operation(f"{plural}.list", kind=kind)
    def list_(self: IdentityService, **filters: Any) -> list[dict[str, Any]]:
        return [self._view(e) for e in self._list(kind, **filters)]

    @operation(f"{plural}.update", kind=kind, id_arg="entity_id")
    def update(self: IdentityService, entity_id: str, attrs: dict[str, Any]) -> dict[str, Any]:
        ent = self._find(kind, entity_id)
        if not isinstance(attrs, dict):
            raise _error(exception.BadRequest, f"Invalid input for {kind}: expected an object")
        changes = copy.deepcopy(attrs)
        changes.pop("id", None)
        for field in ("default_limit", "resource_limit"):
            if field in changes and kind in ("registered_limit", "limit"):
                _check_limit_value(changes[field], field)
        if "name" in changes:
            name = changes.pop("name")
            if name != ent.name:
                self._check_unique(kind, str(name), {**ent.attrs, **changes})
                ent.name = str(name)
        self._set(ent, **changes)
        return self._view(ent)

    @operation(f"{plural}.delete", kind=kind, id_arg="entity_id")
    def delete(self: IdentityService, entity_id: str) -> None:
        ent = self._find(kind, entity_id)
        if kind == "domain" and ent.attrs.get("enabled"):
            raise _error(
                exception.BadRequest, "Cannot delete a domain that is enabled, disable it first."
            )
        self._start(ent, "delete", None, None)
        self._forget(kind, ent.id)

    for fn, verb in ((create, "Create"), (get, "Return"), (list_, "List"), (update, "Update")):
        fn.__doc__ = f"{verb} {kind} entities (keystone semantics)."
    delete.__doc__ = f"Delete a {kind} and what refers to it."
    return {
        f"create_{kind}": create,
        f"get_{kind}": get,
        f"list_{plural}": list_,
        f"update_{kind}": update,
        f"delete_{kind}": delete,
    }


@register_service
class IdentityService(AccessRuleOperations, Service):
    """Keystone-like identity: the entities and tokens of one fake cloud."""

    name = "identity"
    kinds = {kind: "ERROR" for kind in SCHEMAS}
    client_class = IdentityClient

    def __init__(self, world: Any) -> None:
        super().__init__(world)
        self.counters["tokens"] = {}
        self._bootstrap()

    def _bootstrap(self) -> None:
        # Entities are built directly: a world under construction (from_state) has no
        # call in flight yet, and the bootstrap must draw nothing from the seeded streams.
        now = self.world.clock.now()

        def add(kind: str, name: str, ident: str | None = None, **attrs: Any) -> str:
            ident = ident or fixed_id(kind, name)
            full = {**copy.deepcopy(SCHEMAS[kind][1]), **attrs}
            self._store[kind][ident] = Entity(
                service=self.name,
                kind=kind,
                id=ident,
                name=name,
                status="ACTIVE",
                attrs=full,
                created_at=now,
                updated_at=now,
                preseeded=True,
            )
            return ident

        add("domain", "Default", "default", description="The default domain")
        add("region", "", "RegionOne")
        project = add("project", "admin", description="Bootstrap project")
        add("project", "service")
        user = add("user", "admin", password_digest=digest(ADMIN_PASSWORD))
        for name in ("admin", "member", "reader"):
            role = add("role", name)
            add(
                "role_assignment",
                "",
                fixed_id("role_assignment", name),
                role_id=role,
                user_id=user,
                project_id=project,
            )
        self._mirror_world(add)

    def _mirror_world(self, add: Callable[..., str]) -> None:
        """Add the regions, projects and users the world file declared, with the users' roles.

        A world file's ``projects`` and ``users`` are entities of the ``entity`` service
        (:mod:`fake_clouds.default_world`); keystone holds them too, so a declared user
        logs in (password ``password`` or :data:`ADMIN_PASSWORD`) and its token carries
        the roles it was given on its project. Names the bootstrap holds already
        (``admin``, ``service``) are kept as they are, the user's roles added.
        """
        entities = self.world._services.get("entity")
        if entities is None:
            return
        by_name = {kind: {e.name: e.id for e in self._store[kind].values()} for kind in SCHEMAS}
        # a declared region's id is its name, as keystone makes it (one set of services
        # answers for every region)
        for ent in sorted(entities._store.get("region", {}).values(), key=lambda e: e.name):
            if ent.name not in self._store["region"]:
                add("region", "", ent.name, description=ent.attrs.get("description", ""))
        for ent in sorted(entities._store.get("project", {}).values(), key=lambda e: e.id):
            if ent.name not in by_name["project"]:
                by_name["project"][ent.name] = add(
                    "project",
                    ent.name,
                    ent.id,
                    description=ent.attrs.get("description", ""),
                    enabled=ent.attrs.get("enabled", True),
                )
        ids = {e.id: e.name for e in entities._store.get("project", {}).values()}
        for ent in sorted(entities._store.get("user", {}).values(), key=lambda e: e.id):
            user = by_name["user"].get(ent.name)
            if user is None:
                password = ent.attrs.get("password") or ADMIN_PASSWORD
                user = by_name["user"][ent.name] = add(
                    "user", ent.name, ent.id, password_digest=digest(password)
                )
            project_ref = ent.attrs.get("project")
            project = by_name["project"].get(ids.get(project_ref, project_ref))
            if project is None:
                continue
            self._store["user"][user].attrs["default_project_id"] = project
            for role_name in ent.attrs.get("roles") or ():
                role = by_name["role"].get(role_name) or add("role", role_name)
                by_name["role"][role_name] = role
                add(
                    "role_assignment",
                    "",
                    fixed_id("role_assignment", f"{user}:{project}:{role}"),
                    role_id=role,
                    user_id=user,
                    project_id=project,
                )

    # --- helpers ----------------------------------------------------------------------

    def _find(self, kind: str, ref: Any) -> Any:
        try:
            return self._get(kind, ref)
        except exception.NotFound:
            msg = f"Could not find {_LABELS[kind].lower()}: {ref}."
            raise _error(exception.NotFound, msg) from None

    def _check_unique(self, kind: str, name: str, attrs: dict[str, Any]) -> None:
        unnamed = ("role_assignment", "region", "service", "endpoint", "limit", "endpoint_group")
        if kind in unnamed or not name:
            return
        scope = "domain_id" if kind in ("project", "user", "group") else None
        for ent in self._live(kind):
            if ent.name != name:
                continue
            if scope and ent.attrs.get(scope) != attrs.get(scope):
                continue
            if kind == "application_credential" and ent.attrs["user_id"] != attrs.get("user_id"):
                continue
            msg = f"Conflict occurred attempting to store {kind} - Duplicate entry found with name {name}."
            raise _error(exception.Conflict, msg)

    def _check_endpoint_group(self, attrs: dict[str, Any]) -> None:
        """An endpoint group filters endpoints by interface, service and region."""
        filters = attrs["filters"]
        if not isinstance(filters, dict) or not filters:
            raise _error(exception.BadRequest, "An endpoint group needs a non-empty filters object")
        unknown = sorted(set(filters) - {"interface", "service_id", "region_id"})
        if unknown:
            raise _error(exception.BadRequest, f"Invalid endpoint group filter: {unknown[0]}")

    def _check_registered_limit(self, attrs: dict[str, Any]) -> None:
        """A registered limit is an integer >= -1, one per service, region and resource."""
        _check_limit_value(attrs["default_limit"], "default_limit")
        key = (attrs["service_id"], attrs["region_id"], attrs["resource_name"])
        for other in self._live("registered_limit"):
            if (
                other.attrs["service_id"],
                other.attrs["region_id"],
                other.attrs["resource_name"],
            ) == key:
                raise _error(
                    exception.Conflict,
                    f"Conflict occurred attempting to store registered_limit - Duplicate entry "
                    f"for {key[2]} of service {key[0]}.",
                )

    def _check_limit(self, attrs: dict[str, Any]) -> None:
        """A project limit overrides a registered limit of the same service and resource."""
        _check_limit_value(attrs["resource_limit"], "resource_limit")
        if not attrs["project_id"] and not attrs["domain_id"]:
            raise _error(exception.BadRequest, "A limit names a project_id or a domain_id.")
        if attrs["project_id"]:
            self._find("project", attrs["project_id"])
        key = (attrs["service_id"], attrs["region_id"], attrs["resource_name"])
        registered = [
            r
            for r in self._live("registered_limit")
            if (r.attrs["service_id"], r.attrs["region_id"], r.attrs["resource_name"]) == key
        ]
        if not registered:
            raise _error(
                exception.BadRequest,
                f"Invalid input for limit: no registered limit for {key[2]} of service {key[0]}.",
            )
        for other in self._live("limit"):
            same = (
                other.attrs["service_id"],
                other.attrs["region_id"],
                other.attrs["resource_name"],
            )
            if (
                same == key
                and other.attrs["project_id"] == attrs["project_id"]
                and (other.attrs["domain_id"] == attrs["domain_id"])
            ):
                raise _error(
                    exception.Conflict,
                    f"Conflict occurred attempting to store limit - Duplicate entry for {key[2]}.",
                )

    def _forget(self, kind: str, ident: str) -> None:
        """Drop assignments and memberships naming a deleted entity."""
        key = {"user": "user_id", "group": "group_id", "project": "project_id", "role": "role_id"}
        if kind in key:
            for ra in self._live("role_assignment"):
                if ra.attrs.get(key[kind]) == ident:
                    self._start(ra, "delete", None, None)
        if kind == "service":
            for owned in ("endpoint", "registered_limit", "limit"):
                for ent in self._live(owned):
                    if ent.attrs["service_id"] == ident:
                        self._start(ent, "delete", None, None)
        if kind == "user":
            for credential in self._live("credential"):
                if credential.attrs["user_id"] == ident:
                    self._start(credential, "delete", None, None)
            for group in self._live("group"):
                if ident in group.attrs["members"]:
                    group.attrs["members"] = [m for m in group.attrs["members"] if m != ident]
            for token in list(self.counters["tokens"].values()):
                if token["user"]["id"] == ident:
                    token["revoked"] = True

    def _view(self, ent: Any) -> dict[str, Any]:
        out = ent.view()
        for key in ("status", "created_at", "updated_at", "password_digest", "secret_digest"):
            out.pop(key, None)
        if ent.kind == "group":
            out.pop("members", None)
        return out

    # --- role assignments and groups ---------------------------------------------------

    @operation("role_assignments.grant", kind="role_assignment")
    def grant(self, role_id: str, **target: Any) -> dict[str, Any]:
        """Grant *role_id* to ``user_id``/``group_id`` on ``project_id``/``domain_id``."""
        self._find("role", role_id)
        attrs = {**SCHEMAS["role_assignment"][1], "role_id": role_id, **target}
        for ra in self._live("role_assignment"):
            if {k: ra.attrs.get(k) for k in attrs} == attrs:
                return self._view(ra)
        return self._view(self._create("role_assignment", "", "ACTIVE", attrs))

    @operation("role_assignments.revoke", kind="role_assignment")
    def revoke(self, role_id: str, **target: Any) -> None:
        """Remove a grant (NotFound when there is none)."""
        attrs = {**SCHEMAS["role_assignment"][1], "role_id": role_id, **target}
        for ra in self._live("role_assignment"):
            if {k: ra.attrs.get(k) for k in attrs} == attrs:
                self._start(ra, "delete", None, None)
                return
        raise _error(exception.NotFound, f"Could not find role assignment for role {role_id}.")

    @operation("role_assignments.list", kind="role_assignment")
    def list_role_assignments(self, **filters: Any) -> list[dict[str, Any]]:
        """Return grants whose attributes equal *filters*."""
        return [self._view(e) for e in self._list("role_assignment", **filters)]

    def roles_of(self, user_id: str, project_id: str | None) -> list[str]:
        """Return the role ids *user_id* holds on *project_id* (directly or via groups)."""
        groups = {g.id for g in self._live("group") if user_id in g.attrs["members"]}
        out = []
        for ra in self._live("role_assignment"):
            a = ra.attrs
            if a.get("project_id") != project_id or (project_id is None and not a["domain_id"]):
                continue
            if a.get("user_id") == user_id or a.get("group_id") in groups:
                out.append(a["role_id"])
        return sorted(set(out))

    @operation("groups.add_user", kind="group", id_arg="group_id")
    def add_user_to_group(self, group_id: str, user_id: str) -> None:
        """Add a user to a group."""
        group = self._find("group", group_id)
        self._find("user", user_id)
        if user_id not in group.attrs["members"]:
            group.attrs["members"] = [*group.attrs["members"], user_id]

    @operation("groups.remove_user", kind="group", id_arg="group_id")
    def remove_user_from_group(self, group_id: str, user_id: str) -> None:
        """Remove a user from a group (NotFound when not a member)."""
        group = self._find("group", group_id)
        if user_id not in group.attrs["members"]:
            raise _error(exception.NotFound, f"User {user_id} is not a member of {group_id}.")
        group.attrs["members"] = [m for m in group.attrs["members"] if m != user_id]

    # --- tokens -----------------------------------------------------------------------

    @operation("tokens.issue", kind=None)
    def issue_token(
        self, user_id: str, project_id: str | None, methods: list[str], **extra: Any
    ) -> dict[str, Any]:
        """Issue a token for an authenticated user, scoped to *project_id* (or unscoped)."""
        user = self._find("user", user_id)
        project = None
        if project_id is not None:
            project = self._find("project", project_id)
            roles = self.roles_of(user.id, project.id)
            if not roles:
                raise _error(
                    exception.Unauthorized,
                    f"User {user.id} has no access to project {project.id}",
                )
        else:
            roles = []
        now = self._now()
        token = {
            "id": self.world.rng.hex_id(32, "tokens"),
            "user": {"id": user.id, "name": user.name, "domain_id": user.attrs["domain_id"]},
            "project": None
            if project is None
            else {"id": project.id, "name": project.name, "domain_id": project.attrs["domain_id"]},
            "roles": roles,
            "methods": list(methods),
            "issued_at": now,
            "expires_at": now + TOKEN_TTL,
            "revoked": False,
            **extra,
        }
        self.counters["tokens"][token["id"]] = token
        return copy.deepcopy(token)

    def authenticate_password(self, user_ref: dict[str, Any], password: Any) -> Any:
        """Return the user entity whose password is *password*, or raise 401."""
        ident = user_ref.get("id")
        name = user_ref.get("name")
        domain = user_ref.get("domain") or {}
        domain_id = domain.get("id") or self._domain_named(domain.get("name"))
        for ent in self._live("user"):
            if ident is not None and ent.id != ident:
                continue
            if ident is None and (ent.name != name or ent.attrs["domain_id"] != domain_id):
                continue
            if (
                ent.attrs.get("enabled")
                and isinstance(password, str)
                and ent.attrs.get("password_digest") == digest(password)
            ):
                return ent
        raise _error(exception.Unauthorized, "The request you have made requires authentication.")

    def _domain_named(self, name: Any) -> str | None:
        """Return the id of domain *name*; like keystone on MySQL, ``default`` finds ``Default``.

        (Keystone's SQL columns compare names without case under DevStack's
        MySQL collation; an exact match wins over one that differs in case.)
        """
        live = self._live("domain")
        for ent in live:
            if ent.name == name:
                return ent.id
        if isinstance(name, str):
            for ent in live:
                if isinstance(ent.name, str) and ent.name.casefold() == name.casefold():
                    return ent.id
        return None

    def project_named(self, name: Any, domain: dict[str, Any]) -> str:
        """Return the id of project *name* in *domain* (by id or name) or raise 401."""
        domain_id = domain.get("id") or self._domain_named(domain.get("name"))
        for ent in self._live("project"):
            if ent.name == name and ent.attrs["domain_id"] == domain_id:
                return ent.id
        raise _error(exception.Unauthorized, f"Could not find project {name}.")

    @operation("tokens.validate", kind=None)
    def validate_token(self, token_id: str) -> dict[str, Any]:
        """Return the live token *token_id* or raise NotFound (unknown, revoked or expired)."""
        token = self.token(token_id)
        if token is None:
            raise _error(exception.NotFound, f"Could not find token: {token_id}.")
        return token

    def token(self, token_id: Any) -> dict[str, Any] | None:
        """Return the live token *token_id* (no dispatch), or None."""
        token = self.counters["tokens"].get(token_id) if isinstance(token_id, str) else None
        if token is None or token["revoked"] or token["expires_at"] <= self._now():
            return None
        return copy.deepcopy(token)

    @operation("tokens.revoke", kind=None)
    def revoke_token(self, token_id: str) -> None:
        """Revoke a token (NotFound when it is not live)."""
        self.validate_token(token_id)
        self.counters["tokens"][token_id]["revoked"] = True

    def _dispatch_kind(self, arguments: dict[str, Any]) -> str | None:
        return None


for _name, _fn in {k: v for kind in SCHEMAS for k, v in _make(kind).items()}.items():
    setattr(IdentityService, _name, _fn)
