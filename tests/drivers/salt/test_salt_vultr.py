"""Salt 3007's own vultr driver (it speaks Vultr's API v1), unmodified, against the fake.

Skipped, with the reason, when Salt does not import.
"""

from __future__ import annotations

import pytest

from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)

# As the driver's own documentation writes them.
PROVIDERS = {"my-vultr-config": {"driver": "vultr", "api_key": "supersecretapikey123"}}
PROFILES = {
    "nyc-4gb-4cpu-ubuntu-14-04": {
        "location": 1,
        "provider": "my-vultr-config",
        "image": 160,
        "size": 95,
        "enable_private_network": True,
    }
}


def test_create_list_show_destroy() -> None:
    h = DriverHarness(PROVIDERS, PROFILES, salt_mode=True)
    node = h.create("nyc-4gb-4cpu-ubuntu-14-04", "web-1")
    assert node["deployed"] is True and node["status"] == "active"
    nodes = h.query("list_nodes")["my-vultr-config"]["vultr"]
    assert nodes["web-1"]["size"] == "95" and nodes["web-1"]["image"] == "Ubuntu 14.04 x64"
    shown = h.action("show_instance", "web-1")["my-vultr-config"]["vultr"]["web-1"]
    assert shown["main_ip"] == nodes["web-1"]["public_ips"]
    assert h.destroy("web-1")["my-vultr-config"]["vultr"]["web-1"] is True
    h.clock.advance(120)
    assert "web-1" not in h.query("list_nodes")["my-vultr-config"]["vultr"]
    report = h.rest_report()
    assert not report.unserved and not report.bugs
    assert all("supersecretapikey123" not in e.to_dict().__repr__() for e in h.events())
