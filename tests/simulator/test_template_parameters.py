"""Template parameters: types, coercion of CLI strings, constraints, sources of values."""

from __future__ import annotations

import pytest

from sdk.exception import StackValidationFailed
from simulator.environment import Environment
from simulator.template import StackDefinition, load_template


def tmpl(params, version="2018-08-31"):
    return load_template(
        {"heat_template_version": version, "parameters": params, "resources": {}},
        source="p.yaml",
    )


def values(params, given=None, env=None, version="2018-08-31"):
    defn = StackDefinition(tmpl(params, version), env, given, stack_name="s", stack_id="i")
    return defn


@pytest.mark.parametrize(
    "ptype,given,expected",
    [
        ("string", "abc", "abc"),
        ("string", 42, "42"),
        ("string", True, "true"),
        ("number", "42", 42),
        ("number", "0.5", 0.5),
        ("number", 7, 7),
        ("json", '{"a": [1]}', {"a": [1]}),
        ("json", [1, 2], [1, 2]),
        ("json", "", {}),
        ("comma_delimited_list", "a,b, c", ["a", "b", " c"]),
        ("comma_delimited_list", "", []),
        ("comma_delimited_list", ["a", 1], ["a", "1"]),
        ("boolean", "yes", True),
        ("boolean", "Off", False),
        ("boolean", "1", True),
        ("boolean", False, False),
    ],
)
def test_types_coerce_user_values(ptype, given, expected):
    defn = values({"x": {"type": ptype}}, {"x": given})
    assert defn.parameters["x"] == expected


@pytest.mark.parametrize(
    "ptype,given,message",
    [
        ("number", "abc", "expected a number, got 'abc'"),
        ("number", True, "expected a number, got True"),
        ("json", "[1,", "the value is not valid JSON"),
        ("json", "5", "expected a JSON map or list, got '5'"),
        ("boolean", "maybe", "expected a boolean"),
        ("string", {"a": 1}, "expected a string, got a map"),
    ],
)
def test_type_errors_name_the_parameter(ptype, given, message):
    with pytest.raises(StackValidationFailed) as err:
        values({"x": {"type": ptype}}, {"x": given})
    text = str(err.value)
    assert text.startswith('p.yaml: parameters.x: Parameter "x" is invalid (value given): ')
    assert message in text


def test_unknown_type():
    with pytest.raises(
        StackValidationFailed,
        match=r"parameters\.x\.type: Parameter \"x\" has an invalid type 'integer'",
    ):
        tmpl({"x": {"type": "integer"}})


def test_unknown_parameter_key():
    with pytest.raises(
        StackValidationFailed, match=r'parameters\.x\.defualt: "defualt" is not a valid keyword'
    ):
        tmpl({"x": {"type": "string", "defualt": 1}})


def test_tags_from_queens():
    assert tmpl({"x": {"type": "string", "tags": ["a"]}}, "2018-03-02").parameters_schema()[
        "x"
    ].tags == ["a"]
    with pytest.raises(StackValidationFailed, match="tags needs heat_template_version 2018-03-02"):
        tmpl({"x": {"type": "string", "tags": ["a"]}}, "2017-09-01")


def test_modulo_from_ocata():
    params = {"n": {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]}}
    assert values(params, {"n": "3"}, version="2017-02-24").parameters["n"] == 3
    with pytest.raises(
        StackValidationFailed, match='Parameter "n" is invalid.*4 is not 1 plus a multiple of 2'
    ):
        values(params, {"n": 4}, version="2017-02-24")
    with pytest.raises(
        StackValidationFailed, match="modulo needs heat_template_version 2017-02-24"
    ):
        tmpl(params, "2016-10-14")


