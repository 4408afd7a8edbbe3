"""Keystone's default policies: a member manages nothing but itself; the admin role is cloud admin."""

from __future__ import annotations


def _forbidden(status, body, action):
    assert status == 403, body
    assert body == {
        "error": {
            "code": 403,
            "title": "Forbidden",
            "message": f"You are not authorized to perform the requested action: {action}.",
        }
    }


def _role_ids(admin):
    status, body = admin.call("identity", "GET", "/v3/roles")
    assert status == 200
    return {r["name"]: r["id"] for r in body["roles"]}


def test_world_roles_reach_the_token(alice, carol, admin):
    status, body = admin.call(
        "identity", "GET", "/v3/auth/tokens", headers={"X-Subject-Token": alice.session.get_token()}
    )
    assert status == 200
    assert [r["name"] for r in body["token"]["roles"]] == ["member"]
    assert body["token"]["project"]["name"] == "alpha"
    status, body = admin.call(
        "identity", "GET", "/v3/auth/tokens", headers={"X-Subject-Token": carol.session.get_token()}
    )
    assert [r["name"] for r in body["token"]["roles"]] == ["reader"]


def test_a_member_cannot_grant_itself_admin(alice, admin):
    roles = _role_ids(admin)
    path = f"/v3/projects/{alice.project_id}/users/{alice.user_id}/roles/{roles['admin']}"
    _forbidden(*alice.call("identity", "PUT", path), "identity:create_grant")
    _forbidden(*alice.call("identity", "GET", path), "identity:check_grant")
    _forbidden(*alice.call("identity", "DELETE", path), "identity:revoke_grant")
    status, _ = admin.call("identity", "GET", path)
    assert status == 404  # nothing was granted
    status, _ = admin.call("identity", "PUT", path)
    assert status == 204


def test_a_member_manages_no_project_user_domain_or_role(alice, bob):
    calls = [
        ("POST", "/v3/projects", {"project": {"name": "mine"}}, "identity:create_project"),
        ("DELETE", f"/v3/projects/{bob.project_id}", None, "identity:delete_project"),
        (
            "PATCH",
            f"/v3/projects/{alice.project_id}",
            {"project": {"description": "x"}},
            "identity:update_project",
        ),
        ("POST", "/v3/users", {"user": {"name": "eve"}}, "identity:create_user"),
        ("DELETE", f"/v3/users/{bob.user_id}", None, "identity:delete_user"),
        ("POST", "/v3/domains", {"domain": {"name": "d"}}, "identity:create_domain"),
        ("POST", "/v3/roles", {"role": {"name": "boss"}}, "identity:create_role"),
        ("GET", "/v3/projects", None, "identity:list_projects"),
        ("GET", "/v3/users", None, "identity:list_users"),
        ("GET", "/v3/roles", None, "identity:list_roles"),
        ("GET", "/v3/domains", None, "identity:list_domains"),
        ("GET", "/v3/role_assignments", None, "identity:list_role_assignments"),
        ("GET", "/v3/services", None, "identity:list_services"),
        ("GET", f"/v3/projects/{bob.project_id}", None, "identity:get_project"),
        ("GET", f"/v3/users/{bob.user_id}", None, "identity:get_user"),
        ("GET", f"/v3/users/{bob.user_id}/projects", None, "identity:list_user_projects"),
    ]
    for method, path, body, action in calls:
        _forbidden(*alice.call("identity", method, path, body), action)


def test_a_member_reads_itself_its_project_and_its_domain(alice):
    status, body = alice.call("identity", "GET", f"/v3/users/{alice.user_id}")
    assert status == 200 and body["user"]["name"] == "alice"
    status, body = alice.call("identity", "GET", f"/v3/projects/{alice.project_id}")
    assert status == 200 and body["project"]["name"] == "alpha"
    status, body = alice.call("identity", "GET", "/v3/domains/default")
    assert status == 200
    status, body = alice.call("identity", "GET", f"/v3/users/{alice.user_id}/projects")
    assert status == 200 and [p["name"] for p in body["projects"]] == ["alpha"]
    status, body = alice.call("identity", "GET", "/v3/regions")
    assert status == 200


def test_application_credentials_are_their_users_own(alice, bob):
    status, _ = alice.call(
        "identity",
        "POST",
        f"/v3/users/{alice.user_id}/application_credentials",
        {"application_credential": {"name": "ci"}},
    )
    assert status == 201
    _forbidden(
        *alice.call("identity", "GET", f"/v3/users/{bob.user_id}/application_credentials"),
        "identity:list_application_credentials",
    )


def test_the_admin_role_on_any_project_is_cloud_admin(admin, bob):
    status, body = admin.call("identity", "GET", "/v3/projects")
    assert status == 200
    assert {"admin", "alpha", "beta"} <= {p["name"] for p in body["projects"]}
    status, _ = admin.call("identity", "GET", f"/v3/users/{bob.user_id}")
    assert status == 200
    status, _ = admin.call("identity", "POST", "/v3/projects", {"project": {"name": "gamma"}})
    assert status == 201
