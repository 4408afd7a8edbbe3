"""Property schemas and values, from the guide's "Defining Resource Properties"."""

import pytest

from sdk import constraints, exception, support
from sdk import properties as p
from sdk.i18n import _

S = p.Schema
WEB = ("resources", "web", "properties")


def props(schema, data, **kwargs):
    return p.Properties(schema, data, **kwargs)


def validation_error(schema, data, **kwargs):
    with pytest.raises(exception.StackValidationFailed) as info:
        p.Properties(schema, data, **kwargs).validate()
    return info.value


# -- the guide's example -------------------------------------------------------------

NESTED = {
    "foo": S(
        S.STRING,
        _("description of foo field"),
        constraints=[
            constraints.AllowedPattern("(Ba[rc]?)+"),
            constraints.Length(max=10, description="don't go crazy"),
        ],
    )
}
GUIDE_SCHEMA = {
    "property_name": S(
        S.MAP,
        _("Internationalized description of property"),
        required=True,
        default={"Foo": "Bar"},
        schema=NESTED,
    )
}


def test_guide_example_builds_and_validates_nested_values():
    good = props(GUIDE_SCHEMA, {"property_name": {"foo": "BarBac"}}, path=WEB)
    good.validate()
    assert good["property_name"] == {"foo": "BarBac"}
    err = validation_error(GUIDE_SCHEMA, {"property_name": {"foo": "BarBarBarBar"}}, path=WEB)
    assert str(err) == "resources.web.properties.property_name.foo: don't go crazy"
    assert err.path == ["resources", "web", "properties", "property_name", "foo"]
    err = validation_error(GUIDE_SCHEMA, {"property_name": {"foo": "Bax"}}, path=WEB)
    assert err.error_message == "'Bax' does not match pattern '(Ba[rc]?)+'"


def test_schema_constructor_defaults():
    s = S(S.STRING)
    assert s.type == "String"
    assert (s.description, s.default, s.schema, s.required) == (None, None, None, False)
    assert s.constraints == []
    assert (s.update_allowed, s.immutable) == (False, False)
    assert s.support_status == support.SupportStatus()


def test_type_constants_are_reexported():
    assert S.TYPES == ("Integer", "String", "Number", "Boolean", "Map", "List", "Any")
    assert (S.INTEGER, S.STRING, S.NUMBER, S.BOOLEAN, S.MAP, S.LIST, S.ANY) == S.TYPES[:7]
    assert issubclass(S, constraints.Schema)


# -- build-time checks ----------------------------------------------------------------


def test_unknown_type_is_named():
    with pytest.raises(exception.InvalidSchemaError, match="Invalid type 'Str'"):
        S("Str")


def test_update_allowed_with_immutable_is_rejected():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S(S.STRING, update_allowed=True, immutable=True)
    assert str(info.value) == "update_allowed and immutable cannot both be True"


def test_schema_only_for_map_and_list():
    with pytest.raises(exception.InvalidSchemaError, match="only for Map or List, not Integer"):
        S(S.INTEGER, schema={"a": S(S.STRING)})


def test_list_takes_one_item_schema():
    s = S(S.LIST, schema=S(S.INTEGER))
    assert isinstance(s.schema, S) and s.schema.type == S.INTEGER
    assert props({"l": s}, {"l": ["1", 2]})["l"] == [1, 2]


def test_list_with_a_dict_schema_means_a_list_of_maps():
    s = S(S.LIST, schema={"name": S(S.STRING), "port": S(S.INTEGER)})
    assert s.schema.type == S.MAP
    assert set(s.schema.schema) == {"name", "port"}
    value = props({"l": s}, {"l": [{"name": "a"}, {"port": "80"}]})["l"]
    assert value == [{"name": "a", "port": 0}, {"name": "", "port": 80}]


def test_nested_plain_dicts_are_converted():
    s = S(S.MAP, schema={"size": {"type": "Integer", "default": 3}})
    assert isinstance(s.schema["size"], S)
    assert s.schema["size"].default == 3
    t = S(S.LIST, schema={"type": "String"})
    assert isinstance(t.schema, S) and t.schema.type == S.STRING


