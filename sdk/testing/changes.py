"""Changed property values found from a schema, for the update paths the kit derives.

Shared by ``plugsim conformance`` (:mod:`sdk.testing.cli`, which derives the
update declarations) and the oracle tests (:mod:`sdk.testing.oracle_conformance`,
which change every updatable property at once): the simplest valid value of a
property unlike the one it has, found deterministically with hypothesis.
"""

from __future__ import annotations

from typing import Any


def _settings() -> Any:
    from sdk.testing.strategies import find_settings

    return find_settings(max_examples=50)


def _blank(value: Any) -> bool:
    """True for a value that says nothing to a cloud: ``None``, ``""``, or made only of blanks."""
    if value is None or value == "":
        return True
    if isinstance(value, (list, tuple)):
        return all(_blank(v) for v in value)
    if isinstance(value, dict):
        return all(_blank(v) for v in value.values())
    return False


def _is_call(value: Any) -> bool:
    """True for an intrinsic function call (``{"get_resource": ...}``)."""
    return isinstance(value, dict) and len(value) == 1 and str(next(iter(value))).startswith("get_")


def _free_form(schema: Any) -> bool:
    """True for a map without a schema: its keys go to the cloud's API as they are."""
    from sdk.properties import Schema

    return getattr(schema, "type", None) == Schema.MAP and not getattr(schema, "schema", None)


def _normal(name: str, schema: Any, value: Any) -> Any:
    """*value* as the resource reads it (a nested schema fills its defaults), or as it is."""
    from sdk.properties import Properties

    try:
        return Properties({name: schema}, {name: value})[name]
    except Exception:  # noqa: BLE001 - an unreadable value is compared as it is
        return value


def _reused_items(name: str, schema: Any, given: Any) -> list[Any] | None:
    """A changed list made of the given items, for a list of free strings; else None.

    A generated string says nothing the cloud can take when the items are names
    (``ResourceChain``'s ``resources`` are type names: ``"0"`` is no type); the
    given ones are valid, so the change drops the last of several, or repeats
    the only one. None when the change breaks the schema's own constraints.
    """
    from sdk.properties import Properties, Schema

    item = getattr(schema, "schema", None)
    free = item is None or (
        isinstance(item, Schema) and item.type == Schema.STRING and not item.constraints
    )
    if (
        getattr(schema, "type", None) != Schema.LIST
        or not free
        or not isinstance(given, list)
        or not given
        or not all(isinstance(v, str) and v for v in given)
    ):
        return None
    value = list(given[:-1]) if len(given) > 1 else [given[0], given[0]]
    try:
        Properties({name: schema}, {name: value}).validate()
    except Exception:  # noqa: BLE001 - a change the schema refuses is not made
        return None
    return value


def changed_value(
    name: str, schema: Any, base: dict[str, Any], *, meaningful: bool = False
) -> dict[str, Any] | None:
    """``{name: value}`` with the simplest valid value unlike *base*'s and the default; or None.

    *meaningful*: only a value that is not blank (:func:`_blank`).
    """
    from hypothesis import find
    from hypothesis.errors import HypothesisException

    from sdk.testing.stable_draws import stable_draws
    from sdk.testing.strategies import Ungeneratable, values

    avoid = [base[name]] if name in base else []
    if getattr(schema, "default", None) is not None:
        avoid.append(schema.default)
    avoid = [_normal(name, schema, a) for a in avoid]
    reused = _reused_items(name, schema, base.get(name))
    if reused is not None and all(_normal(name, schema, reused) != a for a in avoid):
        return {name: reused}
    try:
        strategy = values(schema)
        with stable_draws():
            value = find(
                strategy,
                lambda v: (
                    all(_normal(name, schema, v) != a for a in avoid)
                    and not (meaningful and _blank(v))
                ),
                settings=_settings(),
            )
    except (Ungeneratable, HypothesisException):
        return None
    return {name: value}
