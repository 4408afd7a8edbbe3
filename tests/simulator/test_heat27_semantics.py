"""Engine semantics that follow Heat 27 (issue 21), each from Heat's documented or source behaviour."""

import json
import textwrap

import pytest
from click.testing import CliRunner

from sdk.exception import StackValidationFailed
from simulator.cli import main
from simulator.world import World


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


def _outputs(stack):
    return {o["output_key"]: o for o in stack.outputs()}


def test_get_attr_with_a_path_into_a_missing_key_is_null(world):
    # Heat's select_from_attribute turns a KeyError/IndexError/TypeError into None.
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"a": [1]}}}},
        "outputs": {
            "missing_key": {"value": {"get_attr": ["v", "value", "nope", "deeper"]}},
            "out_of_range": {"value": {"get_attr": ["v", "value", "a", 5]}},
            "into_scalar": {"value": {"get_attr": ["v", "value", "a", 0, "x"]}},
            "present": {"value": {"get_attr": ["v", "value", "a", 0]}},
        },
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = {k: (o["output_value"], o.get("output_error")) for k, o in _outputs(stack).items()}
    assert out == {
        "missing_key": (None, None),
        "out_of_range": (None, None),
        "into_scalar": (None, None),
        "present": (1, None),
    }


YAML_BOOL_CONDITIONS = textwrap.dedent(
    """
    heat_template_version: 2016-10-14
    parameters:
      flag: {type: string, default: "yes"}
    conditions:
      on: {equals: [{get_param: flag}, "yes"]}
      off: false
      named: {equals: [{get_param: flag}, "no"]}
    resources:
      a: {type: OS::Heat::None, condition: on}
      b: {type: OS::Heat::None, condition: named}
      c: {type: OS::Heat::None, condition: off}
    outputs:
      picked: {value: {if: [on, one, two]}}
    """
)


def test_conditions_named_with_yaml_boolean_words_do_not_crash(tmp_path, world):
    # YAML reads `on`/`off` as booleans; Heat keeps templates as JSON (keys become
    # "true"/"false") and a boolean *value* for condition/if is the literal.
    path = tmp_path / "t.yaml"
    path.write_text(YAML_BOOL_CONDITIONS)
    stack = world.create_stack("s", str(path))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert sorted(stack.resources) == ["a"]
    assert _outputs(stack)["picked"]["output_value"] == "one"
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 0, result.output


def test_value_of_type_json_refuses_a_list(world):
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {"type": "OS::Heat::Value", "properties": {"value": [1, 2], "type": "json"}}
        },
    }
    with pytest.raises(StackValidationFailed, match=r"properties.value: .* is not a map"):
        world.create_stack("s", template)
    ok = world.create_stack(
        "t",
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "v": {
                    "type": "OS::Heat::Value",
                    "properties": {"value": '{"a": 1}', "type": "json"},
                }
            },
            "outputs": {"v": {"value": {"get_attr": ["v", "value"]}}},
        },
    )
    assert _outputs(ok)["v"]["output_value"] == {"a": 1}


def test_member_list_to_map_reads_only_dot_member_items(world):
    # Heat matches r"\.member\.([0-9]+)\.(.*)" at the start of each item's name.
    members = [
        ".member.1.Key=k1",
        ".member.1.Value=v1",
        ".member.0.Key=k0",
        ".member.0.Value=v0",
        "Members.member.2.Key=ignored",
        "Members.member.2.Value=ignored",
        ".member.3.Key=no-value",
    ]
    template = {
        "heat_template_version": "2013-05-23",
        "resources": {"n": {"type": "OS::Heat::None"}},
        "outputs": {"m": {"value": {"Fn::MemberListToMap": ["Key", "Value", members]}}},
    }
    stack = world.create_stack("s", template)
    value = _outputs(stack)["m"]["output_value"]
    assert value == {"k0": "v0", "k1": "v1"}
    assert list(value) == ["k0", "k1"]


DISABLED_OUTPUT = {
    "heat_template_version": "2016-10-14",
    "conditions": {"never": False},
    "resources": {
        "a": {"type": "OS::Heat::None", "condition": "never"},
        "b": {"type": "OS::Heat::None"},
    },
    "outputs": {
        "bad": {"value": {"get_resource": "a"}},
        "good": {"value": {"get_resource": "b"}},
    },
}


def test_an_output_naming_a_disabled_resource_is_only_that_outputs_error(world):
    stack = world.create_stack("s", DISABLED_OUTPUT)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = _outputs(stack)
    assert out["good"]["output_value"] == stack.resources["b"].resource_id
    assert out["bad"]["output_value"] is None
    assert '"a"' in out["bad"]["output_error"]
    # a resource property naming it is still the stack's error
    broken = json.loads(json.dumps(DISABLED_OUTPUT))
    broken["resources"]["c"] = {
        "type": "OS::Heat::Value",
        "properties": {"value": {"get_resource": "a"}},
    }
    with pytest.raises(StackValidationFailed, match="disabled by its condition"):
        world.validate_template(broken)


def test_an_output_get_attr_of_a_disabled_resource_is_the_templates_error(world):
    # Heat's get_attr validates its resource (GetAttThenSelect.validate); get_resource does not
    template = json.loads(json.dumps(DISABLED_OUTPUT))
    template["outputs"]["bad"] = {"value": {"get_attr": ["a", "show"]}}
    with pytest.raises(StackValidationFailed, match="disabled by its condition") as info:
        world.validate_template(template)
    assert info.value.path[:2] == ["outputs", "bad"]


def test_stack_show_json_keeps_output_error(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(DISABLED_OUTPUT))
    state = str(tmp_path / "w.db")
    runner = CliRunner()
    created = runner.invoke(main, ["--state", state, "stack", "create", "-t", str(path), "s"])
    assert created.exit_code == 0, created.output
    shown = runner.invoke(main, ["--state", state, "stack", "show", "s", "-f", "json"])
    outputs = {o["output_key"]: o for o in json.loads(shown.output)["outputs"]}
    assert "output_error" in outputs["bad"]
    assert "output_error" not in outputs["good"]


def test_resources_with_external_id_skip_property_validation(world):
    # Heat's Stack.validate only looks an external resource up (validate_external).
    world.create_stack(
        "base",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"net": {"type": "OS::Neutron::Net"}},
            "outputs": {"id": {"value": {"get_resource": "net"}}},
        },
    )
    net_id = world.get_stack("base").output("id")
    adopted = world.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "net": {
                    "type": "OS::Neutron::Net",
                    "external_id": net_id,
                    "properties": {"mtu": "not-a-number", "admin_state_up": "maybe"},
                }
            },
        },
    )
    assert adopted.state == "CREATE_COMPLETE", adopted.status_reason
    assert adopted.resources["net"].resource_id == net_id


def test_every_unknown_type_is_listed_with_how_to_provide_one(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: 2016-10-14\nresources:\n  a: {type: My::A}\n"
        "  b: {type: OS::Heat::None}\n  c: {type: My::C}\n"
    )
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 1
    line = result.output.strip()
    assert "\n" not in line
    assert "resources.a.type: The Resource Type (My::A) could not be found" in line
    assert "resources.c.type (The Resource Type (My::C) could not be found)" in line
    for hint in ("--plugin-dir", "--heat-plugin", "resource_registry"):
        assert hint in line
