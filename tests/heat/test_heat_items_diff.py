"""Issue 35's Heat differences, each run in Heat 27 and in plugsim and compared.

* item 5: ``properties:`` left null is Heat's ``Resource r properties type must be
  object``; an output naming a parameter the template does not declare does not stop
  the stack: Heat 27 creates it and reports that output's error (``UserParameterMissing``,
  ``The Parameter (foo) was not provided.``), which heat-tempest-plugin's
  ``test_stack_outputs`` expects.
"""

from __future__ import annotations

from typing import Any

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

pytestmark = requires_heat


def _case(name: str, template: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "stack_name": name[:8], "steps": [{"op": "create", "template": template}]}


CASES = [
    _case(
        "null_properties",
        {
            "heat_template_version": "2015-10-15",
            "resources": {"r": {"type": "OS::Heat::None", "properties": None}},
        },
    ),
    _case(
        "null_metadata",
        {
            "heat_template_version": "2015-10-15",
            "resources": {"r": {"type": "OS::Heat::None", "metadata": None}},
        },
    ),
    _case(
        "output_missing_param",
        {
            "heat_template_version": "2015-10-15",
            "resources": {"a": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}},
            "outputs": {
                "oa": {"value": {"get_attr": ["a", "output"]}},
                "ob": {"description": "b", "value": {"get_param": "foo"}},
            },
        },
    ),
]


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, Any], dict[str, Any]]:
    return _diff.run_heat(CASES), _diff.run_plugsim(CASES)


@pytest.mark.parametrize("name", ["null_properties", "null_metadata"])
def test_a_null_resource_section_is_heats_validation_error(name, both) -> None:
    heat, plugsim = (side[name]["steps"][0] for side in both)
    assert heat["validation_error"]["kind"] == "StackValidationFailed"
    assert plugsim["validation_error"]["kind"] == "StackValidationFailed"
    assert plugsim["validation_error"]["message"].endswith(heat["validation_error"]["message"])
    assert "type must be object" in heat["validation_error"]["message"]


def test_an_output_naming_a_missing_parameter_is_that_outputs_error(both) -> None:
    heat, plugsim = (side["output_missing_param"]["steps"][0] for side in both)
    assert heat["state"] == plugsim["state"] == ["CREATE", "COMPLETE"]
    assert heat["events"] == plugsim["events"]
    assert heat["outputs"]["oa"] == plugsim["outputs"]["oa"] == {"value": "a"}
    assert heat["outputs"]["ob"]["error"]["kind"] == "UserParameterMissing"
    assert plugsim["outputs"]["ob"]["error"]["message"] == heat["outputs"]["ob"]["error"]["message"]
