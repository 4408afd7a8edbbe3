"""Heat's own AWS::EC2::EIP and AWS::EC2::EIPAssociation on plugsim (heat-tempest-plugin's
``test_server_cfn_init`` associates an EIP with its instance).

Read in Heat 27's ``aws/ec2/eip.py`` and ``clients/os/nova.py``: the association asks
the nova client plug-in for ``associate_floatingip_address(server, address)``, which finds
the floating IP by address in neutron and points it at the server's first port and first
IPv4 address; removing the association detaches it. ``eip.py`` imports
``heat.engine.clients.client_exception``, a pure module the compat layer now borrows.
"""

from __future__ import annotations

from _heat_diff import requires_heat

from simulator.world import World

pytestmark = requires_heat


def _template(associated: bool) -> dict:
    resources = {
        "server": {
            "type": "OS::Nova::Server",
            "properties": {
                "image": "cirros-0.6.3-x86_64-disk",
                "flavor": "m1.tiny",
                "networks": [{"network": "private"}],
            },
        },
        "ip": {"type": "AWS::EC2::EIP", "properties": {"Domain": "vpc"}},
    }
    if associated:
        resources["assoc"] = {
            "type": "AWS::EC2::EIPAssociation",
            "properties": {"EIP": {"get_resource": "ip"}, "InstanceId": {"get_resource": "server"}},
        }
    return {"heat_template_version": "2015-10-15", "resources": resources}


def test_an_eip_association_points_the_floating_ip_at_the_servers_port():
    from simulator.heat_compat import use_heat_plugins

    world = World(world_file="devstack")
    try:
        report = use_heat_plugins(world, "heat.engine.resources.aws.ec2.eip")
        assert not report.errors, report.errors
        stack = world.create_stack("s", _template(True))
        assert stack.status == "COMPLETE", stack.status_reason
        neutron = world.client_plugin("network").client()
        server = stack.resources["server"].resource_id
        port = neutron.list_ports(device_id=server)["ports"][0]
        (fip,) = neutron.list_floatingips()["floatingips"]
        assert fip["port_id"] == port["id"]
        assert fip["fixed_ip_address"] == port["fixed_ips"][0]["ip_address"]
        stack = world.update_stack("s", _template(False))
        assert stack.status == "COMPLETE", stack.status_reason
        (fip,) = neutron.list_floatingips()["floatingips"]
        assert fip["port_id"] is None
        assert world.delete_stack("s").status == "COMPLETE"
    finally:
        world.close()
