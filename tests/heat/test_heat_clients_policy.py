"""Heat's deployed server and scaling policy: stack users, agent credentials, alarm URLs.

They use the keystone, swift and heat client plug-ins the compat layer
imitates (see ``test_heat_clients.py``); the scaling policy's group is a
Heat-style group of the test's own until Heat's own groups run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _heat_diff import requires_heat
from test_heat_clients import HANDLE, WAIT, _identity, _signal_when_created, _waiting, _world

from sdk import exception
from simulator.store import Store
from simulator.world import World

DEPLOYED = "heat.engine.resources.openstack.heat.deployed_server"


@requires_heat
@pytest.mark.parametrize(
    ("transport", "collector"),
    [("POLL_SERVER_CFN", "cfn"), ("POLL_SERVER_HEAT", "heat"), ("POLL_TEMP_URL", "request")],
)
def test_heats_deployed_server_gets_its_agents_credentials(transport: str, collector: str) -> None:
    world = _world(DEPLOYED)
    mark = world.cloud.snapshot_inventory()
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "d": {
                "type": "OS::Heat::DeployedServer",
                "properties": {"software_config_transport": transport},
            }
        },
        "outputs": {"occ": {"value": {"get_attr": ["d", "os_collect_config"]}}},
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    occ = stack.output("occ")
    assert occ["collectors"] == [collector, "local"]
    keystone = _identity(world)
    if collector == "cfn":  # an EC2 keypair of the stack user, in the fake keystone
        [credential] = keystone.credentials.list()
        assert json.loads(credential.blob)["access"] == occ["cfn"]["access_key_id"]
        assert occ["cfn"]["path"] == "d.Metadata" and occ["cfn"]["stack_name"] == "s"
    elif collector == "heat":  # the stack user's password authenticates it
        heat = occ["heat"]
        assert heat["stack_id"] == f"s/{stack.id}" and heat["auth_url"].endswith("/v3")
        user = keystone.users.get(heat["user_id"])
        assert user.default_project_id == heat["project_id"]
        assert world.cloud.service("identity").authenticate_password(
            {"id": user.id}, heat["password"]
        )
    else:  # the metadata object behind a GET TempURL
        path = occ["request"]["metadata_url"].split("?")[0].split("/")
        body = world.client_plugin("swift").client().get_object(path[-2], path[-1])[1]
        assert json.loads(body)["os-collect-config"]["collectors"] == ["request", "local"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []
    world.close()


POLICY = "heat.engine.resources.openstack.heat.scaling_policy"

HEAT_STYLE_GROUP = """
from heat.engine import properties
from heat.engine import resource


class Group(resource.Resource):
    properties_schema = {"size": properties.Schema(properties.Schema.INTEGER, default=1)}
    attributes_schema = {}

    def handle_create(self):
        self.resource_id_set(self.physical_resource_name())
        self.data_set("size", str(self.properties["size"]))

    def adjust(self, adjustment, adjustment_type, min_adjustment_step, cooldown):
        size = int(self.data()["size"])
        if adjustment_type == "change_in_capacity":
            size += int(adjustment)
        self.data_set("size", str(size))


def resource_mapping():
    return {"Test::Heat::Group": Group}
"""


def _policy_template(group_type: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "g": {"type": group_type},
            "up": {
                "type": "OS::Heat::ScalingPolicy",
                "properties": {
                    "auto_scaling_group_id": {"get_resource": "g"},
                    "adjustment_type": "change_in_capacity",
                    "scaling_adjustment": 2,
                },
            },
        },
        "outputs": {
            "alarm": {"value": {"get_attr": ["up", "alarm_url"]}},
            "signal": {"value": {"get_attr": ["up", "signal_url"]}},
        },
    }


@requires_heat
def test_heats_scaling_policy_adjusts_a_heat_style_group_on_a_signal(tmp_path) -> None:
    from simulator.heat_compat import use_heat_plugins

    group = tmp_path / "group.py"
    group.write_text(HEAT_STYLE_GROUP, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, POLICY, group).errors
    mark = world.cloud.snapshot_inventory()
    stack = world.create_stack("s", _policy_template("Test::Heat::Group"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    policy = stack.resources["up"]
    assert _identity(world).users.get(policy.resource_id).name == policy.physical_resource_name()
    assert stack.output("signal").endswith(f"/stacks/s/{stack.id}/resources/up/signal")
    alarm = stack.output("alarm")
    assert "/v1/signal/arn%3Aopenstack%3Aheat%3A%3A" in alarm
    [credential] = _identity(world).credentials.list()
    assert f"AWSAccessKeyId={json.loads(credential.blob)['access']}" in alarm
    world.signal_resource("s", "up", {"current": "alarm"})
    assert world.get_stack("s").resources["g"].data()["size"] == "3"
    events = [(e.resource_name, e.action, e.status) for e in world.stack_events("s")]
    assert events[-1] == ("up", "SIGNAL", "COMPLETE")
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []
    world.close()


@requires_heat
def test_heats_scaling_policy_names_what_plugsims_own_group_lacks() -> None:
    world = _world(POLICY)
    stack = world.create_stack("s", _policy_template_own())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    with pytest.raises(exception.PlugsimError) as missing:
        world.signal_resource("s", "up", None)
    text = str(missing.value)
    assert "scaling_policy.py:" in text
    assert "Resource.frozen_properties (of plugsim's own OS::Heat::AutoScalingGroup)" in text
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


def _policy_template_own() -> dict[str, Any]:
    template = _policy_template("OS::Heat::AutoScalingGroup")
    template["resources"]["g"]["properties"] = {
        "min_size": 1,
        "max_size": 3,
        "resource": {"type": "OS::Heat::None"},
    }
    return template


@requires_heat
def test_stack_users_tokens_and_keys_are_the_same_for_the_same_seed() -> None:
    def run() -> tuple[Any, ...]:
        world = _world(HANDLE, WAIT, POLICY)
        _signal_when_created(world, {"data": "x"})
        template = _waiting()
        template["resources"]["up"] = {
            "type": "OS::Heat::ScalingPolicy",
            "properties": {
                "auto_scaling_group_id": "g",
                "adjustment_type": "change_in_capacity",
                "scaling_adjustment": 1,
            },
        }
        template["outputs"]["alarm"] = {"value": {"get_attr": ["up", "alarm_url"]}}
        stack = world.create_stack("s", template)
        assert stack.state == "CREATE_COMPLETE", stack.status_reason
        seen = (
            stack.output("token"),
            stack.output("endpoint"),
            stack.output("alarm"),
            [(e.resource_name, e.action, e.status, e.reason) for e in world.stack_events("s")],
        )
        world.close()
        return seen

    assert run() == run()
