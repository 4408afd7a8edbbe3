"""Heat's nested-stack types, differentially: the same group in Heat's engine and in plugsim.

``ResourceGroup``, ``ResourceChain`` and ``AutoScalingGroup`` run in real Heat
(its legacy engine, through ``tools/heat_diff/heat_runner.py``, whose engine
answers the groups' RPC calls in-process) and in plugsim (Heat's module loaded
through the compat layer, its child stacks plugsim's own nested stacks). Each
lifecycle (create, resize, change the members, delete) must give the same
states, each resource's own ``(action, status)`` sequence (members of the
nested stack included) and the same outputs.
"""

from __future__ import annotations

from typing import Any

import _heat_diff as _diff
import pytest
from _heat_diff import requires_heat

pytestmark = [requires_heat, pytest.mark.material]

HEAT = "heat.engine.resources.openstack.heat."


def _t(kind: str, props: dict, outputs: dict) -> dict:
    return {
        "heat_template_version": "2016-10-14",
        "resources": {"r": {"type": kind, "properties": props}},
        "outputs": {k: {"value": v} for k, v in outputs.items()},
    }


def _lifecycle(name: str, module: str, kind: str, props: list[dict], outputs: dict) -> dict:
    steps: list[dict[str, Any]] = [{"op": "create", "template": _t(kind, props[0], outputs)}]
    steps += [{"op": "update", "template": _t(kind, p, outputs)} for p in props[1:]]
    steps.append({"op": "delete"})
    # each step is a request of its own in Heat: the stack is loaded afresh (``reload``)
    return {"name": name, "heat_plugins": [HEAT + module], "steps": steps, "reload": True}


def _group(count: int, value: str = "v%index%") -> dict:
    return {
        "count": count,
        "resource_def": {"type": "OS::Heat::Value", "properties": {"value": value}},
    }


def _chain(types: list[str]) -> dict:
    return {"resources": types, "resource_properties": {"value": "chained"}}


GROUP_OUTPUTS = {
    "values": {"get_attr": ["r", "value"]},
    "by_member": {"get_attr": ["r", "attributes", "value"]},
    "second": {"get_attr": ["r", "resource.1.value"]},
    "removed": {"get_attr": ["r", "removed_rsrc_list"]},
}

CHAIN_OUTPUTS = {
    "values": {"get_attr": ["r", "value"]},
    "by_member": {"get_attr": ["r", "attributes", "value"]},
    "first": {"get_attr": ["r", "resource.0.value"]},
}

SCENARIOS = [
    _lifecycle(
        "ResourceGroup grows, shrinks and changes its members",
        "resource_group",
        "OS::Heat::ResourceGroup",
        [_group(2), _group(3), _group(3, "w%index%"), _group(1, "w%index%")],
        GROUP_OUTPUTS,
    ),
    _lifecycle(
        "ResourceGroup removes a named member",
        "resource_group",
        "OS::Heat::ResourceGroup",
        [_group(3), {**_group(3), "removal_policies": [{"resource_list": ["1"]}]}],
        {"values": {"get_attr": ["r", "value"]}, "removed": GROUP_OUTPUTS["removed"]},
    ),
    _lifecycle(
        "ResourceGroup of none",
        "resource_group",
        "OS::Heat::ResourceGroup",
        [_group(0), _group(2)],
        {"values": {"get_attr": ["r", "value"]}},
    ),
    _lifecycle(
        "ResourceChain grows and shrinks",
        "resource_chain",
        "OS::Heat::ResourceChain",
        [
            _chain(["OS::Heat::Value", "OS::Heat::Value"]),
            _chain(["OS::Heat::Value", "OS::Heat::Value", "OS::Heat::Value"]),
            _chain(["OS::Heat::Value"]),
        ],
        CHAIN_OUTPUTS,
    ),
]


@pytest.fixture(scope="module")
def results() -> tuple[dict, dict]:
    # one Heat process per scenario: Heat's in-memory database reuses the ids of deleted
    # rows, so a group's removed-names list could leak into the next scenario's group
    heat: dict[str, Any] = {}
    for scenario in SCENARIOS:
        heat.update(_diff.run_heat([scenario]))
    return heat, _diff.run_plugsim(SCENARIOS)


def _outputs(step: dict) -> dict | None:
    """The outputs, an error reduced to its message (Heat's runner adds kind and path)."""
    if "outputs" not in step:
        return None
    return {
        key: {"error": out["error"]["message"]} if "error" in out else out
        for key, out in step["outputs"].items()
    }


def _by_resource(events: list[list[str]]) -> dict[str, list[tuple[str, str]]]:
    """Each resource's ``(action, status)`` sequence, in order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for name, action, status in events:
        out.setdefault(name, []).append((action, status))
    return out


@pytest.mark.parametrize("scenario", [s["name"] for s in SCENARIOS])
def test_group_lifecycles_agree(scenario: str, results: tuple[dict, dict]) -> None:
    heat, plugsim = (r[scenario]["steps"] for r in results)
    assert [s["op"] for s in plugsim] == [s["op"] for s in heat]
    for h, p in zip(heat, plugsim, strict=True):
        assert "validation_error" not in h and "validation_error" not in p, (h, p)
        assert p["state"] == h["state"], (h, p)
        # the members of the nested stack run concurrently: each one's own sequence
        assert _by_resource(p["events"]) == _by_resource(h["events"]), (h["op"], h, p)
        assert _outputs(p) == _outputs(h), (h["op"], h, p)


def _scaling(desired: int, value: str = "v") -> dict:
    return {
        "min_size": 0,
        "max_size": 4,
        "desired_capacity": desired,
        "resource": {"type": "OS::Heat::Value", "properties": {"value": value}},
    }


SCALING = _lifecycle(
    "AutoScalingGroup scales and replaces its members in batches",
    "autoscaling_group",
    "OS::Heat::AutoScalingGroup",
    [_scaling(2), _scaling(3), _scaling(3, "w"), _scaling(1, "w")],
    {
        "size": {"get_attr": ["r", "current_size"]},
        "values": {"get_attr": ["r", "outputs_list", "value"]},
    },
)


@pytest.fixture(scope="module")
def scaling_results() -> tuple[dict, dict]:
    return _diff.run_heat([SCALING]), _diff.run_plugsim([SCALING])


def test_autoscaling_group_lifecycle_agrees(scaling_results: tuple[dict, dict]) -> None:
    """Heat names members with random short ids: members are compared without their names."""
    heat, plugsim = (r[SCALING["name"]]["steps"] for r in scaling_results)
    assert [s["op"] for s in plugsim] == [s["op"] for s in heat]
    for h, p in zip(heat, plugsim, strict=True):
        assert "validation_error" not in h and "validation_error" not in p, (h, p)
        assert p["state"] == h["state"], (h, p)
        h_seq, p_seq = _by_resource(h["events"]), _by_resource(p["events"])
        assert p_seq.pop("r", None) == h_seq.pop("r", None), (h["op"], h, p)
        assert sorted(p_seq.values()) == sorted(h_seq.values()), (h["op"], h, p)
        assert (_outputs(p) or {}).get("size") == (_outputs(h) or {}).get("size"), (h, p)
        values = [sorted(s["outputs"]["values"]["value"]) for s in (h, p) if "outputs" in s]
        assert values == [] or values[0] == values[1], (h["op"], h, p)
