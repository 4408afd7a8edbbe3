"""OS::Nova::Server ``networks`` updates keep the interfaces still described, as Heat 27 does.

Shaped like heat-tempest-plugin's test_nova_server_networks (UpdateServerNetworksTest).
"""

import pytest

from sdk import exception
from simulator.resources.openstack.server_networks import plan_network_update
from tests.library.conftest import outputs, tmpl


def _template(networks):
    return tmpl(
        {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "the_net"}},
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "11.11.11.0/24"},
            },
            "subnet_b": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "12.12.12.0/24"},
            },
            "server": {
                "type": "OS::Nova::Server",
                "properties": {"image": "cirros", "flavor": "m1.tiny", "networks": networks},
            },
        },
        outputs={
            f"port{i}": {"value": {"get_attr": ["server", "addresses", "the_net", i, "port"]}}
            for i in range(3)
        }
        | {"ips": {"value": {"get_attr": ["server", "networks", "the_net"]}}},
    )


NET = {"network": {"get_resource": "net"}}
SUB = {"subnet": {"get_resource": "subnet"}}


def _ports(stack, n=1):
    out = outputs(stack)
    return [out[f"port{i}"] for i in range(n)]


def _update(world, networks):
    stack = world.update_stack("s", _template(networks))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    return stack


def test_swapping_network_and_subnet_or_adding_one_keeps_the_port(world):
    stack = world.create_stack("s", _template([NET]))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    server_id = stack.resources["server"].resource_id
    before = _ports(stack)
    for networks in ([SUB], [NET], [{**NET, **SUB}], [{"port": before[0]}]):
        stack = _update(world, networks)
        assert _ports(stack) == before, networks
        assert stack.resources["server"].resource_id == server_id
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_a_reordered_list_moves_no_port_and_a_fixed_ip_finds_its_own(world):
    old = [NET, {**NET, "fixed_ip": "11.11.11.33"}, SUB]
    stack = world.create_stack("s", _template(old))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    before = _ports(stack, 3)
    stack = _update(world, [SUB, NET, {**NET, **SUB}])
    assert _ports(stack, 3) == before
    ip = outputs(stack)["ips"][0]
    stack = _update(world, [{**NET, "fixed_ip": ip}, NET, SUB])
    assert _ports(stack, 3) == before


def test_another_subnet_swaps_the_port_and_deletes_the_one_made_for_the_server(world):
    stack = world.create_stack("s", _template([SUB]))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    [old_port] = _ports(stack)
    stack = _update(world, [{"subnet": {"get_resource": "subnet_b"}}])
    ips = outputs(stack)["ips"]
    assert len(ips) == 1 and ips[0].startswith("12.12.12.")
    neutron = world.cloud.client("network")
    assert neutron.list_ports(id=old_port)["ports"] == []
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_the_plan_detaches_what_is_no_longer_described():
    ifaces = [
        {"port": "p1", "network": "n", "fixed_ip": "10.0.0.5", "subnet": "s"},
        {"port": "p2", "network": "m", "fixed_ip": "10.1.0.5", "subnet": "t"},
    ]
    plan = plan_network_update(
        [{"network": "n"}, {"network": "m"}], [{"subnet": "s"}, {"network": "x"}], ifaces, dict
    )
    assert plan.detach == ["p2"]
    assert [e["network"] for e in plan.attach] == ["x"]
    plan = plan_network_update([], [{"network": "n"}], ifaces, dict)
    assert (plan.detach, len(plan.attach)) == (["p1", "p2"], 1)
    assert plan_network_update([{"network": "n"}], [], ifaces[:1], dict).attach == [{}]


def test_an_empty_networks_entry_is_refused_before_anything_changes(world):
    # Heat 27 validates each entry: one of network, port (allocate_network) or subnet
    with pytest.raises(exception.StackValidationFailed, match='"network", "port" or "subnet"'):
        world.validate_template(_template([{}]))
