"""Software deployments and wait conditions completed by the fake servers' config agent."""

import json

from fake_clouds.compute import AGENT_ENDPOINT_PREFIX
from sdk.signals import SIGNAL_ENDPOINT_PREFIX
from simulator.resources.heat.software_deployment import substitute_inputs
from simulator.world import World
from tests.library.conftest import outputs, tmpl

SERVER = {"image": "cirros", "flavor": "m1.tiny"}


def deployment(input_values=None, server_meta=None, kind="OS::Heat::SoftwareDeployment", **extra):
    config_type = (
        "OS::Heat::StructuredConfig" if "Structured" in kind else "OS::Heat::SoftwareConfig"
    )
    config = {"a": {"get_input": "who"}} if "Structured" in kind else "#!/bin/sh\necho hi"
    return tmpl(
        {
            "config": {
                "type": config_type,
                "properties": {
                    "group": "script",
                    "config": config,
                    "inputs": [{"name": "who", "default": "nobody"}],
                    "outputs": [{"name": "result"}],
                },
            },
            "server": {
                "type": "OS::Nova::Server",
                "properties": {**SERVER, "metadata": server_meta or {}},
            },
            "deploy": {
                "type": kind,
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": {"get_resource": "server"},
                    "input_values": input_values or {},
                    **extra,
                },
            },
        },
        outputs={
            "result": {"value": {"get_attr": ["deploy", "result"]}},
            "code": {"value": {"get_attr": ["deploy", "deploy_status_code"]}},
        },
    )


def test_both_sides_agree_on_the_signal_endpoint():
    assert AGENT_ENDPOINT_PREFIX == SIGNAL_ENDPOINT_PREFIX


def test_deployment_completes_when_the_agent_reports_with_the_outputs_given(world):
    t = deployment({"who": "me", "plugsim_outputs": {"result": "done"}})
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert outputs(stack) == {"result": "done", "code": 0}
    server_active = [
        e.time
        for e in world.stack_events("s")
        if (e.resource_name, e.state) == ("server", "CREATE_COMPLETE")
    ][0]
    deployed = [
        e.time
        for e in world.stack_events("s")
        if (e.resource_name, e.state) == ("deploy", "CREATE_COMPLETE")
    ][0]
    assert deployed > server_active  # the agent runs after the boot
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_non_zero_status_code_fails_the_deployment_with_heats_message(world):
    stack = world.create_stack("s", deployment({"plugsim_status_code": 3}))
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["deploy"].status_reason == (
        "DeploymentFailed: Deployment to server failed: deploy_status_code : "
        "Deployment exited with non-zero status code: 3"
    )
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_failing_agent_fails_the_deployment(world):
    stack = world.create_stack("s", deployment(server_meta={"plugsim_agent": "fail"}))
    assert stack.state == "CREATE_FAILED"
    assert "non-zero status code: 1" in stack.resources["deploy"].status_reason


def test_a_silent_agent_leaves_the_deployment_waiting_until_the_stack_times_out(world):
    stack = world.create_stack(
        "s", deployment(server_meta={"plugsim_agent": "silent"}), timeout_mins=5
    )
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason == "Create timed out"
    assert stack.resources["deploy"].state == ("CREATE", "FAILED")


def test_no_signal_deployments_complete_without_waiting(world):
    t = deployment(server_meta={"plugsim_agent": "silent"}, signal_transport="NO_SIGNAL")
    assert world.create_stack("s", t).state == "CREATE_COMPLETE"


def test_update_of_input_values_deploys_again(world):
    world.create_stack("s", deployment({"plugsim_outputs": {"result": "one"}}))
    stack = world.update_stack("s", deployment({"plugsim_outputs": {"result": "two"}}))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert outputs(stack)["result"] == "two"


