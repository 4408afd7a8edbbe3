"""Bad input ends in a clear error or a FAILED state with a reason: never a hang or crash."""

import pytest

from sdk import exception
from simulator.world import World


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


def test_malformed_yaml(world, tmp_path):
    t = tmp_path / "bad.yaml"
    t.write_text("heat_template_version: 2018-08-31\nresources: {a: [\n")
    with pytest.raises(exception.StackValidationFailed, match="not valid YAML"):
        world.create_stack("s", t)
    assert world.stack_records() == []


@pytest.mark.parametrize("text,kind", [("- a\n- b\n", "a list"), ("just text\n", "a string")])
def test_template_that_is_not_a_map(world, tmp_path, text, kind):
    t = tmp_path / "t.yaml"
    t.write_text(text)
    with pytest.raises(exception.StackValidationFailed, match=f"but it is {kind}"):
        world.create_stack("s", t)


def test_wrong_section_name(world):
    with pytest.raises(exception.StackValidationFailed, match="resourcez"):
        world.create_stack("s", {"heat_template_version": "2018-08-31", "resourcez": {}})


def test_wrong_parameter_type(world):
    t = {
        "heat_template_version": "2018-08-31",
        "parameters": {"n": {"type": "number"}},
        "resources": {},
    }
    with pytest.raises(exception.StackValidationFailed, match="n"):
        world.create_stack("s", t, parameters={"n": "not-a-number"})


def test_unknown_type_is_found_before_anything_runs(world):
    t = {
        "heat_template_version": "2018-08-31",
        "resources": {"ok": {"type": "Plugsim::Test::Trivial"}, "x": {"type": "No::Such::Type"}},
    }
    with pytest.raises(exception.StackValidationFailed, match="No::Such::Type"):
        world.create_stack("s", t)
    assert world.store.events() == []


def test_thousand_deep_nested_functions(world):
    value = "x"
    for _ in range(1000):
        value = {"list_join": ["", [value]]}
    t = {
        "heat_template_version": "2018-08-31",
        "resources": {"a": {"type": "Plugsim::Test::Trivial", "properties": {"value": value}}},
    }
    with pytest.raises(exception.StackValidationFailed, match="deep"):
        world.create_stack("s", t)


@pytest.mark.material
def test_fifty_thousand_resource_template_validates():
    from simulator.limits import Limits

    world = World(limits=Limits(max_resources_per_stack=-1))  # Heat's default is 1000
    t = {
        "heat_template_version": "2018-08-31",
        "resources": {f"r{i}": {"type": "Plugsim::Test::Trivial"} for i in range(50_000)},
    }
    result = world.validate_template(t)
    assert len(result["Resources"]) == 50_000


def test_plugin_that_raises_fails_with_reason(world):
    t = {
        "heat_template_version": "2018-08-31",
        "resources": {"f": {"type": "Plugsim::Test::Fail", "properties": {"message": "kaboom"}}},
    }
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason == "Resource CREATE failed: ValueError: resources.f: kaboom"


def test_plugin_that_never_completes_times_out(world):
    t = {"heat_template_version": "2018-08-31", "resources": {"h": {"type": "Plugsim::Test::Hang"}}}
    stack = world.create_stack("s", t, timeout_mins=5)
    assert (stack.state, stack.status_reason) == ("CREATE_FAILED", "Create timed out")


def test_plugin_returning_garbage_fails_cleanly_and_persists(world):
    t = {
        "heat_template_version": "2018-08-31",
        "resources": {"g": {"type": "Plugsim::Test::Garbage"}},
    }
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert "truth value" in stack.status_reason
    [row] = world.store.resources(stack.id)
    assert row.status == "FAILED" and row.physical_id.startswith("<object")
    assert world.delete_stack("s").state == "DELETE_COMPLETE"


def test_bad_timeout_value(world):
    t = {"heat_template_version": "2018-08-31", "resources": {}}
    with pytest.raises(exception.StackValidationFailed, match="timeout"):
        world.create_stack("s", t, timeout_mins=-1)


def test_bad_stack_name(world):
    with pytest.raises(exception.StackValidationFailed, match="Invalid stack name"):
        world.create_stack("9 bad", {"heat_template_version": "2018-08-31", "resources": {}})
