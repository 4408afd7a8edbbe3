"""Heat's own nested-stack types run unmodified on plugsim's nested stacks.

Each test loads the unmodified Heat 27 module (``ResourceGroup``,
``ResourceChain``) through the compat layer, creates a stack on the default
world, checks the nested stack (its resources, the group's attributes),
updates it and deletes it, checking that no nested stack and no cloud object
is left behind.
"""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.store import Store
from simulator.world import World

HEAT = "heat.engine.resources.openstack.heat."


def _world(*modules: str) -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5, entry_points=True)
    assert not use_heat_plugins(world, *(HEAT + m for m in modules)).errors
    world.baseline = world.cloud.snapshot_inventory()  # type: ignore[attr-defined]
    return world


def _template(resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    tmpl: dict[str, Any] = {"heat_template_version": "2018-08-31", "resources": resources}
    if outputs:
        tmpl["outputs"] = {k: {"value": v} for k, v in outputs.items()}
    return tmpl


def _outputs(stack: Any) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in stack.outputs()}


def _nested(world: World, stack: Any, name: str) -> Any:
    return world.get_stack(str(stack.resources[name].resource_id))


def _live_stacks(world: World) -> list[str]:
    records = world.store.list_stacks(nested=True)
    return sorted(f"{r.name}:{r.action}_{r.status}" for r in records)


def _group(count: int, **extra: Any) -> dict[str, Any]:
    return {
        "g": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": count,
                "resource_def": {
                    "type": "OS::Cinder::Volume",
                    "properties": {"size": 1, "name": "vol-%index%"},
                },
                **extra,
            },
        }
    }


GROUP_OUTPUTS = {
    "refs": {"get_attr": ["g", "refs"]},
    "refs_map": {"get_attr": ["g", "refs_map"]},
    "names": {"get_attr": ["g", "display_name"]},
    "by_member": {"get_attr": ["g", "attributes", "display_name"]},
    "first": {"get_attr": ["g", "resource.0"]},
    "first_name": {"get_attr": ["g", "resource.0.display_name"]},
    "removed": {"get_attr": ["g", "removed_rsrc_list"]},
}


@requires_heat
def test_heats_resource_group_creates_resizes_and_deletes_its_members() -> None:
    world = _world("resource_group")
    stack = world.create_stack("s", _template(_group(2), GROUP_OUTPUTS))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "g")
    assert list(nested.resources) == ["0", "1"]
    assert {r.state for r in nested.resources.values()} == {("CREATE", "COMPLETE")}
    ids = [nested.resources[n].resource_id for n in ("0", "1")]
    out = _outputs(stack)
    assert out["refs"] == ids
    assert out["refs_map"] == {"0": ids[0], "1": ids[1]}
    assert out["names"] == ["vol-0", "vol-1"]
    assert out["by_member"] == {"0": "vol-0", "1": "vol-1"}
    assert (out["first"], out["first_name"]) == (ids[0], "vol-0")
    assert out["removed"] == []
    volumes = world.client_plugin("cinder").client().volumes
    assert sorted(v.name for v in volumes.list()) == ["vol-0", "vol-1"]

    stack = world.update_stack("s", _template(_group(3), GROUP_OUTPUTS))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "g")
    assert list(nested.resources) == ["0", "1", "2"]
    assert _outputs(stack)["refs"][:2] == ids  # the first two are kept, not replaced
    assert nested.state == "UPDATE_COMPLETE"

    stack = world.update_stack("s", _template(_group(1), GROUP_OUTPUTS))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert list(_nested(world, stack, "g").resources) == ["0"]
    assert sorted(v.name for v in volumes.list()) == ["vol-0"]

    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert _live_stacks(world) == []
    assert world.cloud.leaks(world.baseline) == []


@requires_heat
def test_heats_resource_group_removal_policies_skip_the_removed_names() -> None:
    world = _world("resource_group")
    stack = world.create_stack("s", _template(_group(3), GROUP_OUTPUTS))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    policy = {"removal_policies": [{"resource_list": ["1"]}]}
    stack = world.update_stack("s", _template(_group(3, **policy), GROUP_OUTPUTS))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    # "1" is removed and never reused: the third member is named "3"
    assert list(_nested(world, stack, "g").resources) == ["0", "2", "3"]
    assert _outputs(stack)["removed"] == ["1"]
    assert stack.resources["g"].data()["name_blacklist"] == "1"
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert world.cloud.leaks(world.baseline) == []


@requires_heat
def test_heats_resource_group_events_include_its_nested_stack() -> None:
    world = _world("resource_group")
    world.create_stack("s", _template(_group(2)))
    events = [(e.resource_name, e.action, e.status) for e in world.stack_events("s")]
    assert ("g", "CREATE", "IN_PROGRESS") in events
    assert events.index(("0", "CREATE", "COMPLETE")) < events.index(("g", "CREATE", "COMPLETE"))
    assert ("1", "CREATE", "COMPLETE") in events


