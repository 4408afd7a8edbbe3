"""Salt 3007's own openstack driver (through shade), unmodified, against the OpenStack wire.

The provider names its own keystone (``auth_url``) and credentials: the
harness serves the world's wire there and accepts them. Skipped, with the
reason, without Salt or shade.
"""

from __future__ import annotations

import pytest

from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm
from simulator.drivers.harness import DriverCallError

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)
pytest.importorskip("shade", reason="Salt's openstack driver needs shade (plugsim[salt])")

ALIAS, DRIVER = "myopenstack", "openstack"
AUTH = {
    "username": "demo",
    "password": "secret",
    "project_name": "demo",
    "user_domain_name": "Default",
    "project_domain_name": "Default",
    "auth_url": "https://keystone.example.com:5000/v3",
}
PROVIDERS = {ALIAS: {"driver": "openstack", "region_name": "RegionOne", "auth": AUTH}}
PROFILE = {
    "provider": ALIAS,
    "image": "ubuntu",
    "size": "m1.small",
    "network": ["public"],
    "ssh_interface": "private_ips",
}


def test_create_list_show_destroy_with_the_providers_own_keystone():
    h = DriverHarness(PROVIDERS, {"ubuntu": PROFILE}, salt_mode=True)
    node = h.create("ubuntu", "web-1")
    assert node["deployed"] is True and node["host"].startswith("172.24.4.")
    nodes = h.query("list_nodes")[ALIAS][DRIVER]
    assert nodes["web-1"]["state"] == "ACTIVE" and nodes["web-1"]["size"] == "m1.small"
    full = h.query("list_nodes_full")[ALIAS][DRIVER]["web-1"]
    assert full["id"] == nodes["web-1"]["id"]
    shown = h.action("show_instance", "web-1")[ALIAS][DRIVER]["web-1"]
    assert shown["location"]["project"]["name"] == "demo"
    assert h.destroy("web-1")[ALIAS][DRIVER]["web-1"] is True
    h.clock.advance(300)
    assert h.query("list_nodes")[ALIAS][DRIVER] == {} and not h.cloud.leaks()
    assert not h.rest_report().unserved


def test_a_wrong_password_is_refused_under_strict_auth():
    # --strict-auth: the providers file's credentials are not added to the world's keystone.
    h = DriverHarness(PROVIDERS, {"ubuntu": PROFILE}, salt_mode=True, strict_auth="other")
    with pytest.raises(Exception, match="requires authentication"):
        h.call(ALIAS, "list_nodes")
    # -Q, as Salt maps providers: nothing listed, the refusal kept for this provider
    assert h.query("list_nodes") == {ALIAS: {DRIVER: []}}
    assert "requires authentication" in h.listing_errors[-1][1]


def test_without_a_network_the_server_gets_no_address_and_salt_trips_over_it():
    # The default world has only the external network: nova attaches nothing, shade refuses
    # the address-less server, Salt deletes it and then reads it back (a TypeError of Salt's).
    profiles = {"bare": {"provider": ALIAS, "image": "ubuntu", "size": "m1.small"}}
    h = DriverHarness(PROVIDERS, profiles, salt_mode=True)
    with pytest.raises(DriverCallError, match=r"create\(\) raised TypeError"):
        h.create("bare", "web-2")
    h.clock.advance(300)
    assert not h.cloud.leaks()
