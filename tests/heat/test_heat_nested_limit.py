"""A Heat stack resource's child over ``max_resources_per_stack`` is refused before it is read.

Heat's ``StackResource._validate_nested_resources`` counts the child's resources before
anything else is done with it; plugsim's compat layer refuses the same way (issue #30: a
ResourceGroup of 48,446 members drawn by the schema oracle spent its time converting the
definitions the loader then refused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.heat_compat import stack_resource, use_heat_plugins
from simulator.limits import Limits
from simulator.store import Store
from simulator.world import World

PLUGIN = """
from heat.engine import properties
from heat.engine.resources import stack_resource


class Many(stack_resource.StackResource):
    properties_schema = {
        "count": properties.Schema(properties.Schema.INTEGER, "Members.", default=1),
    }

    def handle_create(self):
        members = {str(i): {"type": "OS::Heat::None"} for i in range(self.properties["count"])}
        return self.create_with_template(
            {"heat_template_version": "2013-05-23", "resources": members}, {}
        )

    def check_create_complete(self, cookie=None):
        return super().check_create_complete(cookie)


def resource_mapping():
    return {"Test::Heat::Many": Many}
"""


def _world(tmp_path: Path) -> World:
    plugin = tmp_path / "many.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    world = World(Store(":memory:"), seed=3, limits=Limits(max_resources_per_stack=3))
    assert use_heat_plugins(world, plugin).errors == []
    return world


def _stack(world: World, count: int) -> Any:
    return world.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"g": {"type": "Test::Heat::Many", "properties": {"count": count}}},
        },
        disable_rollback=True,
    )


@requires_heat
def test_child_over_the_limit_fails_before_its_template_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = _world(tmp_path)

    def read(child: Any) -> Any:
        raise AssertionError("the child template was read")

    monkeypatch.setattr(stack_resource, "template_dict", read)
    stack = _stack(world, 4)
    assert stack.state == "CREATE_FAILED"
    assert "LimitExceeded" in stack.status_reason
    assert "the stack has 4 resources, more than max_resources_per_stack 3" in stack.status_reason
    world.close()


@requires_heat
def test_child_within_the_limit_is_made(tmp_path: Path) -> None:
    world = _world(tmp_path)
    stack = _stack(world, 3)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()
