"""The fake CloudStack API: signed calls, asynchronous jobs in virtual time, errors, faults.

Driven two ways: by Apache libcloud's own CloudStack driver (an independent
client: it signs, polls jobs and parses replies itself), and by plain
``requests`` with a signer written here from CloudStack's documentation.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from urllib.parse import quote

import pytest
import requests

from fake_clouds import FakeCloud
from fake_clouds.rest import serve
from simulator.drivers.vtime import VirtualTimeModule

URL = "https://cloud.example.com/client/api"
KEY, SECRET = "documented-api-key", "documented-secret-key"


def signed(command: str, secret: str = SECRET, **params: str) -> dict[str, str]:
    """Return the query of a CloudStack call, signed as CloudStack's API guide describes."""
    query = {"command": command, "apiKey": KEY, "response": "json", **params}
    text = "&".join(
        f"{k.lower()}={quote(str(v), safe='*')}"
        for k, v in sorted(query.items(), key=lambda kv: kv[0].lower())
    )
    digest = hmac.new(secret.encode(), text.lower().replace("+", "%20").encode(), hashlib.sha1)
    return {**query, "signature": base64.b64encode(digest.digest()).decode()}


def call(command: str, **params: str) -> requests.Response:
    return requests.get(URL, params=signed(command, **params), timeout=30)


def _serve(world: FakeCloud):
    rest = serve(world, ["cloudstack"], base_urls={"cloudstack": URL}, tokens={"cloudstack": KEY})
    server = rest.__enter__()
    server.dialects["cloudstack"].accepted = frozenset({SECRET})
    return rest, server


@pytest.fixture
def world():
    return FakeCloud(seed=7)


@pytest.fixture
def server(world):
    rest, served = _serve(world)
    yield served
    rest.__exit__(None, None, None)


def _ids() -> dict[str, str]:
    zone = call("listZones").json()["listzonesresponse"]["zone"][0]["id"]
    offerings = call("listServiceOfferings").json()["listserviceofferingsresponse"]
    templates = call("listTemplates", templatefilter="executable").json()
    small = [o for o in offerings["serviceoffering"] if o["name"] == "Small Instance"][0]
    ubuntu = [
        t for t in templates["listtemplatesresponse"]["template"] if t["name"] == "Ubuntu 22.04"
    ][0]
    return {"zoneid": zone, "serviceofferingid": small["id"], "templateid": ubuntu["id"]}


def _job(job_id: str) -> dict:
    return call("queryAsyncJobResult", jobid=job_id).json()["queryasyncjobresultresponse"]


def test_a_wrong_signature_or_key_is_refused(server):
    bad = requests.get(URL, params=signed("listZones", secret="not-the-secret"), timeout=30)
    assert bad.status_code == 401
    assert "request signature" in bad.json()["errorresponse"]["errortext"]
    unsigned = {"command": "listZones", "apiKey": KEY, "response": "json"}
    assert requests.get(URL, params=unsigned, timeout=30).status_code == 401
    ok = call("listZones").json()["listzonesresponse"]
    assert ok["count"] == 2 and ok["zone"][0]["networktype"] == "Basic"


def test_deploy_is_a_job_pending_until_the_build_is_due_in_virtual_time(world, server):
    started = world.now()
    made = call("deployVirtualMachine", name="web-1", **_ids()).json()
    made = made["deployvirtualmachineresponse"]
    first = _job(made["jobid"])
    assert first["jobstatus"] == 0 and "jobresult" not in first
    world.clock.advance(600)
    done = _job(made["jobid"])
    vm = done["jobresult"]["virtualmachine"]
    assert done["jobstatus"] == 1 and vm["id"] == made["id"]
    assert (vm["name"], vm["state"], vm["serviceofferingname"]) == (
        "web-1",
        "Running",
        "Small Instance",
    )
    assert vm["password"].startswith("plugsim-")
    assert vm["nic"][0]["ipaddress"].startswith("100.64.")
    listed = call("listVirtualMachines", id=made["id"]).json()["listvirtualmachinesresponse"]
    assert listed["count"] == 1 and "password" not in listed["virtualmachine"][0]
    assert world.now() - started >= 600
    gone = call("destroyVirtualMachine", id=made["id"]).json()["destroyvirtualmachineresponse"]
    world.clock.advance(600)
    assert _job(gone["jobid"])["jobresult"]["virtualmachine"]["state"] == "Destroyed"
    assert call("listVirtualMachines").json()["listvirtualmachinesresponse"] == {}


