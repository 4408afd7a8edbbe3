"""Hetzner Cloud over plain ``requests``: servers, actions, catalogue and errors."""

from __future__ import annotations

import ipaddress

import pytest

from tests.fake_clouds.rest.conftest import session


@pytest.fixture
def hz(server):
    """(base URL, session) for Hetzner Cloud."""
    return server.base_url("hetzner"), session(server, "hetzner")


def test_create_follow_the_action_power_off_and_delete(world, hz):
    base, s = hz
    body = {"name": "web-1", "server_type": "cx22", "image": "ubuntu-22.04", "location": "nbg1"}
    created = s.post(f"{base}/servers", json=body, timeout=30)
    assert created.status_code == 201, created.text
    data = created.json()
    server, action = data["server"], data["action"]
    assert server["server_type"]["name"] == "cx22" and server["status"] == "initializing"
    assert server["datacenter"]["location"]["name"] == "nbg1"
    assert data["root_password"] and action["status"] == "running"
    ip = server["public_net"]["ipv4"]["ip"]
    assert not ipaddress.ip_address(ip).is_private
    world.clock.advance(300)
    assert s.get(f"{base}/actions/{action['id']}").json()["action"]["status"] == "success"
    assert s.get(f"{base}/servers/{server['id']}").json()["server"]["status"] == "running"
    listed = s.get(f"{base}/servers", params={"name": "web-1"}).json()
    assert [x["id"] for x in listed["servers"]] == [server["id"]]
    assert listed["meta"]["pagination"]["total_entries"] == 1
    off = s.post(f"{base}/servers/{server['id']}/actions/poweroff").json()["action"]
    world.clock.advance(300)
    assert s.get(f"{base}/actions/{off['id']}").json()["action"]["status"] == "success"
    assert s.get(f"{base}/servers/{server['id']}").json()["server"]["status"] == "off"
    assert s.delete(f"{base}/servers/{server['id']}").status_code == 200
    world.clock.advance(300)
    assert s.get(f"{base}/servers").json()["servers"] == []


def test_catalogue_and_errors(hz):
    base, s = hz
    types = [t["name"] for t in s.get(f"{base}/server_types").json()["server_types"]]
    assert {"cx22", "cpx11", "cax11"} <= set(types)
    images = s.get(f"{base}/images", params={"name": "ubuntu-22.04"}).json()["images"]
    assert [i["os_flavor"] for i in images] == ["ubuntu"]
    assert "fsn1" in [x["name"] for x in s.get(f"{base}/locations").json()["locations"]]
    bad = s.post(
        f"{base}/servers", json={"name": "x", "server_type": "cx99", "image": "ubuntu-22.04"}
    )
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "invalid_input"
    assert s.get(f"{base}/servers/1").json()["error"]["code"] == "not_found"
    unserved = s.get(f"{base}/load_balancers").json()["error"]["message"]
    assert unserved == "Not found: plugsim's fake hetzner API does not serve GET /v1/load_balancers"