@requires_heat
def test_heats_resource_group_of_zero_then_a_failing_member_fails_the_group() -> None:
    world = _world("resource_group")
    stack = world.create_stack("s", _template(_group(0)))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert list(_nested(world, stack, "g").resources) == []
    failing = {
        "g": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"fail": True},
                },
            },
        }
    }
    world = _world("resource_group", "test_resource")
    stack = world.create_stack("f", _template(failing), disable_rollback=True)
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["g"].state == ("CREATE", "FAILED")
    assert "Test Resource failed" in stack.resources["g"].status_reason
    stack = world.delete_stack("f")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert _live_stacks(world) == []


@requires_heat
def test_heats_resource_group_suspends_and_resumes_its_members() -> None:
    world = _world("resource_group")
    world.create_stack("s", _template(_group(2)))
    stack = world.suspend_stack("s")
    assert stack.state == "SUSPEND_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "g")
    assert {r.state for r in nested.resources.values()} == {("SUSPEND", "COMPLETE")}
    stack = world.resume_stack("s")
    assert stack.state == "RESUME_COMPLETE", stack.status_reason
    assert {r.state for r in _nested(world, stack, "g").resources.values()} == {
        ("RESUME", "COMPLETE")
    }


@requires_heat
def test_heats_resource_group_rejects_an_invalid_member_at_validation() -> None:
    from sdk import exception

    world = _world("resource_group")
    bad = {
        "g": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 1,
                "resource_def": {"type": "OS::Cinder::Volume", "properties": {"size": "big"}},
            },
        }
    }
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack("s", _template(bad))
    assert "size" in str(info.value)
    assert _live_stacks(world) == []


CHAIN_OUTPUTS = {
    "refs": {"get_attr": ["c", "refs"]},
    "values": {"get_attr": ["c", "value"]},
    "second": {"get_attr": ["c", "resource.1"]},
}


def _chain(types: list[str], concurrent: bool = False) -> dict[str, Any]:
    return {
        "c": {
            "type": "OS::Heat::ResourceChain",
            "properties": {
                "resources": types,
                "concurrent": concurrent,
                "resource_properties": {"length": 6},
            },
        }
    }


@requires_heat
def test_heats_resource_chain_creates_its_members_one_after_another() -> None:
    world = _world("resource_chain")
    types = ["OS::Heat::RandomString", "OS::Heat::RandomString"]
    stack = world.create_stack("s", _template(_chain(types), CHAIN_OUTPUTS))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "c")
    assert list(nested.resources) == ["0", "1"]
    assert nested.resources["1"].t.depends_on == ("0",)
    out = _outputs(stack)
    values = [nested.resources[n].FnGetAtt("value") for n in ("0", "1")]
    assert out["values"] == values and all(len(v) == 6 for v in values)
    refs = [nested.resources[n].get_reference_id() for n in ("0", "1")]
    assert out["refs"] == refs == values  # a RandomString's reference is its value
    assert out["second"] == refs[1]
    events = [(e.resource_name, e.action, e.status) for e in world.stack_events("s")]
    assert events.index(("0", "CREATE", "COMPLETE")) < events.index(("1", "CREATE", "IN_PROGRESS"))

    stack = world.update_stack("s", _template(_chain([*types, "OS::Heat::None"])))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "c")
    assert list(nested.resources) == ["0", "1", "2"]
    assert nested.resources["2"].t.depends_on == ("1",)
    assert [nested.resources[n].FnGetAtt("value") for n in ("0", "1")] == values  # kept
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert _live_stacks(world) == []


@requires_heat
def test_heats_resource_chain_concurrent_members_need_no_order_and_replace_the_chain() -> None:
    world = _world("resource_chain")
    types = ["OS::Heat::None"] * 5
    stack = world.create_stack("s", _template(_chain(types, concurrent=True)))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "c")
    # only Heat's engine-service count (4 workers) bounds the concurrency
    assert [nested.resources[n].t.depends_on for n in nested.resources] == [(), (), (), (), ("0",)]
    old_id = stack.resources["c"].resource_id
    stack = world.update_stack("s", _template(_chain(types, concurrent=False)))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["c"].resource_id != old_id  # concurrent is not update_allowed
    assert _live_stacks(world) == ["s-c:CREATE_COMPLETE", "s:UPDATE_COMPLETE"]
    world.delete_stack("s")
    assert _live_stacks(world) == []


def _scaling(desired: int, length: int = 8, **extra: Any) -> dict[str, Any]:
    return {
        "a": {
            "type": "OS::Heat::AutoScalingGroup",
            "properties": {
                "min_size": 0,
                "max_size": 5,
                "desired_capacity": desired,
                "resource": {"type": "OS::Heat::RandomString", "properties": {"length": length}},
                **extra,
            },
        }
    }


