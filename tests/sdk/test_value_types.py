"""Value conversions keep their rules on the fast paths for plain ints and floats."""

from __future__ import annotations

import decimal
import fractions
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk import _value_types as vt


@given(st.integers())
def test_int_is_returned_unchanged(value: int) -> None:
    out = vt.str_to_num(value)
    assert out is value and type(out) is int


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_finite_float_is_returned_unchanged(value: float) -> None:
    out = vt.str_to_num(value)
    assert out is value and type(out) is float


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_float_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="is not a finite number"):
        vt.str_to_num(value)


@pytest.mark.parametrize("value", [True, False])
def test_boolean_is_not_a_number(value: bool) -> None:
    with pytest.raises(ValueError, match="is a boolean, not a number"):
        vt.str_to_num(value)
    with pytest.raises(ValueError, match="is not a valid Number"):
        vt.CONVERTERS["Number"](value)
    with pytest.raises(ValueError, match="booleans are not numbers"):
        vt.CONVERTERS["Integer"](value)


class _MyInt(int):
    pass


@pytest.mark.parametrize(
    "value", [_MyInt(3), decimal.Decimal("2.5"), fractions.Fraction(1, 2), 1 + 2j]
)
def test_other_numbers_still_pass_through(value: object) -> None:
    assert vt.str_to_num(value) is value


@given(st.integers())
def test_number_conversion_of_int_keeps_it(value: int) -> None:
    assert vt.CONVERTERS["Number"](value) is value


@given(st.text())
def test_string_conversion_of_str_keeps_it(value: str) -> None:
    assert vt.CONVERTERS["String"](value) is value


def test_string_conversion_of_scalars() -> None:
    assert vt.CONVERTERS["String"](True) == "true"
    assert vt.CONVERTERS["String"](7) == "7"
    assert vt.CONVERTERS["String"](2.5) == "2.5"
    with pytest.raises(ValueError, match="is not a valid String"):
        vt.CONVERTERS["String"]([1])
