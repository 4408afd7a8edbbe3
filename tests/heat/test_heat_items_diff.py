"""Issue 35's Heat differences, each run in Heat 27 and in plugsim and compared.

* item 5: ``properties:`` left null is Heat's ``Resource r properties type must be
  object``; an output naming a parameter the template does not declare does not stop
  the stack: Heat 27 creates it and reports that output's error (``UserParameterMissing``,
  ``The Parameter (foo) was not provided.``), which heat-tempest-plugin's
  ``test_stack_outputs`` expects.
"""

from __future__ import annotations

import re
from typing import Any

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

pytestmark = [requires_heat, pytest.mark.material]


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


UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

NONE_CASE = {
    "name": "none_id",
    "stack_name": "noneid",
    "steps": [
        {
            "op": "create",
            "template": {
                "heat_template_version": "2018-08-31",
                "resources": {"n": {"type": "OS::Heat::None"}},
                "outputs": {"id": {"value": {"get_resource": "n"}}},
            },
        }
    ],
}


def test_heat_none_physical_id_is_a_uuid_as_in_heat() -> None:
    # item 10: Heat 27's NoneResource sets a uuid4 as its physical id; plugsim gave none-<name>
    heat = _diff.run_heat([NONE_CASE])["none_id"]["steps"][0]
    plugsim = _diff.run_plugsim([NONE_CASE])["none_id"]["steps"][0]
    assert UUID.match(heat["outputs"]["id"]["value"])
    assert UUID.match(plugsim["outputs"]["id"]["value"])
    # reproducible: the same world gives the same id
    again = _diff.run_plugsim([NONE_CASE])["none_id"]["steps"][0]
    assert again["outputs"]["id"] == plugsim["outputs"]["id"]