SCALING_OUTPUTS = {
    "refs": {"get_attr": ["a", "refs"]},
    "size": {"get_attr": ["a", "current_size"]},
    "values": {"get_attr": ["a", "outputs_list", "value"]},
    "by_member": {"get_attr": ["a", "outputs", "value"]},
    "first": {"get_attr": ["a", "resource.0"]},
}


@requires_heat
def test_heats_autoscaling_group_scales_replaces_in_batches_and_deletes() -> None:
    world = _world("autoscaling_group")
    stack = world.create_stack("s", _template(_scaling(2), SCALING_OUTPUTS))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "a")
    names = list(nested.resources)
    assert len(names) == 2 and all(len(n) == 12 for n in names)  # Heat's short ids
    out = _outputs(stack)
    values = [nested.resources[n].FnGetAtt("value") for n in names]
    assert out["size"] == 2
    assert out["refs"] == out["values"] == values and out["first"] == values[0]
    assert out["by_member"] == dict(zip(names, values, strict=True))

    stack = world.update_stack("s", _template(_scaling(3), SCALING_OUTPUTS))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    nested = _nested(world, stack, "a")
    assert len(nested.resources) == 3 and list(nested.resources)[:2] == names
    assert _outputs(stack)["refs"][:2] == values and _outputs(stack)["size"] == 3

    before = len(world.stack_events("s"))
    stack = world.update_stack("s", _template(_scaling(3, length=10), SCALING_OUTPUTS))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    refs = _outputs(stack)["refs"]
    assert len(refs) == 3 and all(len(v) == 10 for v in refs)
    # rolling update, one member per batch (max_batch_size 1): three nested updates,
    # then Heat's resize to the desired capacity (a fourth, with nothing to change)
    nested_updates = [
        e
        for e in world.stack_events("s")[before:]
        if e.resource_name == "s-a" and (e.action, e.status) == ("UPDATE", "COMPLETE")
    ]
    assert len(nested_updates) == 4
    created = [
        e.resource_name
        for e in world.stack_events("s")[before:]
        if e.stack_name == "s-a"
        and e.resource_name != "s-a"
        and e.action == "CREATE"
        and e.status == "COMPLETE"
    ]
    assert len(created) == 3 and len(set(created)) == 3  # each member replaced once

    stack = world.update_stack("s", _template(_scaling(1, length=10), SCALING_OUTPUTS))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert len(_nested(world, stack, "a").resources) == 1
    assert _outputs(stack)["refs"] == [refs[-1]]  # the oldest members go first
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert _live_stacks(world) == []


@requires_heat
def test_heats_autoscaling_group_runs_the_same_for_the_same_seed() -> None:
    def run() -> list[Any]:
        world = _world("autoscaling_group")
        world.create_stack("s", _template(_scaling(2), SCALING_OUTPUTS))
        stack = world.update_stack("s", _template(_scaling(3), SCALING_OUTPUTS))
        return [list(_nested(world, stack, "a").resources), _outputs(stack)["refs"]]

    assert run() == run()


@requires_heat
def test_heats_instance_group_without_its_launch_configuration_is_a_validation_error() -> None:
    from sdk import exception

    world = _world("instance_group")
    group = {
        "ig": {
            "type": "OS::Heat::InstanceGroup",
            "properties": {
                "AvailabilityZones": ["nova"],
                "LaunchConfigurationName": "lc",
                "Size": 1,
            },
        }
    }
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack("s", _template(group))
    # Heat's own check: the name must be a resource of the stack
    assert "LaunchConfigurationName (lc) reference can not be found" in str(info.value)


@requires_heat
def test_heats_resource_group_batches_and_pauses_on_the_virtual_clock() -> None:
    world = _world("resource_group")

    def group(value: str) -> dict[str, Any]:
        return {
            "g": {
                "type": "OS::Heat::ResourceGroup",
                "update_policy": {
                    "batch_create": {"max_batch_size": 2, "pause_time": 30},
                    "rolling_update": {"max_batch_size": 1, "pause_time": 60},
                },
                "properties": {
                    "count": 3,
                    "resource_def": {"type": "OS::Heat::Value", "properties": {"value": value}},
                },
            }
        }

    stack = world.create_stack("s", _template(group("a")))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    created = [
        (e.time, e.resource_name)
        for e in world.stack_events("s")
        if e.stack_name == "s-g" and e.resource_name != "s-g"
        if (e.action, e.status) == ("CREATE", "COMPLETE")
    ]
    # two batches (2 then 1 member), 30 virtual seconds apart at least
    assert sorted(n for _, n in created) == ["0", "1", "2"]
    assert created[2][0] - created[1][0] >= 30

    before = len(world.stack_events("s"))
    stack = world.update_stack("s", _template(group("b")))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    updated = [
        (e.time, e.resource_name)
        for e in world.stack_events("s")[before:]
        if e.stack_name == "s-g" and e.resource_name != "s-g"
        if (e.action, e.status) == ("UPDATE", "COMPLETE")
    ]
    # one member per batch, the highest index first, 60 virtual seconds between batches
    assert [n for _, n in updated] == ["2", "1", "0"]
    assert all(b[0] - a[0] >= 60 for a, b in zip(updated, updated[1:], strict=False))
    nested = _nested(world, stack, "g")
    assert {r.FnGetAtt("value") for r in nested.resources.values()} == {"b"}


