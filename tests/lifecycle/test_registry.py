"""Registration, ordering, ordinal validation, isolation between engines."""

from __future__ import annotations

import importlib.metadata
import sys
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk import exception
from sdk.lifecycle_plugin import LifecyclePlugin
from simulator import lifecycle
from simulator.lifecycle import LifecycleRegistry, parse_spec_list
from simulator.project_config import lifecycle_specs
from simulator.world import World

from .conftest import Recorder, simple


class Plain(LifecyclePlugin):
    """Default ordinal."""


class Early(LifecyclePlugin):
    def get_ordinal(self):
        return 5


@pytest.fixture
def plugin_module(monkeypatch):
    mod = types.ModuleType("lc_fixture_mod")
    mod.Plain, mod.Early = Plain, Early

    class BadOrdinal(LifecyclePlugin):
        def get_ordinal(self):
            return "7"

    class RaisingOrdinal(LifecyclePlugin):
        def get_ordinal(self):
            raise KeyError("ordinal")

    class BoolOrdinal(LifecyclePlugin):
        def get_ordinal(self):
            return True

    mod.BadOrdinal, mod.RaisingOrdinal, mod.BoolOrdinal = BadOrdinal, RaisingOrdinal, BoolOrdinal
    monkeypatch.setitem(sys.modules, "lc_fixture_mod", mod)
    return mod


def test_order_is_ordinal_then_registration_name():
    reg = LifecycleRegistry(entry_points=False, environ=False)
    for name, ordinal in [("zeta", 1), ("beta", 50), ("alpha", 50), ("gamma", 100)]:
        reg.register(Recorder(name, [], ordinal), name)
    assert reg.names() == ["zeta", "alpha", "beta", "gamma"]


@given(
    st.lists(
        st.tuples(st.integers(-5, 5), st.text("abc", min_size=1, max_size=4)),
        unique_by=lambda t: t[1],
        max_size=8,
    )
)
def test_order_is_total_and_independent_of_registration_order(items):
    orders = []
    for seq in (items, list(reversed(items))):
        reg = LifecycleRegistry(entry_points=False, environ=False)
        for ordinal, name in seq:
            reg.register(Recorder(name, [], ordinal), name)
        orders.append(reg.names())
    assert orders[0] == orders[1] == [n for _, n in sorted(items)]


@pytest.mark.parametrize(
    "cls, message",
    [
        ("BadOrdinal", "get_ordinal() returned '7'; it must return an int"),
        ("BoolOrdinal", "get_ordinal() returned True; it must return an int"),
        ("RaisingOrdinal", "get_ordinal() raised KeyError: 'ordinal'"),
    ],
)
def test_bad_ordinal_is_a_configuration_error_naming_the_plugin(plugin_module, cls, message):
    with pytest.raises(exception.ConfigurationError) as info:
        World(entry_points=False, lifecycle_plugins=[f"lc_fixture_mod:{cls}"])
    assert str(info.value) == f"lifecycle plug-in lc_fixture_mod.{cls}: {message}"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nocolon", "expected 'module:Class'"),
        ("no_such_module_xyz:C", "cannot import module no_such_module_xyz: ModuleNotFoundError"),
        ("lc_fixture_mod:Missing", "module lc_fixture_mod has no attribute Missing"),
    ],
)
def test_bad_specs_are_named(plugin_module, spec, message):
    with pytest.raises(exception.ConfigurationError, match="lifecycle plug-in") as info:
        LifecycleRegistry([spec], entry_points=False, environ=False)
    assert spec in str(info.value) and message in str(info.value)


def test_not_a_plugin_and_duplicates_are_refused():
    reg = LifecycleRegistry(entry_points=False, environ=False)
    with pytest.raises(
        exception.ConfigurationError, match="is not a lifecycle plug-in .no do_pre_op"
    ):
        reg.register(object(), "thing")
    reg.register(Plain)
    with pytest.raises(exception.ConfigurationError, match="is registered twice"):
        reg.register(Plain)
    assert reg.names() == [f"{__name__}.Plain"]


