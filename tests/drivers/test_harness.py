"""The harness end to end with the bundled DigitalOcean driver against the fake REST dialect."""

from __future__ import annotations

import pytest

from sdk.exception import EntityNotFound
from simulator.drivers import DriverCallError, DriverHarness

from .conftest import PROFILES, PROVIDERS, TOKEN


def test_create_fires_the_events_in_order_and_returns_the_node():
    h = DriverHarness(PROVIDERS, PROFILES, seed=3)
    node = h.create("do-small", "web1")
    assert [e.kind for e in h.events("salt/cloud/web1/")] == [
        "creating",
        "requesting",
        "deploying",
        "created",
    ]
    creating = h.events("salt/cloud/web1/creating")[0].data
    assert creating["name"] == "web1" and creating["profile"] == "do-small"
    assert creating["provider"] == "my-do:digitalocean"
    requesting = h.events("salt/cloud/web1/requesting")[0].data["kwargs"]
    assert requesting == {
        "name": "web1",
        "size": "s-1vcpu-2gb",
        "image": "ubuntu-22-04-x64",
        "region": "nyc3",
    }
    assert node["state"] == "active" and node["deployed"] is True
    assert node["public_ips"] and h.deployer.records[-1].deployed
    assert TOKEN not in repr([e.data for e in h.events()])
    listed = h.query("list_nodes")["my-do"]["digitalocean"]["web1"]
    assert listed["id"] == node["id"] and listed["state"] == "active"


def test_destroy_removes_the_node_from_the_fake_cloud():
    h = DriverHarness(PROVIDERS, PROFILES, seed=3)
    before = h.cloud.snapshot_inventory()
    h.create("do-small", "web1")
    result = h.destroy("web1")
    assert result == {
        "my-do": {
            "digitalocean": {
                "web1": {"id": result["my-do"]["digitalocean"]["web1"]["id"], "deleted": True}
            }
        }
    }
    assert [e.kind for e in h.events("salt/cloud/web1/destroy")] == ["destroying", "destroyed"]
    h.clock.advance(600)
    assert h.cloud.leaks(before) == []
    assert h.query("list_nodes") == {"my-do": {"digitalocean": {}}}
    with pytest.raises(EntityNotFound, match="The node \\(web1\\) could not be found"):
        h.destroy("web1")


def test_same_seed_same_events_and_times():
    def run():
        h = DriverHarness(PROVIDERS, PROFILES, seed=11)
        h.create("do-small", "a")
        return [e.to_dict() for e in h.events()], h.now()

    assert run() == run()


def test_actions_get_call_action_and_listings_work():
    h = DriverHarness(PROVIDERS, PROFILES)
    h.create("do-small", "web1")
    shown = h.action("show_instance", "web1")["my-do"]["digitalocean"]["web1"]
    assert shown["name"] == "web1"
    assert "s-1vcpu-2gb" in h.avail("sizes", "my-do")["my-do"]["digitalocean"]
    assert "ubuntu-22-04-x64" in h.avail("images", "my-do:digitalocean")["my-do"]["digitalocean"]
    assert "nyc3" in h.avail("locations", "my-do")["my-do"]["digitalocean"]
    with pytest.raises(
        DriverCallError,
        match=r"show_instance\(\): SaltCloudSystemExit: The show_instance action must be called with -a",
    ):
        h.call("my-do", "show_instance", "web1")


def test_a_request_to_a_host_no_fake_serves_fails_with_the_url(write_driver):
    body = """
    import requests

    def __virtual__():
        return True

    def fetch(kwargs=None, call=None):
        return requests.get("https://api.example.invalid/v1/things", timeout=5).json()
    """
    path = write_driver("outside", body)
    h = DriverHarness({"p": {"driver": "outside"}}, {}, driver_dirs=[path.parent], bundled=False)
    with pytest.raises(
        DriverCallError,
        match=r"fetch\(\): no fake cloud serves GET https://api.example.invalid/v1/things",
    ):
        h.function("fetch", "p")


def test_raw_sockets_are_refused_with_the_address(write_driver):
    body = """
    import urllib.request

    def __virtual__():
        return True

    def fetch(kwargs=None, call=None):
        return urllib.request.urlopen("http://192.0.2.10:8080/x", timeout=3).read()
    """
    path = write_driver("rawnet", body)
    h = DriverHarness({"p": {"driver": "rawnet"}}, {}, driver_dirs=[path.parent], bundled=False)
    with pytest.raises(
        DriverCallError, match=r"real network I/O refused: a connection to 192.0.2.10:8080"
    ):
        h.function("fetch", "p")


def test_unexpected_driver_exceptions_name_the_line(write_driver):
    body = "def __virtual__():\n    return True\n\ndef boom(kwargs=None, call=None):\n    return {}['x']\n"
    path = write_driver("boomer", body)
    h = DriverHarness({"p": {"driver": "boomer"}}, {}, driver_dirs=[path.parent], bundled=False)
    with pytest.raises(
        DriverCallError, match=r"boomer.py: boom\(\) raised KeyError at line 5: 'x'"
    ):
        h.function("boom", "p")


def test_a_stuck_server_makes_create_time_out_and_clean_up():
    stuck = [{"operation": "servers.create", "effect": "stuck"}]
    settings = {"wait_for_ip_timeout": 300}
    h = DriverHarness(PROVIDERS, PROFILES, settings=settings, faults=stuck)
    before = h.cloud.snapshot_inventory()
    with pytest.raises(
        DriverCallError,
        match="SaltCloudExecutionTimeout: Unable to get an IP address in 300 seconds",
    ):
        h.create("do-small", "web1")
    assert [e.kind for e in h.events()] == ["creating", "requesting"]
    h.clock.advance(600)
    assert h.cloud.leaks(before) == []


def test_simulated_windows_deploy_honours_credential_retries():
    profiles = {
        "win": {
            **PROFILES["do-small"],
            "win_installer": "salt-minion.exe",
            "win_password": "Adm1nPassw0rd",
            "win_deploy_auth_retries": 3,
            "win_deploy_auth_retry_delay": 10,
        }
    }
    ok = DriverHarness(PROVIDERS, profiles, win_credential_delay=15)
    ok.create("win", "w1")
    record = ok.deployer.records[-1]
    assert record.deployed and record.method == "smb"
    assert "Adm1nPassw0rd" not in repr([e.data for e in ok.events()])
    late = DriverHarness(PROVIDERS, profiles, win_credential_delay=100)
    with pytest.raises(
        DriverCallError, match="Windows credentials were not accepted after 3 attempt"
    ):
        late.create("win", "w1")


def test_fake_rest_report_shows_what_the_driver_called():
    h = DriverHarness(PROVIDERS, PROFILES)
    h.create("do-small", "web1")
    report = h.rest_report()
    assert report.unserved == () and report.bugs == ()
    assert any(c.method == "POST" and c.url.endswith("/v2/droplets") for c in report.calls)
