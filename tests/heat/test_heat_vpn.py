"""Heat's own VPN plug-ins (``neutron.vpnservice``) on the fake network's VPN kinds.

The module imports neutron-lib's API definitions, which the compat layer reads
from the neutron-lib installed beside openstack-heat (never executing it).
"""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator.store import Store
from simulator.world import World


def _template(psk: str, name: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "net": {"type": "OS::Neutron::Net", "properties": {}},
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.8.0.0/24"},
            },
            "router": {"type": "OS::Neutron::Router", "properties": {}},
            "service": {
                "type": "OS::Neutron::VPNService",
                "properties": {
                    "router": {"get_resource": "router"},
                    "subnet": {"get_resource": "subnet"},
                    "name": "vpn",
                },
            },
            "ike": {"type": "OS::Neutron::IKEPolicy", "properties": {"name": "ike"}},
            "ipsec": {"type": "OS::Neutron::IPsecPolicy", "properties": {"name": "ipsec"}},
            "conn": {
                "type": "OS::Neutron::IPsecSiteConnection",
                "properties": {
                    "vpnservice_id": {"get_resource": "service"},
                    "ikepolicy_id": {"get_resource": "ike"},
                    "ipsecpolicy_id": {"get_resource": "ipsec"},
                    "peer_address": "172.24.4.233",
                    "peer_id": "172.24.4.233",
                    "peer_cidrs": ["10.2.0.0/24"],
                    "psk": psk,
                    "name": name,
                },
            },
        },
    }


@requires_heat
def test_heats_vpn_service_policies_and_connection_run_and_update_in_place() -> None:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=3)
    report = use_heat_plugins(world, "heat.engine.resources.openstack.neutron.vpnservice")
    assert not report.errors, report.errors
    assert "OS::Neutron::IKEPolicy" in report.mapping
    mark = world.cloud.snapshot_inventory()
    stack = world.create_stack("s", _template("secret", "first"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    ids = {name: r.resource_id for name, r in stack.resources.items()}
    neutron = world.client_plugin("neutron").client()
    assert neutron.show_vpnservice(ids["service"])["vpnservice"]["status"] == "ACTIVE"
    stack = world.update_stack("s", _template("secret", "renamed"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert {name: r.resource_id for name, r in stack.resources.items()} == ids  # in place
    conn = neutron.show_ipsec_site_connection(ids["conn"])["ipsec_site_connection"]
    assert conn["name"] == "renamed"
    stack = world.update_stack("s", _template("another", "renamed"))  # psk: replaced
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    new_id = stack.resources["conn"].resource_id
    assert new_id != ids["conn"]
    assert neutron.show_ipsec_site_connection(new_id)["ipsec_site_connection"]["psk"] == "another"
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert list(world.cloud.leaks(mark)) == []
    world.close()


@requires_heat
def test_heats_ike_policy_takes_the_algorithms_neutron_lib_lists() -> None:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=3)
    report = use_heat_plugins(world, "heat.engine.resources.openstack.neutron.vpnservice")
    schema = report.mapping["OS::Neutron::IKEPolicy"].properties_schema["auth_algorithm"]
    allowed = [c for c in schema.constraints if hasattr(c, "allowed")][0].allowed
    assert {"sha1", "sha256"} <= set(allowed)
    bad = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "ike": {"type": "OS::Neutron::IKEPolicy", "properties": {"auth_algorithm": "md4"}}
        },
    }
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("bad", bad)
    assert "'md4' is not one of the allowed values" in str(refused.value)
    world.close()
