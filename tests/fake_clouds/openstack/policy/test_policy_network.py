"""Neutron's default policies: a project's networks and ports are its own, shared ones seen by all."""

from __future__ import annotations


def _policy_refuses(status, body, rule):
    assert status == 403, body
    assert body == {
        "NeutronError": {
            "type": "PolicyNotAuthorized",
            "message": f"{rule} is disallowed by policy",
            "detail": "",
        }
    }


def _create(user, collection, key, attrs):
    status, body = user.call("network", "POST", f"/v2.0/{collection}", {key: attrs})
    assert status == 201, body
    return body[key]


def test_another_projects_network_and_port_are_not_found(alice, bob):
    net = _create(bob, "networks", "network", {"name": "bobnet"})
    port = _create(bob, "ports", "port", {"network_id": net["id"]})
    assert net["project_id"] == bob.project_id
    for collection, ident, kind in (
        ("networks", net["id"], "Network"),
        ("ports", port["id"], "Port"),
    ):
        for method, body in (
            ("GET", None),
            ("PUT", {collection[:-1]: {"name": "x"}}),
            ("DELETE", None),
        ):
            status, answer = alice.call("network", method, f"/v2.0/{collection}/{ident}", body)
            assert status == 404, answer
            assert answer["NeutronError"]["type"] == f"{kind}NotFound"
            assert answer["NeutronError"]["message"] == f"{kind} {ident} could not be found."
    status, body = alice.call("network", "GET", "/v2.0/networks")
    assert net["id"] not in [n["id"] for n in body["networks"]]
    status, body = alice.call("network", "GET", "/v2.0/ports")
    assert body["ports"] == []


def test_a_shared_network_is_seen_by_all_and_changed_by_its_owner(alice, bob, admin):
    net = _create(admin, "networks", "network", {"name": "shared", "shared": True})
    subnet = _create(
        admin,
        "subnets",
        "subnet",
        {"network_id": net["id"], "cidr": "10.9.0.0/24", "ip_version": 4},
    )
    status, body = alice.call("network", "GET", f"/v2.0/networks/{net['id']}")
    assert status == 200 and body["network"]["shared"] is True
    status, body = alice.call("network", "GET", f"/v2.0/subnets/{subnet['id']}")
    assert status == 200
    _policy_refuses(
        *alice.call("network", "PUT", f"/v2.0/networks/{net['id']}", {"network": {"name": "mine"}}),
        "rule:update_network",
    )
    _policy_refuses(
        *alice.call("network", "DELETE", f"/v2.0/networks/{net['id']}"), "rule:delete_network"
    )
    _policy_refuses(
        *alice.call("network", "DELETE", f"/v2.0/subnets/{subnet['id']}"), "rule:delete_subnet"
    )
    # ports on a shared network stay their own project's
    alices = _create(alice, "ports", "port", {"network_id": net["id"]})
    bobs = _create(bob, "ports", "port", {"network_id": net["id"]})
    status, body = alice.call("network", "GET", f"/v2.0/ports?network_id={net['id']}")
    assert [p["id"] for p in body["ports"]] == [alices["id"]]
    status, _ = alice.call("network", "GET", f"/v2.0/ports/{bobs['id']}")
    assert status == 404
    status, body = admin.call("network", "GET", f"/v2.0/ports?network_id={net['id']}")
    assert {p["id"] for p in body["ports"]} == {alices["id"], bobs["id"]}


def test_shared_external_and_quota_changes_are_the_admins(alice, bob):
    _policy_refuses(
        *alice.call(
            "network", "POST", "/v2.0/networks", {"network": {"name": "s", "shared": True}}
        ),
        "(rule:create_network and rule:create_network:shared)",
    )
    _policy_refuses(
        *alice.call(
            "network", "POST", "/v2.0/networks", {"network": {"name": "e", "router:external": True}}
        ),
        "(rule:create_network and rule:create_network:router:external)",
    )
    own = _create(alice, "networks", "network", {"name": "own"})
    _policy_refuses(
        *alice.call("network", "PUT", f"/v2.0/networks/{own['id']}", {"network": {"shared": True}}),
        "(rule:update_network and rule:update_network:shared)",
    )
    _policy_refuses(
        *alice.call(
            "network", "PUT", f"/v2.0/quotas/{alice.project_id}", {"quota": {"network": 99}}
        ),
        "rule:update_quota",
    )
    _policy_refuses(
        *alice.call("network", "GET", f"/v2.0/quotas/{bob.project_id}"), "rule:get_quota"
    )


def test_agents_are_the_admins_and_hidden_from_members(alice, admin):
    status, body = admin.call("network", "GET", "/v2.0/agents")
    assert status == 200 and body["agents"]
    aid = body["agents"][0]["id"]
    assert alice.call("network", "GET", "/v2.0/agents") == (200, {"agents": []})
    for method, tail, body in (
        ("GET", "", None),
        ("PUT", "", {"agent": {"description": "x"}}),
        ("GET", "/l3-routers", None),
    ):
        status, answer = alice.call("network", method, f"/v2.0/agents/{aid}{tail}", body)
        assert status == 404
        assert answer == {
            "NeutronError": {
                "type": "AgentNotFound",
                "detail": "",
                "message": f"Agent {aid} could not be found.",
            }
        }


def test_the_admin_sees_and_changes_every_projects_network(bob, admin):
    net = _create(bob, "networks", "network", {"name": "bobnet"})
    status, body = admin.call("network", "GET", "/v2.0/networks")
    assert net["id"] in [n["id"] for n in body["networks"]]
    status, _ = admin.call(
        "network", "PUT", f"/v2.0/networks/{net['id']}", {"network": {"name": "n"}}
    )
    assert status == 200
    made = _create(admin, "networks", "network", {"name": "for-bob", "project_id": bob.project_id})
    status, body = bob.call("network", "GET", f"/v2.0/networks/{made['id']}")
    assert status == 200 and body["network"]["project_id"] == bob.project_id


def test_a_reader_creates_nothing(carol):
    _policy_refuses(
        *carol.call("network", "POST", "/v2.0/networks", {"network": {"name": "r"}}),
        "rule:create_network",
    )


def test_a_reader_changes_nothing_of_its_project(alice, carol):
    net = _create(alice, "networks", "network", {"name": "alphanet"})
    status, body = carol.call("network", "GET", f"/v2.0/networks/{net['id']}")
    assert status == 200
    _policy_refuses(
        *carol.call("network", "PUT", f"/v2.0/networks/{net['id']}", {"network": {"name": "r"}}),
        "rule:update_network",
    )
    _policy_refuses(
        *carol.call("network", "DELETE", f"/v2.0/networks/{net['id']}"), "rule:delete_network"
    )
