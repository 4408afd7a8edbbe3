"""The Heat compatibility layer, with plug-ins written against Heat's API.

These run without Heat installed; the tests at the end load Heat's own
in-tree plug-ins from the installed openstack-heat package (skipped without it).
"""

from __future__ import annotations

import string
import sys
import time
import types
from pathlib import Path

import pytest
from _heat_diff import requires_heat
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk.resource import Resource
from simulator.heat_compat import (
    HeatCompatLoader,
    MissingHeatName,
    _vtime,
    clientless_plugins,
    load_heat_plugin,
    needs_heat_compat,
    password_gen,
    use_heat_plugins,
)
from simulator.store import Store
from simulator.world import World

HERE = Path(__file__).resolve().parent / "heat_style"
WIDGET = HERE / "widget.py"


def _world(*plugins: object) -> World:
    world = World(Store(":memory:"), seed=3)
    report = use_heat_plugins(world, *plugins)
    assert report.errors == []
    return world


def _template(resources: dict, outputs: dict | None = None) -> dict:
    return {
        "heat_template_version": "2018-08-31",
        "resources": resources,
        "outputs": {k: {"value": v} for k, v in (outputs or {}).items()},
    }


def test_heat_style_plugin_loads_as_an_sdk_resource() -> None:
    report = load_heat_plugin(WIDGET)
    assert report.errors == []
    cls = report.mapping["Test::Heat::Widget"]
    assert issubclass(cls, Resource)
    assert report.sources["Test::Heat::Widget"].endswith("widget.py (heat compat)")


def test_shims_exist_only_during_the_loading() -> None:
    real = types.ModuleType("heat")
    sys.modules["heat"] = real
    # A real oslo_utils may already be loaded (keystoneauth1 and openstacksdk import it):
    # it must be the very same module afterwards, never a shim.
    before = {m: mod for m, mod in sys.modules.items() if m.startswith("oslo_utils.timeutils")}
    try:
        load_heat_plugin(WIDGET)
        assert sys.modules["heat"] is real
        assert not [m for m in sys.modules if m.startswith("heat.")]
        after = {m: mod for m, mod in sys.modules.items() if m.startswith("oslo_utils.timeutils")}
        assert after == before
    finally:
        del sys.modules["heat"]
    assert not [m for m in sys.modules if m == "heat" or m.startswith("heat.")]


def test_create_update_and_attributes_on_virtual_time() -> None:
    world = _world(WIDGET)
    res = {"w": {"type": "Test::Heat::Widget", "properties": {"old_size": 3, "wait": 120}}}
    outputs = {
        "size": {"get_attr": ["w", "size"]},
        "tags": {"get_attr": ["w", "tags"]},
        "started": {"get_attr": ["w", "started"]},
    }
    wall = time.perf_counter()
    stack = world.create_stack("s", _template(res, outputs))
    assert time.perf_counter() - wall < 30
    assert stack.state == "CREATE_COMPLETE"
    assert world.clock.now() >= 120  # time.sleep(120) cost virtual time only
    assert stack.output("size") == 3  # REPLACE moved old_size onto size
    assert stack.output("tags") == ["widget"]  # ADD appended to the default
    assert stack.output("started") == "2023-11-14T22:13:20"  # virtual time 0
    res["w"]["properties"] = {"size": 5}
    stack = world.update_stack("s", _template(res, outputs))
    assert stack.state == "UPDATE_COMPLETE"
    assert stack.output("size") == 5
    events = [(e.resource_name, e.action, e.status) for e in world.stack_events("s")]
    assert ("w", "UPDATE", "COMPLETE") in events
    assert world.delete_stack("s").state == "DELETE_COMPLETE"


def test_heat_validation_error_reaches_the_stack() -> None:
    from sdk import exception

    world = _world(WIDGET)
    with pytest.raises(exception.StackValidationFailed, match="resources.w: Seven is not a size."):
        world.create_stack(
            "s", _template({"w": {"type": "Test::Heat::Widget", "properties": {"size": 7}}})
        )


def test_missing_module_is_named() -> None:
    report = load_heat_plugin(HERE / "needs_engine_service.py")
    assert report.mapping == {}
    [error] = report.errors
    assert "heat.engine.service" in error.message
    assert "Heat compatibility layer" in error.message


def test_missing_attribute_is_named_when_used() -> None:
    world = _world(HERE / "missing_exception.py")
    stack = world.create_stack("s", _template({"g": {"type": "Test::Heat::Grumpy"}}))
    assert stack.state == "CREATE_FAILED"
    assert "MissingHeatName" in stack.status_reason
    assert "heat.common.exception.NoSuchHeatThing is not provided" in stack.status_reason


def test_missing_name_is_an_attribute_error_too() -> None:
    assert issubclass(MissingHeatName, AttributeError)
    assert "heat.x.y" in str(MissingHeatName("heat.x.y"))


