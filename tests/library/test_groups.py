"""OS::Heat::ResourceGroup driven through the engine: nested stack, %index%, scaling, removal."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk import exception
from simulator.resources.heat.group import member_names, substitute_index
from simulator.world import World
from tests.library.conftest import outputs, tmpl


def group(count, **extra):
    props = {
        "count": count,
        "resource_def": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "member-%index%"},
        },
        **extra,
    }
    return tmpl(
        {"g": {"type": "OS::Heat::ResourceGroup", "properties": props}},
        outputs={
            "refs": {"value": {"get_attr": ["g", "refs"]}},
            "values": {"value": {"get_attr": ["g", "output"]}},
            "first": {"value": {"get_attr": ["g", "resource.0.output"]}},
            "by_path": {"value": {"get_attr": ["g", "resource.1", "output"]}},
            "attrs": {"value": {"get_attr": ["g", "attributes", "output"]}},
            "removed": {"value": {"get_attr": ["g", "removed_rsrc_list"]}},
        },
    )


def members(world, name="s"):
    child = world.get_stack(world.get_stack(name).resources["g"].resource_id)
    return {n: (r.state, r.properties["value"]) for n, r in child.resources.items()}


def test_group_creates_count_members_in_a_nested_stack_with_index_substituted(world):
    stack = world.create_stack("s", group(3))
    assert stack.state == "CREATE_COMPLETE"
    assert members(world) == {
        "0": ("CREATE_COMPLETE", "member-0"),
        "1": ("CREATE_COMPLETE", "member-1"),
        "2": ("CREATE_COMPLETE", "member-2"),
    }
    out = outputs(stack)
    assert out["values"] == ["member-0", "member-1", "member-2"]
    assert out["first"] == "member-0"
    assert out["by_path"] == "member-1"
    assert out["attrs"] == {"0": "member-0", "1": "member-1", "2": "member-2"}
    assert out["removed"] == []
    assert len(out["refs"]) == 3
    child_id = stack.resources["g"].resource_id
    nested_events = [
        (e.resource_name, e.state) for e in world.stack_events("s") if e.stack_id == child_id
    ]
    assert ("1", "CREATE_COMPLETE") in nested_events


def test_scaling_up_then_down_keeps_the_lowest_members_and_deletes_the_highest(world):
    world.create_stack("s", group(2))
    stack = world.update_stack("s", group(4))
    assert stack.state == "UPDATE_COMPLETE"
    assert sorted(members(world)) == ["0", "1", "2", "3"]
    stack = world.update_stack("s", group(1))
    assert stack.state == "UPDATE_COMPLETE"
    assert members(world) == {"0": ("CREATE_COMPLETE", "member-0")}
    assert outputs(stack)["values"] == ["member-0"]


def test_removal_policies_remove_named_members_and_never_reuse_their_names(world):
    world.create_stack("s", group(3))
    stack = world.update_stack("s", group(3, removal_policies=[{"resource_list": ["1"]}]))
    assert stack.state == "UPDATE_COMPLETE"
    assert sorted(members(world)) == ["0", "2", "3"]
    assert outputs(stack)["removed"] == ["1"]
    stack = world.update_stack("s", group(2, removal_policies=[{"resource_list": ["1"]}]))
    assert sorted(members(world)) == ["0", "2"]


def test_count_zero_and_group_delete_leave_nothing_behind(world):
    stack = world.create_stack("s", group(0))
    assert stack.state == "CREATE_COMPLETE"
    assert members(world) == {}
    assert outputs(stack)["values"] == []
    child_id = stack.resources["g"].resource_id
    world.delete_stack("s")
    assert world.get_stack("s", deleted_ok=True).state == "DELETE_COMPLETE"
    with pytest.raises(exception.EntityNotFound):
        world.get_stack(child_id)


def test_negative_count_is_refused_naming_the_property(world):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", group(-1))
    assert "resources.g.properties.count" in str(refused.value)
    assert "-1 is less than the minimum 0" in str(refused.value)


def test_resource_def_without_a_type_is_refused(world):
    t = tmpl({"g": {"type": "OS::Heat::ResourceGroup", "properties": {"resource_def": {}}}})
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert "resource_def" in str(refused.value)


def test_unknown_member_index_is_an_attribute_error(world):
    stack = world.create_stack("s", group(1))
    with pytest.raises(exception.InvalidTemplateAttribute):
        stack.resources["g"].FnGetAtt("resource.7")


def test_group_of_servers_creates_and_deletes_with_no_leak(world):
    t = tmpl(
        {
            "g": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {
                        "type": "OS::Nova::Server",
                        "properties": {
                            "name": "web-%index%",
                            "image": "cirros",
                            "flavor": "m1.tiny",
                        },
                    },
                },
            }
        },
        outputs={"names": {"value": {"get_attr": ["g", "name"]}}},
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert outputs(stack)["names"] == ["web-0", "web-1"]
    assert sorted(i.name for i in world.cloud.leaks(world.baseline)) == ["web-0", "web-1"]
    t["resources"]["g"]["properties"]["count"] = 3
    assert world.update_stack("s", t).state == "UPDATE_COMPLETE"
    assert len(world.cloud.leaks(world.baseline)) == 3
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_group_survives_reopening_the_world(tmp_path):
    path = tmp_path / "w.db"
    with World.open(path) as w:
        w.create_stack("s", group(2))
    with World.open(path) as w:
        assert outputs(w.get_stack("s"))["values"] == ["member-0", "member-1"]
        assert w.update_stack("s", group(3)).state == "UPDATE_COMPLETE"
        assert outputs(w.get_stack("s"))["values"] == ["member-0", "member-1", "member-2"]
        assert w.delete_stack("s").state == "DELETE_COMPLETE"


def test_group_runs_are_deterministic():
    def run():
        with World() as w:
            w.create_stack("s", group(3))
            w.update_stack("s", group(1))
            return [(e.time, e.stack_id, e.resource_name, e.state) for e in w.stack_events("s")]

    assert run() == run()


@settings(max_examples=50, deadline=None)
@given(
    count=st.integers(0, 12),
    removed=st.lists(st.integers(0, 15).map(str), max_size=6, unique=True),
)
def test_member_names_are_count_lowest_free_indices(count, removed):
    names = member_names(count, removed)
    assert len(names) == count
    assert not set(names) & set(removed)
    free = [str(i) for i in range(40) if str(i) not in removed]
    assert names == free[:count]


@given(st.recursive(st.text(max_size=8), lambda c: st.lists(c, max_size=3), max_leaves=8))
def test_substitute_index_replaces_every_occurrence(value):
    out = substitute_index(value, "%index%", "4")
    assert "%index%" not in repr(out)


# --- OS::Heat::AutoScalingGroup + OS::Heat::ScalingPolicy ---------------------------


def scaling(min_size=1, max_size=4, desired=None, cooldown=None, server=False):
    member = (
        {"type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.tiny"}}
        if server
        else {"type": "OS::Heat::TestResource", "properties": {"value": "m"}}
    )
    group_props = {"min_size": min_size, "max_size": max_size, "resource": member}
    if desired is not None:
        group_props["desired_capacity"] = desired
    up = {
        "auto_scaling_group_id": {"get_resource": "asg"},
        "adjustment_type": "change_in_capacity",
        "scaling_adjustment": 1,
    }
    if cooldown is not None:
        up["cooldown"] = cooldown
    return tmpl(
        {
            "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": group_props},
            "up": {"type": "OS::Heat::ScalingPolicy", "properties": up},
            "down": {
                "type": "OS::Heat::ScalingPolicy",
                "properties": {
                    "auto_scaling_group_id": {"get_resource": "asg"},
                    "adjustment_type": "percent_change_in_capacity",
                    "scaling_adjustment": -50,
                },
            },
        },
        outputs={
            "size": {"value": {"get_attr": ["asg", "current_size"]}},
            "values": {"value": {"get_attr": ["asg", "outputs_list", "output"]}},
            "url": {"value": {"get_attr": ["up", "signal_url"]}},
        },
    )


def asg_names(world):
    child = world.get_stack(world.get_stack("s").resources["asg"].resource_id)
    return list(child.resources)


def test_autoscaling_group_starts_at_desired_capacity_and_scales_on_signals(world):
    stack = world.create_stack("s", scaling(desired=2))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert outputs(stack)["size"] == 2
    assert outputs(stack)["values"] == ["m", "m"]
    assert outputs(stack)["url"].startswith("https://orchestration.plugsim.invalid/v1/signal/")
    assert world.signal_resource("s", "up") == {
        "scaled": True,
        "from": 2,
        "to": 3,
        "reason": "scaled",
    }
    assert asg_names(world) == ["0", "1", "2"]
    world.signal_resource("s", "up")
    assert world.signal_resource("s", "up") == {
        "scaled": False,
        "from": 4,
        "to": 4,
        "reason": "at the size limit",
    }
    assert world.signal_resource("s", "down")["to"] == 2
    assert asg_names(world) == ["2", "3"]  # the oldest went first
    assert outputs(world.get_stack("s"))["size"] == 2
    reasons = [e.reason for e in world.stack_events("s") if e.action == "SIGNAL"]
    assert reasons[0] == "Signal: scaled"


def test_scaling_policy_cooldown_ignores_early_signals(world):
    world.create_stack("s", scaling(cooldown=300))
    assert world.signal_resource("s", "up")["to"] == 2
    assert world.signal_resource("s", "up")["reason"] == "cooldown"
    assert asg_names(world) == ["0", "1"]


def test_autoscaling_bounds_are_checked_naming_the_property(world):
    with pytest.raises(exception.StackValidationFailed, match="min_size can not be greater"):
        world.create_stack("s", scaling(min_size=3, max_size=2))
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", scaling(desired=9))
    assert "resources.asg.properties.desired_capacity" in str(refused.value)


def test_autoscaling_update_of_desired_capacity_resizes_and_delete_leaks_nothing(world):
    stack = world.create_stack("s", scaling(server=True))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert len(world.cloud.leaks(world.baseline)) == 1
    stack = world.update_stack("s", scaling(server=True, desired=3))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert len(world.cloud.leaks(world.baseline)) == 3
    world.signal_resource("s", "down")
    assert len(world.cloud.leaks(world.baseline)) == 1
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_scaling_through_the_cli_in_a_stored_world(tmp_path):
    from click.testing import CliRunner

    from simulator.cli import main

    state = str(tmp_path / "w.db")
    with World.open(state) as w:
        w.create_stack("s", scaling())
    result = CliRunner().invoke(main, ["--state", state, "stack", "resource", "signal", "s", "up"])
    assert result.exit_code == 0, result.output
    with World.open(state) as w:
        assert outputs(w.get_stack("s"))["size"] == 2


@given(
    current=st.integers(0, 20),
    adjustment=st.integers(-30, 30),
    kind=st.sampled_from(["change_in_capacity", "exact_capacity", "percent_change_in_capacity"]),
    bounds=st.tuples(st.integers(0, 10), st.integers(0, 10)).map(sorted),
)
def test_new_capacity_always_stays_within_the_bounds(current, adjustment, kind, bounds):
    from simulator.resources.heat.autoscaling import new_capacity

    low, high = bounds
    out = new_capacity(current, adjustment, kind, low, high)
    assert low <= out <= high
    if kind == "percent_change_in_capacity" and adjustment and low < current < high:
        assert out != current  # a percentage change always moves at least one member
