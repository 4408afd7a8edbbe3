"""The pure rendering helpers: constraint wording, example values, the HOT snippet."""

from __future__ import annotations

import re

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sphinxext_sample_plugin import Gadget, Plain

from sdk import constraints as c
from sdk import properties, support
from sdk.sphinxext import (
    example_value,
    format_constraint,
    format_value,
    hot_example,
    is_hidden,
    resource_reference,
)

P = properties.Schema


def fits(schema: P, value: object) -> bool:
    try:
        properties.Property(schema).get_value(value, validate=True)
    except Exception:
        return False
    return True


def test_constraints_in_plain_words() -> None:
    assert format_constraint(c.Range(1, 10)) == "from 1 to 10"
    assert format_constraint(c.Range(min=1)) == "at least 1"
    assert format_constraint(c.Range(max=9.5)) == "at most 9.5"
    assert format_constraint(c.Length(2, 8)) == "length from 2 to 8"
    assert format_constraint(c.Length(max=8, description="Short.")) == "length at most 8 — Short."
    assert format_constraint(c.Modulo(step=3, offset=1)) == "1 plus a multiple of 3"
    assert format_constraint(c.Modulo(step=2, offset=0)) == "a multiple of 2"
    assert format_constraint(c.AllowedValues(["a", 1, True])) == 'one of ``"a"``, ``1``, ``true``'
    assert format_constraint(c.AllowedPattern("x`y")) == (
        "matches the regular expression :code:`x\\`y`"
    )
    assert format_constraint(c.CustomConstraint("nova.flavor")) == (
        "valid as ``nova.flavor`` (custom constraint)"
    )


def test_values_are_shown_as_template_authors_write_them() -> None:
    assert format_value({"b": [1, None], "a": True}) == '{"a": true, "b": [1, null]}'
    assert format_value("text") == '"text"'


def test_hidden_means_the_current_status_only() -> None:
    assert is_hidden(support.SupportStatus(support.HIDDEN))
    assert not is_hidden(
        support.SupportStatus(previous_status=support.SupportStatus(support.HIDDEN))
    )
    assert not is_hidden(None)


def test_example_values_follow_defaults_and_constraints() -> None:
    assert example_value(P(P.INTEGER, default=7)) == 7
    assert example_value(P(P.STRING, constraints=[c.AllowedValues(["x", "y"])])) == "x"
    assert example_value(P(P.STRING, constraints=[c.AllowedPattern(r"\d{3}-[A-F]+")])) == "000-A"
    assert example_value(P(P.STRING, constraints=[c.Length(min=10)])) == "exampleexa"
    assert example_value(P(P.NUMBER, constraints=[c.Range(0.1, 0.2)])) == 0.1
    assert example_value(P(P.BOOLEAN)) is True
    assert example_value(P(P.MAP)) == {"key": "value"}
    assert example_value(P(P.LIST, schema=P(P.INTEGER, constraints=[c.Range(5, 6)]))) == [5]
    assert example_value(P(P.STRING, constraints=[c.CustomConstraint("nova.flavor")])) == (
        "<nova.flavor>"
    )
    assert example_value(P(P.STRING, constraints=[c.AllowedPattern("(?P<a>x)(?P=a)y")])) == (
        "<String>"
    )


@settings(max_examples=150, deadline=None)
@given(
    low=st.none() | st.integers(-50, 50),
    span=st.integers(0, 40),
    use_high=st.booleans(),
    step=st.none() | st.integers(1, 9),
    data=st.data(),
)
def test_integer_examples_are_valid_whenever_a_valid_value_exists(
    low: int | None, span: int, use_high: bool, step: int | None, data: st.DataObject
) -> None:
    high = (low or 0) + span if use_high or low is None else None
    rules: list[c.Constraint] = [c.Range(low, high)]
    if step is not None:
        rules.append(c.Modulo(step=step, offset=data.draw(st.integers(0, step - 1))))
    schema = P(P.INTEGER, constraints=rules)
    value = example_value(schema)
    lo = -1000 if low is None else low
    hi = 1000 if high is None else high
    if any(fits(schema, v) for v in range(lo, hi + 1)):
        assert fits(schema, value), (rules, value)
    else:
        assert value == "<Integer>"


PATTERNS = ["[a-z]+", "[0-9]{3}-[0-9]{4}", "(ab|cd)+x?", r"\w+@\w+\.org", "[A-Z][a-z]*", "v[0-9]+"]


@settings(max_examples=150, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    min_len=st.none() | st.integers(0, 12),
    extra=st.integers(0, 12),
)
def test_string_examples_are_valid_or_an_honest_placeholder(
    pattern: str, min_len: int | None, extra: int
) -> None:
    rules: list[c.Constraint] = [c.AllowedPattern(pattern)]
    if min_len is not None:
        rules.append(c.Length(min_len, min_len + extra))
    schema = P(P.STRING, constraints=rules)
    value = example_value(schema)
    assert value == "<String>" or fits(schema, value)
    if min_len is None:
        assert re.fullmatch(pattern, value)


def test_hot_example_validates_against_the_plugin_schema() -> None:
    doc = yaml.safe_load(hot_example("Sample::Gadget::Gadget", Gadget))
    entry = doc["resources"]["gadget"]
    assert entry["type"] == "Sample::Gadget::Gadget"
    properties.Properties(Gadget.properties_schema, entry["properties"]).validate()


def test_hot_example_without_required_properties_has_no_properties_key() -> None:
    assert hot_example("Sample::Plain::MyThing", Plain) == (
        "resources:\n  my_thing:\n    type: Sample::Plain::MyThing\n"
    )


def test_reference_is_deterministic_and_has_every_section() -> None:
    first = resource_reference("Sample::Gadget::Gadget", Gadget)
    assert first == resource_reference("Sample::Gadget::Gadget", Gadget)
    text = "\n".join(first)
    for heading in ("Properties\n----------", "Required\n~~~~~~~~", "Optional\n~~~~~~~~"):
        assert heading in text
    assert "Attributes\n----------" in text and "HOT example\n-----------" in text


def version_notes(status: support.SupportStatus) -> str:
    class Typed(Plain):
        """Doc."""

        support_status = status

    text = "\n".join(resource_reference("A::B::C", Typed))
    return text[text.index("=====\n") + 6 : text.index("Doc.")].strip()


def test_version_notes_follow_the_status_chain_oldest_first() -> None:
    assert version_notes(support.SupportStatus(support.UNSUPPORTED, version="0.1.0")) == (
        ".. versionadded:: 0.1.0\n\n   Unsupported."
    )
    chain = support.SupportStatus(
        support.SUPPORTED,
        version="3.0",
        previous_status=support.SupportStatus(
            support.DEPRECATED,
            version="2.0",
            message="Use D.",
            previous_status=support.SupportStatus(version="1.0"),
        ),
    )
    assert version_notes(chain) == (
        ".. versionadded:: 1.0\n\n"
        ".. deprecated:: 2.0\n\n   Use D.\n\n"
        ".. versionchanged:: 3.0\n\n   Supported."
    )
    assert version_notes(support.SupportStatus(support.DEPRECATED, message="Old.")) == (
        "*Deprecated.* Old."
    )
    assert version_notes(support.SupportStatus()) == ""
