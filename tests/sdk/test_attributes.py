"""Attribute schemas and values, from the guide's "Defining Resource Attributes"."""

import logging

import pytest

from sdk import attributes as a
from sdk import exception, support
from sdk.i18n import _

S = a.Schema


def test_guide_example_schema():
    schema = {
        "foo": S(_("The foo attribute"), type=S.STRING),
        "bar": S(_("The bar attribute"), type=S.STRING),
        "baz": S(_("The baz attribute"), type=S.STRING),
    }
    attrs = a.Attributes("res", schema, lambda name: name.upper())
    assert [attrs[n] for n in attrs] == ["FOO", "BAR", "BAZ"]


def test_type_constants():
    assert (S.STRING, S.NUMBER, S.INTEGER, S.BOOLEAN, S.MAP, S.LIST) == (
        "String",
        "Number",
        "Integer",
        "Boolean",
        "Map",
        "List",
    )
    assert S.TYPES == ("String", "Number", "Integer", "Boolean", "Map", "List")
    assert (S.CACHE_LOCAL, S.CACHE_NONE) == ("cache_local", "cache_none")


def test_schema_defaults():
    s = S()
    assert (s.description, s.type, s.cache_mode) == (None, None, S.CACHE_LOCAL)
    assert s.support_status == support.SupportStatus()
    assert s.to_dict() == {
        "description": None,
        "type": None,
        "support_status": support.SupportStatus().to_dict(),
        "cache_mode": "cache_local",
    }


def test_invalid_type_is_named():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S("x", type="Str")
    assert str(info.value) == (
        "Invalid attribute type 'Str'; valid types are: String, Number, Integer, Boolean, Map, List"
    )


def test_invalid_cache_mode_and_support_status():
    with pytest.raises(
        exception.InvalidSchemaError, match="Invalid attribute cache_mode 'forever'"
    ):
        S("x", cache_mode="forever")
    with pytest.raises(
        exception.InvalidSchemaError, match="support_status must be a SupportStatus"
    ):
        S("x", support_status="HIDDEN")
    with pytest.raises(exception.InvalidSchemaError, match="description must be a string"):
        S(42)


def test_every_resource_has_show():
    base = a.base_attributes_schema()
    assert list(base) == [a.SHOW] == ["show"]
    assert base["show"].type == S.MAP
    assert base["show"].cache_mode == S.CACHE_NONE
    assert a.base_attributes_schema() is not base  # a fresh dict each time


def test_unknown_attribute_names_resource_and_attribute():
    attrs = a.Attributes("web", {"ip": S("ip")}, lambda n: "1.2.3.4")
    with pytest.raises(exception.InvalidTemplateAttribute) as info:
        attrs["port"]
    assert str(info.value) == "The Referenced Attribute (web port) is incorrect."


def test_local_cache_until_reset():
    calls = []

    def resolver(name):
        calls.append(name)
        return len(calls)

    attrs = a.Attributes("web", {"n": S("n", type=S.INTEGER)}, resolver)
    assert attrs["n"] == 1
    assert attrs["n"] == 1
    assert calls == ["n"]
    assert attrs.cached_attrs == {"n": 1}
    attrs.reset_resolved_values()
    assert attrs.cached_attrs == {}
    assert attrs["n"] == 2
    assert calls == ["n", "n"]


def test_cache_none_resolves_every_time():
    calls = []

    def resolver(name):
        calls.append(name)
        return {"count": len(calls)}

    attrs = a.Attributes("web", a.base_attributes_schema(), resolver)
    assert attrs["show"] == {"count": 1}
    assert attrs["show"] == {"count": 2}
    assert attrs.cached_attrs == {}
    attrs.set_cached_attr("show", {"count": 99})
    assert attrs["show"] == {"count": 3}


def test_set_cached_attr_restores_a_value():
    attrs = a.Attributes("web", {"ip": S("ip")}, lambda n: pytest.fail("resolver called"))
    attrs.set_cached_attr("ip", "10.0.0.1")
    assert attrs["ip"] == "10.0.0.1"
    assert attrs.get_cache_mode("ip") == S.CACHE_LOCAL
    with pytest.raises(exception.InvalidTemplateAttribute):
        attrs.set_cached_attr("nope", 1)


def test_mapping_protocol_in_schema_order():
    schema = {"zeta": S("z"), "alpha": S("a"), **a.base_attributes_schema()}
    attrs = a.Attributes("web", schema, lambda n: n)
    assert list(attrs) == ["zeta", "alpha", "show"]
    assert len(attrs) == 3
    assert "alpha" in attrs and "beta" not in attrs
    assert dict(attrs) == {"zeta": "zeta", "alpha": "alpha", "show": "show"}


def test_hidden_attributes_still_resolve():
    hidden = S("old", support_status=support.SupportStatus(support.HIDDEN))
    attrs = a.Attributes("web", {"old": hidden}, lambda n: "still here")
    assert attrs["old"] == "still here"


def test_type_mismatch_is_lenient_but_logged(caplog):
    attrs = a.Attributes("web", {"port": S("p", type=S.INTEGER)}, lambda n: "eighty")
    with caplog.at_level(logging.WARNING, logger="sdk.attributes"):
        assert attrs["port"] == "eighty"
    assert "Attribute port of resource web is declared Integer but resolved to 'eighty'" in (
        caplog.text
    )


@pytest.mark.parametrize(
    "type_, good, bad",
    [
        (S.STRING, "x", 1),
        (S.NUMBER, 1.5, "1.5"),
        (S.INTEGER, 3, 3.5),
        (S.BOOLEAN, "true", 1),
        (S.MAP, {"a": 1}, [1]),
        (S.LIST, [1], "abc"),
    ],
)
def test_type_matches(type_, good, bad):
    schema = S("x", type=type_)
    assert a.type_matches(schema, good)
    assert not a.type_matches(schema, bad)
    assert a.type_matches(schema, None)
    assert a.type_matches(S("untyped"), bad)


def test_plain_string_schemas_are_descriptions():
    attrs = a.Attributes("web", {"ip": "The IP address"}, lambda n: "1.1.1.1")
    assert attrs.schema["ip"].description == "The IP address"
    with pytest.raises(exception.InvalidSchemaError, match="Attribute ip: An attribute schema"):
        a.schemata({"ip": 42})
    with pytest.raises(exception.InvalidSchemaError, match="must be a dict of Schemas"):
        a.schemata(["ip"])
