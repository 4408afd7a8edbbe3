"""The custom constraints the compat layer adds for Heat's plug-ins (format checks, nova.server)."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from sdk.constraints import ConstraintRegistry
from simulator.heat_compat.constraints import (
    CIDRConstraint,
    IPAddressConstraint,
    IPOrCIDRConstraint,
    MACAddressConstraint,
    ServerConstraint,
    register_missing,
)
from simulator.store import Store
from simulator.world import World


@given(st.ip_addresses())
def test_every_ip_address_is_an_ip_addr_and_an_ip_or_cidr(address) -> None:
    assert IPAddressConstraint().validate(str(address))
    assert IPOrCIDRConstraint().validate(str(address))


@given(st.ip_addresses(), st.integers(0, 32))
def test_an_ipv4_network_with_its_prefix_is_a_net_cidr(address, prefix) -> None:
    network = ipaddress.ip_network(f"{ipaddress.IPv4Address(int(address) % 2**32)}/{prefix}", False)
    assert CIDRConstraint().validate(str(network))


def test_malformed_values_are_refused_with_a_reason() -> None:
    cidr = CIDRConstraint()
    assert not cidr.validate("10.0.0.0")
    assert "prefix length" in cidr.message
    assert not cidr.validate("10.0.0.0/33")
    assert not IPAddressConstraint().validate("10.0.0.256")
    assert not IPOrCIDRConstraint().validate("not-an-ip")
    mac = MACAddressConstraint()
    assert mac.validate("fa:16:3e:00:00:01") and mac.validate("FA-16-3E-00-00-01")
    assert not mac.validate("fa:16:3e:00:00") and not mac.validate("fa:16-3e:00:00:01")
    assert mac.message == "'fa:16-3e:00:00:01' is not a valid MAC address"


def test_nova_server_must_exist_in_the_fake_compute() -> None:
    world = World(Store(":memory:"), seed=3)
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "vm": {
                "type": "OS::Nova::Server",
                "properties": {"image": "cirros", "flavor": "m1.tiny", "name": "web"},
            }
        },
    }
    assert world.create_stack("s", template).state == "CREATE_COMPLETE"

    class Context:
        def client_plugin(self, name):
            return world.client_plugin(name)

    check = ServerConstraint()
    assert check.validate("web", Context())
    assert not check.validate("db", Context())
    assert check.message == "The Server (db) could not be found."
    world.close()


def test_only_missing_names_are_registered() -> None:
    registry = ConstraintRegistry(group=None)
    registry.register("ip_addr", IPAddressConstraint, origin="someone else")
    added = register_missing(registry)
    assert "ip_addr" not in added
    assert sorted(added) == [
        "cinder.qos_specs",
        "cinder.vtype",
        "ip_or_cidr",
        "keystone.domain",
        "keystone.group",
        "keystone.project",
        "keystone.region",
        "keystone.role",
        "keystone.user",
        "mac_addr",
        "net_cidr",
        "neutron.address_scope",
        "neutron.flow_classifier",
        "neutron.port_pair",
        "neutron.port_pair_group",
        "neutron.qos_policy",
        "neutron.subnetpool",
        "neutron.taas.tap_flow",
        "neutron.taas.tap_service",
        "nova.host",
        "nova.server",
    ]
    assert register_missing(registry) == []
