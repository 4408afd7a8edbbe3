"""Properties built lazily, and an update reusing the current properties only when safe."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_resource_fakes import make, run
from test_resource_update import Recording, created

from sdk import constraints, exception
from sdk import properties as p

SCHEMA = {
    "a": p.Schema(p.Schema.STRING, default="x"),
    "b": p.Schema(p.Schema.INTEGER, required=True),
    "c": p.Schema(p.Schema.LIST, schema=p.Schema(p.Schema.INTEGER)),
}


def test_props_lists_every_schema_entry_in_order_with_its_path():
    props = p.Properties(SCHEMA, {"b": 1}, path=["resources", "r", "properties"])
    assert props["b"] == 1  # one property used first
    assert list(props.props) == ["a", "b", "c"]
    assert [prop.path for prop in props.props.values()] == [
        ["resources", "r", "properties", name] for name in ("a", "b", "c")
    ]
    assert list(props) == ["a", "b", "c"] and len(props) == 3 and "c" in props


def test_errors_name_the_path_whatever_was_read_before():
    props = p.Properties(SCHEMA, {"b": 1, "c": [1, "no"]}, path=["resources", "r", "properties"])
    assert props["a"] == "x"
    with pytest.raises(exception.StackValidationFailed) as info:
        props.validate()
    assert info.value.path == ["resources", "r", "properties", "c", 1]
    with pytest.raises(KeyError, match="Invalid Property nope"):
        props["nope"]


@given(st.permutations(["a", "b", "c"]))
def test_values_do_not_depend_on_read_order(order):
    props = p.Properties(SCHEMA, {"b": "7", "c": ["1", 2]})
    got = {key: props[key] for key in order}
    assert got == {"a": "x", "b": 7, "c": [1, 2]}
    assert list(props.props) == ["a", "b", "c"]


def test_update_diffs_against_the_current_definition_twice_in_a_row():
    r = created()
    first = r.t.freeze(properties={"name": "b", "image": "deb"})
    run(r.update(first))
    second = r.t.freeze(properties={"name": "c", "image": "deb"})
    run(r.update(second))
    assert [diff for _, _, diff in r.received] == [{"name": "b"}, {"name": "c"}]
    assert r.properties["name"] == "c"


def test_update_with_replaced_properties_diffs_against_the_definition():
    r = created()
    # a plug-in that swaps its properties object: the diff still uses the definition
    r.properties = p.Properties(r.properties.schema, {"name": "b", "image": "deb"})
    run(r.update(r.t.freeze(properties={"name": "b", "image": "deb"})))
    assert r.received[0][2] == {"name": "b"}


def test_update_with_an_explicit_before_uses_that_definition():
    r = created()
    before = r.t.freeze(properties={"name": "old", "image": "deb"})
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb"}), before))
    assert r.received[0][2] == {"name": "a"}


def test_a_fresh_resource_has_no_diff_for_its_own_definition():
    r = make(Recording, props={"name": "a", "image": "deb"})
    run(r.create())
    run(r.update(r.t.freeze(properties={"name": "a", "image": "deb"})))
    assert r.received == []


def test_validate_resolves_each_set_value_once_and_names_missing_ones():
    seen = []

    def resolver(raw):
        seen.append(raw)
        return raw

    props = p.Properties(SCHEMA, {"b": "3", "c": None}, resolver=resolver)
    props.validate()
    assert seen == ["3"]
    with pytest.raises(exception.StackValidationFailed) as info:
        p.Properties(SCHEMA, {"b": None}, path=["resources", "r", "properties"]).validate()
    assert info.value.error_message == "Property b not assigned"
    assert info.value.path == ["resources", "r", "properties"]


def test_validate_checks_defaults_and_member_schemas_of_unset_maps():
    schema = {
        "n": p.Schema(p.Schema.INTEGER, default=5, constraints=[constraints.Range(max=9)]),
        "m": p.Schema(p.Schema.MAP, schema={"k": p.Schema(p.Schema.STRING, default="d")}),
    }
    props = p.Properties(schema, {})
    props.validate()
    assert props["n"] == 5 and props["m"] == {"k": "d"}
    with pytest.raises(exception.StackValidationFailed) as info:
        p.Properties(schema, {"n": 10}, path=["x"]).validate()
    assert info.value.path == ["x", "n"]
    assert info.value.error_message == "10 is greater than the maximum 9"
