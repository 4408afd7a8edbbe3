"""``yaql`` evaluated by the yaql library Heat uses, with Heat 27's limits (issue 35 item 10).

Each case runs in Heat 27 and in plugsim: values must be equal, errors of the same
kind in the same place (a bad expression at validation, a limit as the output's error).
"""

from __future__ import annotations

import json
from typing import Any

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

pytestmark = [requires_heat, pytest.mark.material]

V = "2016-10-14"


def _case(name: str, value: Any, params: dict | None = None, given: dict | None = None):
    template = {
        "heat_template_version": V,
        "parameters": params or {},
        "resources": {},
        "outputs": {"o": {"value": {"yaql": value}}},
    }
    step: dict[str, Any] = {"op": "create", "template": template}
    if given:
        step["parameters"] = given
    return {"name": name, "stack_name": f"y{name[:6]}", "steps": [step]}


CASES = [
    _case("sum", {"expression": "$.data.l.sum()", "data": {"l": [1, 2, 3]}}),
    _case(
        "select",
        {"expression": "$.data.x.a.where($ > 2).select($ * 2)", "data": {"x": {"get_param": "p"}}},
        {"p": {"type": "json", "default": {"a": [1, 5, 10]}}},
    ),
    _case("dict", {"expression": "dict($.data.k.select([$, len($)]))", "data": {"k": ["ab", "c"]}}),
    _case("bad", {"expression": "$.data.l.sum(", "data": {"l": [1]}}),
    _case("extra_key", {"expression": "1", "other": 2}),
    _case("not_a_map", ["$.data"]),
    _case("too_many", {"expression": "range(0, 500).select($)"}),
    _case(
        "too_big",
        {"expression": "$.data.s.len()", "data": {"s": {"get_param": "s"}}},
        {"s": {"type": "string"}},
        {"s": "x" * 20000},
    ),
]


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, Any], dict[str, Any]]:
    return _diff.run_heat(CASES), _diff.run_plugsim(CASES)


def _step(side: dict[str, Any], name: str) -> dict[str, Any]:
    return side[name]["steps"][0]


@pytest.mark.parametrize("name", ["sum", "select", "dict"])
def test_values_are_heats(name, both) -> None:
    heat, plugsim = (_step(s, name) for s in both)
    assert heat["state"] == plugsim["state"] == ["CREATE", "COMPLETE"]
    assert json.dumps(plugsim["outputs"], sort_keys=True) == json.dumps(
        heat["outputs"], sort_keys=True
    )


@pytest.mark.parametrize("name", ["bad", "extra_key", "not_a_map"])
def test_a_malformed_yaql_is_a_validation_error_at_the_same_place(name, both) -> None:
    heat, plugsim = (_step(s, name) for s in both)
    assert heat["validation_error"]["kind"] == "StackValidationFailed"
    assert plugsim["validation_error"]["kind"] in ("StackValidationFailed", "FunctionError")
    assert "outputs.o.value.yaql" in plugsim["validation_error"]["message"]
    if name == "bad":
        assert (
            "Bad expression Parse error: unexpected end of statement."
            in (plugsim["validation_error"]["message"])
        )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("too_many", "Collection length exceeds 200 elements"),
        ("too_big", "Expression consumed too much memory"),
    ],
)
def test_heats_limits_are_the_outputs_error(name, message, both) -> None:
    heat, plugsim = (_step(s, name) for s in both)
    assert heat["state"] == plugsim["state"] == ["CREATE", "COMPLETE"]
    assert heat["outputs"]["o"]["error"]["message"] == message
    assert message in plugsim["outputs"]["o"]["error"]["message"]
