"""Neutron, Cinder, Swift and software-config types on the default fake cloud."""

import email

import pytest

from sdk import exception
from tests.library.conftest import outputs, tmpl


def test_net_subnet_port_router_and_floating_ip(world):
    t = tmpl(
        {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "private"}},
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": "private", "cidr": "10.1.0.0/24"},
                "depends_on": "net",
            },
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {
                    "network": {"get_resource": "net"},
                    "fixed_ips": [{"subnet": {"get_resource": "sub"}, "ip_address": "10.1.0.50"}],
                },
            },
            "router": {
                "type": "OS::Neutron::Router",
                "properties": {"external_gateway_info": {"network": "public"}},
            },
            "iface": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {
                    "router": {"get_resource": "router"},
                    "subnet": {"get_resource": "sub"},
                },
            },
            "fip": {
                "type": "OS::Neutron::FloatingIP",
                "depends_on": "iface",
                "properties": {"floating_network": "public", "port_id": {"get_resource": "port"}},
            },
        },
        outputs={
            "gw": {"value": {"get_attr": ["sub", "gateway_ip"]}},
            "fixed": {"value": {"get_attr": ["fip", "fixed_ip_address"]}},
            "subnets": {"value": {"get_attr": ["net", "subnets"]}},
        },
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert out["gw"] == "10.1.0.1"
    assert out["fixed"] == "10.1.0.50"
    assert out["subnets"] == [stack.resources["sub"].resource_id]
    assert stack.resources["iface"].resource_id.endswith(
        f":subnet_id={stack.resources['sub'].resource_id}"
    )
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


def test_missing_network_fails_validation_with_heat_wording(world):
    t = tmpl(
        {
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": "nowhere", "cidr": "10.0.0.0/24"},
            }
        }
    )
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert (
        "resources.sub.properties.network: 'nowhere' does not satisfy the custom constraint "
        "'neutron.network': The Network (nowhere) could not be found." in str(refused.value)
    )


def test_router_interface_needs_exactly_one_of_subnet_and_port(world):
    t = tmpl(
        {
            "r": {"type": "OS::Neutron::Router"},
            "i": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {"router": {"get_resource": "r"}},
            },
        }
    )
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    assert "Exactly one of subnet and port must be given" in str(refused.value)


def test_security_group_rules_are_replaced_on_update(world):
    rule = {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}
    t = tmpl(
        {
            "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": [rule]}},
            "extra": {
                "type": "OS::Neutron::SecurityGroupRule",
                "properties": {
                    "security_group": {"get_resource": "sg"},
                    "protocol": "icmp",
                    "remote_mode": "remote_group_id",
                },
            },
        }
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    neutron = world.cloud.client("network")
    sg_id = stack.resources["sg"].resource_id

    def rules():
        found = neutron.list_security_group_rules(security_group_id=sg_id)["security_group_rules"]
        return sorted((r["protocol"], r["port_range_min"], r["remote_group_id"]) for r in found)

    assert rules() == [("icmp", None, sg_id), ("tcp", 22, None)]
    t["resources"]["sg"]["properties"]["rules"] = [
        {**rule, "port_range_min": 80, "port_range_max": 80}
    ]
    assert world.update_stack("s", t).state == "UPDATE_COMPLETE"
    assert stack.resources["sg"].resource_id == sg_id
    assert ("tcp", 80, None) in rules() and ("tcp", 22, None) not in rules()
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_volume_extends_in_place_and_refuses_to_shrink(world):
    t = tmpl(
        {"v": {"type": "OS::Cinder::Volume", "properties": {"size": 1, "metadata": {"a": 1}}}},
        outputs={"size": {"value": {"get_attr": ["v", "size"]}}},
    )
    stack = world.create_stack("s", t)
    vid = stack.resources["v"].resource_id
    t["resources"]["v"]["properties"]["size"] = 3
    stack = world.update_stack("s", t)
    assert stack.state == "UPDATE_COMPLETE"
    assert stack.resources["v"].resource_id == vid
    assert outputs(stack)["size"] == "3"  # a string, as Heat 27 gives it
    t["resources"]["v"]["properties"]["size"] = 2
    stack = world.update_stack("s", t)
    assert stack.state == "UPDATE_FAILED"
    assert "Shrinking volume v from 3 to 2 GiB is not supported" in stack.status_reason


def test_volume_without_size_or_source_names_size(world):
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", tmpl({"v": {"type": "OS::Cinder::Volume"}}))
    assert "resources.v.properties.size: size is required" in str(refused.value)


def test_volume_snapshot_policy_keeps_a_backup_that_restores(world):
    t = tmpl(
        {
            "v": {
                "type": "OS::Cinder::Volume",
                "properties": {"size": 2},
                "deletion_policy": "Snapshot",
            }
        }
    )
    world.create_stack("s", t)
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    leaks = world.cloud.leaks(world.baseline)
    assert [i.kind for i in leaks] == ["backup"]
    backup_id = leaks[0].id
    restored = {"backup_id": backup_id, "description": "from the backup"}
    t2 = tmpl(
        {"v": {"type": "OS::Cinder::Volume", "properties": restored}},
        outputs={
            "size": {"value": {"get_attr": ["v", "size"]}},
            "text": {"value": {"get_attr": ["v", "display_description"]}},
        },
    )
    stack = world.create_stack("r", t2)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    # as in Heat, the restored volume takes the resource's description (the volumes scenario)
    assert outputs(stack) == {"size": "2", "text": "from the backup"}
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack(
            "bad", tmpl({"v": {"type": "OS::Cinder::Volume", "properties": {"backup_id": "nope"}}})
        )
    assert "The Backup (nope) could not be found." in str(refused.value)


