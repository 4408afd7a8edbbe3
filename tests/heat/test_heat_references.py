"""What a Heat plug-in reads of the other resources of its stack: ``required_by()`` and a
resource known by its physical name (``physical_resource_name_or_FnGetRefId``), as Heat's
InstanceGroup reads its AWS launch configuration."""

from __future__ import annotations

from pathlib import Path

from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

WIDGET = Path(__file__).resolve().parent / "heat_style" / "widget.py"


def _stack():
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, WIDGET).errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "a": {"type": "Test::Heat::Widget"},
            "b": {"type": "Test::Heat::Widget", "depends_on": ["a"]},
            "c": {"type": "Test::Heat::Widget", "properties": {"tags": [{"get_resource": "a"}]}},
            "d": {
                "type": "Test::Heat::Widget",
                "properties": {"size": {"get_attr": ["b", "size"]}},
            },
        },
    }
    return world, template


def test_required_by_names_the_resources_that_depend_on_it_directly():
    world, template = _stack()
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    required = {name: res.required_by() for name, res in stack.resources.items()}
    assert required == {"a": ["b", "c"], "b": ["d"], "c": [], "d": []}
    world.close()


def test_a_stored_resource_is_referenced_by_its_physical_name():
    world, template = _stack()
    stack = world.create_stack("s", template)
    res = stack.resources["a"]
    assert res.physical_resource_name_or_FnGetRefId() == res.physical_resource_name()
    assert res.physical_resource_name().startswith("s-a-")
    world.close()
