"""``self.rpc_client()``: Heat's software-config plug-ins keep their configs in the fake cloud."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

PLUGIN = textwrap.dedent(
    '''
    from heat.engine import attributes, properties, resource


    class Keeper(resource.Resource):
        """Keeps its text as a software config through the engine's RPC API, as Heat's do."""

        properties_schema = {"text": properties.Schema(properties.Schema.STRING, "Text.")}
        attributes_schema = {"config": attributes.Schema("The stored text.")}

        def handle_create(self):
            made = self.rpc_client().create_software_config(
                self.context, name=self.physical_resource_name(), config=self.properties["text"]
            )
            self.resource_id_set(made["id"])

        def handle_delete(self):
            with self.rpc_client().ignore_error_by_name("NotFound"):
                self.rpc_client().delete_software_config(self.context, self.resource_id)

        def _resolve_attribute(self, name):
            with self.rpc_client().ignore_error_by_name("NotFound"):
                return self.rpc_client().show_software_config(self.context, self.resource_id)[name]


    def resource_mapping():
        return {"Test::Heat::Keeper": Keeper}
    '''
)


@pytest.fixture
def world(tmp_path: Path) -> Any:
    path = tmp_path / "keeper.py"
    path.write_text(PLUGIN, encoding="utf-8")
    w = World(Store(":memory:"), seed=3)
    assert use_heat_plugins(w, path).errors == []
    yield w
    w.close()


def _configs(world: Any) -> list[Any]:
    return world.client_plugin("entity").client().entities.list("software_config")


def test_configs_live_in_the_fake_cloud_until_deleted(world: Any) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"k": {"type": "Test::Heat::Keeper", "properties": {"text": "echo hi"}}},
        "outputs": {"config": {"value": {"get_attr": ["k", "config"]}}},
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("config") == "echo hi"
    [stored] = _configs(world)
    assert stored.id == stack.resources["k"].resource_id and stored.group == "Heat::Ungrouped"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    # Heat deletes the row at once; the fake cloud takes its deletion latency, as for any object
    assert [c.status for c in _configs(world)] == ["DELETING"]
    world.clock.advance(60)
    assert _configs(world) == []


def test_a_missing_config_is_not_found_and_the_filter_swallows_only_that(world: Any) -> None:
    from sdk import exception
    from simulator.heat_compat.rpc_client import HeatRpcClient

    stack = world.create_stack(
        "s",
        {"heat_template_version": "2018-08-31", "resources": {"k": {"type": "Test::Heat::Keeper"}}},
    )
    rpc = HeatRpcClient(stack.resources["k"])
    with pytest.raises(exception.NotFound, match="Software config nope could not be found"):
        rpc.show_software_config(None, "nope")
    with rpc.ignore_error_by_name("NotFound"):
        rpc.delete_software_config(None, "nope")
    with pytest.raises(ValueError), rpc.ignore_error_by_name("NotFound"):
        raise ValueError("not a NotFound")


@requires_heat
def test_heats_multipart_mime_reads_a_config_of_plugsims_own_type() -> None:
    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, "heat.engine.resources.openstack.heat.multi_part").errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "part": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "echo one"}},
            "mime": {
                "type": "OS::Heat::MultipartMime",
                "properties": {"parts": [{"config": {"get_resource": "part"}}]},
            },
        },
        "outputs": {"mime": {"value": {"get_attr": ["mime", "config"]}}},
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    text = stack.output("mime")
    assert "multipart/mixed" in text and "echo one" in text
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()
