"""The conformance suite on every bundled OpenStack type, on the default world's inventory.

Property maps name the default world's entities (image ``cirros``, flavor
``m1.tiny``, network ``public``, keypair ``default``). Types that need
another resource first declare ``prerequisites`` (see
:class:`test_conformance_heat.PrerequisiteConformance`).
"""

from __future__ import annotations

import pytest
from test_conformance_heat import SERVER, PrerequisiteConformance

from sdk.testing import ResourceConformance
from sdk.testing.harness import PlugsimEnv

NET = {"type": "OS::Neutron::Net", "properties": {"name": "conformance-net"}}
SUBNET = {
    "type": "OS::Neutron::Subnet",
    "properties": {"network": {"get_resource": "net"}, "cidr": "10.10.0.0/24"},
}
PORT = {"type": "OS::Neutron::Port", "properties": {"network": "public"}}


class TestVolume(ResourceConformance):
    resource_type = "OS::Cinder::Volume"
    valid_properties = {"size": 1, "name": "data", "metadata": {"tier": "a"}}
    update_in_place = {"size": 2, "name": "data2"}
    update_replace = {"availability_zone": "nova"}
    expected_attributes = {"size": "1", "status": "available", "display_name": "data"}


class TestVolumeAttachment(PrerequisiteConformance):
    resource_type = "OS::Cinder::VolumeAttachment"
    prerequisites = {
        "server": SERVER,
        "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
    }
    valid_properties = {
        "instance_uuid": {"get_resource": "server"},
        "volume_id": {"get_resource": "volume"},
        "mountpoint": "/dev/vdb",
    }

    def test_delete_when_already_gone(self, plugsim_env: PlugsimEnv) -> None:
        """Not run: the attachment's physical id is its volume's id."""
        pytest.skip(
            "the attachment's physical id is the attached volume's id: deleting that entity "
            "deletes the prerequisite volume, which cinder refuses while it is in use"
        )

    def test_deletion_policy_retain(self, plugsim_env: PlugsimEnv) -> None:
        """Not run: a retained attachment keeps its prerequisite volume in use."""
        pytest.skip(
            "a retained attachment leaves the prerequisite volume in-use, so the stack "
            "cannot delete the volume (as in a real cloud)"
        )


class TestFloatingIP(PrerequisiteConformance):
    resource_type = "OS::Neutron::FloatingIP"
    prerequisites = {"port": PORT}
    valid_properties = {"floating_network": "public"}
    update_in_place = {"port_id": {"get_resource": "port"}}
    expected_attributes = {"port_id": None, "floating_ip_address": lambda v: v.count(".") == 3}


class TestFloatingIPAssociation(PrerequisiteConformance):
    resource_type = "OS::Neutron::FloatingIPAssociation"
    prerequisites = {
        "fip": {"type": "OS::Neutron::FloatingIP", "properties": {"floating_network": "public"}},
        "port": PORT,
        "port2": PORT,
    }
    valid_properties = {
        "floatingip_id": {"get_resource": "fip"},
        "port_id": {"get_resource": "port"},
    }
    update_in_place = {"port_id": {"get_resource": "port2"}}


class TestNet(ResourceConformance):
    resource_type = "OS::Neutron::Net"
    valid_properties = {"name": "private"}
    update_in_place = {"name": "private2", "admin_state_up": False}
    expected_attributes = {"name": "private", "status": "ACTIVE", "subnets": []}


class TestPort(ResourceConformance):
    resource_type = "OS::Neutron::Port"
    valid_properties = {"network": "public", "name": "p1"}
    update_in_place = {"name": "p2"}
    update_replace = {"mac_address": "fa:16:3e:00:00:01"}  # fixed_ips change in place
    expected_attributes = {"name": "p1", "fixed_ips": lambda v: len(v) == 1}


class TestRouter(ResourceConformance):
    resource_type = "OS::Neutron::Router"
    valid_properties = {"name": "r1", "external_gateway_info": {"network": "public"}}
    update_in_place = {"name": "r2"}
    expected_attributes = {"name": "r1"}


