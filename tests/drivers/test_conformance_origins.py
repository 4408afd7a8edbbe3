"""Conformance findings say whose they are: the driver's (with the guide's rule) or plugsim's."""

from __future__ import annotations

from simulator.drivers import check_driver
from tests.drivers.conftest import BUNDLED, PROFILES, PROVIDERS

GAPPY = """
import requests
from sdk import cloud_driver as cd

API = "https://api.linode.com/v4"
HEADERS = {"Authorization": "Bearer tok-12345"}


def __virtual__():
    return True


def get_configured_provider():
    return True


def create(vm_):
    name = vm_["name"]
    args = {"name": name, "profile": vm_["profile"], "provider": vm_["provider"]}
    cd.fire_event("event", "creating", f"salt/cloud/{name}/creating", args=args)
    cd.fire_event("event", "requesting", f"salt/cloud/{name}/requesting", args={"kwargs": {}})
    body = {"type": "g6-nanode-1", "region": "us-east", "image": "linode/ubuntu22.04",
            "label": name}
    requests.post(f"{API}/linode/instances", json=body, headers=HEADERS, timeout=30)
    reply = requests.get(f"{API}/nodebalancers", headers=HEADERS, timeout=30)
    if reply.status_code != 200:
        raise cd.SaltCloudSystemExit(reply.json()["errors"][0]["reason"])
    return {"name": name}


def destroy(name, call=None):
    return True


def list_nodes(call=None):
    return {}


def list_nodes_full(call=None):
    return {}


def list_nodes_select(call=None):
    return {}


def show_instance(name, call=None):
    if call != "action":
        raise cd.SaltCloudSystemExit("show_instance is an action")
    return {}


def avail_images(call=None):
    return {}


def avail_sizes(call=None):
    return {}
"""

LINODE_PROVIDERS = {"my-linode": {"driver": "gappy", "apikey": "tok-12345"}}
LINODE_PROFILES = {"small": {"provider": "my-linode", "size": "g6-nanode-1"}}


def test_an_unserved_endpoint_is_plugsims_gap_and_its_leftover_is_not_the_drivers_leak(
    write_driver,
) -> None:
    path = write_driver("gappy", GAPPY)
    findings = check_driver(path, LINODE_PROVIDERS, LINODE_PROFILES, fault_kinds=[])
    create = [f for f in findings if f.check == "create"]
    assert len(create) == 1 and create[0].origin == "plugsim"
    assert "does not serve GET https://api.linode.com/v4/nodebalancers" in create[0].message
    assert "(plugsim gap, not the driver's fault)" in str(create[0])
    leaks = [f for f in findings if f.check == "leaks"]
    assert leaks and all(f.origin == "plugsim" for f in leaks)
    assert "not counted as the driver's leak" in leaks[0].message
    assert not [f for f in findings if f.origin == "driver" and f.severity == "error"]


def test_a_departure_from_the_guide_names_the_guides_rule(write_driver) -> None:
    source = BUNDLED.read_text().replace(
        '"public_ips": _ips(droplet, "public"),',
        '"public_ips": _ips(droplet, "public"), "name": "x",',
        1,
    )
    assert source != BUNDLED.read_text()
    path = write_driver("digitalocean", source)
    findings = check_driver(path, PROVIDERS, PROFILES, fault_kinds=[])
    fields = [f for f in findings if f.check == "list_nodes.fields"]
    assert fields and fields[0].origin == "driver"
    assert fields[0].rule.startswith("The list_nodes() Function")
    assert fields[0].to_dict()["rule"] == fields[0].rule


def test_refusing_with_another_saltcloud_error_is_a_warning_not_an_error(write_driver) -> None:
    source = BUNDLED.read_text()
    refusal = 'raise SaltCloudSystemExit("The show_instance action must be called with -a'
    assert refusal in source
    source = source.replace(refusal, 'raise SaltCloudException("The show_instance action must be')
    source += "\n\nclass SaltCloudException(Exception):\n    pass\n"
    path = write_driver("digitalocean", source)
    findings = check_driver(path, PROVIDERS, PROFILES, fault_kinds=[])
    refusals = [f for f in findings if f.check == "call.refusal"]
    assert refusals and {f.severity for f in refusals} == {"warning"}
    assert "refused with SaltCloudException, not SaltCloudSystemExit" in refusals[0].message
