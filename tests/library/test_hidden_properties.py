"""Hidden and deprecated properties Heat 27 still accepts, translated as Heat translates them."""

import pytest

from sdk import support
from sdk.exception import StackValidationFailed
from simulator.resources.openstack.neutron import FloatingIP, Port, Subnet
from simulator.resources.openstack.neutron_links import RouterInterface
from simulator.resources.openstack.server import Server
from tests.library.conftest import outputs, tmpl

NET = {"type": "OS::Neutron::Net"}
SUBNET = {
    "type": "OS::Neutron::Subnet",
    "properties": {"network_id": {"get_resource": "net"}, "cidr": "10.40.0.0/24"},
}


def test_network_id_on_subnet_and_port_means_network(world):
    stack = world.create_stack(
        "s",
        tmpl(
            {
                "net": NET,
                "sub": SUBNET,
                "port": {
                    "type": "OS::Neutron::Port",
                    "properties": {
                        "network_id": {"get_resource": "net"},
                        "fixed_ips": [{"subnet_id": {"get_resource": "sub"}}],
                    },
                },
            },
            outputs={
                "net": {"value": {"get_resource": "net"}},
                "sub_net": {"value": {"get_attr": ["sub", "network_id"]}},
                "port_net": {"value": {"get_attr": ["port", "network_id"]}},
                "port_ips": {"value": {"get_attr": ["port", "fixed_ips"]}},
                "sub": {"value": {"get_resource": "sub"}},
            },
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert out["sub_net"] == out["net"] == out["port_net"]
    assert [ip["subnet_id"] for ip in out["port_ips"]] == [out["sub"]]


def test_giving_a_property_and_its_hidden_name_is_an_error(world):
    body = tmpl(
        {
            "net": NET,
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "public", "network_id": {"get_resource": "net"}},
            },
        }
    )
    with pytest.raises(StackValidationFailed, match="at the same time: network, network_id"):
        world.create_stack("s", body)


def test_router_interface_and_floating_ip_take_their_old_names(world):
    stack = world.create_stack(
        "s",
        tmpl(
            {
                "net": NET,
                "sub": SUBNET,
                "router": {
                    "type": "OS::Neutron::Router",
                    "properties": {"external_gateway_info": {"network": "public"}},
                },
                "ri": {
                    "type": "OS::Neutron::RouterInterface",
                    "properties": {
                        "router_id": {"get_resource": "router"},
                        "subnet_id": {"get_resource": "sub"},
                    },
                },
                "fip": {
                    "type": "OS::Neutron::FloatingIP",
                    "properties": {"floating_network_id": "public"},
                },
            }
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    world.delete_stack("s")
    assert world.cloud.leaks(world.baseline) == []


def test_server_accepts_admin_pass_and_software_config_transport(world):
    stack = world.create_stack(
        "s",
        tmpl(
            {
                "srv": {
                    "type": "OS::Nova::Server",
                    "properties": {
                        "image": "cirros",
                        "flavor": "m1.tiny",
                        "admin_pass": "Secret-1",
                        "admin_user": "cloud-user",
                        "software_config_transport": "POLL_TEMP_URL",
                        "flavor_update_policy": "REPLACE",
                        "image_update_policy": "REBUILD_PRESERVE_EPHEMERAL",
                        "user_data_update_policy": "IGNORE",
                        "scheduler_hints": {"group": "x"},
                        "personality": {"/etc/motd": "hi"},
                        "diskConfig": "AUTO",
                        "tags": ["a"],
                    },
                }
            }
        ),
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    with pytest.raises(StackValidationFailed, match="software_config_transport"):
        world.create_stack(
            "t",
            tmpl(
                {
                    "srv": {
                        "type": "OS::Nova::Server",
                        "properties": {
                            "image": "cirros",
                            "flavor": "m1.tiny",
                            "software_config_transport": "CARRIER_PIGEON",
                        },
                    }
                }
            ),
        )


@pytest.mark.parametrize(
    ("cls", "name", "replaced_by"),
    [
        (Subnet, "network_id", "network"),
        (Port, "network_id", "network"),
        (FloatingIP, "floating_network_id", "floating_network"),
        (RouterInterface, "router_id", "router"),
        (RouterInterface, "subnet_id", "subnet"),
        (RouterInterface, "port_id", "port"),
        (Server, "admin_user", None),
    ],
)
def test_old_names_are_hidden_in_the_schema(cls, name, replaced_by):
    schema = cls.properties_schema[name]
    assert schema.support_status.status == support.HIDDEN
    if replaced_by:
        assert cls.translations[name] == replaced_by


def test_a_server_without_networks_gets_the_only_tenant_network():
    # Nova plugs a server given no network into the project's one network.
    from simulator.world import World

    world = World(world_file="devstack")
    try:
        stack = world.create_stack(
            "s",
            tmpl(
                {
                    "srv": {
                        "type": "OS::Nova::Server",
                        "properties": {"image": "cirros-0.6.3-x86_64-disk", "flavor": "m1.nano"},
                    }
                },
                outputs={"addresses": {"value": {"get_attr": ["srv", "addresses"]}}},
            ),
        )
        private = world.cloud.client("network").list_networks(name="private")["networks"][0]
        # by name and, as Heat 27 extends addresses, by the network's id
        assert sorted(outputs(stack)["addresses"]) == sorted(["private", private["id"]])
    finally:
        world.close()


def test_nested_stacks_do_not_inherit_the_parents_environment_parameters(world, tmp_path):
    # Heat: a child environment keeps parameter_defaults and the registry, not parameters.
    env = tmp_path / "env.yaml"
    env.write_text("parameters: {image: cirros}\nparameter_defaults: {size: 3}\n")
    body = tmpl(
        {
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {"count": 1, "resource_def": {"type": "OS::Heat::None"}},
            }
        },
        parameters={"image": {"type": "string"}},
    )
    stack = world.create_stack("s", body, [str(env)])
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
