"""The identity client, shaped like python-keystoneclient's v3 managers.

``client.projects.create(name=..., domain=...)``, ``client.users.update(user,
enabled=False)``, ``client.tokens.issue(user, project)`` ... over the
identity service (:mod:`fake_clouds.identity`); results are
:class:`~fake_clouds.core.client_base.ClientObject` instances. Heat's
keystone client plug-in (imitated by :mod:`simulator.heat_compat`) uses it
for its stack-domain projects and users.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager, id_of

#: keystoneclient's keyword -> the identity service's attribute, where they differ.
_REFERENCES = {
    "domain": "domain_id",
    "project": "project_id",
    "default_project": "default_project_id",
    "user": "user_id",
}


def _attrs(kwargs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if value is None:
            continue
        if key == "password":  # kept as a digest, as the wire keeps it
            # the SHA-256 digest fake_clouds.identity.digest keeps (not imported: the
            # service module names this client, so importing it back would be a circle)
            out["password_digest"] = hashlib.sha256(str(value).encode()).hexdigest()
            continue
        out[_REFERENCES.get(key, key)] = id_of(value) if key in _REFERENCES else value
    return out


class IdentityManager(Manager):
    """``client.<plural>`` for one entity kind of the identity service."""

    def __init__(self, service: Any, kind: str, plural: str) -> None:
        super().__init__(service)
        self.kind = kind
        self.plural = plural

    def create(self, **kwargs: Any) -> ClientObject:
        """Create an entity from keystoneclient's keywords (``domain=`` is ``domain_id``)."""
        return self._wrap(getattr(self.service, f"create_{self.kind}")(_attrs(kwargs)))

    def get(self, entity: Any) -> ClientObject:
        """Return one entity by id (or object)."""
        return self._wrap(getattr(self.service, f"get_{self.kind}")(id_of(entity)))

    def list(self, **filters: Any) -> list[ClientObject]:
        """Return the entities whose fields equal *filters* (``domain=`` is ``domain_id``)."""
        return self._wrap_all(getattr(self.service, f"list_{self.plural}")(**_attrs(filters)))

    def update(self, entity: Any = None, **kwargs: Any) -> ClientObject:
        """Change fields of an entity (given first, or by its kind: ``update(project=...)``)."""
        if entity is None:
            entity = kwargs.pop(self.kind)
        call = getattr(self.service, f"update_{self.kind}")
        return self._wrap(call(id_of(entity), _attrs(kwargs)))

    def delete(self, entity: Any) -> None:
        """Delete an entity."""
        getattr(self.service, f"delete_{self.kind}")(id_of(entity))


class RoleManager(IdentityManager):
    """``client.roles``: the roles, and granting them on a project or domain."""

    def __init__(self, service: Any) -> None:
        super().__init__(service, "role", "roles")

    def grant(self, role: Any, **target: Any) -> ClientObject:
        """Grant *role* to ``user=``/``group=`` on ``project=``/``domain=``."""
        return self._wrap(self.service.grant(id_of(role), **_targets(target)))

    def revoke(self, role: Any, **target: Any) -> None:
        """Remove a grant of *role* (NotFound when there is none)."""
        self.service.revoke(id_of(role), **_targets(target))


def _targets(target: dict[str, Any]) -> dict[str, Any]:
    return {f"{key}_id": id_of(value) for key, value in target.items() if value is not None}


class TokenManager:
    """``client.tokens``: issue, validate and revoke tokens."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def issue(self, user: Any, project: Any = None, methods: tuple[str, ...] = ("password",)):
        """Issue a token for *user* scoped to *project* (a dict with ``id``, ``expires_at`` ...)."""
        project_id = None if project is None else id_of(project)
        return self.service.issue_token(id_of(user), project_id, list(methods))

    def validate(self, token: str) -> dict[str, Any]:
        """Return the live token *token* (NotFound when it is not)."""
        return self.service.validate_token(token)  # type: ignore[no-any-return]

    def revoke_token(self, token: str) -> None:
        """Revoke *token*."""
        self.service.revoke_token(token)


class IdentityClient:
    """Client bound to one identity service: keystoneclient v3's managers."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.domains = IdentityManager(service, "domain", "domains")
        self.projects = IdentityManager(service, "project", "projects")
        self.users = IdentityManager(service, "user", "users")
        self.groups = IdentityManager(service, "group", "groups")
        self.roles = RoleManager(service)
        self.regions = IdentityManager(service, "region", "regions")
        self.credentials = IdentityManager(service, "credential", "credentials")
        self.tokens = TokenManager(service)
