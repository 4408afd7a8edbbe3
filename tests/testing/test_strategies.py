"""Hypothesis strategies from a properties_schema: valid maps are valid, invalid ones say why."""

import re

import pytest
from hypothesis import HealthCheck, given, settings

from sdk import constraints as c
from sdk import exception
from sdk.properties import Properties
from sdk.properties import Schema as S
from sdk.testing import strategies
from sdk.testing.strategies import Ungeneratable

SCHEMA = {
    "name": S(S.STRING, required=True, constraints=[c.AllowedPattern(r"[a-z][a-z0-9-]{2,14}")]),
    "size": S(
        S.INTEGER, default=10, constraints=[c.Range(min=10, max=100), c.Modulo(step=10, offset=0)]
    ),
    "odd": S(S.INTEGER, constraints=[c.Modulo(step=2, offset=1)]),
    "ratio": S(S.NUMBER, constraints=[c.Range(min=0.5, max=2.5)]),
    "tier": S(S.STRING, constraints=[c.AllowedValues(["gold", "silver"])]),
    "label": S(S.STRING, constraints=[c.Length(min=2, max=5)]),
    "enabled": S(S.BOOLEAN),
    "tags": S(
        S.LIST, schema=S(S.STRING, constraints=[c.Length(max=3)]), constraints=[c.Length(max=3)]
    ),
    "network": S(
        S.MAP,
        schema={
            "cidr": S(
                S.STRING, required=True, constraints=[c.AllowedPattern(r"10\.\d{1,3}\.0\.0/16")]
            ),
            "mtu": S(S.INTEGER, constraints=[c.Range(min=1280, max=9000)]),
        },
    ),
    "extra": S(S.MAP),
    "anything": S(S.ANY),
}

QUICK = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


def validate(data):
    Properties(SCHEMA, data, path=["resources", "r", "properties"]).validate()


@QUICK
@given(strategies.valid_properties(SCHEMA))
def test_valid_maps_meet_every_constraint_and_pass_validation(data):
    assert re.fullmatch(r"[a-z][a-z0-9-]{2,14}", data["name"])
    if "size" in data:
        assert 10 <= data["size"] <= 100 and data["size"] % 10 == 0
    if "odd" in data:
        assert data["odd"] % 2 == 1
    if "ratio" in data:
        assert 0.5 <= data["ratio"] <= 2.5
    if "tier" in data:
        assert data["tier"] in ("gold", "silver")
    if "label" in data:
        assert 2 <= len(data["label"]) <= 5
    if "network" in data:
        assert re.fullmatch(r"10\.\d{1,3}\.0\.0/16", data["network"]["cidr"])
    assert set(data) <= set(SCHEMA)
    validate(data)


@QUICK
@given(strategies.invalid_properties(SCHEMA))
def test_invalid_maps_are_rejected_naming_the_property(case):
    data, violation = case
    assert violation.rule in strategies.RULES
    with pytest.raises(exception.StackValidationFailed) as info:
        validate(data)
    assert violation.property in str(info.value)


@settings(max_examples=60, deadline=None)
@given(strategies.invalid_properties(SCHEMA))
def test_every_rule_of_the_schema_gets_broken(case):
    # the labels come from the rules present in this schema only
    _, violation = case
    assert violation.property in (*SCHEMA, "no_such_property")


@pytest.mark.parametrize(
    ("rule", "props"),
    [
        ("required", {"name"}),
        ("Modulo", {"odd", "size"}),
        ("AllowedPattern", {"name"}),
        ("Range", {"ratio", "size"}),
        ("AllowedValues", {"tier"}),
        ("Length", {"label", "tags"}),
        ("unknown", {"no_such_property"}),
    ],
)
def test_each_rule_can_be_broken_alone(rule, props):
    @settings(max_examples=10, deadline=None, database=None)
    @given(strategies.invalid_properties(SCHEMA, rules=[rule]))
    def check(case):
        data, violation = case
        assert violation.rule == rule and violation.property in props
        with pytest.raises(exception.StackValidationFailed, match=violation.property):
            validate(data)

    check()


def test_unknown_rule_names_are_refused():
    with pytest.raises(exception.ConfigurationError, match="unknown rule.*Frobnicate"):
        strategies.invalid_properties(SCHEMA, rules=["Frobnicate"])


def test_a_schema_without_the_rule_is_ungeneratable():
    with pytest.raises(Ungeneratable, match="can break Modulo"):
        strategies.invalid_properties({"x": S(S.STRING)}, rules=["Modulo"])


def test_a_required_property_with_a_custom_constraint_cannot_be_generated():
    schema = {"flavor": S(S.STRING, required=True, constraints=[c.CustomConstraint("nova.flavor")])}
    with pytest.raises(Ungeneratable, match="property flavor: custom constraint nova.flavor"):
        strategies.valid_properties(schema)


@given(
    strategies.valid_properties({"x": S(S.STRING, constraints=[c.CustomConstraint("nova.flavor")])})
)
def test_an_optional_custom_constrained_property_is_left_out(data):
    assert data == {}


def test_the_kits_find_settings_leave_out_only_the_explain_phase():
    from hypothesis import Phase

    found = strategies.find_settings(max_examples=7)
    assert Phase.explain not in found.phases
    assert set(found.phases) == set(Phase) - {Phase.explain}
    assert (found.max_examples, found.derandomize, found.database) == (7, True, None)


def test_find_without_explain_gives_the_value_find_with_it_gives():
    """The explain phase runs after shrinking: leaving it out never changes what find returns."""
    from hypothesis import Phase, find, settings

    schema = {
        "name": S(S.STRING, required=True),
        "size": S(S.INTEGER, constraints=[c.Range(min=3, max=9)]),
    }
    with_explain = settings(strategies.find_settings(max_examples=50), phases=list(Phase))
    without = strategies.find_settings(max_examples=50)
    for condition in (lambda m: True, lambda m: len(m["name"]) > 2 and "size" in m):
        found = find(strategies.valid_properties(schema), condition, settings=without)
        assert found == find(strategies.valid_properties(schema), condition, settings=with_explain)
