"""OS::Heat::Value, RandomString, Delay and TestResource driven through the engine."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk import exception
from sdk.context import LocalContext, StackInfo
from sdk.rsrc_defn import ResourceDefinition
from simulator.resources.heat import RandomString
from tests.library.conftest import outputs, tmpl


def events(world, name):
    return [(e.time, e.resource_name, e.state) for e in world.stack_events(name)]


def test_value_converts_to_its_type_and_updates_in_place(world):
    t = tmpl(
        {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": "1,2", "type": "comma_delimited_list"},
            }
        },
        outputs={"v": {"value": {"get_attr": ["v", "value"]}}},
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE"
    assert outputs(stack) == {"v": ["1", "2"]}
    first_id = stack.resources["v"].resource_id
    t["resources"]["v"]["properties"] = {"value": {"a": 1}, "type": "json"}
    stack = world.update_stack("s", t)
    assert stack.state == "UPDATE_COMPLETE"
    assert outputs(stack) == {"v": {"a": 1}}
    assert stack.resources["v"].resource_id == first_id  # in place, not replaced


def test_value_without_a_type_is_passed_through_unchanged(world):
    t = tmpl(
        {"v": {"type": "OS::Heat::Value", "properties": {"value": "plain text"}}},
        outputs={"v": {"value": {"get_attr": ["v", "value"]}}},
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert outputs(stack) == {"v": "plain text"}


def test_value_that_does_not_convert_fails_naming_the_property(world):
    t = tmpl({"v": {"type": "OS::Heat::Value", "properties": {"value": "abc", "type": "number"}}})
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert "resources.v" in str(refused.value)
    assert "Value 'abc' is not a number" in str(refused.value)


def test_random_string_is_deterministic_per_world_and_respects_minimums(world):
    props = {
        "length": 12,
        "character_classes": [{"class": "digits", "min": 4}],
        "character_sequences": [{"sequence": "#!", "min": 2}],
    }
    t = tmpl(
        {"pw": {"type": "OS::Heat::RandomString", "properties": props}},
        outputs={
            "v": {"value": {"get_attr": ["pw", "value"]}},
            "r": {"value": {"get_resource": "pw"}},
        },
    )
    value = outputs(world.create_stack("s", t))["v"]
    assert len(value) == 12
    assert sum(c in string.digits for c in value) >= 4
    assert sum(c in "#!" for c in value) >= 2
    assert set(value) <= set(string.digits + "#!")
    assert outputs(world.get_stack("s"))["r"] == value
    from simulator.world import World

    with World() as other:  # same seed, same stack id, same string
        assert outputs(other.create_stack("s", t))["v"] == value


def test_random_string_changing_salt_replaces_with_a_new_value(world):
    t = tmpl(
        {"pw": {"type": "OS::Heat::RandomString", "properties": {"salt": "1"}}},
        outputs={"v": {"value": {"get_attr": ["pw", "value"]}}},
    )
    before = outputs(world.create_stack("s", t))["v"]
    assert len(before) == 32 and before.isalnum()
    t["resources"]["pw"]["properties"]["salt"] = "2"
    after = outputs(world.update_stack("s", t))["v"]
    assert after != before and len(after) == 32


def test_random_string_minimums_longer_than_length_fail_validation(world):
    props = {"length": 3, "character_classes": [{"class": "digits", "min": 4}]}
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack(
            "s", tmpl({"pw": {"type": "OS::Heat::RandomString", "properties": props}})
        )
    assert "resources.pw.properties.length" in str(refused.value)
    assert "length (3) is smaller than" in str(refused.value)


def test_random_string_bad_class_names_the_property(world):
    props = {"character_classes": [{"class": "emoji"}]}
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack(
            "s", tmpl({"pw": {"type": "OS::Heat::RandomString", "properties": props}})
        )
    assert "resources.pw.properties.character_classes[0].class" in str(refused.value)
    assert "'emoji' is not one of the allowed values" in str(refused.value)


@settings(max_examples=40, deadline=None)
@given(
    length=st.integers(1, 64),
    mins=st.lists(
        st.tuples(st.sampled_from(["digits", "lowercase", "uppercase"]), st.integers(1, 5)),
        max_size=3,
    ),
    stack_id=st.uuids().map(str),
)
def test_random_string_generate_property(length, mins, stack_id):
    props = {"length": length, "character_classes": [{"class": c, "min": m} for c, m in mins]}
    res = RandomString(
        "pw",
        ResourceDefinition("pw", "OS::Heat::RandomString", props),
        LocalContext(stack=StackInfo(id=stack_id)),
    )
    if sum(m for _, m in mins) > length:
        return
    value = res.generate()
    assert len(value) == length
    assert value == res.generate()
    pools = {
        "digits": string.digits,
        "lowercase": string.ascii_lowercase,
        "uppercase": string.ascii_uppercase,
    }
    for cls, minimum in mins:
        assert sum(ch in pools[cls] for ch in value) >= minimum


def test_delay_waits_in_virtual_time_between_min_and_min_plus_jitter(world):
    t = tmpl(
        {
            "d": {
                "type": "OS::Heat::Delay",
                "properties": {"min_wait": 100, "max_jitter": 10, "actions": ["CREATE", "DELETE"]},
            }
        }
    )
    world.create_stack("s", t)
    times = {state: time for time, name, state in events(world, "s") if name == "d"}
    took = times["CREATE_COMPLETE"] - times["CREATE_IN_PROGRESS"]
    assert 100 <= took <= 110
    start = world.clock.now()
    world.delete_stack("s")
    assert 100 <= world.clock.now() - start <= 111


def test_test_resource_waits_per_action_and_reports_its_value(world):
    props = {"value": "hello", "wait_secs": 5, "action_wait_secs": {"delete": 20}}
    t = tmpl(
        {"tr": {"type": "OS::Heat::TestResource", "properties": props}},
        outputs={"o": {"value": {"get_attr": ["tr", "output"]}}},
    )
    stack = world.create_stack("s", t)
    assert outputs(stack) == {"o": "hello"}
    assert world.clock.now() == 5.0
    world.delete_stack("s")
    assert world.clock.now() == 25.0


def test_test_resource_fail_and_update_replace(world):
    t = tmpl({"tr": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}})
    stack = world.create_stack("s", t)
    first = stack.resources["tr"].resource_id
    t["resources"]["tr"]["properties"] = {"value": "b"}
    stack = world.update_stack("s", t)
    assert stack.state == "UPDATE_COMPLETE"
    assert stack.resources["tr"].resource_id == first  # in place
    t["resources"]["tr"]["properties"] = {"value": "c", "update_replace": True}
    stack = world.update_stack("s", t)
    assert stack.state == "UPDATE_COMPLETE"
    assert any(
        e.state == "DELETE_COMPLETE" and e.resource_name == "tr" for e in world.stack_events("s")
    )
    t["resources"]["tr"]["properties"] = {"value": "d", "fail": True}
    stack = world.update_stack("s", t)
    assert stack.state == "UPDATE_FAILED"
    assert "Test Resource tr failed its update as told" in stack.status_reason


def test_test_resource_bad_action_wait_key_names_the_property(world):
    props = {"action_wait_secs": {"reboot": 3}}
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack(
            "s", tmpl({"tr": {"type": "OS::Heat::TestResource", "properties": props}})
        )
    assert "action_wait_secs" in str(refused.value) and "'reboot'" in str(refused.value)


def test_test_resource_polls_a_cloud_entity(world):
    props = {"value": "no-such-server", "client_name": "compute", "entity_name": "servers"}
    stack = world.create_stack(
        "s", tmpl({"tr": {"type": "OS::Heat::TestResource", "properties": props}})
    )
    assert stack.state == "CREATE_FAILED"
    assert "Instance no-such-server could not be found." in stack.status_reason


def test_test_resource_takes_a_client_name_alone_as_heat_does(world):
    props = {"client_name": "test_client_name", "wait_secs": 1}
    stack = world.create_stack(
        "s", tmpl({"tr": {"type": "OS::Heat::TestResource", "properties": props}})
    )
    assert stack.state == "CREATE_COMPLETE"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"client_name": "nova2", "entity_name": "servers"},
            "resources.tr.properties.client_name: No fake cloud service 'nova2' (known: "
            "block_storage, compute, entity, network, object_storage)",
        ),
        (
            {"client_name": "compute", "entity_name": "servrs"},
            "resources.tr.properties.entity_name: client compute has no manager 'servrs'",
        ),
    ],
)
def test_test_resource_names_an_unknown_client_or_manager_before_creating(world, props, message):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack(
            "s", tmpl({"tr": {"type": "OS::Heat::TestResource", "properties": props}})
        )
    assert str(refused.value) == message
    assert world.store.events() == []  # nothing was touched