def test_nested_plain_dict_errors_name_the_property():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S(S.MAP, schema={"size": {"type": "Int"}})
    assert str(info.value).startswith("Property size: Invalid type 'Int'")
    with pytest.raises(exception.InvalidSchemaError, match="Property size: Unknown schema key"):
        S(S.MAP, schema={"size": {"type": "Integer", "min": 3}})
    with pytest.raises(exception.InvalidSchemaError, match="needs a 'type'"):
        p.schemata({"x": {"default": 1}})


def test_default_violating_type_is_rejected():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S(S.INTEGER, default="abc")
    assert str(info.value) == "Invalid default 'abc': 'abc' is not a valid Integer"


def test_default_violating_own_constraints_is_rejected():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S(S.STRING, default="toolong", constraints=[constraints.Length(max=3)])
    assert str(info.value) == "Invalid default 'toolong': length 7 is greater than the maximum 3"


def test_validate_schemata_names_the_property_of_a_bad_nested_default():
    schema = {
        "web": S(
            S.MAP,
            schema={
                "port": S(
                    S.LIST,
                    default=[1, 99],
                    schema=S(S.INTEGER, constraints=[constraints.Range(max=10)]),
                )
            },
        )
    }
    with pytest.raises(exception.InvalidSchemaError) as info:
        p.validate_schemata(schema)
    assert str(info.value) == (
        "Property web.port: invalid default [1, 99]: 99 is greater than the maximum 10"
    )


def test_validate_schemata_is_strict_about_nested_members_of_defaults():
    # The guide's example builds (its default is never used: the property is
    # required), but the strict check used by lint sees that 'Foo' is not 'foo'.
    with pytest.raises(exception.InvalidSchemaError) as info:
        p.validate_schemata(GUIDE_SCHEMA)
    assert str(info.value) == (
        "Property property_name: invalid default {'Foo': 'Bar'}: Unknown Property Foo"
    )


def test_properties_validation_reports_bad_default_with_its_name():
    schema = {
        "ports": S(
            S.LIST,
            default=[{"number": 70000}],
            schema={"number": S(S.INTEGER, constraints=[constraints.Range(1, 65535)])},
        )
    }
    err = validation_error(schema, {}, path=WEB)
    assert (
        str(err)
        == "resources.web.properties.ports[0].number: 70000 is greater than the maximum 65535"
    )


def test_support_status_must_be_a_support_status():
    with pytest.raises(
        exception.InvalidSchemaError, match="support_status must be a SupportStatus"
    ):
        S(S.STRING, support_status="DEPRECATED")
    deprecated = support.SupportStatus(support.DEPRECATED, version="2.0")
    assert S(S.STRING, support_status=deprecated).support_status is deprecated


def test_schemata_rejects_non_dicts():
    with pytest.raises(exception.InvalidSchemaError, match="must be a dict of Schemas"):
        p.schemata([S(S.STRING)])
    with pytest.raises(exception.InvalidSchemaError, match="Property x: A property schema must be"):
        p.schemata({"x": "String"})
    with pytest.raises(exception.InvalidSchemaError, match="expected a properties.Schema"):
        p.schemata({"x": constraints.Schema(S.STRING)})


def test_update_allowed_and_immutable_helpers():
    schema = {
        "a": S(S.STRING, update_allowed=True),
        "b": S(S.STRING, immutable=True),
        "c": S(S.STRING),
        "d": S(S.INTEGER, update_allowed=True),
    }
    assert p.update_allowed_properties(schema) == ("a", "d")
    assert p.immutable_properties(schema) == ("b",)


def test_schema_to_dict():
    d = S(S.INTEGER, "n", default=1, update_allowed=True).to_dict()
    assert d["type"] == "Integer" and d["default"] == 1
    assert d["update_allowed"] is True and d["immutable"] is False
    assert d["support_status"]["status"] == "SUPPORTED"


# -- values ---------------------------------------------------------------------------------

EMPTY = [
    (S.STRING, ""),
    (S.NUMBER, 0),
    (S.INTEGER, 0),
    (S.LIST, []),
    (S.MAP, {}),
    (S.BOOLEAN, False),
    (S.ANY, None),
]


