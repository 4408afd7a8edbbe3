"""Owners survive the world's store; ``policy.enforce`` answers as the service it is asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from fake_clouds import worldfile
from fake_clouds.core import scope
from fake_clouds.core.world import FakeCloud
from fake_clouds.openstack import policy
from fake_clouds.openstack.app import WireApp
from fake_clouds.openstack.base import ApiError, ApiRequest

WORLD = Path(__file__).with_name("two_projects.yaml")


def _request(app, user, project):
    identity = app.cloud.service("identity")
    uid = next(u["id"] for u in identity.list_users() if u["name"] == user)
    pid = next(p["id"] for p in identity.list_projects() if p["name"] == project)
    token = identity.issue_token(uid, pid, ["password"])
    req = ApiRequest(Request(EnvironBuilder(path="/").get_environ()), app.apis["compute"])
    req.token = token
    return req, pid


def test_an_owner_is_kept_by_the_world_state():
    app = WireApp(worldfile.build(str(WORLD), seed=3))
    req, pid = _request(app, "alice", "alpha")
    with policy.acting_as(policy.caller_of(req)):
        net = app.cloud.service("network").create_network({"name": "n"})
    again = FakeCloud.from_state(app.cloud.to_state())
    ent = again.service("network")._store["network"][net["id"]]
    assert ent.owner == pid
    with scope.acting_as(scope.Caller("someone-else", "u", frozenset({"member"}))):
        assert again.service("network").list_networks(name="n") == []
    assert [n["id"] for n in again.service("network").list_networks(name="n")] == [net["id"]]


def test_enforce_refuses_in_the_services_shape():
    app = WireApp(worldfile.build(str(WORLD), seed=3))
    member, pid = _request(app, "alice", "alpha")
    admin, _ = _request(app, "admin", "admin")
    policy.enforce(member, "orchestration", "stacks:create", {"project_id": pid})
    with pytest.raises(ApiError) as refused:
        policy.enforce(member, "orchestration", "stacks:create", {"project_id": "other"})
    assert refused.value.status == 403
    assert refused.value.extra["body"]["error"]["message"] == (
        "You are not authorized to use stacks:create."
    )
    with pytest.raises(ApiError):
        policy.enforce(member, "orchestration", "stacks:global_index")
    policy.enforce(admin, "orchestration", "stacks:global_index")
    policy.enforce(admin, "orchestration", "stacks:delete", {"project_id": "other"})
    assert policy.visible_project(member, pid) and not policy.visible_project(member, "other")
    with pytest.raises(ValueError, match="no policy"):
        policy.enforce(member, "orchestration", "stacks:teleport")


def test_a_declared_password_survives_world_show():
    data = worldfile.export(worldfile.build(str(WORLD), seed=3))
    users = {u["name"]: u for u in data["users"]}
    assert users["carol"]["password"] == "carol-secret"
    assert "password" not in users["alice"]
    identity = worldfile.build(data, seed=3).service("identity")
    assert (
        identity.authenticate_password(
            {"name": "carol", "domain": {"id": "default"}}, "carol-secret"
        ).name
        == "carol"
    )
