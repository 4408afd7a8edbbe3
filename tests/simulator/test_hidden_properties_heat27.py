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
    # keyed by the network's name and again by its id, as Heat 27's _get_server_addresses
    # extends them (server.py, _extend_networks)
    net_id = stack.resources["net"].resource_id
    assert list(_outputs(stack)["addresses"]) == ["lab", net_id]
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


# Attributes Heat 27 has and the fake cloud shows: (resource, attribute, key of the cloud's view).
SHOWN = [
    ("net", "admin_state_up", "admin_state_up"),
    ("net", "tenant_id", "tenant_id"),
    ("sub", "dns_nameservers", "dns_nameservers"),
    ("sub", "enable_dhcp", "enable_dhcp"),
    ("sub", "host_routes", "host_routes"),
    ("sub", "ip_version", "ip_version"),
    ("sub", "tenant_id", "tenant_id"),
    ("port", "admin_state_up", "admin_state_up"),
    ("port", "allowed_address_pairs", "allowed_address_pairs"),
    ("port", "device_owner", "device_owner"),
    ("port", "port_security_enabled", "port_security_enabled"),
    ("port", "security_groups", "security_groups"),
    ("port", "tenant_id", "tenant_id"),
    ("router", "admin_state_up", "admin_state_up"),
    ("router", "tenant_id", "tenant_id"),
    ("fip", "tenant_id", "tenant_id"),
    ("vol", "availability_zone", "availability_zone"),
    ("vol", "snapshot_id", "snapshot_id"),
    ("vol", "source_volid", "source_volid"),
    ("vol", "volume_type", "volume_type"),
    ("vol", "multiattach", "multiattach"),
    ("vol", "display_description", "description"),
    ("vol", "metadata_values", "metadata"),
    ("vol", "attachments_list", "attachments"),
]


def test_attributes_heat_27_has_read_the_clouds_view(world):
    body = _template(
        {
            "net": {"type": "OS::Neutron::Net"},
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {
                    "network": {"get_resource": "net"},
                    "cidr": "10.42.0.0/24",
                    "dns_nameservers": ["10.42.0.2"],
                },
            },
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": {"get_resource": "net"}},
            },
            "router": {
                "type": "OS::Neutron::Router",
                "properties": {"external_gateway_info": {"network": "public"}},
            },
            "fip": {
                "type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public"},
            },
            "vol": {
                "type": "OS::Cinder::Volume",
                "properties": {"size": 1, "description": "d", "metadata": {"k": "v"}},
            },
        },
        outputs={f"{r}.{a}": {"value": {"get_attr": [r, a]}} for r, a, _ in SHOWN},
    )
    stack = world.create_stack("s", body)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = _outputs(stack)
    for resource, attribute, key in SHOWN:
        res = stack.resources[resource]
        view = (
            res.show() if resource != "vol" else res.client().volumes.get(res.resource_id).to_dict()
        )
        assert out[f"{resource}.{attribute}"] == view[key], (resource, attribute)
    assert out["sub.dns_nameservers"] == ["10.42.0.2"]
    assert out["vol.display_description"] == "d"
    assert out["vol.metadata_values"] == {"k": "v"}
    assert out["sub.ip_version"] == 4


@pytest.mark.parametrize("key", ["PurgeOnDelete", "purge_on_delete"])
def test_a_container_with_purge_on_delete_goes_with_its_objects(world, key):
    body = _template(
        {"c": {"type": "OS::Swift::Container", "properties": {"name": "x", key: True}}}
    )
    assert world.create_stack("s", body).state == "CREATE_COMPLETE"
    world.cloud.client("swift").put_object("x", "o", b"hi")
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


def test_a_container_keeps_heats_spelling_and_hides_plugsims_old_one():
    from simulator.resources.openstack.swift import Container

    assert Container.properties_schema["PurgeOnDelete"].support_status.status == support.SUPPORTED
    assert Container.properties_schema["purge_on_delete"].support_status.status == support.HIDDEN
    assert Container.translations == {"purge_on_delete": "PurgeOnDelete"}


def test_a_changed_index_var_replaces_the_group_as_in_heat(world):
    def group(index_var):
        return _template(
            {
                "g": {
                    "type": "OS::Heat::ResourceGroup",
                    "properties": {
                        "count": 1,
                        "index_var": index_var,
                        "resource_def": {"type": "OS::Heat::None"},
                    },
                }
            },
            outputs={"id": {"value": {"get_resource": "g"}}},
        )

    before = _outputs(world.create_stack("s", group("%index%")))["id"]
    stack = world.update_stack("s", group("%n%"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert _outputs(stack)["id"] != before


def test_a_port_replacement_policy_may_change_in_place():
    assert Port.properties_schema["replacement_policy"].update_allowed


def test_a_wait_condition_needs_a_timeout_as_in_heat(world):
    body = _template(
        {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "h"}},
            },
        }
    )
    with pytest.raises(StackValidationFailed, match="timeout"):
        world.create_stack("s", body)


def _server_stack(**props):
    return _template(
        {"srv": _server(**{"image": "cirros", **props})},
        outputs={"id": {"value": {"get_resource": "srv"}}},
    )


