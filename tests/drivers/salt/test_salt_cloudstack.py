"""Salt 3007's own cloudstack driver (through Apache libcloud), unmodified, against the fake.

Skipped, with the reason, when Salt or libcloud does not import.
"""

from __future__ import annotations

import pytest

from simulator.drivers import DriverHarness, check_driver
from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)
pytest.importorskip("libcloud", reason="Salt's cloudstack driver needs apache-libcloud")

# As the driver's own documentation writes the provider (host, path, keys).
PROVIDERS = {
    "my-cloudstack-cloud-config": {
        "apikey": "documented-api-key",
        "secretkey": "documented-secret-key",
        "host": "localhost",
        "path": "/client/api",
        "driver": "cloudstack",
    }
}
PROFILE = {
    "provider": "my-cloudstack-cloud-config",
    "image": "Ubuntu 22.04",
    "size": "Small Instance",
    "location": "zone1",
}
ALIAS, DRIVER = "my-cloudstack-cloud-config", "cloudstack"


def test_libcloud_asks_for_a_stopped_machine_so_the_deploy_never_reaches_it():
    # libcloud 3's create_node sends startvm=False unless told otherwise, and Salt's driver
    # never tells it: CloudStack leaves the machine stopped; salt-cloud waits for SSH in vain.
    h = DriverHarness(PROVIDERS, {"cs": PROFILE}, salt_mode=True)
    stopped = (
        r"port did not open within 900 s \(server .* SHUTOFF: it was stopped or never started\)"
    )
    with pytest.raises(Exception, match=stopped):
        h.create("cs", "web-1")
    nodes = h.query("list_nodes")[ALIAS][DRIVER]
    assert nodes["web-1"]["state"] == "STOPPED"
    asked = [c.url for c in h.rest_report().calls if "command=deployVirtualMachine" in c.url]
    assert len(asked) == 1 and "startvm=False" in asked[0]


def test_create_list_show_destroy_without_deploy():
    h = DriverHarness(PROVIDERS, {"cs": {**PROFILE, "deploy": False}}, salt_mode=True)
    node = h.create("cs", "web-1")
    assert node["name"] == "web-1" and node["public_ips"][0].startswith("100.64.")
    nodes = h.query("list_nodes")[ALIAS][DRIVER]
    assert nodes["web-1"]["id"] == node["id"]
    full = h.query("list_nodes_full")[ALIAS][DRIVER]["web-1"]
    assert full["extra"]["size_name"] == "Small Instance"
    assert full["extra"]["image_name"] == "Ubuntu 22.04"
    shown = h.action("show_instance", "web-1")[ALIAS][DRIVER]["web-1"]
    assert shown["id"] == node["id"]
    assert h.destroy("web-1")[ALIAS][DRIVER]["web-1"] is True
    assert "web-1" not in h.query("list_nodes")[ALIAS][DRIVER]
    report = h.rest_report()
    assert not report.unserved and not report.bugs
    tags = [e.tag.rsplit("/", 1)[1] for e in h.events("salt/cloud/web-1/")]
    assert tags == ["creating", "requesting", "created", "destroying", "destroyed"]


def test_catalogue_listings():
    h = DriverHarness(PROVIDERS, {"cs": PROFILE}, salt_mode=True)
    assert sorted(h.avail("locations", ALIAS)[ALIAS][DRIVER]) == ["zone1", "zone2"]
    sizes = h.avail("sizes", ALIAS)[ALIAS][DRIVER]
    assert sizes["Medium Instance"]["ram"] == 1024
    assert "Ubuntu 22.04" in h.avail("images", ALIAS)[ALIAS][DRIVER]


def test_conformance_names_only_departures_of_the_driver():
    findings = check_driver(None, PROVIDERS, {"cs": {**PROFILE, "deploy": False}}, fault_kinds=[])
    assert findings, "libcloud's nodes carry no image/size strings: list_nodes departs"
    assert {f.origin for f in findings} == {"driver"}
    assert {f.check for f in findings} >= {"list_nodes.types"}
