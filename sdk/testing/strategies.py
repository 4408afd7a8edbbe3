"""Hypothesis strategies built from a plug-in's ``properties_schema``.

* :func:`values` - valid values for one :class:`sdk.properties.Schema`
  (type, nested schema, ``Range``, ``Length``, ``AllowedValues``,
  ``AllowedPattern`` (``from_regex`` with ``fullmatch``) and ``Modulo``);
* :func:`valid_properties` - whole property maps the schema accepts
  (required properties always present, optional ones sometimes, defaults left
  to the schema);
* :func:`invalid_properties` - ``(map, Violation)`` pairs: a valid map with
  exactly one rule broken, the violation naming the property and the rule.

Valid maps are valid *by construction*, never filtered through the SDK's own
validation, so a test that feeds them to :class:`sdk.properties.Properties`
really checks the validation. A property whose values cannot be generated
(a custom constraint needs a live cloud) is left out when optional; when it
is required, :class:`Ungeneratable` names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from hypothesis import strategies as st

from sdk import constraints as constr
from sdk import exception
from sdk.properties import Schema, schemata

#: The rules an invalid map may break (``Violation.rule``).
RULES = (
    "required",
    "type",
    "unknown",
    "Range",
    "Length",
    "AllowedValues",
    "AllowedPattern",
    "Modulo",
)

#: The characters of every text the kit draws: Hypothesis's default alphabet (every code point
#: but the surrogates), named by category rather than by ``codec="utf-8"``, whose table Hypothesis
#: computes on first use in each directory (about 3.6 CPU seconds; the category table is a
#: fifteenth of that). The draws are the same (tests/testing/test_strategies_alphabet.py).
TEXT_CHARACTERS = st.characters(exclude_categories=["Cs"])

_KEY = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
_SCALAR = st.one_of(
    st.text(TEXT_CHARACTERS, max_size=8), st.integers(-1000, 1000), st.booleans(), st.none()
)


class Ungeneratable(exception.PlugsimError):
    """No valid value can be generated for a required property."""


@dataclass(frozen=True)
class Violation:
    """Which property an invalid map gets wrong, and which rule it breaks."""

    property: str
    rule: str

    def __str__(self) -> str:
        return f"{self.property}: {self.rule}"


def _of(schema: Schema, kind: type) -> list[Any]:
    return [c for c in schema.constraints if isinstance(c, kind)]


def _custom(schema: Schema) -> bool:
    return bool(_of(schema, constr.CustomConstraint))


def _bounds(schema: Schema, kind: type) -> tuple[Any, Any]:
    low, high = None, None
    for c in _of(schema, kind):
        if c.min is not None:
            low = c.min if low is None else max(low, c.min)
        if c.max is not None:
            high = c.max if high is None else min(high, c.max)
    return low, high


def _numbers(schema: Schema) -> st.SearchStrategy[Any]:
    low, high = _bounds(schema, constr.Range)
    modulo = _of(schema, constr.Modulo)
    integral = schema.type == Schema.INTEGER
    if modulo:
        m = modulo[0]
        lo = -10_000 if low is None else low
        hi = 10_000 if high is None else high
        # k*step + offset within [lo, hi]; ceil/floor done in integers
        k_lo = -((-(lo - m.offset)) // m.step) if m.step > 0 else -((hi - m.offset) // -m.step)
        k_hi = (hi - m.offset) // m.step if m.step > 0 else (lo - m.offset) // m.step
        k_lo, k_hi = min(k_lo, k_hi), max(k_lo, k_hi)
        return (
            st.integers(int(k_lo), int(k_hi))
            .map(lambda k: k * m.step + m.offset)
            .filter(lambda v: (low is None or v >= low) and (high is None or v <= high))
        )
    if integral:
        lo = None if low is None else int(-(-low // 1))
        hi = None if high is None else int(high // 1)
        return st.integers(lo, hi)
    return st.one_of(
        st.integers(
            None if low is None else int(-(-low // 1)), None if high is None else int(high // 1)
        ),
        st.floats(low, high, allow_nan=False, allow_infinity=False),
    )


def _strings(schema: Schema) -> st.SearchStrategy[str]:
    low, high = _bounds(schema, constr.Length)
    patterns = _of(schema, constr.AllowedPattern)
    if patterns:
        base: st.SearchStrategy[str] = st.from_regex(
            patterns[0].pattern, fullmatch=True, alphabet=TEXT_CHARACTERS
        )
        for extra in patterns[1:]:
            base = base.filter(partial(_matches, extra.pattern))
        return base.filter(
            lambda s: (low is None or len(s) >= low) and (high is None or len(s) <= high)
        )
    return st.text(
        TEXT_CHARACTERS, min_size=low or 0, max_size=high if high is not None else max(low or 0, 12)
    )


def values(schema: Schema) -> st.SearchStrategy[Any]:
    """Return a strategy of values *schema* accepts (see the module docstring)."""
    if _custom(schema):
        names = ", ".join(c.name for c in _of(schema, constr.CustomConstraint))
        raise Ungeneratable(f"custom constraint {names} cannot be satisfied without a cloud")
    allowed = _of(schema, constr.AllowedValues)
    if allowed and schema.type == Schema.LIST:
        # For a list the allowed values constrain each item, not the list itself.
        items = [v for v in allowed[0].allowed if _ok(allowed[0], [v], schema)]
        low, high = _bounds(schema, constr.Length)
        if not items and low:
            raise Ungeneratable("no allowed value meets every other constraint")
        return st.lists(
            st.sampled_from(items) if items else st.nothing(),
            min_size=low or 0,
            max_size=high if high is not None else 4,
        ).filter(lambda v: all(_ok(c, v, schema) for c in schema.constraints))
    if allowed:
        options = [
            v for v in allowed[0].allowed if all(_ok(c, v, schema) for c in schema.constraints)
        ]
        if not options:
            raise Ungeneratable("no allowed value meets every other constraint")
        return st.sampled_from(options)
    t = schema.type
    if t in (Schema.INTEGER, Schema.NUMBER):
        return _numbers(schema)
    if t == Schema.STRING:
        return _strings(schema)
    if t == Schema.BOOLEAN:
        return st.booleans()
    low, high = _bounds(schema, constr.Length)
    if t == Schema.LIST:
        item = values(schema.schema) if isinstance(schema.schema, Schema) else _SCALAR
        return st.lists(item, min_size=low or 0, max_size=high if high is not None else 4)
    if t == Schema.MAP:
        if isinstance(schema.schema, Mapping):
            return valid_properties(schema.schema)
        return st.dictionaries(
            _KEY, _SCALAR, min_size=low or 0, max_size=high if high is not None else 4
        )
    return st.one_of(_SCALAR, st.lists(_SCALAR, max_size=3))


def _matches(pattern: str, text: str) -> bool:
    return re.fullmatch(pattern, text) is not None


def _mismatches(pattern: str, text: str) -> bool:
    return re.fullmatch(pattern, text) is None


def _below(bound: float, distance: int) -> int:
    """An integer *distance* below the range's minimum."""
    return int(bound // 1) - distance


def _above(bound: float, distance: int) -> int:
    """An integer *distance* above the range's maximum."""
    return int(-(-bound // 1)) + distance


def _off_step(c: constr.Modulo, value: int) -> bool:
    return value % c.step != c.offset


def _breaks(constraint: Any, schema: Schema, value: Any) -> bool:
    return not _ok(constraint, value, schema)


def _labelled(name: str, rule: str, value: Any) -> tuple[str, str, Any]:
    return (name, rule, value)


def _ok(constraint: Any, value: Any, schema: Schema) -> bool:
    try:
        constraint.validate(value, schema)
    except (ValueError, TypeError):
        return False
    return True


def valid_properties(properties_schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Return a strategy of property maps *properties_schema* accepts."""
    schema = schemata(properties_schema)
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name in sorted(schema):
        s = schema[name]
        needed = s.required and s.default is None
        try:
            strategy = values(s)
        except Ungeneratable as ex:
            if needed:
                raise Ungeneratable(f"property {name}: {ex}") from None
            continue
        if needed:
            # A required property set to null counts as not assigned at all.
            strategy = strategy.filter(lambda v: v is not None)
        (required if needed else optional)[name] = strategy
    return st.fixed_dictionaries(required, optional=optional)


def _wrong_type(schema: Schema) -> st.SearchStrategy[Any]:
    t = schema.type
    if t in (Schema.INTEGER, Schema.NUMBER):
        return st.sampled_from(["not-a-number", "12abc"])
    if t == Schema.STRING:
        return st.sampled_from([{"a": 1}, ["x"]])
    if t == Schema.BOOLEAN:
        return st.sampled_from(["maybe", "yes please"])
    if t == Schema.LIST:
        return st.sampled_from([{"a": 1}, "a,b"])
    return st.sampled_from([[1, 2], "text"])


def _breakers(name: str, schema: Schema) -> list[tuple[str, st.SearchStrategy[Any]]]:
    """``(rule, strategy of bad values)`` for every rule *schema* can break."""
    out: list[tuple[str, st.SearchStrategy[Any]]] = []
    if schema.type != Schema.ANY:
        out.append(("type", _wrong_type(schema)))
    for c in schema.constraints:
        bad: st.SearchStrategy[Any] | None = None
        if isinstance(c, constr.Range) and schema.type in (Schema.INTEGER, Schema.NUMBER):
            sides: list[st.SearchStrategy[Any]] = []
            if c.min is not None:
                sides.append(st.integers(1, 1000).map(partial(_below, c.min)))
            if c.max is not None:
                sides.append(st.integers(1, 1000).map(partial(_above, c.max)))
            bad = st.one_of(sides) if sides else None
        elif isinstance(c, constr.Length) and schema.type in (Schema.STRING, Schema.LIST):
            sides = []
            if c.max is not None:
                sides.append(
                    st.just("x" * (c.max + 1))
                    if schema.type == Schema.STRING
                    else st.just(["x"] * (c.max + 1))
                )
            if c.min:
                sides.append(
                    st.just("x" * (c.min - 1))
                    if schema.type == Schema.STRING
                    else st.just(["x"] * (c.min - 1))
                )
            bad = st.one_of(sides) if sides else None
        elif isinstance(c, constr.AllowedValues):
            pool: st.SearchStrategy[Any] = (
                st.text(TEXT_CHARACTERS, min_size=1, max_size=8)
                if schema.type == Schema.STRING
                else st.integers()
            )
            if schema.type == Schema.LIST:
                pool = st.text(TEXT_CHARACTERS, min_size=1, max_size=8).map(lambda v: [v])
            bad = pool.filter(partial(_breaks, c, schema))
        elif isinstance(c, constr.AllowedPattern) and schema.type == Schema.STRING:
            bad = st.text(TEXT_CHARACTERS, max_size=12).filter(partial(_mismatches, c.pattern))
        elif isinstance(c, constr.Modulo):
            bad = st.integers(-1000, 1000).filter(partial(_off_step, c))
        if bad is not None:
            out.append((type(c).__name__, bad))
    return out


def invalid_properties(
    properties_schema: Mapping[str, Any], *, rules: Iterable[str] | None = None
) -> st.SearchStrategy[tuple[dict[str, Any], Violation]]:
    """Return a strategy of ``(map, Violation)``: a valid map with one rule broken.

    *rules* restricts the rules broken (names from :data:`RULES`); a schema
    with no way to break any of them is a :class:`Ungeneratable` error.
    """
    wanted = set(RULES if rules is None else rules)
    unknown = sorted(wanted - set(RULES))
    if unknown:
        raise exception.ConfigurationError(
            f"invalid_properties: unknown rule(s) {', '.join(unknown)} (known: {', '.join(RULES)})"
        )
    schema = schemata(properties_schema)
    labelled: list[tuple[st.SearchStrategy[tuple[str, str, Any]], str]] = [
        (st.just(("no_such_property", "unknown", 1)), "unknown")
    ]
    for name in sorted(schema):
        s = schema[name]
        if s.required and s.default is None:
            labelled.append((st.just((name, "required", None)), "required"))
        for rule, bad in _breakers(name, s):
            labelled.append((bad.map(partial(_labelled, name, rule)), rule))

    choices = [ch for ch, rule in labelled if rule in wanted]
    if not choices:
        raise Ungeneratable(f"no property of this schema can break {', '.join(sorted(wanted))}")

    @st.composite
    def build(draw: Any) -> tuple[dict[str, Any], Violation]:
        base = dict(draw(valid_properties(properties_schema)))
        name, rule, value = draw(st.one_of(choices))
        if rule == "required":
            base.pop(name, None)
        else:
            base[name] = value
        return base, Violation(name, rule)

    return build()


def find_settings(**overrides: Any) -> Any:
    """Settings for a deterministic ``hypothesis.find`` of the simplest value the kit wants.

    No database, derandomised, no health check, and no *explain* phase: after shrinking,
    that phase runs the condition hundreds of times more only to annotate which parts of a
    failing example could vary, which a ``find`` never reports (the value found is the
    shrunk one either way). *overrides* are further settings (``max_examples``).
    """
    from hypothesis import HealthCheck, Phase, settings

    return settings(
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[phase for phase in Phase if phase is not Phase.explain],
        **overrides,
    )


def simplest_properties(plugin: type) -> dict[str, Any]:
    """The simplest valid property map of *plugin*'s schema (deterministic)."""
    from hypothesis import find

    from sdk.testing.stable_draws import stable_draws

    with stable_draws():
        return find(
            valid_properties(getattr(plugin, "properties_schema", {})),
            lambda data: True,
            settings=find_settings(max_examples=50),
        )
