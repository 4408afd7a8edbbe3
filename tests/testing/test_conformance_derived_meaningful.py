"""Derived update paths change a property to a value a cloud can take (issue #20).

The conformance kit (and ``tools/heat_lifecycle.py``) derive the property an
update changes. A property whose valid value names another resource of the
stack (``get_resource``) is not changed to a made-up string, a non-blank value
is preferred to ``""``/``[""]``, and a free-form map (whose keys go to the
cloud's API as they are) is changed only when nothing else can be.
"""

from __future__ import annotations

from typing import Any

from sdk import constraints, properties
from sdk.resource import Resource
from sdk.testing.cli import derived_updates

S = properties.Schema


class Linked(Resource):
    """Names another resource, has a note and free-form specs, all changeable in place."""

    properties_schema = {
        "a_specs": S(S.MAP, update_allowed=True),
        "b_target": S(S.STRING, update_allowed=True),
        "c_note": S(S.STRING, update_allowed=True),
        "d_servers": S(S.LIST, schema=S(S.STRING)),
    }

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> None:
        """Accept every change."""


def test_a_property_naming_another_resource_is_not_changed() -> None:
    base = {"b_target": {"get_resource": "other"}}
    change = derived_updates(Linked, base)["update_in_place"]
    assert change is not None and list(change) == ["c_note"]


def test_a_non_blank_value_is_preferred() -> None:
    derived = derived_updates(Linked, {"b_target": {"get_resource": "other"}})
    assert derived["update_in_place"]["c_note"] != ""
    assert derived["update_replace"] is not None
    servers = derived["update_replace"]["d_servers"]
    assert servers and all(item != "" for item in servers)


def test_a_free_form_map_is_changed_only_when_nothing_else_can_be() -> None:
    class OnlySpecs(Linked):
        properties_schema = {"a_specs": S(S.MAP, update_allowed=True)}

    assert list(derived_updates(Linked, {})["update_in_place"]) == ["b_target"]
    assert list(derived_updates(OnlySpecs, {})["update_in_place"]) == ["a_specs"]


def test_a_blank_value_is_still_used_when_it_is_the_only_change() -> None:
    class Choice(Linked):
        properties_schema = {
            "mode": S(
                S.STRING,
                update_allowed=True,
                constraints=[constraints.AllowedValues(["x", ""])],
            )
        }

    assert derived_updates(Choice, {"mode": "x"})["update_in_place"] == {"mode": ""}


def test_a_value_reading_as_the_default_is_no_change() -> None:
    from sdk.properties import Properties

    item = S(
        S.MAP,
        schema={
            "class": S(
                S.STRING,
                default="letters",
                constraints=[constraints.AllowedValues(["letters", "x"])],
            ),
            "min": S(S.INTEGER, default=1, constraints=[constraints.Range(1, 10)]),
        },
    )

    class Classes(Linked):
        properties_schema = {
            "classes": S(S.LIST, schema=item, default=[{"class": "letters", "min": 1}])
        }

    change = derived_updates(Classes, {})["update_replace"]
    assert change is not None
    schema = Classes.properties_schema
    read = Properties(schema, change)["classes"]
    assert read != Properties(schema, {})["classes"]
