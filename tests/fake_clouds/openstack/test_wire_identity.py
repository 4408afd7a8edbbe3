"""Identity v3 on the wire: keystoneauth1 sessions, the catalog, tokens in virtual time, CRUD."""

from __future__ import annotations

import requests

from fake_clouds.identity import TOKEN_TTL


def test_keystoneauth_session_gets_token_and_catalog(session, wire):
    assert session.get_token()
    assert session.get_endpoint(service_type="compute", interface="public") == (
        f"{wire.base_url}/compute/v2.1"
    )
    assert session.get_endpoint(service_type="network", region_name="RegionOne").startswith(
        f"{wire.base_url}/network"
    )
    access = session.auth.get_access(session)
    assert access.project_name == "admin"
    assert access.username == "admin"
    assert "admin" in access.role_names


def test_password_auth_returns_subject_token_and_catalog(wire):
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
                },
            },
            "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}},
        }
    }
    r = requests.post(f"{wire.auth_url}/auth/tokens", json=body)
    assert r.status_code == 201
    assert r.headers["X-Subject-Token"]
    assert r.headers["X-Openstack-Request-Id"].startswith("req-")
    catalog = {e["type"]: e for e in r.json()["token"]["catalog"]}
    assert {"identity", "compute", "network"} <= set(catalog)
    assert {ep["interface"] for ep in catalog["compute"]["endpoints"]} == {
        "public",
        "internal",
        "admin",
    }
    assert {ep["region"] for ep in catalog["network"]["endpoints"]} == {"RegionOne"}


def test_wrong_password_is_keystone_401(wire):
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {"user": {"id": "nope", "password": "bad"}},
            }
        }
    }
    r = requests.post(f"{wire.auth_url}/auth/tokens", json=body)
    assert r.status_code == 401
    assert r.json()["error"]["title"] == "Unauthorized"


def test_token_validation_and_revocation(wire, token):
    headers = {"X-Auth-Token": token, "X-Subject-Token": token}
    r = requests.get(f"{wire.auth_url}/auth/tokens", headers=headers)
    assert r.status_code == 200
    assert r.json()["token"]["user"]["name"] == "admin"
    assert requests.delete(f"{wire.auth_url}/auth/tokens", headers=headers).status_code == 204
    r = requests.get(f"{wire.base_url}/compute/v2.1/servers", headers={"X-Auth-Token": token})
    assert r.status_code == 401


def test_token_expires_in_virtual_time(world, wire, token):
    url = f"{wire.base_url}/compute/v2.1/flavors"
    assert requests.get(url, headers={"X-Auth-Token": token}).status_code == 200
    world.clock.advance(TOKEN_TTL + 1)
    r = requests.get(url, headers={"X-Auth-Token": token})
    assert r.status_code == 401
    assert "requires authentication" in r.json()["error"]["message"]


def test_missing_token_is_401_not_a_traceback(wire):
    r = requests.get(f"{wire.base_url}/network/v2.0/networks")
    assert r.status_code == 401
    assert r.headers["WWW-Authenticate"].startswith("Keystone uri=")


def test_projects_users_roles_and_new_user_can_log_in(session, wire):
    v3 = wire.auth_url
    project = session.post(f"{v3}/projects", json={"project": {"name": "p1"}}).json()["project"]
    user = session.post(
        f"{v3}/users",
        json={"user": {"name": "u1", "password": "s3cret", "default_project_id": project["id"]}},
    ).json()["user"]
    assert "password" not in user and "password_digest" not in user
    role = session.get(f"{v3}/roles?name=member").json()["roles"][0]
    r = session.put(f"{v3}/projects/{project['id']}/users/{user['id']}/roles/{role['id']}")
    assert r.status_code == 204
    assignments = session.get(f"{v3}/role_assignments?user.id={user['id']}").json()
    assert [a["scope"]["project"]["id"] for a in assignments["role_assignments"]] == [project["id"]]
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {"user": {"id": user["id"], "password": "s3cret"}},
            },
            "scope": {"project": {"id": project["id"]}},
        }
    }
    assert requests.post(f"{v3}/auth/tokens", json=body).status_code == 201
    assert [p["name"] for p in session.get(f"{v3}/projects?name=p1").json()["projects"]] == ["p1"]


