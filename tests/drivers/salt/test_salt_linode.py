"""Salt 3007's own Linode driver, unmodified, against the fake Linode v4 API.

Skipped, with the reason, when Salt does not import.
"""

from __future__ import annotations

import ipaddress

import pytest

from simulator.drivers import DriverCallError, DriverHarness
from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)

# As Salt's Linode documentation writes it (a token and a root password).
PROVIDERS = {
    "my-linode": {
        "driver": "linode",
        "apikey": "f4ZsmwtB1c7f85Jdu43RgXVDFlNjuJaeIYV8QMftTqKScEB2vSosFSr",
        "password": "F00barbazverylongpassword",
    }
}
PROFILES = {
    "linode-1": {
        "provider": "my-linode",
        "size": "g6-nanode-1",
        "image": "linode/ubuntu22.04",
        "location": "us-east",
    }
}


@pytest.fixture
def harness() -> DriverHarness:
    """Salt's linode driver, found by its name as salt-cloud finds it."""
    return DriverHarness(PROVIDERS, PROFILES, salt_mode=True)


def test_create_waits_for_the_event_and_the_public_address_is_public(
    harness: DriverHarness,
) -> None:
    node = harness.create("linode-1", "web-1")
    assert node["deployed"] is True
    assert node["public_ips"] and node["private_ips"] == []
    for ip in node["public_ips"]:
        assert not ipaddress.ip_address(ip).is_private
    listed = harness.query("list_nodes")["my-linode"]["linode"]["web-1"]
    assert listed["public_ips"] == node["public_ips"]
    assert listed["state"] == "running"
    kinds = [e.kind for e in harness.events("salt/cloud/web-1/")]
    assert kinds[0] == "creating" and kinds[-1] == "created"


def test_events_endpoint_answers_with_the_create_event(harness: DriverHarness) -> None:
    harness.create("linode-1", "web-2")
    calls = [c for c in harness.rest_report().calls if "/account/events" in c.url]
    assert calls and all(c.status == 200 for c in calls)
    assert not harness.rest_report().unserved


def test_show_an_action_and_destroy(harness: DriverHarness) -> None:
    harness.create("linode-1", "web-3")
    shown = harness.action("show_instance", "web-3")["my-linode"]["linode"]["web-3"]
    assert shown["name"] == "web-3" and shown["public_ips"]
    stopped = harness.action("stop", "web-3")["my-linode"]["linode"]["web-3"]
    assert stopped["state"] == "Stopped"
    harness.destroy("web-3")
    harness.clock.advance(120)
    assert "web-3" not in harness.query("list_nodes")["my-linode"]["linode"]


def test_an_unserved_endpoint_is_named_in_the_error_itself(harness: DriverHarness) -> None:
    with pytest.raises(DriverCallError) as err:
        harness.function(
            "create_config",
            "my-linode",
            {"name": "c", "linode_id": 1, "root_disk_id": 1, "swap_disk_id": 2},
        )
    assert "plugsim's fake linode API does not serve POST /v4/linode/instances/1/configs" in str(
        err.value
    )