def test_constraints_with_descriptions_and_defaults():
    params = {
        "name": {
            "type": "string",
            "default": "Abc",
            "constraints": [
                {"length": {"min": 2, "max": 5}, "description": "2 to 5 characters"},
                {"allowed_pattern": "[A-Z][a-z]*"},
            ],
        },
        "size": {"type": "number", "default": 1, "constraints": [{"range": {"min": 1, "max": 3}}]},
        "zone": {"type": "string", "default": "a", "constraints": [{"allowed_values": ["a", "b"]}]},
        "list": {
            "type": "comma_delimited_list",
            "default": "a",
            "constraints": [{"allowed_values": ["a", "b"]}],
        },
    }
    assert values(params).parameters["name"] == "Abc"
    with pytest.raises(
        StackValidationFailed,
        match=r'parameters\.name: Parameter "name" is invalid \(value given\): 2 to 5 characters',
    ):
        values(params, {"name": "Abcdefg"})
    with pytest.raises(StackValidationFailed, match="does not match pattern"):
        values(params, {"name": "abc"})
    with pytest.raises(StackValidationFailed, match="4 is greater than the maximum 3"):
        values(params, {"size": "4"})
    with pytest.raises(StackValidationFailed, match="'c' is not one of the allowed values"):
        values(params, {"list": "a,c"})


def test_invalid_default_is_a_load_error():
    with pytest.raises(
        StackValidationFailed,
        match=r'parameters\.n\.default: The default of parameter "n" is invalid',
    ):
        tmpl({"n": {"type": "number", "default": 9, "constraints": [{"range": {"max": 3}}]}})


def test_constraint_not_applicable_to_type():
    with pytest.raises(
        StackValidationFailed,
        match=r"parameters\.s\.constraints\[0\]: The range constraint cannot be used on a parameter of type string",
    ):
        tmpl({"s": {"type": "string", "constraints": [{"range": {"min": 1}}]}})


def test_custom_constraint_unknown_name_fails_validation():
    params = {
        "s": {"type": "string", "constraints": [{"custom_constraint": "plugsim.nonexistent"}]}
    }
    with pytest.raises(StackValidationFailed, match='Parameter "s" is invalid'):
        values(params, {"s": "x"})


def test_unknown_and_missing_parameters():
    params = {
        "a": {"type": "string"},
        "b": {"type": "string"},
        "c": {"type": "string", "default": "x"},
    }
    with pytest.raises(StackValidationFailed) as err:
        values(params, {"a": "1", "b": "2", "zz": "3", "yy": "4"})
    assert (
        str(err.value)
        == "p.yaml: parameters: The parameter(s) (yy, zz) are not defined in the template"
    )
    with pytest.raises(StackValidationFailed) as err:
        values(params, {})
    assert str(err.value) == (
        "p.yaml: parameters: The parameter(s) (a, b) need a value: the template gives no default"
    )


def test_precedence_user_env_defaults_template():
    params = {k: {"type": "string", "default": "template"} for k in "abcd"}
    env = Environment.from_dict(
        {
            "parameters": {"a": "env", "b": "env"},
            "parameter_defaults": {"a": "pd", "b": "pd", "c": "pd", "other": 1},
        }
    )
    defn = values(params, {"a": "user"}, env)
    got = {k: defn.parameters[k] for k in "abcd"}
    assert got == {"a": "user", "b": "env", "c": "pd", "d": "template"}


def test_env_parameters_must_be_declared():
    env = Environment.from_dict({"parameters": {"nope": 1}})
    with pytest.raises(StackValidationFailed, match=r"parameter\(s\) \(nope\) are not defined"):
        values({"a": {"type": "string", "default": "x"}}, None, env)


def test_hidden_parameters_and_schema_dict():
    params = {"pw": {"type": "string", "hidden": True, "default": "s3cret", "label": "Password"}}
    defn = values(params)
    assert defn.hidden_parameters == {"pw"}
    assert defn.parameter_values.to_dict(mask_hidden=True)["pw"] == "******"
    schema = defn.template.parameters_schema()["pw"].to_dict()
    # Heat shows a hidden default here; plugsim masks it like every other hidden value
    assert schema == {"Type": "string", "NoEcho": "true", "Label": "Password", "Default": "******"}


def test_parameters_are_in_template_order_with_pseudo_parameters_last():
    defn = values(
        {"z": {"type": "string", "default": "1"}, "a": {"type": "string", "default": "2"}}
    )
    assert list(defn.parameters) == ["z", "a", "OS::stack_name", "OS::stack_id", "OS::project_id"]
