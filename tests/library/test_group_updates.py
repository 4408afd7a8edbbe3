"""Rolling updates and batch creates of the group types, and member validation on update.

The batches are read from the nested stack's events: which members changed,
in which order, at which virtual instant.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk import exception
from sdk.lint.dynamic import drive_class
from simulator.resources.heat import resource_mapping
from simulator.resources.heat.group import (
    member_names,
    rolling_batches,
    rolling_members,
    rolling_order,
)
from simulator.template.definition import TYPE_HINT
from tests.library.conftest import tmpl


def rg(value, count=5, policy=None, member=None):
    """A template with one ResourceGroup ``g`` of TestResources valued ``<value>-<index>``."""
    group = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": count,
            "resource_def": member
            or {"type": "OS::Heat::TestResource", "properties": {"value": f"{value}-%index%"}},
        },
    }
    if policy is not None:
        group["update_policy"] = policy
    return tmpl({"g": group})


def asg(value, size=4, rolling=None, member=None):
    """A template with one AutoScalingGroup ``asg`` of *size* TestResources valued *value*."""
    props = {
        "min_size": size,
        "max_size": size,
        "resource": member or {"type": "OS::Heat::TestResource", "properties": {"value": value}},
    }
    if rolling is not None:
        props["rolling_updates"] = rolling
    return tmpl({"asg": {"type": "OS::Heat::AutoScalingGroup", "properties": props}})


def mark(world):
    """Where the stack's event log is now: (virtual time, number of events)."""
    return world.clock.now(), len(world.stack_events("s"))


def nested_events(world, group, since, action=None):
    """``(virtual seconds after since, member, action, status)`` of the group's members.

    Only events after *since* (a :func:`mark`) count.
    """
    t0, seen = since
    child_id = world.get_stack("s").resources[group].resource_id
    child_name = world.get_stack(child_id).name
    return [
        (e.time - t0, e.resource_name, e.action, e.status)
        for e in world.stack_events("s")[seen:]
        if e.stack_id == child_id
        and e.resource_name != child_name
        and (action is None or e.action == action)
    ]


def batches_of(events, status="IN_PROGRESS"):
    """Group member names by the virtual instant their *status* event happened."""
    out: dict[float, list[str]] = {}
    for t, name, _, st_ in events:
        if st_ == status:
            out.setdefault(t, []).append(name)
    return out


def values(world, group="g"):
    child = world.get_stack(world.get_stack("s").resources[group].resource_id)
    return {n: r.properties["value"] for n, r in sorted(child.resources.items())}


ROLL_2_BY_10 = {"rolling_update": {"max_batch_size": 2, "pause_time": 10}}


# --- ResourceGroup: rolling_update ------------------------------------------------


def test_rolling_update_changes_members_in_batches_pause_time_apart(world):
    world.create_stack("s", rg("a", policy=ROLL_2_BY_10))
    t0 = mark(world)
    stack = world.update_stack("s", rg("b", policy=ROLL_2_BY_10))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    events = nested_events(world, "g", t0, "UPDATE")
    assert batches_of(events) == {0.0: ["3", "4"], 10.0: ["1", "2"], 20.0: ["0"]}
    assert batches_of(events, "COMPLETE") == {0.0: ["3", "4"], 10.0: ["1", "2"], 20.0: ["0"]}
    assert values(world) == {str(i): f"b-{i}" for i in range(5)}
    assert world.clock.now() - t0[0] == 20.0


def test_batches_wait_for_slow_members_before_the_pause(world):
    slow = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "b-%index%", "action_wait_secs": {"update": 7}},
    }
    world.create_stack("s", rg("a", count=3, policy=ROLL_2_BY_10))
    t0 = mark(world)
    stack = world.update_stack("s", rg("b", count=3, policy=ROLL_2_BY_10, member=slow))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    events = nested_events(world, "g", t0, "UPDATE")
    assert batches_of(events) == {0.0: ["1", "2"], 17.0: ["0"]}
    assert batches_of(events, "COMPLETE") == {7.0: ["1", "2"], 24.0: ["0"]}


