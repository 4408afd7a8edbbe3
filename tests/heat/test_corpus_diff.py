"""HOT semantics, differentially: every corpus template in real Heat and in plugsim.

Outputs must be equal (exact values) and validation errors must agree by kind
(a validation error on both sides) and location (template section and the
parameter/output/resource named). Every known difference is listed in
:data:`DIVERGENCES` and asserted as such; docs/heat-fidelity.rst explains each.
"""

from __future__ import annotations

import re

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

pytestmark = [requires_heat, pytest.mark.material]

#: Heat passes a function it does not know in that template version through as
#: plain data (or fails only when the output is read); plugsim rejects it when
#: the template is validated, naming the output.
STRICTER_VALIDATION = {
    "029_str_split": "str_split",
    "034_map_merge": "map_merge",
    "037_filter": "filter",
    "043_get_resource_unknown": "get_resource",
    "060_function_too_new": "list_concat",
    "062_repeat_too_old": "repeat",
    "063_str_split_too_old": "str_split",
}
#: Heat's CFN formats ignore a resource key they do not define; plugsim refuses it,
#: naming it: ``{case: plugsim's path}``.
CFN_UNKNOWN_KEYS = {"073_cfn_unknown_resource_key": ["Resources", "v", "Version"]}
#: Outputs plugsim computes differently: ``{case: (output, heat value or error kind, plugsim value)}``.
DIFFERENT_VALUES = {
    # before 2017-09-01 both engines ignore "permutations" (every combination); Heat then
    # fails on the numbers as in 032, plugsim substitutes their text
    "033_repeat_no_permutations": (
        "o",
        "TypeError",
        ["1-a", "1-b", "2-a", "2-b"],
    ),
    # Heat's repeat substitutes with str.replace and fails on a non-string value;
    # plugsim substitutes the value's string form.
    "032_repeat_permutations": (
        "o",
        "TypeError",
        [{"k": "1", "v": "a"}, {"k": "1", "v": "b"}, {"k": "2", "v": "a"}, {"k": "2", "v": "b"}],
    ),
}

#: Heat's error names no place (a plug-in's own ``validate()`` raised it); plugsim's
#: names the resource: ``{case: (plugsim path, message both share)}``.
HEAT_UNLOCATED = {
    "050_random_string_too_short": (
        ["resources", "r"],
        "Length property cannot be smaller than combined character class",
    ),
}

CASES = [c["name"] for c in _diff.corpus_cases()]


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 50


def _heat_location(error: dict) -> list[str]:
    path = error.get("path")
    if isinstance(path, list) and path:
        return [p for part in path for p in str(part).split(".") if p]
    message = error["message"]
    for pattern, section in (
        (r"Parameter '([^']+)'", "parameters"),
        (r"The Parameter \(([^)]+)\)", "parameters"),
    ):
        found = re.search(pattern, message)
        if found:
            return [section, found.group(1)]
    if "Invalid type" in message:
        return ["parameters"]
    if "Resource Type" in message:
        return ["resources"]
    if "template version" in message:
        return ["heat_template_version"]
    found = re.search(r"template section is invalid: (\S+)", message)
    if found:
        return [found.group(1)]
    return []


def _assert_same_location(heat_error: dict, plugsim_error: dict) -> None:
    where = _heat_location(heat_error)
    assert where, f"no location in Heat's error {heat_error}"
    path = [str(p) for p in plugsim_error["path"] or []]
    # a CFN template's sections are capitalised (Parameters, Resources) on both sides
    assert [p.lower() for p in path[:1]] == [w.lower() for w in where[:1]], (
        heat_error,
        plugsim_error,
    )
    for name in where[1:2]:
        assert name in path or name in plugsim_error["message"], (heat_error, plugsim_error)


@pytest.mark.parametrize("name", CASES)
def test_corpus_case_agrees(name: str, corpus_results: tuple[dict, dict]) -> None:
    heat, plugsim = (r[name]["steps"][0] for r in corpus_results)
    heat_error, plugsim_error = heat.get("validation_error"), plugsim.get("validation_error")
    if name in STRICTER_VALIDATION:
        assert heat_error is None and heat["state"] == ["CREATE", "COMPLETE"]
        assert plugsim_error is not None
        assert plugsim_error["path"][:2] == ["outputs", "o"]
        assert STRICTER_VALIDATION[name] in plugsim_error["message"]
        return
    if name in CFN_UNKNOWN_KEYS:
        assert heat_error is None and heat["state"] == ["CREATE", "COMPLETE"]
        assert plugsim_error is not None and plugsim_error["path"] == CFN_UNKNOWN_KEYS[name]
        assert "is not a valid keyword inside a resource definition" in plugsim_error["message"]
        return
    if heat_error is not None or plugsim_error is not None:
        assert heat_error is not None and plugsim_error is not None, (heat_error, plugsim_error)
        if name in HEAT_UNLOCATED:
            path, text = HEAT_UNLOCATED[name]
            assert _heat_location(heat_error) == []
            assert plugsim_error["path"] == path
            assert text in heat_error["message"] and text in plugsim_error["message"]
            return
        _assert_same_location(heat_error, plugsim_error)
        return
    assert heat["state"] == plugsim["state"] == ["CREATE", "COMPLETE"]
    heat_out, plugsim_out = dict(heat["outputs"]), dict(plugsim["outputs"])
    if name in DIFFERENT_VALUES:
        key, heat_value, plugsim_value = DIFFERENT_VALUES[name]
        got = heat_out.pop(key)
        assert got.get("value", got.get("error", {}).get("kind")) == heat_value
        assert plugsim_out.pop(key) == {"value": plugsim_value}
    assert {k: v.get("value") for k, v in plugsim_out.items()} == {
        k: v.get("value") for k, v in heat_out.items()
    }
    # an output that fails to resolve fails on both sides
    assert sorted(k for k, v in plugsim_out.items() if "error" in v) == sorted(
        k for k, v in heat_out.items() if "error" in v
    )
