"""A port's ``fixed_ips`` change in place, keeping the port and its MAC (Heat 27's
OS::Neutron::Port, heat-tempest-plugin's test_create_update_neutron_port)."""

import pytest

from sdk import exception
from tests.library.conftest import outputs, tmpl


def _template(fixed):
    return tmpl(
        {
            "net": {"type": "OS::Neutron::Net"},
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {
                    "network": {"get_resource": "net"},
                    "cidr": "11.11.11.0/24",
                    "allocation_pools": [{"start": "11.11.11.2", "end": "11.11.11.9"}],
                },
            },
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": {"get_resource": "net"}, "fixed_ips": fixed},
            },
        },
        outputs={
            "ip": {"value": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]}},
            "mac": {"value": {"get_attr": ["port", "mac_address"]}},
        },
    )


SUBNET = {"subnet": {"get_resource": "subnet"}}


def test_dropping_then_changing_the_address_keeps_the_port(world):
    stack = world.create_stack("p", _template([{**SUBNET, "ip_address": "11.11.11.11"}]))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    port_id, before = stack.resources["port"].resource_id, outputs(stack)
    stack = world.update_stack("p", _template([SUBNET]))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["port"].resource_id == port_id
    assert outputs(stack) == before  # the address on the subnet is kept
    stack = world.update_stack("p", _template([{**SUBNET, "ip_address": "11.11.11.20"}]))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["port"].resource_id == port_id
    assert outputs(stack) == {**before, "ip": "11.11.11.20"}
    world.delete_stack("p")
    assert world.cloud.leaks(world.baseline) == []


def test_the_fake_neutron_refuses_an_address_another_port_holds(world):
    neutron = world.cloud.client("network")
    net = neutron.create_network({"network": {"name": "n"}})["network"]["id"]
    body = {"subnet": {"network_id": net, "cidr": "10.3.0.0/24", "ip_version": 4}}
    subnet = neutron.create_subnet(body)["subnet"]["id"]
    first = neutron.create_port({"port": {"network_id": net}})["port"]
    second = neutron.create_port({"port": {"network_id": net}})["port"]
    taken = first["fixed_ips"][0]["ip_address"]
    with pytest.raises(exception.Conflict, match="already allocated"):
        neutron.update_port(second["id"], {"port": {"fixed_ips": [{"ip_address": taken}]}})
    moved = neutron.update_port(
        second["id"], {"port": {"fixed_ips": [{"subnet_id": subnet, "ip_address": "10.3.0.77"}]}}
    )["port"]
    assert moved["fixed_ips"] == [{"subnet_id": subnet, "ip_address": "10.3.0.77"}]
    assert moved["mac_address"] == second["mac_address"]


def test_an_empty_fixed_ips_entry_is_refused_at_validation(world):
    with pytest.raises(exception.StackValidationFailed, match="a subnet or an ip_address"):
        world.validate_template(_template([{}]))