def test_min_in_service_grows_the_group_instead_of_touching_more_members(world):
    policy = {"rolling_update": {"max_batch_size": 1, "min_in_service": 3}}
    world.create_stack("s", rg("a", count=3, policy=policy))
    t0 = mark(world)
    stack = world.update_stack("s", rg("b", count=3, policy=policy))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    changes = [(n, a) for _, n, a, s in nested_events(world, "g", t0) if s == "COMPLETE"]
    # a fourth member (new definition) first, then one old member at a time, then it goes
    assert changes == [
        ("3", "CREATE"),
        ("2", "UPDATE"),
        ("1", "UPDATE"),
        ("0", "UPDATE"),
        ("3", "DELETE"),
    ]
    assert values(world) == {"0": "b-0", "1": "b-1", "2": "b-2"}


def test_rolling_update_with_a_new_count_ends_at_that_count(world):
    world.create_stack("s", rg("a", count=2, policy=ROLL_2_BY_10))
    stack = world.update_stack("s", rg("b", count=5, policy=ROLL_2_BY_10))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert values(world) == {str(i): f"b-{i}" for i in range(5)}
    stack = world.update_stack("s", rg("c", count=1, policy=ROLL_2_BY_10))
    assert values(world) == {"0": "c-0"}


def test_without_a_policy_every_member_changes_in_one_update(world):
    world.create_stack("s", rg("a"))
    t0 = mark(world)
    world.update_stack("s", rg("b"))
    assert batches_of(nested_events(world, "g", t0, "UPDATE")) == {0.0: ["0", "1", "2", "3", "4"]}


def test_count_change_alone_is_no_rolling_update(world):
    world.create_stack("s", rg("a", count=2, policy=ROLL_2_BY_10))
    t0 = mark(world)
    world.update_stack("s", rg("a", count=5, policy=ROLL_2_BY_10))
    assert world.clock.now() == t0[0]
    assert batches_of(nested_events(world, "g", t0, "CREATE")) == {0.0: ["2", "3", "4"]}


def test_the_new_templates_policy_is_the_one_used(world):
    world.create_stack("s", rg("a"))
    t0 = mark(world)
    world.update_stack("s", rg("b", policy={"rolling_update": {"max_batch_size": 3}}))
    # no pause_time: the batches follow each other at once, but they are separate updates
    names = [n for _, n, a, s in nested_events(world, "g", t0, "UPDATE") if s == "IN_PROGRESS"]
    assert names == ["2", "3", "4", "0", "1"]


def test_pauses_longer_than_the_stack_timeout_fail_the_update(world):
    policy = {"rolling_update": {"max_batch_size": 1, "pause_time": 1800}}
    world.create_stack("s", rg("a", count=3, policy=policy))
    stack = world.update_stack("s", rg("b", count=3, policy=policy))
    assert stack.state == "UPDATE_FAILED"
    assert stack.status_reason == (
        "Resource UPDATE failed: PlugsimError: resources.g: The current update policy will "
        "result in stack update timeout."
    )
    assert values(world) == {"0": "a-0", "1": "a-1", "2": "a-2"}


# --- ResourceGroup: batch_create -------------------------------------------------


def test_batch_create_creates_members_in_batches_pause_time_apart(world):
    t0 = (world.clock.now(), 0)
    policy = {"batch_create": {"max_batch_size": 2, "pause_time": 10}}
    stack = world.create_stack("s", rg("a", policy=policy))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert batches_of(nested_events(world, "g", t0, "CREATE"), "COMPLETE") == {
        0.0: ["0", "1"],
        10.0: ["2", "3"],
        20.0: ["4"],
    }
    assert values(world) == {str(i): f"a-{i}" for i in range(5)}


def test_batch_create_of_zero_members_creates_an_empty_nested_stack(world):
    stack = world.create_stack("s", rg("a", count=0, policy={"batch_create": {}}))
    assert stack.state == "CREATE_COMPLETE"
    assert values(world) == {}


# --- bad policies -----------------------------------------------------------------