def test_container_with_metadata_and_purge(world):
    t = tmpl(
        {
            "c": {
                "type": "OS::Swift::Container",
                "properties": {
                    "name": "site",
                    "X-Container-Read": ".r:*",
                    "X-Container-Meta": {"owner": "me"},
                    "purge_on_delete": True,
                },
            }
        },
        outputs={
            "url": {"value": {"get_attr": ["c", "WebsiteURL"]}},
            "count": {"value": {"get_attr": ["c", "ObjectCount"]}},
        },
    )
    stack = world.create_stack("s", t)
    assert outputs(stack) == {"url": "http://swift.plugsim.local/v1/AUTH_plugsim/site", "count": 0}
    swift = world.cloud.client("swift")
    assert swift.head_container("site")["x-container-meta-owner"] == "me"
    swift.put_object("site", "index.html", b"hi")
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


def test_software_configs_and_multipart_mime(world):
    t = tmpl(
        {
            "script": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {"group": "script", "config": "#!/bin/sh\necho hi\n"},
            },
            "cc": {
                "type": "OS::Heat::CloudConfig",
                "properties": {"cloud_config": {"packages": ["nginx"]}},
            },
            "sc": {"type": "OS::Heat::StructuredConfig", "properties": {"config": {"a": 1}}},
            "mime": {
                "type": "OS::Heat::MultipartMime",
                "properties": {
                    "parts": [
                        {"config": {"get_resource": "cc"}},
                        {
                            "config": {"get_resource": "script"},
                            "subtype": "x-shellscript",
                            "filename": "run.sh",
                        },
                        {"config": "literal text"},
                    ]
                },
            },
        },
        outputs={n: {"value": {"get_attr": [n, "config"]}} for n in ("script", "cc", "sc", "mime")},
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert out["script"] == "#!/bin/sh\necho hi\n"
    assert out["cc"] == "#cloud-config\npackages:\n- nginx\n"
    assert out["sc"] == "a: 1\n"
    message = email.message_from_string(out["mime"])
    parts = [p for p in message.walk() if not p.is_multipart()]
    assert [p.get_content_subtype() for p in parts] == ["plain", "x-shellscript", "plain"]
    assert [p.get_payload(decode=True).decode() for p in parts] == [
        out["cc"],
        out["script"],
        "literal text",
    ]
    assert parts[1].get_filename() == "run.sh"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(world.baseline) == []


def _network_entity(world, stack, name):
    """The fake cloud's network entity behind resource *name*, as the client shows it."""
    client = world.cloud.client("network")
    return client.show_network(stack.resources[name].resource_id)["network"]


def test_net_port_security_is_on_by_default_and_an_update_switches_it(world):
    def net(**props):
        return tmpl(
            {"net": {"type": "OS::Neutron::Net", "properties": props}},
            outputs={
                "show": {"value": {"get_attr": ["net", "show"]}},
                "pse": {"value": {"get_attr": ["net", "port_security_enabled"]}},
            },
        )

    stack = world.create_stack("s", net())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert _network_entity(world, stack, "net")["port_security_enabled"] is True
    stack = world.update_stack("s", net(port_security_enabled=False))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert _network_entity(world, stack, "net")["port_security_enabled"] is False
    assert outputs(stack)["show"]["port_security_enabled"] is False
    assert outputs(stack)["pse"] is False
    stack = world.update_stack("s", net(port_security_enabled=True))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert _network_entity(world, stack, "net")["port_security_enabled"] is True
    assert outputs(stack)["show"]["port_security_enabled"] is True


def test_a_port_set_explicitly_after_inheriting_its_networks_port_security_gets_it(world):
    def stack_with(port_security=None):
        port = {"network": {"get_resource": "net"}}
        if port_security is not None:
            port["port_security_enabled"] = port_security
        return tmpl(
            {
                "net": {"type": "OS::Neutron::Net", "properties": {"port_security_enabled": False}},
                "sub": {
                    "type": "OS::Neutron::Subnet",
                    "properties": {"network": {"get_resource": "net"}, "cidr": "10.5.0.0/24"},
                },
                "port": {"type": "OS::Neutron::Port", "depends_on": ["sub"], "properties": port},
            },
            outputs={"pse": {"value": {"get_attr": ["port", "show", "port_security_enabled"]}}},
        )

    seen = []
    stack = world.create_stack("s", stack_with())
    seen.append(outputs(stack)["pse"])  # unset: the network's (off)
    for value in (True, None, False):
        stack = world.update_stack("s", stack_with(value))
        assert stack.state == "UPDATE_COMPLETE", stack.status_reason
        seen.append(outputs(stack)["pse"])
    # explicitly on is applied although on was once the default; unset again keeps it
    assert seen == [False, True, True, False]


