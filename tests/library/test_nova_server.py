"""OS::Nova::Server and the other Nova types on the default fake cloud."""

import pytest

from sdk import exception
from tests.library.conftest import outputs, tmpl

SERVER = {
    "image": "cirros",
    "flavor": "m1.tiny",
    "key_name": "default",
    "networks": [{"network": "public"}],
}


def server_tmpl(**props):
    return tmpl(
        {"srv": {"type": "OS::Nova::Server", "properties": {**SERVER, **props}}},
        outputs={
            "ip": {"value": {"get_attr": ["srv", "first_address"]}},
            "name": {"value": {"get_attr": ["srv", "name"]}},
            "networks": {"value": {"get_attr": ["srv", "networks"]}},
            "addresses": {"value": {"get_attr": ["srv", "addresses"]}},
        },
    )


def nova(world, stack, name="srv"):
    return world.cloud.client("compute").servers.get(stack.resources[name].resource_id)


def test_server_boots_and_exposes_its_addresses(world):
    stack = world.create_stack("s", server_tmpl(metadata={"role": "web", "n": 3}, name="web1"))
    assert stack.state == "CREATE_COMPLETE"
    out = outputs(stack)
    assert out["name"] == "web1"
    assert out["ip"].startswith("172.24.4.")
    assert out["networks"]["public"] == [out["ip"]]
    assert out["addresses"]["public"][0]["addr"] == out["ip"]
    server = nova(world, stack)
    assert server.status == "ACTIVE"
    assert server.metadata == {"role": "web", "n": "3"}
    assert server.key_name == "default"
    assert world.clock.now() > 0  # booting took virtual time
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_missing_image_flavor_and_keypair_fail_validation_naming_the_property(world):
    cases = {
        "image": ("no-image", "The Image (no-image) could not be found."),
        "flavor": ("m1.huge", "The Flavor (m1.huge) could not be found."),
        "key_name": ("nokey", "The Key (nokey) could not be found."),
    }
    for prop, (value, message) in cases.items():
        with pytest.raises(exception.StackValidationFailed) as refused:
            world.create_stack(f"s-{prop.replace('_', '-')}", server_tmpl(**{prop: value}))
        assert f"resources.srv.properties.{prop}" in str(refused.value)
        assert message in str(refused.value)
    assert world.cloud.leaks(world.baseline) == []


def test_server_without_image_or_volume_is_refused(world):
    t = server_tmpl()
    del t["resources"]["srv"]["properties"]["image"]
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert "Neither image nor a bootable volume" in str(refused.value)


def test_wrong_property_type_names_the_property(world):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", server_tmpl(networks="public"))
    assert "resources.srv.properties.networks" in str(refused.value)


def test_update_name_and_metadata_in_place_flavor_resizes_image_rebuilds(world):
    stack = world.create_stack("s", server_tmpl())
    server_id = stack.resources["srv"].resource_id
    stack = world.update_stack("s", server_tmpl(name="renamed", metadata={"a": "b"}))
    assert stack.state == "UPDATE_COMPLETE"
    server = nova(world, stack)
    assert (server.id, server.name, server.metadata) == (server_id, "renamed", {"a": "b"})
    stack = world.update_stack(
        "s", server_tmpl(name="renamed", metadata={"a": "b"}, flavor="m1.small", image="fedora")
    )
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    server = nova(world, stack)
    assert server.id == server_id
    assert server.status == "ACTIVE"
    assert server.flavor["original_name"] == "m1.small"
    fedora = world.cloud.client("compute").images.find(name="fedora")
    assert server.image["id"] == fedora.id
    trace = [t.operation for t in world.cloud.trace()]
    assert {"servers.resize", "servers.confirm_resize", "servers.rebuild"} <= set(trace)
    stack = world.update_stack(
        "s",
        server_tmpl(
            name="renamed", metadata={"a": "b"}, flavor="m1.small", image="fedora", key_name=None
        ),
    )
    assert stack.state == "UPDATE_COMPLETE"
    assert stack.resources["srv"].resource_id != server_id  # key_name change replaces


def test_suspend_and_resume(world):
    stack = world.create_stack("s", server_tmpl())
    assert world.suspend_stack("s").state == "SUSPEND_COMPLETE"
    assert nova(world, stack).status == "SUSPENDED"
    assert world.resume_stack("s").state == "RESUME_COMPLETE"
    assert nova(world, stack).status == "ACTIVE"


def test_deletion_policy_snapshot_keeps_an_image(world):
    t = server_tmpl()
    t["resources"]["srv"]["deletion_policy"] = "Snapshot"
    world.create_stack("s", t)
    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    leaks = world.cloud.leaks(world.baseline)
    assert [(i.kind, i.status) for i in leaks] == [("image", "active")]
    assert leaks[0].name.endswith("-final-snapshot")


