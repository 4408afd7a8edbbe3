"""Salt 3007's own ec2 driver, unmodified, against moto's EC2 wrapped by plugsim.

moto answers the EC2 query API; plugsim mirrors each instance as a world
server, so instance states follow virtual time, faults apply to the instance
calls and leaks are the world's. Skipped, with the reason, without Salt or moto.
"""

from __future__ import annotations

import pytest
import requests

from fake_clouds import FakeCloud
from fake_clouds.rest import serve
from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm

pytest.importorskip("moto", reason="EC2 is served through moto: pip install 'plugsim[aws]'")

needs_salt = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)
EC2 = "https://ec2.us-east-1.amazonaws.com/"
RUN = {
    "Action": "RunInstances",
    "ImageId": "ami-12c6146b",
    "InstanceType": "t3.micro",
    "MinCount": "1",
    "MaxCount": "1",
    "Version": "2016-11-15",
}


def _state(text: str) -> str:
    return text.split("<instanceState>", 1)[1].split("<name>", 1)[1].split("<", 1)[0]


def _world(seed: int = 4, faults=None):
    world = FakeCloud(seed=seed, faults=faults)
    return world, serve(world, ["digitalocean"])


def test_instances_follow_the_world_clock_and_leave_no_leak():
    world, served = _world()
    with served as rest:
        rest.serve_ec2()
        made = requests.get(EC2, params=RUN, timeout=30)
        assert made.status_code == 200 and _state(made.text) == "pending"
        iid = made.text.split("<instanceId>", 1)[1].split("<", 1)[0]
        describe = {"Action": "DescribeInstances", "InstanceId.1": iid, "Version": "2016-11-15"}
        world.clock.advance(300)
        shown = requests.get(EC2, params=describe, timeout=30).text
        assert _state(shown) == "running" and "<requestId>" in shown
        assert shown.index("<requestId>") < shown.index("<reservationSet>")
        assert "2024-01-01T00:0" in shown.split("<launchTime>", 1)[1][:20]
        gone = {"Action": "TerminateInstances", "InstanceId.1": iid, "Version": "2016-11-15"}
        assert "shutting-down" in requests.get(EC2, params=gone, timeout=30).text
        assert world.leaks()
        world.clock.advance(300)
        assert _state(requests.get(EC2, params=describe, timeout=30).text) == "terminated"
        assert not world.leaks() and rest.ec2.leaks() == []


def test_zero_based_tags_are_kept_and_unknown_actions_are_reported():
    world, served = _world()
    with served as rest:
        rest.serve_ec2()
        iid = requests.get(EC2, params=RUN, timeout=30).text
        iid = iid.split("<instanceId>", 1)[1].split("<", 1)[0]
        tag = {"Action": "CreateTags", "ResourceId.1": iid, "Tag.0.Key": "Name"}
        tagged = requests.get(EC2, params={**tag, "Tag.0.Value": "web-1"}, timeout=30)
        assert "<return>true</return>" in tagged.text
        tags = requests.get(EC2, params={"Action": "DescribeTags"}, timeout=30).text
        assert "<value>web-1</value>" in tags
        odd = requests.get(EC2, params={"Action": "NoSuchAction"}, timeout=30)
        assert odd.status_code >= 400
        assert [u.url for u in rest.unserved()] == [f"{EC2}?Action=NoSuchAction"]


def test_a_fault_on_runinstances_is_ec2s_error_and_moto_launches_nothing():
    rule = {"operation": "servers.create", "effect": {"type": "error", "status": 429}}
    world, served = _world(faults=[rule])
    with served as rest:
        rest.serve_ec2()
        refused = requests.get(EC2, params=RUN, timeout=30)
        assert refused.status_code == 503 and "RequestLimitExceeded" in refused.text
        listed = requests.get(EC2, params={"Action": "DescribeInstances"}, timeout=30)
        assert "<instanceId>" not in listed.text and not world.leaks()


def test_a_reopened_world_launches_its_instances_again_under_their_ids():
    world, served = _world()
    with served as rest:
        rest.serve_ec2()
        made = requests.get(EC2, params=RUN, timeout=30).text
        iid = made.split("<instanceId>", 1)[1].split("<", 1)[0]
        tag = {"Action": "CreateTags", "ResourceId.1": iid, "Tag.1.Key": "Name"}
        requests.get(EC2, params={**tag, "Tag.1.Value": "web-1"}, timeout=30)
        world.clock.advance(300)
    state = world.to_state()
    again = FakeCloud.from_state(state)
    with serve(again, ["digitalocean"]) as rest:
        rest.serve_ec2()  # moto was reset: only the world remembers the instance
        describe = {"Action": "DescribeInstances", "InstanceId.1": iid}
        shown = requests.get(EC2, params=describe, timeout=30).text
        assert f"<instanceId>{iid}</instanceId>" in shown and _state(shown) == "running"
        assert "<key>Name</key><value>web-1</value>" in shown.replace("\n", "")
        gone = {"Action": "TerminateInstances", "InstanceId.1": iid}
        assert "shutting-down" in requests.get(EC2, params=gone, timeout=30).text


def _launch(seed: int, terminate: bool = False) -> str:
    world, served = _world(seed=seed)
    with served as rest:
        rest.serve_ec2()
        text = requests.get(EC2, params=RUN, timeout=30).text
        iid = text.split("<instanceId>", 1)[1].split("<", 1)[0]
        if terminate:
            gone = {"Action": "TerminateInstances", "InstanceId.1": iid}
            requests.get(EC2, params=gone, timeout=30)
    return iid


def test_the_same_seed_gives_the_same_instance_ids_whatever_ran_before():
    first = _launch(9)
    _launch(5, terminate=True)  # moto's process-wide state has changed since
    assert _launch(9) == first
    assert _launch(10) != first


@needs_salt
def test_salts_ec2_driver_runs_create_list_show_destroy(tmp_path):
    key = tmp_path / "id_ec2"
    key.write_text("not a real key\n")
    key.chmod(0o600)
    providers = {
        "my-ec2-config": {
            "driver": "ec2",
            "id": "AKIAIOSFODNN7EXAMPLE",
            "key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "keyname": "default",
            "private_key": str(key),
            "securitygroup": "default",
            "location": "us-east-1",
        }
    }
    profiles = {
        "base_ec2": {"provider": "my-ec2-config", "image": "ami-12c6146b", "size": "t3.micro"}
    }
    h = DriverHarness(providers, profiles, salt_mode=True)
    node = h.create("base_ec2", "web-1")
    assert node["deployed"] is True and node["instanceState"]["name"] == "running"
    nodes = h.query("list_nodes")["my-ec2-config"]["ec2"]
    assert nodes["web-1"]["state"] == "running" and nodes["web-1"]["size"] == "t3.micro"
    shown = h.action("show_instance", "web-1")["my-ec2-config"]["ec2"]["web-1"]
    assert shown["instanceId"] == nodes["web-1"]["id"]
    gone = h.destroy("web-1")["my-ec2-config"]["ec2"]["web-1"]
    assert gone["currentState"]["name"] == "shutting-down"
    h.clock.advance(600)
    assert not h.cloud.leaks()
    report = h.rest_report()
    assert not report.unserved and not report.bugs
