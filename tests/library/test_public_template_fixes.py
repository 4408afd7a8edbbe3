"""Fake-cloud behaviour public HOT templates rely on (issue 21): comments, PowerShell, MIME
user_data, snapshots of nested servers and attached volumes, ``port`` in server addresses."""

import json

import pytest

from fake_clouds.agent import AGENT_ENDPOINT_PREFIX, agent_plan
from tests.library.conftest import outputs, tmpl

ENDPOINT = AGENT_ENDPOINT_PREFIX + "s-h-abc"


def test_commented_out_signal_lines_are_not_run():
    script = (
        "#!/bin/sh -x\n"
        f'curl -X POST {ENDPOINT} --data-binary \'{{"status": "SUCCESS"}}\'\n'
        f'# curl -X POST {ENDPOINT} --data-binary \'{{"status": "FAILURE"}}\'\n'
        f"echo 'a # in quotes' ; curl {ENDPOINT} -d '{{\"data\": \"x # y\"}}' # trailing\n"
        f'echo "escaped \\" quote" # curl {ENDPOINT} -d \'{{"status": "FAILURE"}}\'\n'
    )
    plan = agent_plan(script)
    assert [p["payload"] for p in plan] == [{"status": "SUCCESS"}, {"data": "x # y"}]


def test_a_powershell_invoke_restmethod_signal_is_recognised():
    script = (
        "$body = 'ignored'\n"
        f'$result = Invoke-RestMethod -Method POST -Uri "{ENDPOINT}" `\n'
        '    -Body \'{"status": "FAILURE", "reason": "install failed"}\' '
        "-Headers $headers\n"
    )
    plan = agent_plan(script)
    assert plan == [
        {
            "endpoint": ENDPOINT,
            "payload": {"status": "FAILURE", "reason": "install failed"},
            "problem": None,
        }
    ]


def _waited_server(config_type, fmt, script):
    config = {
        "type": config_type,
        "properties": {
            "group": "ungrouped",
            "config": {
                "str_replace": {
                    "template": script,
                    "params": {"wc_notify": {"get_attr": ["h", "curl_cli"]}},
                }
            },
        },
    }
    if config_type == "OS::Heat::MultipartMime":
        config = {
            "type": "OS::Heat::MultipartMime",
            "properties": {"parts": [{"config": {"get_resource": "inner"}}]},
        }
    resources = {
        "h": {"type": "OS::Heat::WaitConditionHandle"},
        "w": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "h"}, "timeout": 600},
        },
        "cfg": config,
        "srv": {
            "type": "OS::Nova::Server",
            "properties": {
                "image": "cirros",
                "flavor": "m1.tiny",
                "user_data_format": fmt,
                "user_data": {"get_resource": "cfg"},
            },
        },
    }
    if config_type == "OS::Heat::MultipartMime":
        resources["inner"] = {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {
                "group": "ungrouped",
                "config": {
                    "str_replace": {
                        "template": script,
                        "params": {"wc_notify": {"get_attr": ["h", "curl_cli"]}},
                    }
                },
            },
        }
    return tmpl(resources, outputs={"data": {"value": {"get_attr": ["w", "data"]}}})


NATIVE = """#!/bin/sh -x
# Simple success signal
wc_notify --data-binary '{"status": "SUCCESS", "data": "ok"}'
# Or a failure, left commented out:
# wc_notify --data-binary '{"status": "FAILURE", "reason": "signal3"}'
"""


@pytest.mark.parametrize(
    ("config_type", "fmt"),
    [("OS::Heat::SoftwareConfig", "RAW"), ("OS::Heat::MultipartMime", "RAW")],
)
def test_a_config_given_by_id_in_raw_user_data_is_what_the_agent_runs(world, config_type, fmt):
    stack = world.create_stack("s", _waited_server(config_type, fmt, NATIVE))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert list(json.loads(outputs(stack)["data"]).values()) == ["ok"]


def test_a_stack_snapshot_of_nested_servers_leaves_no_image(world):
    server = {"type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.tiny"}}
    parent = tmpl(
        {
            "inner": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {"count": 2, "resource_def": server},
            }
        }
    )
    world.create_stack("s", parent)
    images_before = len(world.cloud.client_plugin("nova").client().images.list())
    snap = world.snapshot_stack("s", "snap")
    assert snap.status == "COMPLETE", snap.reason
    images = world.cloud.client_plugin("nova").client().images.list()
    assert len(images) == images_before + 2
    world.delete_snapshot("s", "snap")
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_server_with_an_attached_volume_can_be_snapshotted(world):
    stack = world.create_stack(
        "s",
        tmpl(
            {
                "srv": {
                    "type": "OS::Nova::Server",
                    "properties": {"image": "cirros", "flavor": "m1.tiny"},
                },
                "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
                "att": {
                    "type": "OS::Cinder::VolumeAttachment",
                    "properties": {
                        "instance_uuid": {"get_resource": "srv"},
                        "volume_id": {"get_resource": "vol"},
                    },
                },
            }
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    snap = world.snapshot_stack("s", "snap")
    assert snap.status == "COMPLETE", snap.reason
    world.delete_snapshot("s", "snap")
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_server_addresses_name_their_port(world):
    stack = world.create_stack(
        "s",
        tmpl(
            {
                "net": {"type": "OS::Neutron::Net"},
                "sub": {
                    "type": "OS::Neutron::Subnet",
                    "properties": {"network": {"get_resource": "net"}, "cidr": "10.9.0.0/24"},
                },
                "port": {
                    "type": "OS::Neutron::Port",
                    "properties": {"network": {"get_resource": "net"}},
                    "depends_on": "sub",
                },
                "srv": {
                    "type": "OS::Nova::Server",
                    "properties": {
                        "image": "cirros",
                        "flavor": "m1.tiny",
                        "networks": [{"port": {"get_resource": "port"}}],
                    },
                },
            },
            outputs={
                "addresses": {"value": {"get_attr": ["srv", "addresses"]}},
                "port": {"value": {"get_resource": "port"}},
            },
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    # keyed by the network's name and, as Heat 27 extends them, by its id: the same entries
    [name, net_id] = sorted(out["addresses"], key=len)
    entries = out["addresses"][name]
    assert out["addresses"][net_id] == entries
    assert [e["port"] for e in entries] == [out["port"]]