def test_block_device_mapping_attaches_and_deletes_on_termination(world):
    t = tmpl(
        {
            "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 2, "image": "cirros"}},
            "srv": {
                "type": "OS::Nova::Server",
                "properties": {
                    "flavor": "m1.tiny",
                    "block_device_mapping_v2": [
                        {"volume_id": {"get_resource": "vol"}, "boot_index": 0}
                    ],
                    "block_device_mapping": [
                        {
                            "volume_id": {"get_resource": "extra"},
                            "device_name": "vdc",
                            "delete_on_termination": True,
                        }
                    ],
                },
            },
            "extra": {
                "type": "OS::Cinder::Volume",
                "properties": {"size": 1},
                "deletion_policy": "Retain",
            },
        }
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    cinder = world.cloud.client("block_storage")
    vol = cinder.volumes.get(stack.resources["vol"].resource_id)
    extra = cinder.volumes.get(stack.resources["extra"].resource_id)
    assert vol.status == extra.status == "in-use"
    assert extra.attachments[0]["device"] == "/dev/vdc"
    assert nova(world, stack).image["id"] == vol.volume_image_metadata["image_id"]
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []  # extra was retained but deleted on termination


def test_keypair_generated_and_saved(world):
    t = tmpl(
        {
            "kp": {
                "type": "OS::Nova::KeyPair",
                "properties": {"name": "mine", "save_private_key": True},
            }
        },
        outputs={
            "priv": {"value": {"get_attr": ["kp", "private_key"]}},
            "id": {"value": {"get_resource": "kp"}},
        },
    )
    out = outputs(world.create_stack("s", t))
    assert out["id"] == "mine"
    assert out["priv"].startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_flavor_and_server_group_are_kept_as_entities(world):
    t = tmpl(
        {
            "fl": {
                "type": "OS::Nova::Flavor",
                "properties": {"ram": 1024, "vcpus": 2, "extra_specs": {"hw:cpu": "x"}},
            },
            "sg": {"type": "OS::Nova::ServerGroup", "properties": {"policies": ["affinity"]}},
        },
        outputs={
            "specs": {"value": {"get_attr": ["fl", "extra_specs"]}},
            "pol": {"value": {"get_attr": ["sg", "policies"]}},
        },
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE"
    assert outputs(stack) == {"specs": {"hw:cpu": "x"}, "pol": ["affinity"]}
    kinds = sorted(i.kind for i in world.cloud.leaks(world.baseline))
    assert kinds == ["nova_flavor", "nova_server_group"]
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_server_group_bad_policy_names_the_property(world):
    t = tmpl({"sg": {"type": "OS::Nova::ServerGroup", "properties": {"policies": ["spread"]}}})
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert "resources.sg.properties.policies" in str(refused.value)


def test_a_network_given_by_subnet_plugs_a_port_made_on_it_and_deletes_it(world):
    # Heat 27's networks[].subnet (heat-tempest-plugin's test_nova_server_networks): Heat makes
    # a port on the subnet (its network when none is given), with the fixed_ip, and deletes it
    stack = world.create_stack(
        "s", server_tmpl(networks=[{"subnet": "public-subnet", "fixed_ip": "172.24.4.77"}])
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert out["ip"] == "172.24.4.77"
    neutron = world.cloud.client("network")
    [port] = neutron.list_ports(device_id=stack.resources["srv"].resource_id)["ports"]
    subnet = neutron.list_subnets(name="public-subnet")["subnets"][0]
    assert port["fixed_ips"] == [{"subnet_id": subnet["id"], "ip_address": "172.24.4.77"}]
    assert port["network_id"] == subnet["network_id"]
    world.delete_stack("s")
    assert neutron.list_ports(id=port["id"])["ports"] == []
    assert world.cloud.leaks(world.baseline) == []


def test_an_unknown_subnet_fails_validation_naming_it(world):
    with pytest.raises(exception.StackValidationFailed, match="networks.0.subnet|networks\\[0\\]"):
        world.validate_template(server_tmpl(networks=[{"subnet": "nowhere"}]))


def test_addresses_are_also_keyed_by_network_id_as_in_heat(world):
    # Heat 27 extends addresses (and networks) with each network's id; heat-tempest-plugin's
    # test_server_signal reads [server, addresses, {get_resource: network}, 0, port]
    stack = world.create_stack("s", server_tmpl())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    public = world.cloud.client("network").list_networks(name="public")["networks"][0]["id"]
    assert out["addresses"][public] == out["addresses"]["public"]
    assert out["addresses"][public][0]["port"]
    assert out["networks"][public] == out["networks"]["public"]
    world.delete_stack("s")


def test_keypair_imports_a_key_file_ending_in_a_newline(world):
    """``get_file: id_ed25519.pub`` reads the file with its final newline (heat-tempest-plugin's
    ``test_base_resources``): nova imports it, so the pattern must not stop at the line end."""
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFY6 heat-test\n"
    t = tmpl(
        {"kp": {"type": "OS::Nova::KeyPair", "properties": {"name": "k1", "public_key": key}}},
        outputs={"pub": {"value": {"get_attr": ["kp", "public_key"]}}},
    )
    stack = world.create_stack("s", t)
    assert stack.status == "COMPLETE", stack.status_reason
    assert outputs(stack)["pub"].startswith("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFY6")


def test_keypair_still_refuses_a_key_that_is_not_an_openssh_line(world):
    t = tmpl({"kp": {"type": "OS::Nova::KeyPair", "properties": {"name": "k1", "public_key": "x"}}})
    with pytest.raises(Exception, match="does not match pattern"):
        world.create_stack("s", t)


def test_restore_rebuilds_the_server_from_its_snapshot_image_as_heat_does(world):
    # Heat 27's Server.handle_restore boots from the image its snapshot made
    # (``snapshot_image_id``); the image change is a rebuild in place
    stack = world.create_stack("s", server_tmpl(name="web"))
    server_id = stack.resources["srv"].resource_id
    snap = world.snapshot_stack("s", "snap")
    assert snap.status == "COMPLETE", snap.reason
    image_id = snap.doc["resources"]["srv"]["resource_data"]["snapshot_image_id"]
    assert world.update_stack("s", server_tmpl(name="web2")).state == "UPDATE_COMPLETE"
    mark = len(world.cloud.trace())
    stack = world.restore_stack("s", "snap")
    assert stack.state == "RESTORE_COMPLETE", stack.status_reason
    server = nova(world, stack)
    assert (server.id, server.name, server.image["id"]) == (server_id, "web", image_id)
    assert [
        t.entity_id for t in world.cloud.trace()[mark:] if t.operation == "servers.rebuild"
    ] == [server_id]
