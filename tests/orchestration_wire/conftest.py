"""Fixtures of the Orchestration API tests: a world served in-process, heatclient on it."""

from __future__ import annotations

import pytest

pytest.importorskip("heatclient")
pytest.importorskip("keystoneauth1")

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "description": "two resources and an output",
    "parameters": {"value": {"type": "string", "default": "v0"}},
    "resources": {
        "secret": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
        "thing": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": {"get_param": "value"},
                "action_wait_secs": {"create": 20, "update": 10, "delete": 5},
            },
            "depends_on": ["secret"],
        },
    },
    "outputs": {
        "out": {"description": "what thing says", "value": {"get_attr": ["thing", "output"]}}
    },
}


@pytest.fixture
def world():
    """A fresh in-memory world (seed 4)."""
    from simulator.world import World

    w = World(seed=4)
    yield w
    w.close()


@pytest.fixture
def wire(world):
    """The world's OpenStack and Orchestration APIs served to ``requests`` (2 virtual s/request)."""
    from simulator.orchestration_wire import serve_world

    with serve_world(world, step=2.0) as app:
        yield app


def _session(wire, user="admin", password="plugsim", project="admin"):
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    auth = v3.Password(
        auth_url=wire.auth_url,
        username=user,
        password=password,
        project_name=project,
        user_domain_id="default",
        project_domain_id="default",
    )
    return ks_session.Session(auth=auth)


@pytest.fixture
def session(wire):
    """A keystoneauth1 session of the bootstrap admin."""
    return _session(wire)


@pytest.fixture
def heat(session):
    """python-heatclient's v1 client on the session (endpoint from the catalog)."""
    from heatclient import client as heat_client

    return heat_client.Client("1", session=session)


@pytest.fixture
def other_project(wire, session):
    """A heatclient of a second user in a second project (a member there)."""
    from heatclient import client as heat_client

    return heat_client.Client("1", session=_other_session(wire, session))


def _other_session(wire, session):
    url = wire.auth_url
    project = session.post(
        f"{url}/projects", json={"project": {"name": "other", "domain_id": "default"}}
    ).json()["project"]
    user = session.post(
        f"{url}/users",
        json={"user": {"name": "bob", "password": "bobpw", "domain_id": "default"}},
    ).json()["user"]
    roles = session.get(f"{url}/roles").json()["roles"]
    member = next(r for r in roles if r["name"] == "member")
    session.put(f"{url}/projects/{project['id']}/users/{user['id']}/roles/{member['id']}")
    return _session(wire, "bob", "bobpw", "other")