@pytest.mark.parametrize("data_type, empty", EMPTY)
def test_unset_properties_return_the_empty_value(data_type, empty):
    values = props({"x": S(data_type)}, {})
    assert values["x"] == empty and type(values["x"]) is type(empty)
    values.validate()


@pytest.mark.parametrize("data_type, empty", EMPTY)
def test_none_counts_as_unset(data_type, empty):
    assert props({"x": S(data_type)}, {"x": None})["x"] == empty
    assert props({"x": S(data_type, default=empty if empty is not None else 5)}, {"x": None})[
        "x"
    ] == (empty if empty is not None else 5)


def test_defaults_are_applied_and_converted():
    schema = {"n": S(S.INTEGER, default="7"), "s": S(S.STRING, default="x")}
    values = props(schema, {"s": "given"})
    assert values["n"] == 7
    assert values["s"] == "given"


def test_data_is_the_raw_user_data():
    data = {"n": "7"}
    values = props({"n": S(S.INTEGER)}, data)
    assert values.data is data
    assert values["n"] == 7
    assert values.get_user_value("n") == 7
    assert props({"n": S(S.INTEGER, default=3)}, {}).get_user_value("n") is None


def test_mapping_protocol_follows_schema_order():
    schema = {"zeta": S(S.STRING), "alpha": S(S.INTEGER), "mid": S(S.BOOLEAN)}
    values = props(schema, {"alpha": 1})
    assert list(values) == ["zeta", "alpha", "mid"]
    assert len(values) == 3
    assert "alpha" in values and "other" not in values
    assert dict(values) == {"zeta": "", "alpha": 1, "mid": False}


def test_reading_an_unknown_key_is_a_key_error():
    with pytest.raises(KeyError) as info:
        props({"a": S(S.STRING)}, {})["b"]
    assert info.value.args[0] == "Invalid Property b"
    with pytest.raises(KeyError) as info:
        props({"a": S(S.STRING)}, {}, path=WEB).get_user_value("b")
    assert info.value.args[0] == "Invalid Property b (in resources.web.properties)"


def test_unknown_property_is_an_error():
    err = validation_error({"a": S(S.STRING)}, {"a": "x", "b": 1}, path=WEB)
    assert str(err) == "resources.web.properties: Unknown Property b"


def test_required_property_not_assigned():
    schema = {"name": S(S.STRING, required=True)}
    err = validation_error(schema, {}, path=WEB)
    assert str(err) == "resources.web.properties: Property name not assigned"
    assert str(validation_error(schema, {"name": None})) == "Property name not assigned"
    with pytest.raises(exception.StackValidationFailed, match="Property name not assigned"):
        props(schema, {})["name"]


def test_required_property_with_default_is_satisfied():
    values = props({"name": S(S.STRING, required=True, default="d")}, {})
    values.validate()
    assert values["name"] == "d"


def test_parent_name_prefixes_errors_when_there_is_no_path():
    err = validation_error({"a": S(S.INTEGER)}, {"a": "x"}, parent_name="web")
    assert str(err) == "web.a: 'x' is not a valid Integer"


def test_with_value_false_checks_only_keys_and_presence():
    schema = {"n": S(S.INTEGER, constraints=[constraints.Range(max=1)])}
    props(schema, {"n": 5}).validate(with_value=False)
    with pytest.raises(exception.StackValidationFailed, match="Unknown Property m"):
        props(schema, {"m": 5}).validate(with_value=False)


def test_data_that_is_not_a_map():
    err = validation_error({"a": S(S.STRING)}, ["a"], path=WEB)
    assert str(err) == "resources.web.properties: Properties must be a map, got ['a']"


# -- coercion (Heat-compatible) ------------------------------------------------------------


