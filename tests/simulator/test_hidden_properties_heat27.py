"""More of the hidden properties Heat 27 still accepts and translates (issue 21): a server's
``networks[].uuid`` and ``block_device_mapping_v2[].image_id``/``image``, a volume's ``imageRef``
and ``multiattach``, a port's ``replacement_policy``; support statuses as Heat 27 has them."""

import pytest

from sdk import support
from sdk.exception import StackValidationFailed
from simulator.resources.heat.utility import RandomString
from simulator.resources.openstack.cinder import Volume
from simulator.resources.openstack.neutron import Port
from simulator.resources.openstack.server import Server
from simulator.world import World


@pytest.fixture
def world():
    w = World()
    w.baseline = w.cloud.snapshot_inventory()
    yield w
    w.close()


def _template(resources, outputs=None):
    doc = {"heat_template_version": "2018-08-31", "resources": resources}
    if outputs:
        doc["outputs"] = outputs
    return doc


def _outputs(stack):
    return {o["output_key"]: o["output_value"] for o in stack.outputs()}


def _server(**props):
    return {"type": "OS::Nova::Server", "properties": {"flavor": "m1.tiny", **props}}


def test_a_server_network_given_by_uuid_is_the_network(world):
    stack = world.create_stack(
        "s",
        _template(
            {"net": {"type": "OS::Neutron::Net"}, "srv": _server(image="cirros", networks=[])},
        ),
    )
    body = _template(
        {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "lab"}},
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.41.0.0/24"},
            },
            "srv": {
                **_server(image="cirros", networks=[{"uuid": {"get_resource": "net"}}]),
                "depends_on": ["sub"],
            },
        },
        outputs={"addresses": {"value": {"get_attr": ["srv", "addresses"]}}},
    )
    stack = world.create_stack("t", body)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert list(_outputs(stack)["addresses"]) == ["lab"]
    world.delete_stack("t")
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_server_network_given_by_uuid_and_network_is_an_error(world):
    body = _template(
        {"srv": _server(image="cirros", networks=[{"uuid": "public", "network": "public"}])}
    )
    with pytest.raises(StackValidationFailed, match="at the same time: network, uuid"):
        world.create_stack("s", body)


@pytest.mark.parametrize("key", ["image", "image_id"])
def test_a_server_boots_from_the_image_of_its_block_device_mapping_v2(world, key):
    body = _template(
        {"srv": _server(block_device_mapping_v2=[{key: "fedora", "boot_index": 0}])},
        outputs={"id": {"value": {"get_resource": "srv"}}},
    )
    stack = world.create_stack("s", body)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    server = world.cloud.service("compute").get_server(_outputs(stack)["id"])
    images = {i["id"]: i["name"] for i in world.cloud.service("compute").list_images()}
    assert images[server["image"]["id"]] == "fedora"
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_server_with_no_image_anywhere_is_refused(world):
    body = _template({"srv": _server(block_device_mapping_v2=[{"boot_index": 0}])})
    with pytest.raises(StackValidationFailed, match="Neither image nor a bootable volume"):
        world.create_stack("s", body)


def test_a_volume_image_ref_is_its_image(world):
    body = _template(
        {"vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1, "imageRef": "cirros"}}},
        outputs={"bootable": {"value": {"get_attr": ["vol", "bootable"]}}},
    )
    stack = world.create_stack("s", body)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert _outputs(stack)["bootable"] in (True, "true")
    both = _template(
        {
            "vol": {
                "type": "OS::Cinder::Volume",
                "properties": {"size": 1, "imageRef": "cirros", "image": "cirros"},
            }
        }
    )
    with pytest.raises(StackValidationFailed, match="at the same time: image, imageRef"):
        world.create_stack("t", both)


def test_hidden_properties_heat_drops_are_accepted(world):
    body = _template(
        {
            "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1, "multiattach": True}},
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "public", "replacement_policy": "AUTO"},
            },
        }
    )
    stack = world.create_stack("s", body)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason


@pytest.mark.parametrize(
    ("cls", "name", "status"),
    [
        (Volume, "imageRef", support.HIDDEN),
        (Volume, "multiattach", support.HIDDEN),
        (Port, "replacement_policy", support.HIDDEN),
        (Server, "personality", support.DEPRECATED),
        (Server, "reservation_id", support.SUPPORTED),
        (RandomString, "sequence", support.HIDDEN),
    ],
)
def test_support_statuses_are_heat_27s(cls, name, status):
    assert cls.properties_schema[name].support_status.status == status


@pytest.mark.parametrize(("name", "replaced_by"), [("uuid", "network"), ("image_id", "image")])
def test_hidden_names_inside_server_lists_are_marked(name, replaced_by):
    lists = {"uuid": "networks", "image_id": "block_device_mapping_v2"}
    entry = Server.properties_schema[lists[name]].schema.schema
    assert entry[name].support_status.status == support.HIDDEN
    assert Server.item_translations[lists[name]][name] == replaced_by
