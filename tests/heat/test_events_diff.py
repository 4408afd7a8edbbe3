"""Resource behaviour, differentially: (resource, action, status) events of Heat's own
OS::Heat::TestResource and OS::Heat::RandomString in real Heat and in plugsim."""

from __future__ import annotations

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

pytestmark = [requires_heat, pytest.mark.material]


def _t(props: dict, kind: str = "OS::Heat::TestResource") -> dict:
    return {
        "heat_template_version": "2016-10-14",
        "resources": {"r": {"type": kind, "properties": props}},
    }


RS = "OS::Heat::RandomString"
SCENARIOS = [
    {
        "name": "test_resource_lifecycle",
        "steps": [
            {"op": "create", "template": _t({"value": "a"})},
            {"op": "update", "template": _t({"value": "b"})},
            {"op": "update", "template": _t({"value": "c", "update_replace": True})},
            {"op": "suspend"},
            {"op": "resume"},
            {"op": "delete"},
        ],
    },
    {
        "name": "test_resource_failed_create",
        "steps": [{"op": "create", "template": _t({"fail": True})}],
    },
    {
        "name": "test_resource_failed_create_rollback",
        "steps": [{"op": "create", "template": _t({"fail": True}), "disable_rollback": False}],
    },
    {
        "name": "test_resource_failed_update_rollback",
        "steps": [
            {"op": "create", "template": _t({"value": "a"})},
            {
                "op": "update",
                "template": _t({"value": "b", "fail": True}),
                "disable_rollback": False,
            },
        ],
    },
    {
        "name": "random_string_lifecycle",
        "steps": [
            {"op": "create", "template": _t({"length": 8}, RS)},
            {"op": "update", "template": _t({"length": 8, "salt": "x"}, RS)},
            {"op": "suspend"},
            {"op": "resume"},
            {"op": "delete"},
        ],
    },
    {
        "name": "random_string_invalid_length",
        "steps": [{"op": "create", "template": _t({"length": 0}, RS)}],
    },
]


@pytest.fixture(scope="module")
def results() -> tuple[dict, dict]:
    return _diff.run_heat(SCENARIOS), _diff.run_plugsim(SCENARIOS)


@pytest.mark.parametrize("scenario", [s["name"] for s in SCENARIOS])
def test_event_sequences_agree(scenario: str, results: tuple[dict, dict]) -> None:
    heat, plugsim = (r[scenario]["steps"] for r in results)
    assert [s["op"] for s in plugsim] == [s["op"] for s in heat]
    for h, p in zip(heat, plugsim, strict=True):
        if "validation_error" in h:
            assert p["validation_error"]["kind"] == h["validation_error"]["kind"]
            assert p["validation_error"]["path"][:2] == ["resources", "r"]
            continue
        assert p["state"] == h["state"], (h, p)
        assert p["events"] == h["events"], (h, p)


def test_replacement_is_recorded_on_the_old_resource(results: tuple[dict, dict]) -> None:
    replace = results[1]["test_resource_lifecycle"]["steps"][2]
    assert replace["events"] == [
        ["r", "UPDATE", "IN_PROGRESS"],
        ["r", "UPDATE", "COMPLETE"],
        ["r", "CREATE", "IN_PROGRESS"],
        ["r", "CREATE", "COMPLETE"],
        ["r", "DELETE", "IN_PROGRESS"],
        ["r", "DELETE", "COMPLETE"],
    ]


def test_outputs_of_heat_plugins_agree(results: tuple[dict, dict]) -> None:
    heat, plugsim = (r["test_resource_lifecycle"]["steps"][0] for r in results)
    assert plugsim["outputs"] == heat["outputs"] == {}