@pytest.mark.parametrize(
    "data_type, raw, expected",
    [
        (S.STRING, "abc", "abc"),
        (S.STRING, 42, "42"),
        (S.STRING, 1.5, "1.5"),
        (S.STRING, True, "true"),
        (S.STRING, False, "false"),
        (S.INTEGER, 42, 42),
        (S.INTEGER, "42", 42),
        (S.INTEGER, " -3 ", -3),
        (S.INTEGER, 4.0, 4),
        (S.INTEGER, "4.0", 4),
        (S.NUMBER, "42", 42),
        (S.NUMBER, "4.5", 4.5),
        (S.NUMBER, 7, 7),
        (S.NUMBER, 2.5, 2.5),
        (S.BOOLEAN, True, True),
        (S.BOOLEAN, "true", True),
        (S.BOOLEAN, "False", False),
        (S.BOOLEAN, "TRUE", True),
        (S.LIST, ["a", 1], ["a", 1]),
        (S.LIST, ("a", "b"), ["a", "b"]),
        (S.MAP, {"a": 1}, {"a": 1}),
        (S.ANY, {"a": [1]}, {"a": [1]}),
        (S.ANY, "x", "x"),
    ],
)
def test_coercion(data_type, raw, expected):
    value = props({"x": S(data_type)}, {"x": raw})["x"]
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    "data_type, raw, message",
    [
        (S.STRING, [1, 2], "[1, 2] is not a valid String (a list is not converted)"),
        (S.STRING, {"a": 1}, "{'a': 1} is not a valid String (a map is not converted)"),
        (S.INTEGER, "abc", "'abc' is not a valid Integer"),
        (S.INTEGER, 4.5, "4.5 is not a valid Integer (it has a fractional part)"),
        (S.INTEGER, "4.5", "'4.5' is not a valid Integer (it has a fractional part)"),
        (S.INTEGER, True, "True is not a valid Integer (booleans are not numbers)"),
        (S.NUMBER, "four", "'four' is not a valid Number"),
        (S.NUMBER, False, "False is not a valid Number (booleans are not numbers)"),
        (S.NUMBER, [1], "[1] is not a valid Number"),
        (S.BOOLEAN, "yes", "'yes' is not a valid Boolean (use true or false)"),
        (S.BOOLEAN, 1, "1 is not a valid Boolean (use true or false)"),
        (S.LIST, "a,b", "'a,b' is not a valid List (got a str)"),
        (S.LIST, {"a": 1}, "{'a': 1} is not a valid List (got a map)"),
        (S.MAP, ["a"], "['a'] is not a valid Map (got a list)"),
        (S.MAP, "a=b", "'a=b' is not a valid Map (got a str)"),
    ],
)
def test_coercion_errors_name_the_property(data_type, raw, message):
    err = validation_error({"x": S(data_type)}, {"x": raw}, path=WEB)
    assert str(err) == f"resources.web.properties.x: {message}"
    assert err.path == [*WEB, "x"]
    with pytest.raises(exception.StackValidationFailed):
        props({"x": S(data_type)}, {"x": raw})["x"]


def test_map_without_schema_keeps_any_keys():
    assert props({"m": S(S.MAP)}, {"m": {"a": 1, "b": [2]}})["m"] == {"a": 1, "b": [2]}


def test_nested_map_gives_all_schema_keys_with_defaults():
    schema = {"m": S(S.MAP, schema={"a": S(S.INTEGER, default=1), "b": S(S.STRING)})}
    assert props(schema, {"m": {"b": "x"}})["m"] == {"a": 1, "b": "x"}


def test_nested_unknown_and_required_members():
    schema = {"m": S(S.MAP, schema={"a": S(S.INTEGER, required=True)})}
    assert str(validation_error(schema, {"m": {"a": 1, "z": 2}}, path=WEB)) == (
        "resources.web.properties.m: Unknown Property z"
    )
    assert str(validation_error(schema, {"m": {}}, path=WEB)) == (
        "resources.web.properties.m: Property a not assigned"
    )


def test_full_path_through_lists_and_maps():
    schema = {
        "ports": S(
            S.LIST,
            schema=S(
                S.MAP,
                schema={"number": S(S.INTEGER, constraints=[constraints.Range(1, 65535)])},
            ),
        )
    }
    data = {"ports": [{"number": 80}, {"number": 443}, {"number": 70000}]}
    err = validation_error(schema, data, path=WEB)
    assert str(err) == (
        "resources.web.properties.ports[2].number: 70000 is greater than the maximum 65535"
    )
    assert err.path == ["resources", "web", "properties", "ports", 2, "number"]