def test_structured_deployment_substitutes_inputs_for_the_agent(world):
    stack = world.create_stack(
        "s", deployment({"who": "me"}, kind="OS::Heat::StructuredDeployment")
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    service = world.cloud.service("compute")
    server_id = stack.resources["server"].resource_id
    deps = service.agent["servers"][server_id]["deployments"]
    (dep,) = deps.values()
    assert dep["config"]["config"] == {"a": "me"}
    assert dep["config"]["inputs"]["deploy_action"] == "CREATE"


def test_strict_structured_deployment_needs_every_input(world):
    t = deployment(kind="OS::Heat::StructuredDeployment", input_values_validate="STRICT")
    t["resources"]["config"]["properties"]["config"] = {"a": {"get_input": "missing"}}
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert "Input values for missing are missing" in stack.resources["deploy"].status_reason


def test_servers_signal_the_wait_condition_handle_named_in_their_user_data(world):
    user_data = {
        "str_replace": {
            "template": '#!/bin/sh\nwc_notify --data-binary \'{"status": "SUCCESS"}\'\n',
            "params": {"wc_notify": {"get_attr": ["h", "curl_cli"]}},
        }
    }
    t = tmpl(
        {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "servers": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {
                        "type": "OS::Nova::Server",
                        "properties": {**SERVER, "user_data": user_data},
                    },
                },
            },
            "w": {
                "type": "OS::Heat::WaitCondition",
                "depends_on": "h",
                "properties": {"handle": {"get_resource": "h"}, "count": 2, "timeout": 600},
            },
        },
        outputs={"data": {"value": {"get_attr": ["w", "data"]}}},
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    server_ids = sorted(stack.resources["servers"].FnGetAtt("refs"))
    assert sorted(json.loads(outputs(stack)["data"])) == server_ids
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_server_whose_agent_fails_fails_the_wait_condition(world):
    t = tmpl(
        {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "server": {
                "type": "OS::Nova::Server",
                "properties": {
                    **SERVER,
                    "metadata": {"plugsim_agent": "fail"},
                    "user_data": {"get_attr": ["h", "endpoint"]},
                },
            },
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "h"}, "timeout": 600},
            },
        }
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["w"].status_reason.startswith(
        "WaitConditionFailure: Config agent of server"
    )


def test_agent_state_survives_reopening_the_world(tmp_path):
    path = tmp_path / "w.db"
    with World.open(path) as w:
        w.create_stack("s", deployment({"plugsim_outputs": {"result": "kept"}}))
    with World.open(path) as w:
        stack = w.get_stack("s")
        assert outputs(stack)["result"] == "kept"
        assert w.update_stack("s", deployment({"who": "x"})).state == "UPDATE_COMPLETE"
        assert w.delete_stack("s").state == "DELETE_COMPLETE"


def test_deployment_runs_are_deterministic():
    def run():
        with World() as w:
            w.create_stack("s", deployment({"plugsim_outputs": {"result": "r"}}))
            w.delete_stack("s")
            return [(e.time, e.resource_name, e.state, e.reason) for e in w.stack_events("s")]

    assert run() == run()


def test_substitute_inputs_replaces_nested_references():
    value = {"a": [{"get_input": "x"}, {"b": {"get_input": "y"}}], "c": "plain"}
    assert substitute_inputs(value, "get_input", {"x": 1}) == {
        "a": [1, {"b": None}],
        "c": "plain",
    }


def _agent_jobs(world):
    servers = world.cloud.to_state()["services"]["compute"]["agent"]["servers"]
    return [job for record in servers.values() for job in record["deployments"].values()]


def test_the_deployment_name_reaches_the_agent_and_an_update_of_it_redeploys(world):
    world.create_stack("s", deployment(name="web-setup"))
    [job] = _agent_jobs(world)
    assert (job["action"], job["config"]["name"]) == ("CREATE", "web-setup")
    stack = world.update_stack("s", deployment(name="web-setup-2"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    [job] = _agent_jobs(world)
    assert (job["action"], job["config"]["name"]) == ("UPDATE", "web-setup-2")