BAD_POLICIES = [
    (
        {"rolling_update": {"max_batch_size": -1}},
        "resources.g.update_policy.rolling_update.max_batch_size: -1 is less than the minimum 1",
    ),
    (
        {"rolling_update": {"max_batch_size": 0}},
        "resources.g.update_policy.rolling_update.max_batch_size: 0 is less than the minimum 1",
    ),
    (
        {"rolling_update": {"min_in_service": -2}},
        "resources.g.update_policy.rolling_update.min_in_service: -2 is less than the minimum 0",
    ),
    (
        {"batch_create": {"pause_time": -0.5}},
        "resources.g.update_policy.batch_create.pause_time: -0.5 is less than the minimum 0",
    ),
    (
        {"rolling_update": {"max_batch": 2}},
        "resources.g.update_policy.rolling_update: Unknown Property max_batch",
    ),
    ({"rolling_updates": {}}, "resources.g.update_policy: Unknown Property rolling_updates"),
    (
        {"batch_create": {"min_in_service": 1}},
        "resources.g.update_policy.batch_create: Unknown Property min_in_service",
    ),
    (
        {"rolling_update": {"pause_time": "soon"}},
        "resources.g.update_policy.rolling_update.pause_time: 'soon' is not a valid Number",
    ),
    (
        {"rolling_update": "fast"},
        "resources.g.update_policy.rolling_update: 'fast' is not a valid Map (got a str)",
    ),
]


@pytest.mark.parametrize(("policy", "message"), BAD_POLICIES)
def test_bad_policies_are_refused_at_create_naming_the_key(world, policy, message):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", rg("a", policy=policy))
    assert str(refused.value) == message


@pytest.mark.parametrize(("policy", "message"), BAD_POLICIES[:3])
def test_bad_policies_are_refused_at_update_before_anything_is_touched(world, policy, message):
    world.create_stack("s", rg("a"))
    before = len(world.stack_events("s"))
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.update_stack("s", rg("b", policy=policy))
    assert str(refused.value) == message
    assert len(world.stack_events("s")) == before
    assert world.get_stack("s").state == "CREATE_COMPLETE"


@settings(max_examples=25, deadline=None)
@given(
    key=st.sampled_from(["min_in_service", "max_batch_size", "pause_time"]),
    value=st.integers(max_value=-1),
)
def test_any_negative_rolling_number_is_refused(key, value):
    from simulator.world import World

    minimum = 1 if key == "max_batch_size" else 0
    with World() as w, pytest.raises(exception.StackValidationFailed) as refused:
        w.create_stack("s", rg("a", policy={"rolling_update": {key: value}}))
    assert str(refused.value) == (
        f"resources.g.update_policy.rolling_update.{key}: {value} is less than the minimum "
        f"{minimum}"
    )


# --- AutoScalingGroup: rolling_updates ---------------------------------------------


def test_asg_rolling_updates_change_the_oldest_members_first_in_batches(world):
    rolling = {"max_batch_size": 2, "pause_time": 10}
    world.create_stack("s", asg("a", rolling=rolling))
    t0 = mark(world)
    stack = world.update_stack("s", asg("b", rolling=rolling))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert batches_of(nested_events(world, "asg", t0, "UPDATE")) == {
        0.0: ["0", "1"],
        10.0: ["2", "3"],
    }
    assert values(world, "asg") == {"0": "b", "1": "b", "2": "b", "3": "b"}


def test_asg_without_rolling_updates_changes_one_member_at_a_time(world):
    slow = {"type": "OS::Heat::TestResource", "properties": {"value": "b", "wait_secs": 5}}
    world.create_stack("s", asg("a", size=3))
    t0 = mark(world)
    stack = world.update_stack("s", asg("b", size=3, member=slow))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert batches_of(nested_events(world, "asg", t0, "UPDATE")) == {
        0.0: ["0"],
        5.0: ["1"],
        10.0: ["2"],
    }


def test_asg_rolling_update_then_resize(world):
    world.create_stack("s", asg("a", size=2))
    stack = world.update_stack("s", asg("b", size=3, rolling={"max_batch_size": 5}))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert values(world, "asg") == {"0": "b", "1": "b", "2": "b"}