def test_port_security_groups_name_a_missing_group_fails_validation(world):
    t = tmpl(
        {
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "public", "security_groups": ["default", "nope"]},
            }
        }
    )
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("s", t)
    message = str(refused.value)
    assert "resources.port.properties.security_groups" in message
    assert "The Security Group (nope) could not be found." in message


def test_port_security_groups_resolve_by_name_on_create_and_update(world):
    def port(groups):
        return tmpl(
            {
                "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"name": "web"}},
                "port": {
                    "type": "OS::Neutron::Port",
                    "depends_on": "sg",
                    "properties": {"network": "public", "security_groups": groups},
                },
            }
        )

    stack = world.create_stack("s", port(["default"]))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    client = world.cloud.client("network")
    port_id = stack.resources["port"].resource_id
    groups = client.show_port(port_id)["port"]["security_groups"]
    assert groups == [client.list_security_groups(name="default")["security_groups"][0]["id"]]
    stack = world.update_stack("s", port(["web"]))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert client.show_port(port_id)["port"]["security_groups"] == [
        stack.resources["sg"].resource_id
    ]


def test_router_external_gateway_info_resolves_to_the_gateway_and_none_without(world):
    def router(gateway):
        props = {"external_gateway_info": gateway} if gateway else {}
        return tmpl(
            {"router": {"type": "OS::Neutron::Router", "properties": props}},
            outputs={"gw": {"value": {"get_attr": ["router", "external_gateway_info"]}}},
        )

    public = world.cloud.client("network").list_networks(name="public")["networks"][0]["id"]
    stack = world.create_stack("s", router({"network": "public", "enable_snat": False}))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert outputs(stack)["gw"] == {"network_id": public, "enable_snat": False}
    stack = world.update_stack("s", router(None))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert outputs(stack)["gw"] is None
    assert (
        world.cloud.client("network").show_router(stack.resources["router"].resource_id)["router"][
            "external_gateway_info"
        ]
        is None
    )


def test_port_security_switched_off_on_an_existing_port_reaches_the_port(world):
    def port(**props):
        return tmpl(
            {"port": {"type": "OS::Neutron::Port", "properties": {"network": "public", **props}}}
        )

    stack = world.create_stack("s", port())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    client = world.cloud.client("network")
    port_id = stack.resources["port"].resource_id
    assert client.show_port(port_id)["port"]["port_security_enabled"] is True
    stack = world.update_stack("s", port(port_security_enabled=False))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["port"].resource_id == port_id
    assert client.show_port(port_id)["port"]["port_security_enabled"] is False


def _closed_net_and_port(**port_props):
    """A network with port security off, its subnet and a port on it."""
    return tmpl(
        {
            "net": {
                "type": "OS::Neutron::Net",
                "properties": {"name": "closed", "port_security_enabled": False},
            },
            "sub": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.7.0.0/24"},
            },
            "port": {
                "type": "OS::Neutron::Port",
                "depends_on": "sub",
                "properties": {"network": {"get_resource": "net"}, **port_props},
            },
        }
    )


def test_a_port_without_port_security_takes_its_networks_value(world):
    stack = world.create_stack("s", _closed_net_and_port())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    port_id = stack.resources["port"].resource_id
    port = world.cloud.client("network").show_port(port_id)["port"]
    assert port["port_security_enabled"] is False


def test_a_port_that_asks_for_port_security_has_it_on_a_network_without(world):
    stack = world.create_stack("s", _closed_net_and_port(port_security_enabled=True))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    port_id = stack.resources["port"].resource_id
    port = world.cloud.client("network").show_port(port_id)["port"]
    assert port["port_security_enabled"] is True


def test_volume_restore_restores_its_snapshot_backup_into_the_volume_as_heat_does(world):
    # Heat 27's Volume.handle_restore asks for the backup its snapshot made
    # (``backup_id``); the backup_id change restores the backup into the same volume
    def volume(name):
        return tmpl({"v": {"type": "OS::Cinder::Volume", "properties": {"size": 1, "name": name}}})

    stack = world.create_stack("s", volume("data"))
    volume_id = stack.resources["v"].resource_id
    snap = world.snapshot_stack("s", "snap")
    assert snap.status == "COMPLETE", snap.reason
    backup_id = snap.doc["resources"]["v"]["resource_data"]["backup_id"]
    assert world.update_stack("s", volume("data2")).state == "UPDATE_COMPLETE"
    mark = len(world.cloud.trace())
    stack = world.restore_stack("s", "snap")
    assert stack.state == "RESTORE_COMPLETE", stack.status_reason
    assert stack.resources["v"].resource_id == volume_id
    vol = world.cloud.client("block_storage").volumes.get(volume_id)
    assert (vol.name, vol.status) == ("data", "available")
    restores = [t for t in world.cloud.trace()[mark:] if t.operation == "backups.restore"]
    assert [t.entity_id for t in restores] == [backup_id]