class TestRouterInterface(PrerequisiteConformance):
    resource_type = "OS::Neutron::RouterInterface"
    prerequisites = {
        "router": {"type": "OS::Neutron::Router", "properties": {"name": "r1"}},
        "net": NET,
        "subnet": SUBNET,
    }
    valid_properties = {
        "router": {"get_resource": "router"},
        "subnet": {"get_resource": "subnet"},
    }

    def test_deletion_policy_retain(self, plugsim_env: PlugsimEnv) -> None:
        """Not run: a retained interface keeps a port on its prerequisite router."""
        pytest.skip(
            "a retained interface keeps its port on the prerequisite router, which neutron "
            "then refuses to delete ('still has ports')"
        )


class TestSecurityGroup(ResourceConformance):
    resource_type = "OS::Neutron::SecurityGroup"
    valid_properties = {
        "name": "web",
        "rules": [{"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}],
    }
    update_in_place = {"description": "web servers"}


class TestSecurityGroupRule(PrerequisiteConformance):
    resource_type = "OS::Neutron::SecurityGroupRule"
    prerequisites = {"sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"name": "sg"}}}
    valid_properties = {
        "security_group": {"get_resource": "sg"},
        "protocol": "tcp",
        "port_range_min": 80,
        "port_range_max": 80,
    }
    update_replace = {"port_range_min": 81, "port_range_max": 81}

    def test_deletion_policy_retain(self, plugsim_env: PlugsimEnv) -> None:
        """Not run: deleting the prerequisite group deletes its rules too."""
        pytest.skip(
            "the stack deletes the prerequisite security group, and neutron deletes a "
            "group's rules with it, so a retained rule cannot outlive the stack"
        )


class TestSubnet(PrerequisiteConformance):
    resource_type = "OS::Neutron::Subnet"
    prerequisites = {"net": NET}
    valid_properties = {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24", "name": "s1"}
    update_in_place = {"name": "s2", "dns_nameservers": ["8.8.8.8"]}
    update_replace = {"cidr": "10.0.1.0/24"}
    expected_attributes = {"cidr": "10.0.0.0/24", "name": "s1"}

    def test_update_failure_rolls_back(self, plugsim_env: PlugsimEnv) -> None:
        """Not run: rolling back replaces the failed subnet, whose cidr is still taken."""
        pytest.skip(
            "a rollback replaces the UPDATE_FAILED subnet, and the replacement's cidr "
            "overlaps the old subnet's until that is deleted (neutron refuses, as in Heat)"
        )


class TestFlavor(ResourceConformance):
    resource_type = "OS::Nova::Flavor"
    valid_properties = {"name": "m1.conformance", "ram": 512, "vcpus": 1, "disk": 1}
    update_replace = {"ram": 1024}
    expected_attributes = {"is_public": True, "extra_specs": {}}


class TestKeyPair(ResourceConformance):
    resource_type = "OS::Nova::KeyPair"
    valid_properties = {"name": "conformance"}
    update_replace = {"name": "conformance2"}
    expected_attributes = {"public_key": lambda v: isinstance(v, str) and v != ""}


class TestServer(ResourceConformance):
    resource_type = "OS::Nova::Server"
    valid_properties = {**SERVER["properties"], "name": "web", "metadata": {"role": "web"}}
    update_in_place = {"name": "web2", "metadata": {"role": "db"}}
    update_replace = {"availability_zone": "nova"}
    expected_attributes = {"name": "web", "first_address": lambda v: v.count(".") == 3}
    cloud_states = {"suspend": "SUSPENDED", "resume": "ACTIVE"}


class TestServerGroup(ResourceConformance):
    resource_type = "OS::Nova::ServerGroup"
    valid_properties = {"name": "g1", "policies": ["affinity"]}
    update_replace = {"policies": ["anti-affinity"]}
    expected_attributes = {"policies": ["affinity"]}


class TestContainer(ResourceConformance):
    resource_type = "OS::Swift::Container"
    valid_properties = {"X-Container-Meta": {"owner": "ops"}}
    update_replace = {"name": "renamed-container"}
    expected_attributes = {"ObjectCount": 0, "BytesUsed": 0}
