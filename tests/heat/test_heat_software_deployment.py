"""Heat's own software deployments (OS::Heat::SoftwareDeployment, StructuredDeployment)
over plugsim's engine RPC: configs and deployments are entities of the fake cloud, and a
deployment completes when the fake server's config agent reports on it."""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.store import Store
from simulator.world import World

HEAT = "heat.engine.resources.openstack.heat."
MODULES = (HEAT + "software_config", HEAT + "software_deployment", HEAT + "structured_config")


def _world() -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5)
    report = use_heat_plugins(world, *MODULES)
    assert not report.errors, report.errors
    return world


def _template(
    transport: str = "CFN_SIGNAL",
    inputs: dict[str, Any] | None = None,
    server_metadata: dict[str, str] | None = None,
) -> dict[str, Any]:
    server: dict[str, Any] = {
        "image": "cirros",
        "flavor": "m1.tiny",
        "networks": [{"network": "public"}],
        "user_data_format": "SOFTWARE_CONFIG",
    }
    if server_metadata:
        server["metadata"] = server_metadata
    values = {"foo": "bar", "plugsim_outputs": {"result": "42"}, **(inputs or {})}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "cfg": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {
                    "config": "echo hi",
                    "inputs": [{"name": "foo"}],
                    "outputs": [{"name": "result"}],
                },
            },
            "vm": {"type": "OS::Nova::Server", "properties": server},
            "d": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "cfg"},
                    "server": {"get_resource": "vm"},
                    "signal_transport": transport,
                    "input_values": values,
                },
            },
        },
        "outputs": {
            "result": {"value": {"get_attr": ["d", "result"]}},
            "code": {"value": {"get_attr": ["d", "deploy_status_code"]}},
        },
    }


def _agent_deployments(world: World, stack: Any) -> dict[str, Any]:
    server_id = stack.resources["vm"].resource_id
    record = world.cloud.service("compute").agent["servers"][server_id]
    return dict(record["deployments"])


def _kinds(world: World) -> list[str]:
    return sorted(e["kind"] for e in world.cloud.service("entity").list_entities())


@requires_heat
@pytest.mark.parametrize("transport", ["CFN_SIGNAL", "HEAT_SIGNAL", "TEMP_URL_SIGNAL"])
def test_a_deployment_completes_when_the_servers_agent_reports(transport: str) -> None:
    world = _world()
    mark = world.cloud.snapshot_inventory()
    stack = world.create_stack("s", _template(transport))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert (stack.output("result"), stack.output("code")) == ("42", 0)
    deployment_id = stack.resources["d"].resource_id
    handed = _agent_deployments(world, stack)[deployment_id]
    assert handed["action"] == "CREATE"
    assert handed["config"]["inputs"]["foo"] == "bar"  # the derived config's input values
    assert handed["config"]["inputs"]["deploy_signal_transport"] == transport
    # the source config, its derived config and the deployment are the fake cloud's
    assert _kinds(world) == ["software_config", "software_config", "software_deployment"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _kinds(world) == []
    assert world.cloud.leaks(mark) == []
    world.close()


@requires_heat
def test_a_no_signal_deployment_waits_for_no_agent() -> None:
    world = _world()
    stack = world.create_stack(
        "s", _template("NO_SIGNAL", server_metadata={"plugsim_agent": "silent"})
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("result") is None  # nothing reported
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_a_non_zero_status_code_fails_the_deployment_with_heats_reason() -> None:
    world = _world()
    stack = world.create_stack("s", _template(inputs={"plugsim_status_code": 3}))
    assert stack.state == "CREATE_FAILED"
    assert (
        "Deployment to server failed: deploy_status_code : "
        "Deployment exited with non-zero status code: 3"
    ) in stack.status_reason
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_new_input_values_deploy_again_in_place() -> None:
    world = _world()
    stack = world.create_stack("s", _template())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    deployment_id = stack.resources["d"].resource_id
    stack = world.update_stack("s", _template(inputs={"plugsim_outputs": {"result": "43"}}))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["d"].resource_id == deployment_id
    assert stack.output("result") == "43"
    assert _agent_deployments(world, stack)[deployment_id]["action"] == "UPDATE"
    # the derived config of the create went when the update's replaced it
    assert _kinds(world) == ["software_config", "software_config", "software_deployment"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_a_signal_sent_to_the_deployment_completes_it_when_the_agent_is_silent() -> None:
    world = _world()

    def listener(ev: Any) -> None:
        # vm2 boots while d waits on vm's agent, which never reports
        if (ev.resource_name, ev.action, ev.status) == ("vm2", "CREATE", "COMPLETE"):
            details = {"deploy_status_code": 0, "deploy_stdout": "done", "result": "signalled"}
            world.signal_resource("s", "d", details)

    world.listeners.append(listener)
    template = _template(server_metadata={"plugsim_agent": "silent"})
    template["resources"]["vm2"] = {**template["resources"]["vm"], "depends_on": ["vm"]}
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert (stack.output("result"), stack.output("code")) == ("signalled", 0)
    d_events = [(e.action, e.status) for e in world.stack_events("s") if e.resource_name == "d"]
    assert d_events == [("CREATE", "IN_PROGRESS"), ("SIGNAL", "COMPLETE"), ("CREATE", "COMPLETE")]
    # a signal once the deployment is no longer waiting changes nothing (Heat ignores it)
    world.signal_resource("s", "d", {"deploy_status_code": 5, "result": "late"})
    assert world.get_stack("s").output("result") == "signalled"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_a_structured_deployment_hands_the_agent_its_inputs_substituted() -> None:
    world = _world()
    template = _template()
    template["resources"]["cfg"] = {
        "type": "OS::Heat::StructuredConfig",
        "properties": {
            "config": {"a": {"get_input": "foo"}, "b": [1]},
            "inputs": [{"name": "foo"}],
        },
    }
    template["resources"]["d"]["type"] = "OS::Heat::StructuredDeployment"
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    handed = _agent_deployments(world, stack)[stack.resources["d"].resource_id]
    assert handed["config"]["config"] == {"a": "bar", "b": [1]}
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_the_deployment_id_is_the_same_on_every_run() -> None:
    ids = []
    for _ in range(2):
        world = _world()
        stack = world.create_stack("s", _template())
        ids.append(stack.resources["d"].resource_id)
        world.close()
    assert ids[0] == ids[1]