def test_compat_is_chosen_per_file_by_its_imports() -> None:
    assert needs_heat_compat(WIDGET)
    assert not needs_heat_compat(HERE / "native.py")
    report = HeatCompatLoader().load_plugin_dirs([HERE])
    assert sorted(report.mapping) == ["Test::Heat::Grumpy", "Test::Heat::Widget", "Test::Native"]
    assert "heat compat" not in report.sources["Test::Native"]
    assert any("heat.engine.service" in e.message for e in report.errors)


def test_unknown_target_is_a_clear_error() -> None:
    from sdk import exception

    with pytest.raises(exception.ConfigurationError, match="not a file, a directory or a module"):
        load_heat_plugin("no/such/plugin.py")


@settings(max_examples=60, deadline=None)
@given(
    length=st.integers(min_value=1, max_value=64),
    mins=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=3),
    classes=st.lists(st.sampled_from(password_gen.CHARACTER_CLASSES), min_size=3, max_size=3),
)
def test_password_gen_honours_length_and_minimums(length, mins, classes) -> None:
    wanted = [password_gen.named_char_class(c, m) for c, m in zip(classes, mins, strict=False)]
    if sum(c.min_count for c in wanted) > length:
        with pytest.raises(Exception, match="cannot be smaller"):
            password_gen.generate_password(length, wanted)
        return
    value = password_gen.generate_password(length, wanted)
    assert len(value) == length
    union = set().union(*(c.allowed_chars for c in wanted))
    assert set(value) <= union
    for cls in wanted:
        assert sum(ch in cls.allowed_chars for ch in value) >= cls.min_count


def test_password_gen_is_reproducible_per_resource() -> None:
    class Fake:
        name = "r"
        stack = types.SimpleNamespace(id="stack-1")
        context = types.SimpleNamespace(clock=None)

    draws = []
    for _ in range(2):
        res = Fake()
        with _vtime.running(res):
            draws.append(password_gen.generate_password(16, []))
    assert draws[0] == draws[1]
    assert set(draws[0]) <= set(string.ascii_letters + string.digits)


# --- Heat's own in-tree plug-ins, from the installed openstack-heat -----------------


@requires_heat
def test_clientless_heat_plugins_load_unmodified() -> None:
    report = load_heat_plugin(*clientless_plugins())
    assert report.errors == []
    assert sorted(report.mapping) == [
        "OS::Heat::None",
        "OS::Heat::RandomString",
        "OS::Heat::TestResource",
        "OS::Heat::Value",
    ]
    by_name = load_heat_plugin("heat.engine.resources.openstack.heat.value")
    assert list(by_name.mapping) == ["OS::Heat::Value"]


@requires_heat
def test_heat_plugins_run_through_create_update_delete() -> None:
    world = _world(*clientless_plugins())
    res = {
        "rs": {
            "type": "OS::Heat::RandomString",
            "properties": {"length": 12, "character_classes": [{"class": "digits", "min": 12}]},
        },
        "seq": {"type": "OS::Heat::RandomString", "properties": {"sequence": "octdigits"}},
        "v": {"type": "OS::Heat::Value", "properties": {"value": "42", "type": "number"}},
        "n": {"type": "OS::Heat::None", "properties": {"anything": [1]}},
        "t": {"type": "OS::Heat::TestResource", "properties": {"value": "one", "wait_secs": 30}},
    }
    outputs = {
        "rs": {"get_attr": ["rs", "value"]},
        "ref": {"get_resource": "rs"},
        "seq": {"get_attr": ["seq", "value"]},
        "v": {"get_attr": ["v", "value"]},
        "n": {"get_attr": ["n", "whatever"]},
        "t": {"get_attr": ["t", "output"]},
    }
    stack = world.create_stack("s", _template(res, outputs))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    value = stack.output("rs")
    assert len(value) == 12 and value.isdigit()
    assert stack.output("ref") == value
    assert len(stack.output("seq")) == 32 and set(stack.output("seq")) <= set(string.octdigits)
    assert stack.output("n") is None
    assert stack.output("t") == "one"
    assert world.clock.now() > 30  # TestResource waited in virtual time
    res["t"]["properties"] = {"value": "two"}
    stack = world.update_stack("s", _template(res, outputs))
    assert stack.state == "UPDATE_COMPLETE"
    assert stack.output("t") == "two"
    assert stack.output("rs") == value  # untouched resources keep their value
    assert world.delete_stack("s").state == "DELETE_COMPLETE"


@requires_heat
def test_heat_random_string_is_deterministic_per_seed() -> None:
    values = []
    for _ in range(2):
        world = _world(*clientless_plugins())
        stack = world.create_stack(
            "s",
            _template(
                {"r": {"type": "OS::Heat::RandomString"}}, {"o": {"get_attr": ["r", "value"]}}
            ),
        )
        values.append(stack.output("o"))
    assert values[0] == values[1] and len(values[0]) == 32
