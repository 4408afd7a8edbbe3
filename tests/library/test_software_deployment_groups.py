"""OS::Heat::SoftwareDeploymentGroup (and its structured and deprecated names): one deployment
per server of a map, in a nested stack named by the map's keys, as Heat 27 builds it."""

import pytest

from sdk import exception
from tests.library.conftest import outputs, tmpl

SERVER = {"image": "cirros", "flavor": "m1.tiny"}


def group(
    kind="OS::Heat::SoftwareDeploymentGroup",
    servers=("a", "b"),
    input_values=None,
    update_policy=None,
    **extra,
):
    structured = "Structured" in kind
    resources = {
        "config": {
            "type": "OS::Heat::StructuredConfig" if structured else "OS::Heat::SoftwareConfig",
            "properties": {
                "group": "script",
                "config": {"a": {"get_input": "who"}} if structured else "#!/bin/sh\necho hi",
                "inputs": [{"name": "who", "default": "nobody"}],
                "outputs": [{"name": "result"}],
            },
        },
    }
    for name in servers:
        resources[f"server_{name}"] = {"type": "OS::Nova::Server", "properties": dict(SERVER)}
    deploy = {
        "type": kind,
        "properties": {
            "config": {"get_resource": "config"},
            "servers": {name: {"get_resource": f"server_{name}"} for name in servers},
            "input_values": input_values or {},
            **extra,
        },
    }
    if update_policy:
        deploy["update_policy"] = update_policy
    resources["deploy"] = deploy
    return tmpl(
        resources,
        outputs={
            "codes": {"value": {"get_attr": ["deploy", "deploy_status_codes"]}},
            "stdouts": {"value": {"get_attr": ["deploy", "deploy_stdouts"]}},
            "results": {"value": {"get_attr": ["deploy", "result"]}},
            "result_a": {"value": {"get_attr": ["deploy", "result", "a"]}},
        },
    )


@pytest.mark.parametrize(
    "kind",
    [
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::StructuredDeployments",
    ],
)
def test_one_deployment_per_server_named_by_the_map(world, kind):
    stack = world.create_stack("s", group(kind, input_values={"plugsim_outputs": {"result": "ok"}}))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    child = stack.resources["deploy"].nested()
    assert sorted(child.resources) == ["a", "b"]
    member_type = kind.replace("Group", "").rstrip("s")
    assert {r.type() for r in child.resources.values()} == {member_type}
    server_a = stack.resources["server_a"].resource_id
    assert child.resources["a"].properties["server"] == server_a
    assert outputs(stack) == {
        "codes": {"a": 0, "b": 0},
        "stdouts": {"a": "", "b": ""},
        "results": {"a": "ok", "b": "ok"},
        "result_a": "ok",
    }
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_failing_deployment_fails_the_group(world):
    stack = world.create_stack("s", group(input_values={"plugsim_status_code": 2}))
    assert stack.state == "CREATE_FAILED"
    assert "non-zero status code: 2" in stack.resources["deploy"].status_reason


def test_servers_added_and_removed_by_an_update(world):
    world.create_stack("s", group(servers=("a", "b")))
    stack = world.update_stack("s", group(servers=("b", "c")))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert sorted(stack.resources["deploy"].nested().resources) == ["b", "c"]
    assert sorted(outputs(stack)["codes"]) == ["b", "c"]


def test_a_rolling_update_changes_max_batch_size_deployments_per_nested_update(world):
    names = ("a", "b", "c")
    world.create_stack("s", group(servers=names, input_values={"who": "one"}))
    policy = {"rolling_update": {"max_batch_size": 2, "pause_time": 30}}
    before = world.clock.now()
    stack = world.update_stack(
        "s", group(servers=names, input_values={"who": "two"}, update_policy=policy)
    )
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    child = stack.resources["deploy"].nested()
    assert {r.properties["input_values"]["who"] for r in child.resources.values()} == {"two"}
    nested_updates = [
        e
        for e in world.store.events(child.id)
        if e.is_stack_event and e.action == "UPDATE" and e.status == "COMPLETE"
    ]
    assert len(nested_updates) == 2  # two of three, then the last one
    assert world.clock.now() - before >= 30  # one pause between the two batches


def test_a_bad_update_policy_is_refused_naming_the_key(world):
    policy = {"rolling_update": {"max_batch_size": 0}}
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", group(update_policy=policy))
    assert str(refused.value) == (
        "resources.deploy.update_policy.rolling_update.max_batch_size: 0 is less than the minimum 1"
    )
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", group(update_policy={"rolling_update": {"min_in_service": 1}}))
    assert str(refused.value) == (
        "resources.deploy.update_policy.rolling_update: Unknown Property min_in_service"
    )


def test_a_member_error_names_the_groups_property(world):
    t = group()
    t["resources"]["deploy"]["properties"]["actions"] = ["EXPLODE"]
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert str(refused.value).startswith("resources.deploy.properties.actions")


def test_a_deployment_without_a_server_is_refused_naming_it(world):
    t = group()
    t["resources"]["deploy"]["properties"]["servers"] = {"a": ""}
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert str(refused.value) == (
        "resources.deploy.properties.servers.a: deployment a has no server (give a server id)"
    )