def test_list_constraints_apply_to_the_whole_list():
    schema = {"tags": S(S.LIST, constraints=[constraints.Length(max=2)])}
    assert str(validation_error(schema, {"tags": [1, 2, 3]})) == (
        "tags: length 3 is greater than the maximum 2"
    )


# -- resolver and values not yet known --------------------------------------------------------


def resolver(raw):
    if isinstance(raw, dict) and "get_param" in raw:
        return {"size": "3", "name": "web"}[raw["get_param"]]
    if isinstance(raw, dict) and "get_attr" in raw:
        raise p.ValueNotYetKnown(raw["get_attr"])
    return raw


def test_resolver_is_applied_on_access():
    schema = {"size": S(S.INTEGER), "name": S(S.STRING)}
    values = props(schema, {"size": {"get_param": "size"}}, resolver=resolver)
    assert values["size"] == 3
    assert values.data == {"size": {"get_param": "size"}}


def test_value_not_yet_known_skips_value_checks_but_not_presence():
    schema = {
        "size": S(S.INTEGER, constraints=[constraints.Range(max=1)], required=True),
        "other": S(S.STRING, required=True),
    }
    values = props(schema, {"size": {"get_attr": "x"}, "other": "o"}, resolver=resolver)
    values.validate()
    with pytest.raises(p.ValueNotYetKnown):
        values["size"]
    missing = props(schema, {"size": {"get_attr": "x"}}, resolver=resolver, path=WEB)
    with pytest.raises(exception.StackValidationFailed, match="Property other not assigned"):
        missing.validate()
    assert not issubclass(p.ValueNotYetKnown, exception.PlugsimError)


def test_resolver_errors_are_reported_with_the_property_path():
    def bad(raw):
        raise exception.InvalidTemplateReference(resource="db", key="get_attr")

    err = validation_error(
        {"a": S(S.STRING)}, {"a": {"get_attr": ["db", "ip"]}}, resolver=bad, path=WEB
    )
    assert str(err) == (
        'resources.web.properties.a: The specified reference "db" (in get_attr) is incorrect.'
    )


# -- Property -------------------------------------------------------------------------------------


def test_property_helpers():
    prop = p.Property(S(S.INTEGER, default=4, update_allowed=True), "n", None, WEB)
    assert prop.path == [*WEB, "n"]
    assert prop.get_value(None) == 4
    assert prop.get_value("9") == 9
    assert (prop.required(), prop.update_allowed(), prop.immutable()) == (False, True, False)
    assert (prop.has_default(), prop.default(), prop.type()) == (True, 4, "Integer")
    assert prop.support_status().status == "SUPPORTED"
    with pytest.raises(exception.StackValidationFailed) as info:
        p.Property({"type": "Integer", "constraints": [constraints.Range(max=3)]}, "n").get_value(
            5, validate=True
        )
    assert str(info.value) == "n: 5 is greater than the maximum 3"


def test_unset_map_with_schema_carries_member_defaults():
    schema = {"m": S(S.MAP, schema={"a": S(S.INTEGER, default=1), "b": S(S.STRING)})}
    assert props(schema, {})["m"] == {"a": 1, "b": ""}


def test_unset_optional_map_does_not_demand_its_required_members():
    schema = {"m": S(S.MAP, schema={"a": S(S.INTEGER, required=True)})}
    props(schema, {}).validate()


def test_unset_value_is_not_checked_against_constraints():
    schema = {"name": S(S.STRING, constraints=[constraints.Length(min=3)])}
    props(schema, {}).validate()
    assert str(validation_error(schema, {"name": "ab"})) == (
        "name: length 2 is less than the minimum 3"
    )


def test_large_integral_strings_are_exact():
    assert props({"n": S(S.INTEGER)}, {"n": "9007199254740993.0"})["n"] == 9007199254740993
    assert props({"n": S(S.INTEGER)}, {"n": "1e3"})["n"] == 1000
    err = validation_error({"n": S(S.INTEGER)}, {"n": "1e999999"})
    assert str(err) == "n: '1e999999' is not a valid Integer"
