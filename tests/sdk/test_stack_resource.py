"""A resource that owns a nested stack reaches it only through ``context.nested_stacks()``."""

import pytest

from sdk import attributes, exception, properties
from sdk.context import LocalContext
from sdk.resource import Resource
from sdk.rsrc_defn import ResourceDefinition
from sdk.stack_resource import StackResource
from simulator.world import World


class Pair(StackResource):
    """Two OS::Heat::None members in a nested stack; ``tag`` is a nested parameter."""

    properties_schema = {
        "tag": properties.Schema(properties.Schema.STRING, "A tag.", update_allowed=True)
    }
    attributes_schema = {"tag": attributes.Schema("The nested stack's tag output.")}

    def _template(self):
        return {
            "heat_template_version": "2018-08-31",
            "parameters": {"tag": {"type": "string", "default": ""}},
            "resources": {"a": {"type": "OS::Heat::None"}, "b": {"type": "OS::Heat::None"}},
            "outputs": {"tag": {"value": {"get_param": "tag"}}},
        }

    async def handle_create(self):
        await self.create_nested(self._template(), {"tag": self.properties["tag"] or ""})

    async def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None):
        await self.update_nested(None, {"tag": (prop_diff or {}).get("tag") or ""})

    def _resolve_attribute(self, name):
        child = self.nested()
        return child.output(name) if child is not None else None


def _template(tag):
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"p": {"type": "Test::Pair", "properties": {"tag": tag}}},
        "outputs": {"tag": {"value": {"get_attr": ["p", "tag"]}}},
    }


@pytest.fixture
def world():
    w = World(entry_points=False)
    w.registry.plugins()["Test::Pair"] = Pair
    yield w
    w.close()


def test_an_sdk_stack_resource_creates_updates_and_deletes_its_nested_stack(world):
    stack = world.create_stack("s", _template("one"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    owner = stack.resources["p"]
    child = owner.nested()
    assert child is not None and child.id == owner.resource_id == owner.get_reference_id()
    assert sorted(child.resources) == ["a", "b"]
    assert child.parameters == {"tag": "one"}
    assert stack.output("tag") == "one"
    world.update_stack("s", _template("two"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert owner.nested().parameters == {"tag": "two"}
    assert stack.output("tag") == "two"
    nested_id = owner.resource_id
    world.delete_stack("s")
    assert world.get_stack(nested_id, deleted_ok=True).state == "DELETE_COMPLETE"


def test_the_engine_context_has_no_back_door_to_the_stack(world):
    stack = world.create_stack("s", _template("x"))
    context = stack.resources["p"].context
    assert not hasattr(context, "engine_stack")
    assert context.resource_by_reference(stack.resources["p"].resource_id) is stack.resources["p"]
    assert context.resource_by_reference("p") is stack.resources["p"]
    assert context.resource_by_reference("nothing") is None


def test_a_local_context_says_it_runs_no_nested_stacks():
    res = Pair("p", ResourceDefinition("p", "Test::Pair", {"tag": "x"}), LocalContext())
    with pytest.raises(exception.ConfigurationError, match="runs no nested stacks"):
        res.context.nested_stacks()
    assert res.nested() is None  # no resource_id yet: nothing to ask


def test_a_local_context_keeps_signals_in_memory_and_finds_peers():
    context = LocalContext()
    box = context.signals()
    box.add("h", {"status": "SUCCESS"})
    box.agents["https://x/1"] = [{"id": "1"}]
    assert context.signals().received("h") == [{"status": "SUCCESS"}]
    assert box.from_agents("https://x/1") == [{"id": "1"}]
    box.clear("h")
    assert box.received("h") == []
    peer = Resource("h", ResourceDefinition("h", "X::Y"), context)
    context.peers["h"] = peer
    assert context.resource_by_reference("h") is peer
    assert context.resource_by_reference("other") is None


def test_a_validation_context_offers_no_facet_that_would_act():
    from sdk.properties import ValueNotYetKnown
    from simulator.property_validation import ValidationContext

    context = ValidationContext()
    with pytest.raises(exception.PlugsimError, match="not available while a template"):
        context.signals()
    with pytest.raises(exception.PlugsimError, match="not available while a template"):
        context.nested_stacks()
    with pytest.raises(ValueNotYetKnown):
        context.resource_by_reference("h")