def test_startvm_false_leaves_the_machine_stopped(world, server):
    made = call("deployVirtualMachine", startvm="False", **_ids()).json()
    job = made["deployvirtualmachineresponse"]["jobid"]
    for _ in range(200):
        reply = _job(job)
        if reply["jobstatus"]:
            break
        world.clock.advance(5)
    assert reply["jobstatus"] == 1
    assert reply["jobresult"]["virtualmachine"]["state"] == "Stopped"
    [server_view] = world.client("compute").servers.list()
    assert server_view.status == "SHUTOFF"


def test_errors_name_the_parameter_and_unknown_commands_are_reported(server):
    missing = call("listTemplates")
    assert missing.status_code == 431
    assert "missing parameter templatefilter" in missing.json()["errorresponse"]["errortext"]
    bad = call("deployVirtualMachine", **{**_ids(), "templateid": "nope"})
    assert bad.status_code == 431 and "templateid value=nope" in bad.text
    unknown = call("listVPCs")
    assert unknown.status_code == 432 and "command=listVPCs" in unknown.text
    [entry] = server.unserved()
    assert entry.url == f"{URL}?command=listVPCs" and entry.count == 1


def test_a_fault_on_create_is_cloudstacks_530_and_nothing_is_made():
    rule = {"operation": "servers.create", "effect": {"type": "error", "status": 503}}
    world = FakeCloud(seed=7, faults=[rule])
    rest, _ = _serve(world)
    try:
        reply = call("deployVirtualMachine", **_ids())
    finally:
        rest.__exit__(None, None, None)
    assert reply.status_code == 530 and reply.json()["errorresponse"]["errorcode"] == 530
    assert world.client("compute").servers.list() == []


def test_the_same_seed_gives_the_same_replies():
    bodies = []
    for _ in range(2):
        world = FakeCloud(seed=3)
        rest, _ = _serve(world)
        try:
            job = call("deployVirtualMachine", name="a", **_ids()).json()
            world.clock.advance(600)
            result = _job(job["deployvirtualmachineresponse"]["jobid"])
        finally:
            rest.__exit__(None, None, None)
        bodies.append((job, result))
    assert bodies[0] == bodies[1]


def test_libclouds_cloudstack_driver_runs_against_the_fake(world, server, monkeypatch):
    base = pytest.importorskip("libcloud.common.base")
    from libcloud.compute.providers import get_driver
    from libcloud.compute.types import NodeState, Provider

    # libcloud polls jobs with time.sleep/time.time: give it the world's virtual clock.
    monkeypatch.setattr(base, "time", VirtualTimeModule(world.clock))
    driver = get_driver(Provider.CLOUDSTACK)(
        key=KEY, secret=SECRET, host="cloud.example.com", path="/client/api"
    )
    assert [z.name for z in driver.list_locations()] == ["zone1", "zone2"]
    size = [s for s in driver.list_sizes() if s.name == "Medium Instance"][0]
    image = [i for i in driver.list_images() if i.name == "Fedora 39"][0]
    wall = time.monotonic()
    node = driver.create_node(
        name="db-1", size=size, image=image, location=driver.list_locations()[1], ex_start_vm=True
    )
    assert time.monotonic() - wall < 30
    assert node.state == NodeState.RUNNING and node.extra["zone_name"] == "zone2"
    assert world.now() > 10
    [listed] = driver.list_nodes()
    assert listed.id == node.id and listed.public_ips == node.public_ips
    [root] = driver.list_volumes(listed)
    assert root.extra["volume_type"] == "ROOT"
    assert driver.destroy_node(listed) is True
    assert driver.list_nodes() == []
