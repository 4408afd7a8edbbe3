"""Custom constraints mapped by plug-in modules (``constraint_mapping()``) are usable."""

from __future__ import annotations

import textwrap

import pytest

from sdk import exception
from sdk.constraints import default_registry
from simulator.registry import PluginConstraints
from simulator.type_sources import world_registry
from simulator.world import World

PLUGIN = textwrap.dedent(
    """
    from sdk import constraints, properties
    from sdk.resource import Resource


    class Even(constraints.BaseCustomConstraint):
        def validate(self, value, context=None):
            if int(value) % 2:
                self._error_message = f"{value} is odd"
                return False
            return True


    class Counter(Resource):
        properties_schema = {
            "count": properties.Schema(
                properties.Schema.INTEGER,
                "An even number.",
                constraints=[constraints.CustomConstraint("acme.even")],
            ),
        }


    def resource_mapping():
        return {"Acme::Counter": Counter}


    def constraint_mapping():
        return {"acme.even": Even}
    """
)


def _tmpl(count):
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"c": {"type": "Acme::Counter", "properties": {"count": count}}},
    }


@pytest.fixture
def plugins(tmp_path):
    (tmp_path / "acme.py").write_text(PLUGIN)
    return tmp_path


def test_a_plugin_dir_constraint_is_registered_and_enforced(plugins):
    with World(plugin_dirs=[plugins]) as world:
        with pytest.raises(exception.StackValidationFailed) as info:
            world.validate_template(_tmpl(3))
        assert str(info.value) == (
            "resources.c.properties.count: 3 does not satisfy the custom constraint "
            "'acme.even': 3 is odd"
        )
        assert world.validate_template(_tmpl(4))["Resources"] == ["c"]
        assert world.create_stack("ok", _tmpl(4)).state == "CREATE_COMPLETE"
    assert "acme.even" in default_registry().names()


def test_a_stack_plugin_dir_constraint_works_too(plugins):
    with World() as world:
        with pytest.raises(exception.StackValidationFailed, match="3 is odd"):
            world.create_stack("bad", _tmpl(3), plugin_dirs=[plugins])
        assert world.create_stack("ok", _tmpl(8), plugin_dirs=[plugins]).state == "CREATE_COMPLETE"


def test_the_bundled_modules_constraints_cause_no_duplicate_warnings():
    registry = world_registry()
    registry.plugins()
    assert "glance.image" in default_registry().names()
    assert not [err for err in default_registry().load_errors if "also provided" in err[1]]


def test_plugin_constraints_keep_an_identical_registration_and_replace_a_different_one():
    from sdk.constraints import BaseCustomConstraint

    class First(BaseCustomConstraint):
        pass

    class Second(BaseCustomConstraint):
        pass

    target = PluginConstraints()
    target.register("test.registry.swap", First)
    assert type(default_registry().get("test.registry.swap")) is First
    target.register("test.registry.swap", First)
    assert type(default_registry().get("test.registry.swap")) is First
    target.register("test.registry.swap", Second)
    assert type(default_registry().get("test.registry.swap")) is Second


def test_a_rejected_constraint_mapping_is_a_load_error_not_a_crash(tmp_path):
    (tmp_path / "bad.py").write_text(
        "def constraint_mapping():\n    return {'acme.bad': int}\n"
        "def resource_mapping():\n    return {}\n"
    )
    registry = world_registry([tmp_path], entry_points=False)
    registry.plugins()
    assert any("acme.bad" in str(err) for err in registry.errors)
    assert "acme.bad" not in default_registry().names()
