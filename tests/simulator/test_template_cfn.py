"""CloudFormation-format templates (AWSTemplateFormatVersion 2010-09-09, HeatTemplateFormatVersion
2012-12-12): sections, parameters, functions, conditions, errors, and a stack run end to end."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.exception import StackValidationFailed
from simulator.template import load_template
from simulator.template.definition import StackDefinition
from simulator.template.functions import StaticView
from simulator.world import World

NO_RESOURCES = StaticView("a test", ValueError)
AWS = "AWSTemplateFormatVersion"
HEAT = "HeatTemplateFormatVersion"


def cfn(key=AWS, **sections):
    version = "2010-09-09" if key == AWS else "2012-12-12"
    return {key: version, **sections}


def fails(doc, *, match, source="t.yaml"):
    with pytest.raises(StackValidationFailed) as err:
        load_template(doc, source=source)
    text = str(err.value)
    assert match in text, text
    assert "\n" not in text
    return text


def define(doc, params=None, name="st"):
    return StackDefinition(load_template(doc), None, params, stack_name=name, stack_id="sid-1")


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


# --- versions and sections -------------------------------------------------------------------


def test_both_formats_load_and_keep_the_original():
    aws = load_template(cfn(Description="d", Resources={"r": {"Type": "OS::Heat::None"}}))
    heat = load_template(cfn(HEAT, Resources={"r": {"Type": "OS::Heat::None"}}))
    assert aws.version == "AWSTemplateFormatVersion.2010-09-09"
    assert heat.version == "HeatTemplateFormatVersion.2012-12-12"
    assert aws.description == "d"
    assert aws.resources == {"r": {"type": "OS::Heat::None"}}
    assert aws.original["Resources"] == {"r": {"Type": "OS::Heat::None"}}


def test_yaml_text_with_a_cfn_version_loads():
    text = "HeatTemplateFormatVersion: '2012-12-12'\nResources:\n  r: {Type: OS::Heat::None}\n"
    assert load_template(text).spec.is_cfn


def test_unknown_cfn_version_names_the_known_ones():
    text = fails({AWS: "2011-01-01", "Resources": {}}, match="Unknown version")
    assert "AWSTemplateFormatVersion.2010-09-09" in text and text.startswith("t.yaml:")


def test_two_versions_are_ambiguous():
    fails({AWS: "2010-09-09", HEAT: "2012-12-12"}, match="Ambiguous versions")
    fails({AWS: "2010-09-09", "heat_template_version": "2015-04-30"}, match="Ambiguous")


def test_hot_sections_are_invalid_in_cfn():
    text = fails(cfn(resources={}), match="The template section is invalid: resources")
    assert "t.yaml" in text


def test_conditions_only_in_the_aws_format():
    assert load_template(cfn(Conditions={"c": True})).conditions == {"c": True}
    fails(cfn(HEAT, Conditions={"c": True}), match="The template section is invalid: Conditions")
    bad = cfn(HEAT, Resources={"r": {"Type": "OS::Heat::None", "Condition": "c"}})
    fails(bad, match='"Condition" is not a valid keyword inside a resource definition')


def test_unknown_resource_and_output_keys_name_the_cfn_path():
    text = fails(
        cfn(Resources={"r": {"Type": "OS::Heat::None", "type": "x"}}),
        match='"type" is not a valid keyword inside a resource definition',
    )
    assert "Resources.r.type" in text
    text = fails(cfn(Outputs={"o": {"value": 1}}), match='"value" is not a valid keyword')
    assert "Outputs.o.value" in text


def test_resource_keys_map_onto_hot():
    doc = cfn(
        Resources={
            "a": {"Type": "OS::Heat::None"},
            "b": {
                "Type": "OS::Heat::None",
                "Properties": {"x": 1},
                "Metadata": {"m": 2},
                "DependsOn": "a",
                "DeletionPolicy": "Retain",
                "UpdatePolicy": {"u": 3},
                "Description": "desc",
            },
        }
    )
    b = load_template(doc).resources["b"]
    assert b == {
        "type": "OS::Heat::None",
        "properties": {"x": 1},
        "metadata": {"m": 2},
        "depends_on": "a",
        "deletion_policy": "Retain",
        "update_policy": {"u": 3},
        "description": "desc",
    }


def test_lower_case_deletion_policy_is_refused_as_in_heat():
    doc = cfn(Resources={"r": {"Type": "OS::Heat::None", "DeletionPolicy": "retain"}})
    text = fails(doc, match='Invalid deletion policy "retain"')
    assert "Resources.r.DeletionPolicy" in text


def test_errors_inside_properties_name_the_cfn_path():
    doc = cfn(Resources={"r": {"Type": "OS::Heat::None", "Properties": {"x": {"Ref": "nope"}}}})
    text = fails(doc, match='"nope" is neither a parameter nor a resource')
    assert "Resources.r.Properties.x.Ref" in text


# --- parameters --------------------------------------------------------------------------------


def test_parameter_declarations_map_onto_hot_schemas():
    doc = cfn(
        Parameters={
            "S": {
                "Type": "String",
                "Default": "ab",
                "MinLength": "1",
                "MaxLength": 4,
                "AllowedPattern": "[a-z]*",
                "ConstraintDescription": "lower case",
                "NoEcho": "true",
                "Description": "a string",
            },
            "N": {"Type": "Number", "Default": 5, "MinValue": 1, "MaxValue": "10"},
            "L": {"Type": "CommaDelimitedList", "Default": "a,b"},
            "J": {"Type": "Json", "Default": {"k": "v"}},
            "B": {"Type": "Boolean", "Default": "yes", "AllowedValues": [True, False]},
        }
    )
    values = define(doc).parameters
    assert values["S"] == "ab" and values["N"] == 5 and values["L"] == ["a", "b"]
    assert values["J"] == {"k": "v"} and values["B"] is True
    assert define(doc).hidden_parameters == {"S"}


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("S", "abcdef", "lower case"),
        ("S", "AB", "lower case"),
        ("N", "11", "10"),
        ("N", "0", "1"),
    ],
)
def test_parameter_constraints_are_enforced(name, value, expected):
    doc = cfn(
        Parameters={
            "S": {
                "Type": "String",
                "Default": "ab",
                "MaxLength": 4,
                "AllowedPattern": "[a-z]*",
                "ConstraintDescription": "lower case",
            },
            "N": {"Type": "Number", "Default": 5, "MinValue": 1, "MaxValue": 10},
        }
    )
    with pytest.raises(StackValidationFailed) as err:
        define(doc, {name: value})
    assert expected in str(err.value)
    assert err.value.path == ["Parameters", name]


def test_bad_parameter_declarations_are_refused_as_heat_words_them():
    fails(
        cfn(Parameters={"p": {"Type": "String", "type": "x"}}),
        match="Invalid key 'type' for parameter (p)",
    )
    fails(cfn(Parameters={"p": {"Type": "Text"}}), match="Invalid type (Text)")
    fails(cfn(Parameters={"p": {"Default": 1}}), match="Missing parameter type for parameter: p")
    text = fails(cfn(Parameters={"p": {"Type": "Number", "MinValue": "low"}}), match="MinValue")
    assert "Parameters.p.MinValue" in text


def test_pseudo_parameters_are_the_aws_ones():
    doc = cfn(
        Resources={"r": {"Type": "OS::Heat::None"}},
        Outputs={"o": {"Value": {"Ref": "AWS::StackName"}}},
    )
    values = define(doc, name="mystack").parameters
    assert values["AWS::StackName"] == "mystack"
    assert values["AWS::Region"] == "ap-southeast-1"
    assert values["AWS::StackId"] == "arn:openstack:heat::plugsim:stacks/mystack/sid-1"
    assert "OS::stack_name" not in values
    bad = cfn(Outputs={"o": {"Value": {"Ref": "OS::stack_name"}}})
    fails(bad, match='"OS::stack_name" is neither a parameter nor a resource')


# --- functions ---------------------------------------------------------------------------------


def test_names_outside_the_format_table_are_plain_data_as_in_heat():
    doc = cfn(
        HEAT,
        Resources={"r": {"Type": "OS::Heat::None"}},
        Outputs={
            "hot": {"Value": {"get_param": "x"}},
            "if": {"Value": {"Fn::If": ["c", 1, 2]}},
        },
    )
    definition = define(doc)
    tmpl = load_template(doc)
    assert tmpl.outputs["hot"] == {"value": {"get_param": "x"}}
    assert definition.enabled_resources == ["r"]


def test_get_att_takes_exactly_two_arguments():
    res = {"r": {"Type": "OS::Heat::RandomString"}}
    fails(
        cfn(Resources=res, Outputs={"o": {"Value": {"Fn::GetAtt": ["r"]}}}),
        match="[resource_name, attribute]",
    )
    fails(
        cfn(Resources=res, Outputs={"o": {"Value": {"Fn::GetAtt": ["r", "value", 0]}}}),
        match="[resource_name, attribute]",
    )
    fails(
        cfn(Resources=res, Outputs={"o": {"Value": {"Fn::GetAtt": ["x", "value"]}}}),
        match='The resource "x" does not exist',
    )


def test_find_in_map():
    maps = {"Region": {"east": {"ami": "img-1", "list": [1, 2]}}}
    doc = cfn(
        Parameters={"Where": {"Type": "String", "Default": "east"}},
        Mappings=maps,
        Resources={"r": {"Type": "OS::Heat::None"}},
        Outputs={"o": {"Value": {"Fn::FindInMap": ["Region", {"Ref": "Where"}, "ami"]}}},
    )
    tmpl = load_template(doc)
    assert tmpl.mappings == maps
    fails(
        cfn(Mappings=maps, Outputs={"o": {"Value": {"Fn::FindInMap": ["Nope", "a", "b"]}}}),
        match='mapping "Nope"',
    )
    fails(
        cfn(Mappings=maps, Outputs={"o": {"Value": {"Fn::FindInMap": ["Region", "a"]}}}),
        match="[map_name, key, value]",
    )
    fails(cfn(Mappings=[1]), match="Mappings must be a map")


def test_conditions_functions_and_if():
    doc = cfn(
        Parameters={"Env": {"Type": "String", "Default": "prod"}},
        Conditions={
            "IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
            "IsDev": {"Fn::Not": ["IsProd"]},
            "Both": {"Fn::And": ["IsProd", {"Fn::Not": ["IsDev"]}]},
            "Either": {"Fn::Or": ["IsDev", False]},
        },
        Resources={
            "p": {"Type": "OS::Heat::None", "Condition": "IsProd"},
            "d": {"Type": "OS::Heat::None", "Condition": "IsDev"},
        },
        Outputs={
            "pick": {"Value": {"Fn::If": ["IsProd", "big", "small"]}},
            "dev": {"Value": 1, "Condition": "IsDev"},
        },
    )
    prod = define(doc)
    assert prod.conditions() == {"IsProd": True, "IsDev": False, "Both": True, "Either": False}
    assert prod.enabled_resources == ["p"]
    dev = define(doc, {"Env": "dev"})
    assert dev.conditions()["IsDev"] is True and dev.enabled_resources == ["d"]


def test_condition_errors():
    fails(
        cfn(Conditions={"c": {"Fn::Not": "x"}}),
        match='Arguments to "Fn::Not" must be of the form: [condition]',
    )
    fails(cfn(Conditions={"c": {"Fn::Not": ["missing"]}}), match="missing")
    res = {"r": {"Type": "OS::Heat::None"}}
    fails(
        cfn(Resources=res, Conditions={"c": {"Fn::Equals": [{"Ref": "r"}, "x"]}}),
        match='"r" is not a parameter',
    )
    fails(cfn(Conditions={"c": {"Fn::Join": ["", []]}}), match="cannot be used in a condition")


@given(
    st.lists(st.text(alphabet="abc ", max_size=6), min_size=1, max_size=5),
    st.sampled_from(["-", ", ", ""]),
    st.integers(min_value=-1, max_value=6),
)
def test_join_split_select_match_python(items, delim, index):
    doc = cfn(
        Parameters={"P": {"Type": "CommaDelimitedList", "Default": ",".join(items)}},
        Resources={"r": {"Type": "OS::Heat::None"}},
        Outputs={
            "joined": {"Value": {"Fn::Join": [delim, {"Ref": "P"}]}},
            "picked": {"Value": {"Fn::Select": [str(index), {"Ref": "P"}]}},
            "split": {"Value": {"Fn::Split": [",", {"Fn::Join": [",", {"Ref": "P"}]}]}},
        },
    )
    definition = define(doc)
    values = definition.parameters["P"]
    out = {o["output_key"]: o["output_value"] for o in definition.outputs(NO_RESOURCES)}
    assert out["joined"] == delim.join(values)
    assert out["picked"] == (values[index] if 0 <= index < len(values) else "")
    assert out["split"] == ",".join(values).split(",")


def test_find_in_map_and_pseudo_parameters_resolve():
    doc = cfn(
        Parameters={"Where": {"Type": "String", "Default": "east"}},
        Mappings={"Region": {"east": {"ami": "img-1"}}},
        Outputs={
            "ami": {"Value": {"Fn::FindInMap": ["Region", {"Ref": "Where"}, "ami"]}},
            "miss": {"Value": {"Fn::FindInMap": ["Region", "west", "ami"]}},
            "id": {"Value": {"Ref": "AWS::StackId"}},
        },
    )
    out = {o["output_key"]: o for o in define(doc, name="s1").outputs(NO_RESOURCES)}
    assert out["ami"]["output_value"] == "img-1"
    assert "Mappings has no value for ['Region', 'west', 'ami']" in out["miss"]["output_error"]
    assert out["id"]["output_value"] == "arn:openstack:heat::plugsim:stacks/s1/sid-1"


# --- end to end ------------------------------------------------------------------------------


E2E = {
    AWS: "2010-09-09",
    "Description": "A CFN stack of plugsim's own types",
    "Parameters": {
        "Len": {"Type": "Number", "Default": 12, "MinValue": 4, "MaxValue": 64},
        "Env": {"Type": "String", "Default": "prod", "AllowedValues": ["prod", "dev"]},
    },
    "Mappings": {"Sizes": {"prod": {"suffix": "big"}, "dev": {"suffix": "small"}}},
    "Conditions": {"IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]}},
    "Resources": {
        "Secret": {"Type": "OS::Heat::RandomString", "Properties": {"length": {"Ref": "Len"}}},
        "Marker": {
            "Type": "OS::Heat::None",
            "DependsOn": "Secret",
            "Condition": "IsProd",
            "Properties": {"x": {"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, "y"]]}},
        },
    },
    "Outputs": {
        "Value": {"Value": {"Fn::GetAtt": ["Secret", "value"]}, "Description": "the secret"},
        "Size": {"Value": {"Fn::FindInMap": ["Sizes", {"Ref": "Env"}, "suffix"]}},
        "Name": {"Value": {"Fn::If": ["IsProd", {"Ref": "Marker"}, "none"]}},
        "Region": {
            "Value": {"Fn::Join": [":", [{"Ref": "AWS::Region"}, {"Ref": "AWS::StackName"}]]}
        },
    },
}


def outputs(stack):
    return {o["output_key"]: o.get("output_value") for o in stack.outputs()}


def test_cfn_stack_runs_create_update_delete(world):
    stack = world.create_stack("cfn", E2E)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert isinstance(out["Value"], str) and len(out["Value"]) == 12
    assert out["Size"] == "big"
    # the Ref of an OS::Heat::None is its physical id, a UUID as Heat 27 gives it
    assert out["Name"] == stack.resources["Marker"].resource_id
    assert len(out["Name"]) == 36 and out["Name"].count("-") == 4
    assert out["Region"] == "ap-southeast-1:cfn"
    stack = world.update_stack("cfn", E2E, parameters={"Env": "dev", "Len": 8})
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert out["Size"] == "small" and out["Name"] == "none" and len(out["Value"]) == 8
    events = [(e.resource_name, e.action, e.status) for e in world.stack_events("cfn")]
    assert ("Marker", "DELETE", "COMPLETE") in events
    world.delete_stack("cfn")
    assert world.stack_events("cfn")[-1].status == "COMPLETE"


def test_member_list_to_map_in_cfn():
    doc = cfn(
        Outputs={
            "o": {
                "Value": {
                    "Fn::MemberListToMap": [
                        "Name",
                        "Value",
                        [".member.0.Name=a", ".member.0.Value=1", ".member.1.Name=b"],
                    ]
                }
            }
        }
    )
    assert define(doc).outputs(NO_RESOURCES)[0]["output_value"] == {"a": "1"}


def test_a_cfn_template_as_a_nested_stack_reads_its_facade(world, tmp_path):
    child = cfn(
        HEAT,
        Parameters={"Size": {"Type": "String"}},
        Resources={"n": {"Type": "OS::Heat::None"}},
        Outputs={
            "meta": {"Value": {"Fn::ResourceFacade": "Metadata"}},
            "double": {"Value": {"Fn::Join": ["", [{"Ref": "Size"}, {"Ref": "Size"}]]}},
        },
    )
    (tmp_path / "child.template").write_text(json.dumps(child))
    parent = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "c": {
                "type": "child.template",
                "properties": {"Size": 4},
                "metadata": {"role": "db"},
            }
        },
        "outputs": {
            "meta": {"value": {"get_attr": ["c", "meta"]}},
            "double": {"value": {"get_attr": ["c", "double"]}},
        },
    }
    (tmp_path / "parent.yaml").write_text(json.dumps(parent))
    stack = world.create_stack("p", str(tmp_path / "parent.yaml"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert outputs(stack) == {"meta": {"role": "db"}, "double": "44"}
    assert world.delete_stack("p").state == "DELETE_COMPLETE"


def test_cfn_only_names_stay_plain_data_in_hot_as_in_heat():
    doc = {
        "heat_template_version": "2018-08-31",
        "outputs": {"o": {"value": {"Fn::GetAtt": ["x", "y"]}}},
    }
    assert load_template(doc).outputs["o"]["value"] == {"Fn::GetAtt": ["x", "y"]}
