"""StackDefinition: conditions, validation, resource definitions, dependencies, outputs."""

from __future__ import annotations

import pytest

from sdk.exception import ResourceTypeNotFound, StackValidationFailed
from sdk.properties import ValueNotYetKnown
from simulator.template import StackDefinition, load_template, select_path


class Server:
    attributes_schema = {"name": object(), "networks": object()}


class Dynamic:
    attributes_schema = {}

    def FnGetAtt(self, key, *path):  # noqa: N802 - Heat's name
        return key


TYPES = {"Server": Server, "Dynamic": Dynamic}


def lookup(type_name, resource_name):
    try:
        return TYPES[type_name]
    except KeyError:
        raise ResourceTypeNotFound(type_name=type_name) from None


class View:
    def __init__(self, pending=()):
        self.pending = set(pending)

    def reference_id(self, name):
        if name in self.pending:
            raise ValueNotYetKnown(name)
        return f"{name}-id"

    def attribute(self, name, attr, path):
        if name in self.pending:
            raise ValueNotYetKnown(name)
        return select_path(
            {"name": f"{name}-name", "networks": {"p": ["10.0.0.1"]}}.get(attr), path
        )

    def resource_facade(self, kind):
        return None


def define(body, params=None, version="2018-08-31", source="d.yaml"):
    raw = {"heat_template_version": version, **body}
    return StackDefinition(
        load_template(raw, source=source), None, params, stack_name="s", stack_id="i"
    )


BODY = {
    "parameters": {"env": {"type": "string", "default": "prod"}},
    "conditions": {
        "prod": {"equals": [{"get_param": "env"}, "prod"]},
        "dev": {"not": "prod"},
        "both": {"and": ["prod", {"not": "dev"}]},
        "either": {"or": ["dev", False]},
    },
    "resources": {
        "net": {"type": "Server"},
        "web": {
            "type": "Server",
            "depends_on": ["net"],
            "deletion_policy": "retain",
            "metadata": {"m": {"get_param": "env"}},
            "properties": {
                "name": {"get_attr": ["net", "name"]},
                "size": {"if": ["prod", "large", "small"]},
            },
        },
        "debug": {"type": "Server", "condition": "dev"},
        "db": {
            "type": "Server",
            "condition": "prod",
            "properties": {"peer": {"get_resource": "web"}},
        },
    },
    "outputs": {
        "web_ip": {"value": {"get_attr": ["web", "networks", "p", 0]}, "description": "IP"},
        "debug_name": {"value": {"get_attr": ["debug", "name"]}, "condition": "dev"},
    },
}


def test_conditions_evaluated_from_parameters():
    assert define(BODY).conditions() == {"prod": True, "dev": False, "both": True, "either": False}
    assert define(BODY, {"env": "dev"}).conditions() == {
        "prod": False,
        "dev": True,
        "both": False,
        "either": True,
    }


def test_enabled_resources_and_definitions():
    defn = define(BODY)
    defn.validate(lookup)
    defs = defn.resource_definitions()
    assert list(defs) == ["net", "web", "db"]
    web = defs["web"]
    assert web.resource_type == "Server"
    assert web.deletion_policy == "Retain"
    assert list(web.depends_on) == ["net"]
    resolved = defn.resolver(View())(web.properties)
    assert resolved == {"name": "net-name", "size": "large"}
    assert defn.resolver(View())(web.metadata) == {"m": "prod"}


def test_dependencies_follow_enabled_resources():
    graph = define(BODY).dependencies()
    assert graph.to_dict() == {"net": [], "web": ["net"], "db": ["web"]}
    dev = define(BODY, {"env": "dev"})
    assert dev.dependencies().to_dict() == {"net": [], "web": ["net"], "debug": []}


def test_outputs_with_conditions_and_unknown_values():
    defn = define(BODY)
    assert defn.outputs(View()) == [
        {"output_key": "web_ip", "output_value": "10.0.0.1", "description": "IP"},
        {"output_key": "debug_name", "output_value": None, "description": "No description given"},
    ]
    pending = defn.outputs(View(pending={"web"}))
    assert pending[0]["output_value"] is None and "output_error" not in pending[0]


def test_output_errors_are_captured_not_raised():
    defn = define(
        {
            "resources": {"a": {"type": "Server"}},
            "outputs": {
                "bad": {"value": {"list_join": [",", {"get_attr": ["a", "name"]}]}},
                "good": {"value": "ok"},
            },
        }
    )
    out = defn.outputs(View())
    assert out[0]["output_value"] is None
    assert out[0]["output_error"] == (
        "d.yaml: outputs.bad.value.list_join: \"list_join\" must operate on a list, not 'a-name'"
    )
    assert out[1] == {
        "output_key": "good",
        "output_value": "ok",
        "description": "No description given",
    }


def test_reference_to_a_disabled_resource_is_a_validation_error():
    body = {
        "conditions": {"off": False},
        "resources": {
            "a": {"type": "Server", "condition": "off"},
            "b": {"type": "Server", "properties": {"x": {"get_resource": "a"}}},
        },
    }
    with pytest.raises(StackValidationFailed) as err:
        define(body).validate(lookup)
    assert str(err.value) == (
        'd.yaml: resources.b.properties.x.get_resource: "get_resource" refers to resource "a", '
        "which is disabled by its condition"
    )


