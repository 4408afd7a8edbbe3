"""Example values a schema accepts, and the HOT example of a resource type."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from sdk import constraints as constr
from sdk import exception
from sdk import properties as props_mod
from sdk.resource import Resource
from sdk.sphinxext.lookup import visible
from sdk.sphinxext.patterns import pattern_examples


def _bounds(
    schema: props_mod.Schema, kind: type[constr.Range] | type[constr.Length]
) -> tuple[Any, Any]:
    low = high = None
    for c in schema.constraints:
        if isinstance(c, kind):
            low = c.min if low is None or (c.min is not None and c.min > low) else low
            high = c.max if high is None or (c.max is not None and c.max < high) else high
    return low, high


def _number_candidates(schema: props_mod.Schema) -> Iterator[Any]:
    low, high = _bounds(schema, constr.Range)
    bases = [b for b in (low, high) if b is not None] or [1, 0]
    steps = [c for c in schema.constraints if isinstance(c, constr.Modulo)]
    for base in bases:
        start = int(base) if float(base).is_integer() else int(base) + 1
        yield start
        if schema.type == schema.NUMBER:
            yield base
        for m in steps:
            aligned = start + ((m.offset - start) % m.step)
            yield aligned
            yield aligned - m.step
    if low is not None and high is not None:
        yield (low + high) // 2 if schema.type == schema.INTEGER else (low + high) / 2


def _string_candidates(schema: props_mod.Schema) -> Iterator[Any]:
    yield "example"
    for c in schema.constraints:
        if isinstance(c, constr.AllowedPattern):
            yield from pattern_examples(c.pattern)
    low, high = _bounds(schema, constr.Length)
    if low is not None:
        yield ("example" * (low // 7 + 1))[:low]
    if high is not None:
        yield "example"[:high]


def _candidates(schema: props_mod.Schema) -> Iterator[Any]:
    if schema.default is not None:
        yield schema.default
    for c in schema.constraints:
        if isinstance(c, constr.AllowedValues):
            yield from c.allowed
    t = schema.type
    if t in (schema.INTEGER, schema.NUMBER):
        yield from _number_candidates(schema)
    elif t == schema.BOOLEAN:
        yield from (True, False)
    elif t in (schema.STRING, schema.ANY):
        yield from _string_candidates(schema)
    elif t == schema.MAP:
        if isinstance(schema.schema, dict):
            yield _required_members(schema.schema)
        else:
            yield {"key": "value"}
            yield {}
    elif t == schema.LIST:
        item = example_value(schema.schema) if isinstance(schema.schema, props_mod.Schema) else "a"
        low, high = _bounds(schema, constr.Length)
        yield [item] * max(low or 0, 1 if high is None or high >= 1 else 0)
        yield []


def _required_members(schema_map: Mapping[str, props_mod.Schema]) -> dict[str, Any]:
    return {
        name: example_value(s)
        for name, s in visible(schema_map)
        if s.required and s.default is None
    }


def _fits(schema: props_mod.Schema, value: Any) -> bool:
    try:
        props_mod.Property(schema).get_value(value, validate=True)
    except (exception.PlugsimError, ValueError, TypeError, KeyError):
        return False
    return True


def example_value(schema: props_mod.Schema) -> Any:
    """Return a value for *schema* that its own validation accepts.

    The default when there is one, else an allowed value, a number inside the
    range (and step), a string matching the pattern and length, a map of its
    required members or a one-item list. A value checked by a custom
    constraint cannot be known here: it is the placeholder ``<name>`` of the
    constraint. When nothing fits, a placeholder ``<Type>`` is returned.
    """
    custom = [c for c in schema.constraints if isinstance(c, constr.CustomConstraint)]
    if custom and schema.default is None:
        return f"<{custom[0].name}>"
    check = props_mod.Schema(
        schema.type,
        schema=schema.schema,
        constraints=[c for c in schema.constraints if not isinstance(c, constr.CustomConstraint)],
    )
    for candidate in _candidates(schema):
        if _fits(check, candidate):
            return candidate
    return f"<{schema.type}>"


def _example_name(type_name: str) -> str:
    last = type_name.split("::")[-1] or "resource"
    name = re.sub(r"[^a-z0-9]+", "_", re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", last).lower())
    return name.strip("_") or "resource"


def hot_example(type_name: str, cls: type[Resource]) -> str:
    """Return a minimal HOT ``resources:`` section (YAML) using *cls*'s required properties."""
    schema = props_mod.schemata(cls.properties_schema)
    entry: dict[str, Any] = {"type": type_name}
    values = _required_members(schema)
    if values:
        entry["properties"] = values
    doc = {"resources": {_example_name(type_name): entry}}
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, allow_unicode=True)