def _slow_member(wait: int) -> dict[str, Any]:
    return {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "x", "action_wait_secs": {"create": wait}},
    }


@requires_heat
def test_heats_resource_group_timing_out_stops_its_nested_stack() -> None:
    world = _world("resource_group", "test_resource")
    group = {"g": {"type": "OS::Heat::ResourceGroup", "properties": {"count": 2}}}
    group["g"]["properties"]["resource_def"] = _slow_member(7200)
    stack = world.create_stack("s", _template(group), timeout_mins=1)
    assert (stack.state, stack.status_reason) == ("CREATE_FAILED", "Create timed out")
    # the child was cancelled and failed before the group did, not left running
    assert _live_stacks(world) == ["s-g:CREATE_FAILED", "s:CREATE_FAILED"]
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert _live_stacks(world) == []


@requires_heat
def test_heats_autoscaling_group_timing_out_while_resizing_leaves_no_helper_thread() -> None:
    import threading

    world = _world("autoscaling_group", "test_resource")

    def scaling(desired: int, wait: int) -> dict[str, Any]:
        group = _scaling(desired)
        group["a"]["properties"]["resource"] = _slow_member(wait)
        return _template(group)

    assert world.create_stack("s", scaling(1, 0)).state == "CREATE_COMPLETE"
    # the resize waits inside handle_update (Heat's TaskRunner(...)()) when the update times out
    stack = world.update_stack("s", scaling(3, 7200), timeout_mins=2)
    assert (stack.state, stack.status_reason) == ("UPDATE_FAILED", "Update timed out")
    assert "s-a:UPDATE_FAILED" in _live_stacks(world)
    assert not [t for t in threading.enumerate() if t.name == "plugsim-heat-handler"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _live_stacks(world) == []


@requires_heat
def test_heats_resource_group_abandoned_then_adopted_keeps_its_members() -> None:
    world = _world("resource_group")
    stack = world.create_stack("s", _template(_group(2), GROUP_OUTPUTS))
    child_id = stack.resources["g"].resource_id
    volume_ids = _outputs(stack)["refs"]
    data = world.abandon_stack("s")
    adopted = world.adopt_stack("s2", data)
    assert adopted.state == "ADOPT_COMPLETE", adopted.status_reason
    assert adopted.resources["g"].resource_id == child_id  # the child abandon left in place
    assert _outputs(adopted)["refs"] == volume_ids
    assert world.delete_stack("s2").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


@requires_heat
def test_heats_resource_group_adopting_a_missing_nested_stack_says_so() -> None:
    world = _world("resource_group")
    assert world.create_stack("s", _template(_group(1))).state == "CREATE_COMPLETE"
    data = world.abandon_stack("s")
    data["resources"]["g"]["resource_id"] = "no-such-stack"
    adopted = world.adopt_stack("s2", data)
    assert adopted.state == "ADOPT_FAILED"
    assert "nested stack 'no-such-stack' is not in this world" in adopted.status_reason


NEEDS_PREVIEW = """
from heat.engine.resources import stack_resource


class Previewing(stack_resource.StackResource):
    def child_template(self):
        return {"heat_template_version": "2015-04-30", "resources": {}}

    def child_params(self):
        return {}

    def check_create_complete(self, cookie=None):
        done = super().check_create_complete(cookie)
        return done and bool(self.nested().preview_resources())


def resource_mapping():
    return {"Test::Heat::Previewing": Previewing}
"""


@requires_heat
def test_a_stack_resource_reading_what_plugsim_lacks_fails_in_one_line(tmp_path) -> None:
    from simulator.heat_compat import use_heat_plugins

    plugin = tmp_path / "previewing.py"
    plugin.write_text(NEEDS_PREVIEW)
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, plugin).errors
    stack = world.create_stack("s", _template({"p": {"type": "Test::Heat::Previewing"}}))
    assert stack.state == "CREATE_FAILED"
    reason = stack.resources["p"].status_reason
    assert f"{plugin}:14: heat.engine.stack.Stack.preview_resources is not provided" in reason
    assert "\n" not in reason
