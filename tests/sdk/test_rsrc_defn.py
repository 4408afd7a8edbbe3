"""Tests for sdk.rsrc_defn.ResourceDefinition."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk import exception, rsrc_defn
from sdk.rsrc_defn import ResourceDefinition


class Opaque:
    """Stands in for an engine-owned intrinsic function."""

    def __init__(self, ref: str) -> None:
        self.ref = ref

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.ref == self.ref

    def __hash__(self) -> int:
        return hash(self.ref)


def test_constants():
    assert (rsrc_defn.DELETE, rsrc_defn.RETAIN, rsrc_defn.SNAPSHOT) == (
        "Delete",
        "Retain",
        "Snapshot",
    )
    assert ResourceDefinition.DELETION_POLICIES == ("Delete", "Retain", "Snapshot")


def test_defaults():
    d = ResourceDefinition("web", "OS::Nova::Server")
    assert d.name == "web"
    assert d.resource_type == "OS::Nova::Server"
    assert d.properties == {}
    assert d.metadata == {}
    assert d.depends_on == ()
    assert d.deletion_policy == "Delete"
    assert d.update_policy is None
    assert d.condition is None
    assert d.external_id is None
    assert d.description == ""


def test_to_dict_minimal_and_full():
    assert ResourceDefinition("a", "T").to_dict() == {"type": "T", "properties": {}}
    fn = Opaque("get_resource: b")
    d = ResourceDefinition(
        "a",
        "T",
        properties={"x": 1, "ref": fn},
        metadata={"m": 1},
        depends_on=["b", "c"],
        deletion_policy="Retain",
        update_policy={"pause": 2},
        condition="prod",
        external_id="ext-1",
        description="the a",
    )
    assert d.to_dict() == {
        "type": "T",
        "properties": {"x": 1, "ref": fn},
        "metadata": {"m": 1},
        "depends_on": ["b", "c"],
        "deletion_policy": "Retain",
        "update_policy": {"pause": 2},
        "condition": "prod",
        "external_id": "ext-1",
        "description": "the a",
    }
    # opaque values are passed through as the same object
    assert d.to_dict()["properties"]["ref"] is fn


def test_single_depends_on_string():
    assert ResourceDefinition("a", "T", depends_on="b").depends_on == ("b",)
    assert ResourceDefinition("a", "T", depends_on=None).depends_on == ()


@pytest.mark.parametrize(
    ("given_policy", "expected"),
    [("delete", "Delete"), ("RETAIN", "Retain"), ("snapshot", "Snapshot"), (None, "Delete")],
)
def test_deletion_policy_spellings_normalised(given_policy, expected):
    assert ResourceDefinition("a", "T", deletion_policy=given_policy).deletion_policy == expected


def test_unknown_deletion_policy_kept_for_validation():
    assert ResourceDefinition("a", "T", deletion_policy="Shred").deletion_policy == "Shred"


def test_mutating_returned_copies_does_not_change_definition():
    d = ResourceDefinition("a", "T", properties={"x": 1}, metadata={"m": 1})
    d.properties["x"] = 2
    d.metadata["m"] = 2
    d.to_dict()["properties"]["x"] = 3
    assert d.properties == {"x": 1}
    assert d.metadata == {"m": 1}


def test_input_dict_is_copied():
    props = {"x": 1}
    d = ResourceDefinition("a", "T", properties=props)
    props["x"] = 9
    assert d.properties == {"x": 1}


def test_freeze_replaces_fields_and_keeps_original():
    d = ResourceDefinition("a", "T", properties={"x": 1})
    d2 = d.freeze(properties={"x": 2}, deletion_policy="retain")
    assert d2.properties == {"x": 2}
    assert d2.deletion_policy == "Retain"
    assert d2.name == "a" and d2.resource_type == "T"
    assert d.properties == {"x": 1}
    assert d.freeze() == d
    assert d.freeze() is not d


def test_freeze_unknown_field():
    with pytest.raises(TypeError, match="unknown field.*colour"):
        ResourceDefinition("a", "T").freeze(colour="red")


def test_equality_and_hash():
    a = ResourceDefinition("a", "T", properties={"r": Opaque("x")})
    b = ResourceDefinition("a", "T", properties={"r": Opaque("x")})
    c = ResourceDefinition("a", "T", properties={"r": Opaque("y")})
    assert a == b
    assert hash(a) == hash(b)
    assert a != c
    assert a != "a"
    assert ResourceDefinition("a", "T", description="x") != ResourceDefinition("a", "T")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "", "resource_type": "T"}, "resources: A resource name must be a non-empty"),
        ({"name": "a/b", "resource_type": "T"}, 'resources.a/b: Resource name may not contain "/"'),
        ({"name": "a", "resource_type": ""}, "resources.a.type: The resource type must be"),
        (
            {"name": "a", "resource_type": "T", "properties": [1]},
            "resources.a.properties: properties must be a map, not list",
        ),
        ({"name": "a", "resource_type": "T", "metadata": "x"}, "resources.a.metadata: "),
        (
            {"name": "a", "resource_type": "T", "depends_on": {"b": 1}},
            "resources.a.depends_on: depends_on must be a resource name or a list",
        ),
        (
            {"name": "a", "resource_type": "T", "depends_on": ["b", 3]},
            r"resources.a.depends_on\[1\]: depends_on entries must be resource names, not 3",
        ),
    ],
)
def test_bad_input_names_the_path(kwargs, message):
    with pytest.raises(exception.StackValidationFailed, match=message):
        ResourceDefinition(**kwargs)


names = st.text(st.characters(blacklist_characters="/"), min_size=1, max_size=10)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    name=names,
    props=st.dictionaries(st.text(max_size=5), json_values, max_size=4),
    deps=st.lists(names, max_size=3),
    policy=st.sampled_from(["Delete", "Retain", "Snapshot"]),
)
def test_round_trip_through_snippet(name, props, deps, policy):
    d = ResourceDefinition(
        name, "My::Type", properties=props, depends_on=deps, deletion_policy=policy
    )
    snippet = d.to_dict()
    again = ResourceDefinition(
        name,
        snippet["type"],
        properties=snippet["properties"],
        depends_on=snippet.get("depends_on", ()),
        deletion_policy=snippet.get("deletion_policy", "Delete"),
    )
    assert again == d


def test_metadata_may_be_called_as_heat_plugins_do():
    import json

    import yaml

    from sdk.rsrc_defn import ResourceDefinition

    defn = ResourceDefinition("r", "Example::Thing::One", metadata={"role": "web"})
    assert defn.metadata == {"role": "web"}
    assert defn.metadata() == {"role": "web"}  # Heat's spelling
    copy = defn.metadata()
    copy["role"] = "db"
    assert defn.metadata["role"] == "web"
    assert yaml.safe_dump(defn.metadata) == "role: web\n"
    assert json.dumps(defn.metadata) == '{"role": "web"}'
