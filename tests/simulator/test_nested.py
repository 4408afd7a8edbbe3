"""Template resources are real nested stacks: parameters from properties, outputs as attributes."""

import pytest
import yaml

from simulator.world import World

CHILD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string"}, "times": {"type": "number", "default": 2}},
    "resources": {
        "inner": {
            "type": "Plugsim::Test::Trivial",
            "properties": {"value": {"get_param": "word"}, "delay": 7},
        }
    },
    "outputs": {
        "echo": {"value": {"get_attr": ["inner", "value"]}},
        "facade": {"value": {"resource_facade": "metadata"}},
    },
}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "child.yaml").write_text(yaml.safe_dump(CHILD))
    (tmp_path / "env.yaml").write_text(
        yaml.safe_dump({"resource_registry": {"My::Child": "child.yaml"}})
    )
    parent = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "kid": {"type": "My::Child", "properties": {"word": "hi"}, "metadata": {"role": "web"}},
            "user": {
                "type": "Plugsim::Test::Trivial",
                "properties": {"value": {"get_attr": ["kid", "echo"]}},
            },
        },
        "outputs": {
            "kid_id": {"value": {"get_resource": "kid"}},
            "facade": {"value": {"get_attr": ["kid", "facade"]}},
        },
    }
    (tmp_path / "parent.yaml").write_text(yaml.safe_dump(parent))
    return tmp_path


def test_nested_stack_lifecycle(files):
    world = World()
    stack = world.create_stack("p", files / "parent.yaml", [files / "env.yaml"])
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    kid = stack.resources["kid"]
    child = world.get_stack(kid.resource_id)
    assert child.parent_id == stack.id and child.state == "CREATE_COMPLETE"
    assert stack.resources["user"].properties["value"] == "hi"
    outs = {o["output_key"]: o["output_value"] for o in stack.outputs()}
    assert outs["kid_id"] == child.id
    assert outs["facade"] == {"role": "web"}
    # the nested stack's events are recorded under its own name
    assert ("p-kid", "CREATE_COMPLETE") in [
        (e.stack_name, e.state) for e in world.stack_events("p")
    ]
    # an update of the property updates the nested stack in place
    parent = yaml.safe_load((files / "parent.yaml").read_text())
    parent["resources"]["kid"]["properties"]["word"] = "bye"
    stack = world.update_stack("p", parent, [files / "env.yaml"])
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert world.get_stack(kid.resource_id).state == "UPDATE_COMPLETE"
    assert stack.resources["user"].properties["value"] == "bye"
    assert world.suspend_stack("p").state == "SUSPEND_COMPLETE"
    assert world.get_stack(kid.resource_id).state == "SUSPEND_COMPLETE"
    assert world.resume_stack("p").state == "RESUME_COMPLETE"
    assert world.delete_stack("p").state == "DELETE_COMPLETE"
    assert world.store.get_stack(kid.resource_id).deleted
    world.close()


def test_nested_failure_fails_the_parent_resource(files):
    bad_child = dict(
        CHILD,
        resources={"x": {"type": "Plugsim::Test::Fail", "properties": {"message": "inner boom"}}},
        outputs={},
    )
    (files / "child.yaml").write_text(yaml.safe_dump(bad_child))
    world = World()
    stack = world.create_stack("p", files / "parent.yaml", [files / "env.yaml"])
    assert stack.state == "CREATE_FAILED"
    assert "inner boom" in stack.status_reason
    world.close()
