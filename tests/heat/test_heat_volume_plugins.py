"""Heat's nova and cinder client plug-in surfaces: volume attachments and floating IPs."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

ATTACHER = textwrap.dedent(
    '''
    from heat.engine import properties, resource


    class Attacher(resource.Resource):
        """Attaches through nova's client plug-in and watches through cinder's, as Heat's does."""

        default_client_name = "cinder"
        properties_schema = {
            "server": properties.Schema(properties.Schema.STRING, "Server id.", required=True),
            "volume": properties.Schema(properties.Schema.STRING, "Volume id.", required=True),
        }

        def handle_create(self):
            attach_id = self.client_plugin("nova").attach_volume(
                self.properties["server"], self.properties["volume"], None
            )
            self.resource_id_set(attach_id)
            return self.properties["volume"]

        def check_create_complete(self, volume_id):
            return self.client_plugin().check_attach_volume_complete(volume_id)

        def handle_delete(self):
            if self.resource_id:
                self.client_plugin("nova").detach_volume(self.properties["server"], self.resource_id)
            return self.properties["volume"]

        def check_delete_complete(self, volume_id):
            nova, cinder = self.client_plugin("nova"), self.client_plugin()
            return cinder.check_detach_volume_complete(
                volume_id, self.properties["server"]
            ) and nova.check_detach_volume_complete(self.properties["server"], self.resource_id)


    def resource_mapping():
        return {"Test::Heat::Attacher": Attacher}
    '''
)

PREREQUISITES = {
    "vm": {
        "type": "OS::Nova::Server",
        "properties": {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "public"}]},
    },
    "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
}


def _volume(world: Any, stack: Any) -> Any:
    return world.client_plugin("cinder").client().volumes.get(stack.resources["vol"].resource_id)


def test_attach_and_detach_through_nova_and_cinder(tmp_path: Path) -> None:
    path = tmp_path / "attacher.py"
    path.write_text(ATTACHER, encoding="utf-8")
    world = World(Store(":memory:"), seed=3)
    assert use_heat_plugins(world, path).errors == []
    resources = {
        **PREREQUISITES,
        "att": {
            "type": "Test::Heat::Attacher",
            "properties": {"server": {"get_resource": "vm"}, "volume": {"get_resource": "vol"}},
        },
    }
    template = {"heat_template_version": "2018-08-31", "resources": resources}
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    volume = _volume(world, stack)
    assert volume.status == "in-use"
    assert stack.resources["att"].resource_id in {a["attachment_id"] for a in volume.attachments}
    del resources["att"]
    stack = world.update_stack("s", template)
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert _volume(world, stack).status == "available"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
@pytest.mark.parametrize(
    ("module", "resource"),
    [
        (
            "cinder.volume",
            {
                "type": "OS::Cinder::VolumeAttachment",
                "properties": {
                    "instance_uuid": {"get_resource": "vm"},
                    "volume_id": {"get_resource": "vol"},
                },
            },
        ),
        (
            "nova.floatingip",
            {
                "type": "OS::Nova::FloatingIPAssociation",
                "properties": {
                    "server_id": {"get_resource": "vm"},
                    "floating_ip": {"get_resource": "fip"},
                },
            },
        ),
    ],
)
def test_heats_own_attachment_types_run_create_then_delete(module: str, resource: dict) -> None:
    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, f"heat.engine.resources.openstack.{module}").errors
    resources = {
        **PREREQUISITES,
        "fip": {"type": "OS::Neutron::FloatingIP", "properties": {"floating_network": "public"}},
        "r": resource,
    }
    stack = world.create_stack("s", {"heat_template_version": "2018-08-31", "resources": resources})
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    if module == "nova.floatingip":
        neutron = world.client_plugin("neutron").client()
        fip = neutron.show_floatingip(stack.resources["fip"].resource_id)["floatingip"]
        [port] = neutron.list_ports(device_id=stack.resources["vm"].resource_id)["ports"]
        assert fip["port_id"] == port["id"]
    else:
        assert _volume(world, stack).status == "in-use"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()
