"""Value types: Heat-compatible conversion of raw values and empty values.

Private helpers of :class:`sdk.constraints.Schema` (``to_schema_type``,
``str_to_num``, ``empty_value``), kept apart so each module stays readable.
Conversions raise :class:`ValueError` with a message naming value and type.
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def kind_of(value: object) -> str:
    """Describe the shape of *value* for messages: 'a map', 'a list', 'a str'."""
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def str_to_num(value: Any) -> int | float:
    """Convert a number or numeric string to ``int`` if possible, else ``float``.

    Numbers are returned unchanged; booleans, non-numeric strings and
    non-finite values raise :class:`ValueError`.
    """
    kind = type(value)
    if kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        return value
    if kind is bool:
        raise ValueError(f"{value!r} is a boolean, not a number")
    if isinstance(value, numbers.Number):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        return value  # type: ignore[return-value]
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a number")
    # int() and float() skip exactly the whitespace Python allows around a
    # number; str.strip() would also drop control characters such as '\x1f'.
    text = value
    try:
        return int(text)
    except ValueError:
        pass
    try:
        num = float(text)
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not math.isfinite(num):
        raise ValueError(f"{value!r} is not a finite number")
    return num


def _to_string(value: Any) -> str:
    if type(value) is str or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    raise ValueError(f"{value!r} is not a valid String ({kind_of(value)} is not converted)")


def _to_integer(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a valid Integer (booleans are not numbers)")
    if isinstance(value, str):
        return _str_to_integer(value)
    try:
        num = str_to_num(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a valid Integer") from None
    if isinstance(num, int):
        return num
    if isinstance(num, float) and num.is_integer():
        return int(num)
    raise ValueError(f"{value!r} is not a valid Integer (it has a fractional part)")


def _str_to_integer(value: str) -> int:
    """Parse an integral string exactly ('42', ' 7 ', '42.0', '1e3')."""
    try:
        return int(value)
    except ValueError:
        pass
    try:
        float(value)  # the gate: Decimal alone accepts more padding than float()
        dec = decimal.Decimal(value.strip())
    except (ValueError, decimal.InvalidOperation):
        raise ValueError(f"{value!r} is not a valid Integer") from None
    if not dec.is_finite() or dec.adjusted() > 4000:
        raise ValueError(f"{value!r} is not a valid Integer")
    if dec != dec.to_integral_value():
        raise ValueError(f"{value!r} is not a valid Integer (it has a fractional part)")
    return int(dec)


def _to_number(value: Any) -> int | float:
    if type(value) is int:
        return value
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a valid Number (booleans are not numbers)")
    try:
        return str_to_num(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a valid Number") from None


def _to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"{value!r} is not a valid Boolean (use true or false)")


def _to_map(value: Any) -> dict[Any, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    raise ValueError(f"{value!r} is not a valid Map (got {kind_of(value)})")


def _to_list(value: Any) -> list[Any]:
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return list(value)
    raise ValueError(f"{value!r} is not a valid List (got {kind_of(value)})")


CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "String": _to_string,
    "Integer": _to_integer,
    "Number": _to_number,
    "Boolean": _to_boolean,
    "Map": _to_map,
    "List": _to_list,
    "Any": lambda v: v,
}

EMPTY: dict[str, Callable[[], Any]] = {
    "String": str,
    "Integer": int,
    "Number": int,
    "Boolean": bool,
    "Map": dict,
    "List": list,
    "Any": lambda: None,
}
