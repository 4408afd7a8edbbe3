"""Loading a stack back from the store goes through the resources' public restore API."""

import sqlite3

import pytest

from sdk import exception
from sdk.resource import Resource
from simulator.world import World

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "a": {"type": "Plugsim::Test::Trivial", "properties": {"value": "x"}},
        "b": {
            "type": "Plugsim::Test::Trivial",
            "properties": {"value": "y", "depends": {"get_resource": "a"}},
        },
    },
}


def _created(tmp_path):
    path = tmp_path / "w.db"
    world = World.open(path)
    world.create_stack("s", TEMPLATE)
    before = {
        r.name: (r.action, r.status, r.status_reason, r.resource_id, r.data())
        for r in world.get_stack("s").all_resources()
    }
    world.close()
    return path, before


def test_a_reloaded_stack_has_every_resource_in_its_stored_state(tmp_path, monkeypatch):
    path, before = _created(tmp_path)
    calls = []
    original = Resource.restore_state

    def spy(self, *args, **kwargs):
        calls.append(self.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Resource, "restore_state", spy)
    world = World.open(path)
    stack = world.get_stack("s")
    after = {
        r.name: (r.action, r.status, r.status_reason, r.resource_id, r.data())
        for r in stack.all_resources()
    }
    assert after == before
    assert sorted(calls) == ["a", "b"]
    assert stack.resources["b"].definition.properties["value"] == "y"
    world.close()


def test_a_corrupt_stored_state_is_a_clear_error_naming_resource_and_stack(tmp_path):
    path, _ = _created(tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE resources SET action='EXPLODE' WHERE name='b'")
    db.commit()
    db.close()
    world = World.open(path)
    with pytest.raises(exception.ConfigurationError) as info:
        world.get_stack("s")
    assert "resource b of stack s has a stored state that cannot be restored" in str(info.value)
    assert "Invalid action 'EXPLODE' for resource b" in str(info.value)
    world.close()