@pytest.mark.parametrize(
    ("rolling", "message"),
    [
        (
            {"max_batch_size": 0},
            "resources.asg.properties.rolling_updates.max_batch_size: 0 is less than the minimum 1",
        ),
        (
            {"min_in_service": -1},
            "resources.asg.properties.rolling_updates.min_in_service: -1 is less than the "
            "minimum 0",
        ),
        ({"batch": 1}, "resources.asg.properties.rolling_updates: Unknown Property batch"),
        (
            {"pause_time": [1]},
            "resources.asg.properties.rolling_updates.pause_time: [1] is not a valid Number",
        ),
    ],
)
def test_asg_bad_rolling_updates_are_refused_naming_the_key(world, rolling, message):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", asg("a", rolling=rolling))
    assert str(refused.value) == message


# --- member validation on update ------------------------------------------------

BAD_MEMBERS = [
    (
        {"type": "OS::Nope"},
        f"type: The Resource Type (OS::Nope) could not be found. {TYPE_HINT}.",
    ),
    (
        {"type": "OS::Heat::TestResource", "properties": {"bogus": 1}},
        "properties: Unknown Property bogus",
    ),
    (
        {"type": "OS::Heat::TestResource", "properties": {"fail": "maybe"}},
        "properties.fail: 'maybe' is not a valid Boolean (use true or false)",
    ),
]


@pytest.mark.parametrize(("member", "problem"), BAD_MEMBERS)
@pytest.mark.parametrize("policy", [None, ROLL_2_BY_10])
def test_invalid_resource_def_on_update_fails_validation_before_anything_is_touched(
    world, member, problem, policy
):
    world.create_stack("s", rg("a", count=3, policy=policy))
    t0 = mark(world)
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.update_stack("s", rg("b", count=3, policy=policy, member=member))
    assert str(refused.value) == f"resources.g.properties.resource_def.{problem}"
    assert world.get_stack("s").state == "CREATE_COMPLETE"
    assert all(e.action == "CREATE" for e in world.store.events())
    assert nested_events(world, "g", t0) == []
    assert values(world) == {"0": "a-0", "1": "a-1", "2": "a-2"}


@pytest.mark.parametrize(("member", "problem"), BAD_MEMBERS)
def test_invalid_resource_def_at_create_fails_validation(world, member, problem):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", rg("a", member=member))
    assert str(refused.value) == f"resources.g.properties.resource_def.{problem}"
    assert world.store.events() == []


@pytest.mark.parametrize(("member", "problem"), BAD_MEMBERS)
def test_invalid_asg_resource_on_update_fails_validation_before_anything_is_touched(
    world, member, problem
):
    world.create_stack("s", asg("a", size=2))
    t0 = mark(world)
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.update_stack("s", asg("b", size=2, member=member))
    assert str(refused.value) == f"resources.asg.properties.resource.{problem}"
    assert world.get_stack("s").state == "CREATE_COMPLETE"
    assert nested_events(world, "asg", t0) == []
    assert values(world, "asg") == {"0": "a", "1": "a"}


# --- the batch arithmetic ---------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    target=st.integers(0, 12),
    current=st.integers(0, 12),
    batch=st.integers(1, 6),
    keep=st.integers(0, 14),
)
def test_resource_group_batches_end_at_target_with_every_member_new(target, current, batch, keep):
    members = {str(i): "old" for i in range(current)}

    def order(now, size):
        return rolling_order(list(now), member_names(size, [], list(now)), target)

    def fresh_names():
        index = 0
        while True:
            if str(index) not in members_now[0]:
                yield str(index)
            index += 1

    members_now = [members]
    fresh = fresh_names()
    for size, changed in rolling_batches(target, current, batch, keep):
        assert changed <= batch
        old = [(n, members_now[0][n]) for n in order(members_now[0], size)]
        untouched = sum(1 for v in members_now[0].values() if v == "old")
        members_now[0] = rolling_members(old, lambda _n: "new", size, changed, fresh)
        assert len(members_now[0]) == size
        left_old = sum(1 for v in members_now[0].values() if v == "old")
        assert left_old <= untouched
        # members not being changed in this batch: never fewer than min_in_service allows
        assert size - changed >= min(keep, target, current)
    assert sorted(members_now[0], key=int) == [str(i) for i in range(target)]
    assert set(members_now[0].values()) <= {"new"}


