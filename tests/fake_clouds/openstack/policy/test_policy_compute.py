"""Nova's default policies: servers are their project's, flavors, aggregates, quotas and hosts the admin's."""

from __future__ import annotations

import pytest


def _forbidden(status, body, action):
    assert status == 403, body
    assert body == {
        "forbidden": {"code": 403, "message": f"Policy doesn't allow {action} to be performed."}
    }


def _boot(user, name):
    status, body = user.call(
        "compute",
        "POST",
        "/servers",
        {"server": {"name": name, "imageRef": _image(user), "flavorRef": "1", "networks": "none"}},
        headers={"OpenStack-API-Version": "compute 2.37"},
    )
    assert status == 202, body
    return body["server"]["id"]


def _image(user):
    status, body = user.call("image", "GET", "/v2/images")
    assert status == 200
    return next(i["id"] for i in body["images"] if i["name"] == "cirros")


@pytest.fixture
def bobs_server(bob):
    return _boot(bob, "bobs")


def test_another_projects_server_is_not_found(alice, bob, bobs_server):
    missing = "0c0ffee0-0000-4000-8000-000000000000"
    for method, tail, body in (
        ("GET", "", None),
        ("DELETE", "", None),
        ("PUT", "", {"server": {"name": "mine"}}),
        ("POST", "/action", {"os-stop": None}),
        ("GET", "/metadata", None),
    ):
        status, answer = alice.call("compute", method, f"/servers/{bobs_server}{tail}", body)
        status_missing, answer_missing = alice.call(
            "compute", method, f"/servers/{missing}{tail}", body
        )
        assert status == status_missing == 404, answer
        assert str(answer).replace(bobs_server, "X") == str(answer_missing).replace(missing, "X")
    status, body = bob.call("compute", "GET", f"/servers/{bobs_server}")
    assert status == 200
    assert body["server"]["tenant_id"] == bob.project_id


def test_lists_show_the_callers_project_and_all_tenants_is_the_admins(
    alice, bob, admin, bobs_server
):
    mine = _boot(alice, "alices")
    status, body = alice.call("compute", "GET", "/servers")
    assert status == 200
    assert [s["id"] for s in body["servers"]] == [mine]
    _forbidden(
        *alice.call("compute", "GET", "/servers?all_tenants=1"),
        "os_compute_api:servers:index:get_all_tenants",
    )
    _forbidden(
        *alice.call("compute", "GET", "/servers/detail?all_tenants=True"),
        "os_compute_api:servers:detail:get_all_tenants",
    )
    status, body = alice.call("compute", "GET", "/servers?all_tenants=0")
    assert status == 200 and [s["id"] for s in body["servers"]] == [mine]
    status, body = admin.call("compute", "GET", "/servers")
    assert status == 200 and body["servers"] == []
    status, body = admin.call("compute", "GET", "/servers/detail?all_tenants=1")
    assert status == 200
    assert {s["id"]: s["tenant_id"] for s in body["servers"]} == {
        mine: alice.project_id,
        bobs_server: bob.project_id,
    }
    status, _ = admin.call("compute", "DELETE", f"/servers/{bobs_server}")
    assert status == 204


def test_flavor_management_and_access_are_the_admins(alice, admin):
    status, body = admin.call(
        "compute",
        "POST",
        "/flavors",
        {
            "flavor": {
                "name": "priv",
                "ram": 64,
                "vcpus": 1,
                "disk": 0,
                "os-flavor-access:is_public": False,
            }
        },
    )
    assert status == 200, body
    fid = body["flavor"]["id"]
    root = "os_compute_api:"
    calls = [
        (
            "POST",
            "/flavors",
            {"flavor": {"name": "x", "ram": 64, "vcpus": 1, "disk": 0}},
            root + "os-flavor-manage:create",
        ),
        ("DELETE", "/flavors/1", None, root + "os-flavor-manage:delete"),
        ("PUT", "/flavors/1", {"flavor": {"description": "d"}}, root + "os-flavor-manage:update"),
        ("GET", f"/flavors/{fid}/os-flavor-access", None, root + "os-flavor-access"),
        (
            "POST",
            f"/flavors/{fid}/action",
            {"addTenantAccess": {"tenant": alice.project_id}},
            root + "os-flavor-access:add_tenant_access",
        ),
        (
            "POST",
            f"/flavors/{fid}/action",
            {"removeTenantAccess": {"tenant": alice.project_id}},
            root + "os-flavor-access:remove_tenant_access",
        ),
        (
            "POST",
            "/flavors/1/os-extra_specs",
            {"extra_specs": {"a": "b"}},
            root + "os-flavor-extra-specs:create",
        ),
    ]
    for method, path, body, action in calls:
        _forbidden(
            *alice.call(
                "compute", method, path, body, headers={"OpenStack-API-Version": "compute 2.55"}
            ),
            action,
        )
    status, _ = admin.call(
        "compute",
        "POST",
        f"/flavors/{fid}/action",
        {"addTenantAccess": {"tenant": alice.project_id}},
    )
    assert status == 200
    status, body = alice.call("compute", "GET", f"/flavors/{fid}")
    assert status == 200 and body["flavor"]["name"] == "priv"


def test_aggregates_quotas_hypervisors_and_services_are_the_admins(alice, bob, admin):
    root = "os_compute_api:"
    calls = [
        ("GET", "/os-aggregates", None, root + "os-aggregates:index"),
        ("POST", "/os-aggregates", {"aggregate": {"name": "a"}}, root + "os-aggregates:create"),
        (
            "PUT",
            f"/os-quota-sets/{alice.project_id}",
            {"quota_set": {"instances": 99}},
            root + "os-quota-sets:update",
        ),
        ("DELETE", f"/os-quota-sets/{alice.project_id}", None, root + "os-quota-sets:delete"),
        ("GET", f"/os-quota-sets/{bob.project_id}", None, root + "os-quota-sets:show"),
        ("GET", "/os-hypervisors", None, root + "os-hypervisors:list"),
        ("GET", "/os-services", None, root + "os-services:list"),
    ]
    for method, path, body, action in calls:
        _forbidden(*alice.call("compute", method, path, body), action)
    status, _ = alice.call("compute", "GET", f"/os-quota-sets/{alice.project_id}")
    assert status == 200
    for method, path, body, _action in calls:
        status, answer = admin.call("compute", method, path, body)
        assert status in (200, 202, 204), (method, path, answer)


def test_a_reader_cannot_boot(carol):
    status, body = carol.call(
        "compute",
        "POST",
        "/servers",
        {"server": {"name": "r", "imageRef": _image(carol), "flavorRef": "1", "networks": "none"}},
        headers={"OpenStack-API-Version": "compute 2.37"},
    )
    _forbidden(status, body, "os_compute_api:servers:create")