def test_duplicate_project_is_409_and_unknown_is_404(session, wire):
    v3 = wire.auth_url
    session.post(f"{v3}/projects", json={"project": {"name": "dup"}})
    r = session.post(f"{v3}/projects", json={"project": {"name": "dup"}}, raise_exc=False)
    assert r.status_code == 409
    r = session.get(f"{v3}/projects/missing", raise_exc=False)
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "Could not find project: missing."


def test_groups_and_application_credentials(session, wire):
    v3 = wire.auth_url
    group = session.post(f"{v3}/groups", json={"group": {"name": "g1"}}).json()["group"]
    user = session.post(f"{v3}/users", json={"user": {"name": "u2", "password": "pw"}}).json()[
        "user"
    ]
    assert session.put(f"{v3}/groups/{group['id']}/users/{user['id']}").status_code == 204
    members = session.get(f"{v3}/groups/{group['id']}/users").json()["users"]
    assert [m["id"] for m in members] == [user["id"]]
    me = session.auth.get_user_id(session)
    cred = session.post(
        f"{v3}/users/{me}/application_credentials",
        json={"application_credential": {"name": "ci"}},
    ).json()["application_credential"]
    assert cred["secret"]
    body = {
        "auth": {
            "identity": {
                "methods": ["application_credential"],
                "application_credential": {"id": cred["id"], "secret": cred["secret"]},
            }
        }
    }
    r = requests.post(f"{v3}/auth/tokens", json=body)
    assert r.status_code == 201
    assert r.json()["token"]["project"]["name"] == "admin"


def test_session_logs_in_again_after_virtual_expiry(session, world, wire):
    first = session.get_token()
    world.clock.advance(TOKEN_TTL + 1)
    r = session.get(f"{wire.base_url}/compute/v2.1/flavors")
    assert r.status_code == 200
    assert session.get_token() != first


def test_identity_state_round_trips(world, wire, session):
    from fake_clouds import FakeCloud

    session.post(f"{wire.auth_url}/projects", json={"project": {"name": "kept"}})
    again = FakeCloud.from_state(world.to_state())
    names = [p["name"] for p in again.service("identity").list_projects()]
    assert names == ["admin", "service", "kept"]


def _script(world) -> list[tuple[int, str, str]]:
    """Drive a fixed sequence of calls; return (status, request id, body) of each."""
    from fake_clouds.openstack import serve_openstack

    out = []
    with serve_openstack(world) as app:
        user = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
        body = {
            "auth": {
                "identity": {"methods": ["password"], "password": {"user": user}},
                "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
            }
        }
        r = requests.post(f"{app.auth_url}/auth/tokens", json=body)
        out.append((r.status_code, r.headers["X-Openstack-Request-Id"], r.text))
        headers = {"X-Auth-Token": r.headers["X-Subject-Token"]}
        calls = [
            ("POST", "/network/v2.0/networks", {"network": {"name": "d"}}),
            ("GET", "/network/v2.0/networks", None),
            ("POST", "/compute/v2.1/os-keypairs", {"keypair": {"name": "k"}}),
            ("GET", "/compute/v2.1/servers/detail", None),
        ]
        for method, path, payload in calls:
            r = requests.request(method, app.base_url + path, json=payload, headers=headers)
            out.append((r.status_code, r.headers["X-Openstack-Request-Id"], r.text))
    return out


def test_same_seed_same_answers():
    from fake_clouds import FakeCloud

    first = _script(FakeCloud(seed=42, faults="flaky"))
    assert first == _script(FakeCloud(seed=42, faults="flaky"))
    assert first != _script(FakeCloud(seed=43, faults="flaky"))