def test_depends_on_a_disabled_resource_is_dropped():
    body = {
        "conditions": {"off": False},
        "resources": {
            "a": {"type": "Server", "condition": "off"},
            "b": {"type": "Server", "depends_on": "a"},
        },
    }
    defn = define(body)
    defn.validate(lookup)
    assert list(defn.resource_definitions()["b"].depends_on) == []


def test_unknown_type_names_the_resource():
    with pytest.raises(StackValidationFailed) as err:
        define({"resources": {"a": {"type": "Nope"}}}).validate(lookup)
    assert str(err.value).startswith(
        "d.yaml: resources.a.type: The Resource Type (Nope) could not be found. To provide a type: "
    )


def test_unknown_attribute_names_valid_ones():
    body = {
        "resources": {
            "a": {"type": "Server"},
            "b": {"type": "Server", "properties": {"x": {"get_attr": ["a", "ip"]}}},
        }
    }
    with pytest.raises(StackValidationFailed) as err:
        define(body).validate(lookup)
    assert str(err.value) == (
        'd.yaml: resources.b.properties.x.get_attr: The attribute "ip" of resource "a" (Server) '
        "does not exist; valid attributes: name, networks, show"
    )


def test_attribute_check_skipped_for_fngetatt_overrides_and_show_allowed():
    body = {
        "resources": {
            "a": {"type": "Dynamic"},
            "b": {
                "type": "Server",
                "properties": {
                    "x": {"get_attr": ["a", "anything"]},
                    "y": {"get_attr": ["b", "show"]},
                },
            },
        }
    }
    with pytest.raises(StackValidationFailed, match="Circular dependency found: b -> b"):
        define(body).validate(lookup)
    body["resources"]["b"]["properties"]["y"] = {"get_attr": ["a", "show"]}
    define(body).validate(lookup)


def test_cycle_names_every_resource_on_it():
    body = {
        "resources": {
            "a": {"type": "Server", "properties": {"x": {"get_resource": "c"}}},
            "b": {"type": "Server", "depends_on": "a"},
            "c": {"type": "Server", "properties": {"y": {"get_attr": ["b", "name"]}}},
        }
    }
    with pytest.raises(StackValidationFailed) as err:
        define(body).validate(lookup)
    assert str(err.value) == "d.yaml: resources.a: Circular dependency found: a -> c -> b -> a"


def test_circular_conditions():
    body = {"conditions": {"x": {"not": "y"}, "y": {"not": "x"}}, "resources": {}}
    with pytest.raises(
        StackValidationFailed, match=r"Circular definition for condition: x -> y -> x"
    ):
        define(body).conditions()


def test_condition_must_evaluate_to_boolean():
    body = {
        "parameters": {"p": {"type": "string", "default": "x"}},
        "conditions": {"c": {"get_param": "p"}},
        "resources": {"a": {"type": "Server", "condition": "c"}},
    }
    with pytest.raises(
        StackValidationFailed,
        match=r"d\.yaml: conditions\.c: The condition evaluated to 'x', which is not a boolean",
    ):
        define(body)


def test_condition_definition_must_be_bool_or_function():
    with pytest.raises(
        StackValidationFailed, match=r'conditions\.c: The definition of condition "c" is invalid'
    ):
        define({"conditions": {"c": "other"}, "resources": {}})


def test_inline_condition_expression_on_a_resource():
    body = {
        "parameters": {"n": {"type": "number", "default": 0}},
        "resources": {"a": {"type": "Server", "condition": {"equals": [{"get_param": "n"}, 1]}}},
    }
    assert define(body).enabled_resources == []
    assert define(body, {"n": "1"}).enabled_resources == ["a"]


def test_deletion_policy_and_external_id_from_parameters():
    body = {
        "parameters": {
            "pol": {"type": "string", "default": "Snapshot"},
            "ext": {"type": "string", "default": "phys-1"},
        },
        "resources": {
            "a": {
                "type": "Server",
                "deletion_policy": {"get_param": "pol"},
                "external_id": {"get_param": "ext"},
            }
        },
    }
    defn = define(body)
    a = defn.resource_definitions()["a"]
    assert (a.deletion_policy, a.external_id) == ("Snapshot", "phys-1")


def test_deletion_policy_cannot_refer_to_resources():
    body = {
        "resources": {
            "a": {"type": "Server"},
            "b": {"type": "Server", "deletion_policy": {"get_resource": "a"}},
        }
    }
    with pytest.raises(
        StackValidationFailed, match=r'deletion_policy cannot refer to resource "a"'
    ):
        define(body).resource_definitions()


def test_get_attr_path_and_all_attributes_via_resolver():
    body = {
        "resources": {
            "a": {"type": "Server"},
            "b": {"type": "Server", "properties": {"x": {"get_attr": ["a", "networks", "p", 0]}}},
        }
    }
    defn = define(body)
    assert defn.resolver(View())(defn.resource_definitions()["b"].properties) == {"x": "10.0.0.1"}
