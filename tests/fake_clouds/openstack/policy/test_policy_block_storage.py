"""Cinder's default policies: volumes are their project's; types, QoS specs and quotas the admin's."""

from __future__ import annotations


def _forbidden(status, body, action):
    assert status == 403, body
    assert body == {
        "forbidden": {"code": 403, "message": f"Policy doesn't allow {action} to be performed."}
    }


def _volume(user, name):
    status, body = user.call(
        "block-storage", "POST", "/volumes", {"volume": {"name": name, "size": 1}}
    )
    assert status == 202, body
    return body["volume"]["id"]


def test_another_projects_volume_is_not_found(alice, bob):
    vid = _volume(bob, "bobs")
    missing = "0c0ffee0-0000-4000-8000-000000000000"
    for method, tail, body in (
        ("GET", "", None),
        ("DELETE", "", None),
        ("PUT", "", {"volume": {"name": "mine"}}),
        ("POST", "/action", {"os-extend": {"new_size": 2}}),
    ):
        status, answer = alice.call("block-storage", method, f"/volumes/{vid}{tail}", body)
        status_missing, answer_missing = alice.call(
            "block-storage", method, f"/volumes/{missing}{tail}", body
        )
        assert status == status_missing == 404, answer
        assert str(answer).replace(vid, "X") == str(answer_missing).replace(missing, "X")
    status, body = bob.call("block-storage", "GET", f"/volumes/{vid}")
    assert status == 200
    assert body["volume"]["os-vol-tenant-attr:tenant_id"] == bob.project_id


def test_a_url_naming_another_project_is_malformed(alice, bob, wire):
    url = f"{wire.base_url}/volume/v3/{bob.project_id}/volumes"
    response = alice.session.get(url, raise_exc=False)
    assert response.status_code == 400
    assert response.json() == {"badRequest": {"code": 400, "message": "Malformed request url"}}


def test_lists_are_the_projects_unless_an_admin_asks_for_all_tenants(alice, bob, admin):
    mine, theirs = _volume(alice, "mine"), _volume(bob, "theirs")
    status, body = alice.call("block-storage", "GET", "/volumes?all_tenants=1")
    assert status == 200 and [v["id"] for v in body["volumes"]] == [mine]
    status, body = admin.call("block-storage", "GET", "/volumes")
    assert status == 200 and body["volumes"] == []
    status, body = admin.call("block-storage", "GET", "/volumes/detail?all_tenants=1")
    assert {v["id"] for v in body["volumes"]} == {mine, theirs}


def test_types_qos_specs_quotas_and_services_are_the_admins(alice, bob, admin):
    calls = [
        ("POST", "/types", {"volume_type": {"name": "gold"}}, "volume_extension:types_manage"),
        (
            "POST",
            "/qos-specs",
            {"qos_specs": {"name": "q"}},
            "volume_extension:qos_specs_manage:create",
        ),
        ("GET", "/qos-specs", None, "volume_extension:qos_specs_manage:get_all"),
        (
            "PUT",
            f"/os-quota-sets/{alice.project_id}",
            {"quota_set": {"volumes": 99}},
            "volume_extension:quotas:update",
        ),
        ("GET", f"/os-quota-sets/{bob.project_id}", None, "volume_extension:quotas:show"),
        ("GET", "/os-services", None, "volume_extension:services:index"),
    ]
    for method, path, body, action in calls:
        _forbidden(*alice.call("block-storage", method, path, body), action)
    status, body = alice.call("block-storage", "GET", f"/os-quota-sets/{alice.project_id}")
    assert status == 200
    for method, path, body, _action in calls:
        status, answer = admin.call("block-storage", method, path, body)
        assert status in (200, 202), (method, path, answer)


def test_a_reader_creates_no_volume(carol):
    status, body = carol.call(
        "block-storage", "POST", "/volumes", {"volume": {"name": "r", "size": 1}}
    )
    _forbidden(status, body, "volume:create")
