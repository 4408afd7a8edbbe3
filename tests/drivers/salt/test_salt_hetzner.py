"""Salt 3007's own Hetzner driver (with hcloud), unmodified, against the fake Hetzner Cloud API.

Skipped, with the reason, when Salt or hcloud does not import.
"""

from __future__ import annotations

import importlib.util

import pytest

from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm

pytestmark = [
    pytest.mark.skipif(
        not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
    ),
    pytest.mark.skipif(importlib.util.find_spec("hcloud") is None, reason="needs hcloud"),
]

# As Salt's Hetzner documentation writes it.
PROVIDERS = {"my-hetzner": {"driver": "hetzner", "key": "documented-hetzner-api-token"}}
PROFILES = {
    "hetzner-cx22": {
        "provider": "my-hetzner",
        "size": "cx22",
        "image": "ubuntu-22.04",
        "location": "fsn1",
    }
}


def test_create_list_show_stop_destroy() -> None:
    h = DriverHarness(PROVIDERS, PROFILES, salt_mode=True)
    node = h.create("hetzner-cx22", "web-1")
    assert node["created"] is True and node["deployed"] is True
    nodes = h.query("list_nodes")["my-hetzner"]["hetzner"]
    assert nodes["web-1"]["size"] == "cx22" and nodes["web-1"]["image"] == "ubuntu-22.04"
    assert nodes["web-1"]["public_ips"]["ipv4"]
    shown = h.action("show_instance", "web-1")["my-hetzner"]["hetzner"]["web-1"]
    assert shown["state"] == "running"
    gone = h.destroy("web-1")["my-hetzner"]["hetzner"]["web-1"]
    assert gone == {"Destroyed": "web-1 was destroyed."}
    h.clock.advance(120)
    assert "web-1" not in h.query("list_nodes")["my-hetzner"]["hetzner"]
    assert not h.rest_report().unserved and not h.rest_report().bugs


def test_an_unknown_server_type_is_named() -> None:
    profiles = {"big": {**PROFILES["hetzner-cx22"], "size": "cx99"}}
    h = DriverHarness(PROVIDERS, profiles, salt_mode=True)
    with pytest.raises(Exception) as err:
        h.create("big", "web-2")
    assert "The server size is not supported" in str(err.value)