@pytest.mark.parametrize(
    ("before", "after", "replaced"),
    [
        ({}, {"flavor": "m1.small"}, False),
        ({"flavor_update_policy": "REPLACE"}, {"flavor": "m1.small"}, True),
        ({}, {"image": "fedora"}, False),
        ({"image_update_policy": "REPLACE"}, {"image": "fedora"}, True),
        ({"user_data": "a"}, {"user_data": "b"}, True),
        ({"user_data": "a", "user_data_update_policy": "IGNORE"}, {"user_data": "b"}, False),
        ({}, {"flavor_update_policy": "REPLACE", "image_update_policy": "REPLACE"}, False),
        # the policy given with the change is the one applied, as in Heat
        ({}, {"flavor": "m1.small", "flavor_update_policy": "REPLACE"}, True),
    ],
)
def test_server_update_policies_decide_replacement_as_in_heat(world, before, after, replaced):
    first = _outputs(world.create_stack("s", _server_stack(**before)))["id"]
    stack = world.update_stack("s", _server_stack(**{**before, **after}))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert (_outputs(stack)["id"] != first) is replaced
    server = world.cloud.service("compute").get_server(_outputs(stack)["id"])
    if "flavor" in after:
        assert server["flavor"]["original_name"] == "m1.small"
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def _association(port, fixed=None, fip="fip"):
    props = {"floatingip_id": {"get_resource": fip}, "port_id": {"get_resource": port}}
    if fixed:
        props["fixed_ip_address"] = fixed
    net = {"get_resource": "net"}
    return _template(
        {
            "net": {"type": "OS::Neutron::Net"},
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": net, "cidr": "10.43.0.0/24"},
            },
            "router": {
                "type": "OS::Neutron::Router",
                "properties": {"external_gateway_info": {"network": "public"}},
            },
            "ri": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {
                    "router": {"get_resource": "router"},
                    "subnet": {"get_resource": "sub"},
                },
            },
            "a": {
                "type": "OS::Neutron::Port",
                "properties": {"network": net},
                "depends_on": ["sub"],
            },
            "b": {
                "type": "OS::Neutron::Port",
                "properties": {"network": net},
                "depends_on": ["sub"],
            },
            "fip": {
                "type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public"},
                "depends_on": ["ri"],
            },
            "fip2": {
                "type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public"},
                "depends_on": ["ri"],
            },
            "assoc": {"type": "OS::Neutron::FloatingIPAssociation", "properties": props},
        },
        outputs={
            "fip": {"value": {"get_resource": "fip"}},
            "fip2": {"value": {"get_resource": "fip2"}},
            "b": {"value": {"get_resource": "b"}},
            "b_ip": {"value": {"get_attr": ["b", "fixed_ips", 0, "ip_address"]}},
        },
    )


def test_a_floating_ip_association_moves_to_another_port_in_place(world):
    world.create_stack("s", _association("a"))
    stack = world.update_stack("s", _association("b"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["assoc"].action == "UPDATE"
    out = _outputs(stack)
    fip = world.cloud.client("network").show_floatingip(out["fip"])["floatingip"]
    assert (fip["port_id"], fip["fixed_ip_address"]) == (out["b"], out["b_ip"])
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_floating_ip_association_moves_to_another_floating_ip_in_place(world):
    world.create_stack("s", _association("a"))
    stack = world.update_stack("s", _association("a", fip="fip2"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["assoc"].action == "UPDATE"
    out = _outputs(stack)
    neutron = world.cloud.client("network")
    assert neutron.show_floatingip(out["fip"])["floatingip"]["port_id"] is None
    assert neutron.show_floatingip(out["fip2"])["floatingip"]["port_id"] is not None
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def _attachment(volume, server="srv"):
    return _template(
        {
            "srv": _server(image="cirros"),
            "srv2": _server(image="cirros"),
            "va": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
            "vb": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
            "att": {
                "type": "OS::Cinder::VolumeAttachment",
                "properties": {
                    "volume_id": {"get_resource": volume},
                    "instance_uuid": {"get_resource": server},
                },
            },
        },
        outputs={k: {"value": {"get_resource": k}} for k in ("srv", "srv2", "va", "vb")},
    )


@pytest.mark.parametrize(("volume", "server"), [("vb", "srv"), ("va", "srv2"), ("vb", "srv2")])
def test_a_volume_attachment_moves_in_place_as_in_heat(world, volume, server):
    world.create_stack("s", _attachment("va"))
    stack = world.update_stack("s", _attachment(volume, server))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["att"].action == "UPDATE"
    out = _outputs(stack)
    cinder = world.cloud.client("cinder")
    attached = {
        v: [a["server_id"] for a in cinder.volumes.get(out[v]).attachments] for v in ("va", "vb")
    }
    expected = {"va": [], "vb": []}
    expected[volume] = [out[server]]
    assert attached == expected
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def _port(**props):
    return _template(
        {"p": {"type": "OS::Neutron::Port", "properties": {"network": "public", **props}}},
        outputs={
            "id": {"value": {"get_resource": "p"}},
            **{k: {"value": {"get_attr": ["p", k]}} for k in ("device_id", "device_owner")},
            "mac": {"value": {"get_attr": ["p", "mac_address"]}},
        },
    )


def test_a_port_takes_heats_device_and_mac_properties(world):
    made = world.create_stack(
        "s",
        _port(device_id="dev-1", device_owner="baremetal:none", mac_address="fa:16:3e:00:00:01"),
    )
    assert made.state == "CREATE_COMPLETE", made.status_reason
    out = _outputs(made)
    assert (out["device_id"], out["device_owner"], out["mac"]) == (
        "dev-1",
        "baremetal:none",
        "fa:16:3e:00:00:01",
    )
    stack = world.update_stack(
        "s", _port(device_id="dev-2", device_owner="compute:nova", mac_address="fa:16:3e:00:00:01")
    )
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    after = _outputs(stack)
    assert after["id"] == out["id"]  # in place, as in Heat
    assert (after["device_id"], after["device_owner"]) == ("dev-2", "compute:nova")
