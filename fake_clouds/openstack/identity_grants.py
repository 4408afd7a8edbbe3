"""Keystone's relationship routes: role grants, role assignments, group members and
application credentials (mixed into :class:`~fake_clouds.openstack.identity.IdentityAPI`)."""

from __future__ import annotations

import hashlib
from typing import Any

from fake_clouds.identity import digest
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route

_GRANT = ("identity", "role_assignments.grant", "role_assignment")
_REVOKE = ("identity", "role_assignments.revoke", "role_assignment")
_LIST = ("identity", "role_assignments.list", "role_assignment")
_TARGETS = {"projects": "project_id", "domains": "domain_id"}
_ACTORS = {"users": "user_id", "groups": "group_id"}


class GrantRoutes:
    """Routes relating identity entities to each other."""

    service: Any
    url: Any
    cloud: Any

    def _grant_target(self, scope: str, sid: str, actors: str, aid: str) -> dict[str, str]:
        if scope not in _TARGETS or actors not in _ACTORS:
            raise ApiError(404, "The resource could not be found.", unserved=True)
        self.service._find(scope[:-1], sid)
        self.service._find(actors[:-1], aid)
        return {_TARGETS[scope]: sid, _ACTORS[actors]: aid}

    @route("PUT", "/v3/<scope>/<sid>/<actors>/<aid>/roles/<rid>", op=_GRANT)
    def grant(
        self, req: ApiRequest, scope: str, sid: str, actors: str, aid: str, rid: str
    ) -> Reply:
        """Grant a role on a project or domain to a user or group."""
        self.service.grant(rid, **self._grant_target(scope, sid, actors, aid))
        return Reply(204)

    @route("HEAD", "/v3/<scope>/<sid>/<actors>/<aid>/roles/<rid>", op=_LIST)
    @route("GET", "/v3/<scope>/<sid>/<actors>/<aid>/roles/<rid>", op=_LIST)
    def check_grant(
        self, req: ApiRequest, scope: str, sid: str, actors: str, aid: str, rid: str
    ) -> Reply:
        """204 when the grant exists, else keystone's 404."""
        target = self._grant_target(scope, sid, actors, aid)
        if not self.service.list_role_assignments(role_id=rid, **target):
            raise ApiError(404, f"Could not find role assignment with role: {rid}.")
        return Reply(204)

    @route("DELETE", "/v3/<scope>/<sid>/<actors>/<aid>/roles/<rid>", op=_REVOKE)
    def revoke_grant(
        self, req: ApiRequest, scope: str, sid: str, actors: str, aid: str, rid: str
    ) -> Reply:
        """Revoke a grant."""
        self.service.revoke(rid, **self._grant_target(scope, sid, actors, aid))
        return Reply(204)

    @route("GET", "/v3/<scope>/<sid>/<actors>/<aid>/roles", op=_LIST)
    def list_grants(self, req: ApiRequest, scope: str, sid: str, actors: str, aid: str) -> Reply:
        """The roles granted on a target to an actor."""
        target = self._grant_target(scope, sid, actors, aid)
        ids = [a["role_id"] for a in self.service.list_role_assignments(**target)]
        roles = [r for r in self.service.list_roles() if r["id"] in ids]
        return Reply(200, {"roles": [self._entity("roles", r) for r in roles]})  # type: ignore[attr-defined]

    @route("GET", "/v3/role_assignments", op=_LIST)
    def role_assignments(self, req: ApiRequest) -> Reply:
        """``GET /v3/role_assignments`` with keystone's dotted filters."""
        mapping = {
            "user.id": "user_id",
            "group.id": "group_id",
            "role.id": "role_id",
            "scope.project.id": "project_id",
            "scope.domain.id": "domain_id",
        }
        filters = {mapping[k]: req.args[k] for k in sorted(req.args) if k in mapping}
        effective = "effective" in req.args
        user = filters.pop("user_id", None) if effective else None
        items = self.service.list_role_assignments(**filters)
        if user is not None:
            groups = {g.id for g in self.service._live("group") if user in g.attrs["members"]}
            items = [
                {**a, "user_id": user, "group_id": None}
                for a in items
                if a["user_id"] == user or a["group_id"] in groups
            ]
        return Reply(200, {"role_assignments": [self._assignment(a) for a in items]})

    def _assignment(self, item: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"role": {"id": item["role_id"]}}
        if item.get("user_id"):
            out["user"] = {"id": item["user_id"]}
        if item.get("group_id"):
            out["group"] = {"id": item["group_id"]}
        if item.get("project_id"):
            out["scope"] = {"project": {"id": item["project_id"]}}
        elif item.get("domain_id"):
            out["scope"] = {"domain": {"id": item["domain_id"]}}
        out["links"] = {"assignment": self.url(f"/v3/role_assignments#{item['id']}")}
        return out

    # --- group members ------------------------------------------------------------------

    @route("PUT", "/v3/groups/<gid>/users/<uid>", op=("identity", "groups.add_user", "group"))
    def add_member(self, req: ApiRequest, gid: str, uid: str) -> Reply:
        """Add a user to a group."""
        self.service.add_user_to_group(gid, uid)
        return Reply(204)

    @route("HEAD", "/v3/groups/<gid>/users/<uid>", op=("identity", "groups.get", "group"))
    @route("GET", "/v3/groups/<gid>/users/<uid>", op=("identity", "groups.get", "group"))
    def check_member(self, req: ApiRequest, gid: str, uid: str) -> Reply:
        """204 when the user is a member."""
        group = self.service._find("group", gid)
        if uid not in group.attrs["members"]:
            raise ApiError(404, f"User '{uid}' not found in group {gid}.")
        return Reply(204)

    @route("DELETE", "/v3/groups/<gid>/users/<uid>", op=("identity", "groups.remove_user", "group"))
    def remove_member(self, req: ApiRequest, gid: str, uid: str) -> Reply:
        """Remove a user from a group."""
        self.service.remove_user_from_group(gid, uid)
        return Reply(204)

    @route("GET", "/v3/groups/<gid>/users", op=("identity", "groups.get", "group"))
    def members(self, req: ApiRequest, gid: str) -> Reply:
        """The users of a group."""
        ids = self.service._find("group", gid).attrs["members"]
        users = [u for u in self.service.list_users() if u["id"] in ids]
        return Reply(200, {"users": [self._entity("users", u) for u in users]})  # type: ignore[attr-defined]

    @route("GET", "/v3/users/<uid>/groups", op=("identity", "groups.list", "group"))
    def groups_of(self, req: ApiRequest, uid: str) -> Reply:
        """The groups a user belongs to."""
        self.service._find("user", uid)
        groups = [
            self.service._view(g) for g in self.service._live("group") if uid in g.attrs["members"]
        ]
        return Reply(200, {"groups": [self._entity("groups", g) for g in groups]})  # type: ignore[attr-defined]

    @route("GET", "/v3/users/<uid>/projects", op=_LIST)
    def projects_of(self, req: ApiRequest, uid: str) -> Reply:
        """The projects a user holds a role on."""
        ids = {a["project_id"] for a in self.service.list_role_assignments(user_id=uid)}
        projects = [p for p in self.service.list_projects() if p["id"] in ids]
        return Reply(200, {"projects": [self._entity("projects", p) for p in projects]})  # type: ignore[attr-defined]

    # --- application credentials ----------------------------------------------------------

    _APP = "application_credentials"

    @route(
        "POST",
        "/v3/users/<uid>/application_credentials",
        op=("identity", "application_credentials.create", "application_credential"),
    )
    def create_app_cred(self, req: ApiRequest, uid: str) -> Reply:
        """Create an application credential for the caller's project; the secret is shown once."""
        spec = dict(req.member("application_credential"))
        if not isinstance(spec.get("name"), str) or not spec["name"]:
            raise bad("Invalid input for field 'name': a non-empty string is required")
        self.service._find("user", uid)
        secret = spec.pop("secret", None)
        if secret is None:
            secret = hashlib.sha256(self.cloud.rng.uuid("tokens").encode()).hexdigest()
        if not isinstance(secret, str):
            raise bad("Invalid input for field 'secret': expected a string")
        project = req.project_id
        roles = spec.pop("roles", None) or [{"id": r} for r in self.service.roles_of(uid, project)]
        attrs = {
            **{
                k: v
                for k, v in spec.items()
                if k in ("name", "description", "expires_at", "unrestricted", "access_rules")
            },
            "user_id": uid,
            "project_id": project,
            "roles": roles,
            "secret_digest": digest(secret),
        }
        item = self.service.create_application_credential(attrs)
        out = {
            **item,
            "secret": secret,
            "links": {"self": self.url(f"/v3/users/{uid}/{self._APP}/{item['id']}")},
        }
        return Reply(201, {"application_credential": out})

    @route(
        "GET",
        "/v3/users/<uid>/application_credentials",
        op=("identity", "application_credentials.list", "application_credential"),
    )
    def list_app_creds(self, req: ApiRequest, uid: str) -> Reply:
        """A user's application credentials."""
        items = self.service.list_application_credentials(user_id=uid)
        name = req.args.get("name")
        items = [i for i in items if name is None or i["name"] == name]
        return Reply(200, {"application_credentials": items})

    @route(
        "GET",
        "/v3/users/<uid>/application_credentials/<cid>",
        op=("identity", "application_credentials.get", "application_credential"),
    )
    def get_app_cred(self, req: ApiRequest, uid: str, cid: str) -> Reply:
        """One application credential."""
        item = self.service.get_application_credential(cid)
        if item["user_id"] != uid:
            raise ApiError(404, f"Could not find application credential: {cid}.")
        return Reply(200, {"application_credential": item})

    @route(
        "DELETE",
        "/v3/users/<uid>/application_credentials/<cid>",
        op=("identity", "application_credentials.delete", "application_credential"),
    )
    def delete_app_cred(self, req: ApiRequest, uid: str, cid: str) -> Reply:
        """Delete an application credential."""
        self.get_app_cred(req, uid, cid)
        self.service.delete_application_credential(cid)
        return Reply(204)

    # --- access rules ------------------------------------------------------------------------

    @route(
        "GET",
        "/v3/users/<uid>/access_rules",
        op=("identity", "access_rules.list", "application_credential"),
    )
    def list_access_rules(self, req: ApiRequest, uid: str) -> Reply:
        """A user's access rules."""
        items = [self._access_rule(uid, r) for r in self.service.list_access_rules(uid)]
        return Reply(200, {"access_rules": items})

    def _access_rule(self, uid: str, rule: dict[str, Any]) -> dict[str, Any]:
        link = {"self": self.url(f"/v3/users/{uid}/access_rules/{rule['id']}")}
        return {**rule, "links": link}

    @route(
        "GET",
        "/v3/users/<uid>/access_rules/<rid>",
        op=("identity", "access_rules.get", "application_credential"),
    )
    def get_access_rule(self, req: ApiRequest, uid: str, rid: str) -> Reply:
        """One access rule."""
        return Reply(
            200, {"access_rule": self._access_rule(uid, self.service.get_access_rule(uid, rid))}
        )

    @route(
        "DELETE",
        "/v3/users/<uid>/access_rules/<rid>",
        op=("identity", "access_rules.delete", "application_credential"),
    )
    def delete_access_rule(self, req: ApiRequest, uid: str, rid: str) -> Reply:
        """Delete an access rule no credential uses (403 otherwise)."""
        self.service.delete_access_rule(uid, rid)
        return Reply(204)