@settings(max_examples=200, deadline=None)
@given(size=st.integers(0, 12), batch=st.integers(1, 6), keep=st.integers(0, 14))
def test_autoscaling_batches_change_every_member_oldest_first(size, batch, keep):
    members = {str(i): "old" for i in range(size)}
    counter = iter(range(size, 1_000))
    fresh = (str(next(counter)) for _ in iter(int, 1))
    first_changed = []
    for batch_size, changed in rolling_batches(size, size, batch, keep):
        old = [(n, members[n]) for n in sorted(members, key=int)]
        before = dict(members)
        members = rolling_members(old, lambda _n: "new", batch_size, changed, fresh)
        first_changed += [
            n for n in sorted(members, key=int) if before.get(n) == "old" and members[n] == "new"
        ]
        assert batch_size - changed >= min(keep, size)
    assert len(members) == size
    assert set(members.values()) <= {"new"}
    originals = [n for n in first_changed if int(n) < size]
    assert originals == sorted(originals, key=int)


def test_rolling_batches_for_five_members_in_twos():
    assert rolling_batches(5, 5, 2) == [(5, 2), (5, 2), (5, 1)]
    assert rolling_batches(3, 3, 1, 3) == [(4, 1), (4, 1), (4, 1), (4, 1), (3, 0)]
    assert rolling_batches(4, 0, 3) == [(3, 3), (4, 1)]
    assert rolling_batches(0, 0, 1) == []


def test_rolling_batches_refuse_an_empty_batch():
    with pytest.raises(ValueError, match="batch_size must be at least 1, not 0"):
        rolling_batches(3, 3, 0)


# --- what plugsim lint's dynamic rules see ------------------------------------------


def test_scaling_policy_changes_are_visible_in_show_so_no_update_is_ignored():
    run = drive_class("OS::Heat::ScalingPolicy", resource_mapping()["OS::Heat::ScalingPolicy"])
    assert run.skipped is None
    assert run.ignored_updates == []
    assert run.notes == []


def test_autoscaling_group_lint_properties_create_and_every_bound_change_is_visible():
    cls = resource_mapping()["OS::Heat::AutoScalingGroup"]
    assert cls.lint_properties["resource"]["type"] == "OS::Heat::TestResource"
    run = drive_class("OS::Heat::AutoScalingGroup", cls)
    # the probe's generated member definition ({'_': None}) is refused by validation and
    # left unprobed; every bound change shows; rolling_updates governs later updates only
    assert (run.skipped, run.notes) == (None, [])
    assert run.ignored_updates == ["rolling_updates"]
    assert run.unresolved == {}


def test_scaling_policy_show_follows_an_updated_adjustment(world):
    from tests.library.test_groups import scaling

    t = scaling(desired=2)
    world.create_stack("s", t)
    t["resources"]["up"]["properties"]["adjustment_type"] = "exact_capacity"
    t["resources"]["up"]["properties"]["scaling_adjustment"] = 4
    assert world.update_stack("s", t).state == "UPDATE_COMPLETE"
    shown = world.get_stack("s").resources["up"].FnGetAtt("show")
    assert shown["adjustment_type"] == "exact_capacity"
    assert shown["scaling_adjustment"] == 4
    assert world.signal_resource("s", "up")["to"] == 4


def test_members_are_validated_with_the_stacks_environment_and_template_resources(world, tmp_path):
    """A member type the environment maps (an alias, a template resource) validates and runs."""
    (tmp_path / "member.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  label: {type: string}\n"
        "resources:\n  inner: {type: OS::Heat::TestResource, properties: {value: {get_param: label}}}\n"
    )
    env = {
        "resource_registry": {
            "My::Alias": "OS::Heat::TestResource",
            "My::Templated": str(tmp_path / "member.yaml"),
        }
    }
    template = tmpl(
        {
            "a": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {"type": "My::Alias", "properties": {"value": "%index%"}},
                },
            },
            "t": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 1,
                    "resource_def": {"type": "My::Templated", "properties": {"label": "x"}},
                },
            },
        }
    )
    stack = world.create_stack("s", template, [env])
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    bad = tmpl(
        {
            "t": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 1,
                    "resource_def": {"type": "My::Templated", "properties": {"nope": "x"}},
                },
            }
        }
    )
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.update_stack("s", bad, [env])
    assert "resources.t.properties.resource_def" in str(refused.value)
    assert "nope" in str(refused.value)