def test_spec_names_default_to_module_and_class(plugin_module):
    reg = LifecycleRegistry(
        ["lc_fixture_mod:Plain", "lc_fixture_mod:Early"], entry_points=False, environ=False
    )
    assert reg.names() == ["lc_fixture_mod.Early", "lc_fixture_mod.Plain"]


def test_entry_points_are_registered_by_their_name(monkeypatch):
    class EP:
        def __init__(self, name, obj):
            self.name, self.value, self._obj = name, f"x:{name}", obj

        def load(self):
            if isinstance(self._obj, Exception):
                raise self._obj
            return self._obj

    eps = [EP("zz-last", Plain), EP("aa-first", Plain)]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: eps)
    reg = LifecycleRegistry(environ=False)
    assert reg.names() == ["aa-first", "zz-last"]
    assert [p.origin for p in reg.ordered()] == ["entry point", "entry point"]
    eps.append(EP("broken", ImportError("no deps")))
    with pytest.raises(
        exception.ConfigurationError,
        match="lifecycle plug-in broken: entry point x:broken cannot be loaded: "
        "ImportError: no deps",
    ):
        LifecycleRegistry(environ=False)


def test_environment_variable_lists_plugins_and_turns_strict_on(plugin_module, monkeypatch):
    monkeypatch.setenv(lifecycle.ENV_PLUGINS, "lc_fixture_mod:Plain, lc_fixture_mod:Early")
    monkeypatch.setenv(lifecycle.ENV_STRICT, "yes")
    with World(entry_points=False) as w:
        assert len(w.lifecycle) == 2 and w.lifecycle.strict
        assert {p.origin for p in w.lifecycle.ordered()} == {"environment"}


def test_parse_spec_list():
    assert parse_spec_list(" a:B,c:D\n e.f:G ") == ["a:B", "c:D", "e.f:G"]
    assert parse_spec_list(None) == []


def test_registries_are_per_engine():
    one, two = [], []
    with World(entry_points=False) as w1, World(entry_points=False) as w2:
        w1.lifecycle.register(Recorder("one", one), "one")
        w2.lifecycle.register(Recorder("two", two), "two")
        w1.create_stack("s", simple())
        w2.create_stack("s", simple())
        assert w1.lifecycle.names() == ["one"] and w2.lifecycle.names() == ["two"]
    assert {e[0] for e in one} == {"one"} and {e[0] for e in two} == {"two"}
    assert len(one) == len(two) == 2


def test_unregister(world):
    world.lifecycle.register(Plain, "p")
    world.lifecycle.unregister("p")
    assert world.lifecycle.names() == []
    with pytest.raises(exception.EntityNotFound):
        world.lifecycle.unregister("p")


def test_plugsim_yaml_list_is_read_and_checked(tmp_path):
    (tmp_path / "plugsim.yaml").write_text("lifecycle_plugins: [a.b:C, d:E]\n")
    assert lifecycle_specs(tmp_path) == ["a.b:C", "d:E"]
    (tmp_path / "plugsim.yaml").write_text("lifecycle_plugins: a.b:C\n")
    with pytest.raises(exception.ConfigurationError, match="lifecycle_plugins must be a list"):
        lifecycle_specs(tmp_path)
    assert lifecycle_specs(tmp_path / "nowhere") == []


def test_stack_stored_plugins_run_for_that_stack_only(world, plugin_module):
    log: list = []
    plugin_module.Rec = type(
        "Rec", (Recorder,), {"__init__": lambda self: Recorder.__init__(self, "rec", log)}
    )
    stack = world.create_stack("s", simple())
    stack.record.doc["lifecycle_plugins"] = ["lc_fixture_mod:Rec"]
    world.suspend_stack("s")
    world.create_stack("other", simple())
    assert [(e[1], e[2]) for e in log] == [("pre", "SUSPEND"), ("post", "SUSPEND")]
