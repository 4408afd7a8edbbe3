"""Heat's own neutron extension plug-ins on the fake network's extension endpoints.

Each test loads the unmodified Heat 27 modules, creates a stack on the default
world, checks the objects in the fake cloud, updates in place, deletes, and
checks the world holds nothing the stack made (the leak check).
"""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.store import Store
from simulator.world import World

OPENSTACK = "heat.engine.resources.openstack."


def _world(*modules: str) -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, *(OPENSTACK + m for m in modules)).errors
    return world


def _template(resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _run(world: World, first: dict[str, Any], second: dict[str, Any]) -> tuple[Any, Any]:
    """Create with *first*, update to *second*; return both stacks' resource ids."""
    mark = world.cloud.snapshot_inventory()
    stack = world.create_stack("s", _template(first))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    before = {name: r.resource_id for name, r in stack.resources.items()}
    stack = world.update_stack("s", _template(second))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    after = {name: r.resource_id for name, r in stack.resources.items()}
    assert before == after  # every change was in place
    return mark, after


def _delete(world: World, mark: Any) -> None:
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert list(world.cloud.leaks(mark)) == []
    world.close()


def _port(name: str = "p") -> dict[str, Any]:
    return {"type": "OS::Neutron::Port", "properties": {"network": "public", "name": name}}


@requires_heat
def test_heats_qos_policy_and_bandwidth_rule_update_in_place() -> None:
    world = _world("neutron.qos")

    def resources(kbps: int) -> dict[str, Any]:
        return {
            "policy": {"type": "OS::Neutron::QoSPolicy", "properties": {"name": "gold"}},
            "rule": {
                "type": "OS::Neutron::QoSBandwidthLimitRule",
                "properties": {"policy": {"get_resource": "policy"}, "max_kbps": kbps},
            },
        }

    mark, ids = _run(world, resources(100), resources(250))
    neutron = world.client_plugin("neutron").client()
    rule = neutron.show_bandwidth_limit_rule(ids["rule"], ids["policy"])["bandwidth_limit_rule"]
    assert rule["max_kbps"] == 250
    policy = neutron.show_qos_policy(ids["policy"])["policy"]
    assert [r["id"] for r in policy["rules"]] == [ids["rule"]]
    _delete(world, mark)


@requires_heat
def test_heats_trunk_adds_and_removes_sub_ports_on_update() -> None:
    world = _world("neutron.trunk")

    def resources(sub: str, vlan: int) -> dict[str, Any]:
        return {
            "parent": _port("parent"),
            "a": _port("a"),
            "b": _port("b"),
            "trunk": {
                "type": "OS::Neutron::Trunk",
                "properties": {
                    "port": {"get_resource": "parent"},
                    "sub_ports": [
                        {
                            "port": {"get_resource": sub},
                            "segmentation_type": "vlan",
                            "segmentation_id": vlan,
                        }
                    ],
                },
            },
        }

    mark, ids = _run(world, resources("a", 100), resources("b", 200))
    neutron = world.client_plugin("neutron").client()
    trunk = neutron.show_trunk(ids["trunk"])["trunk"]
    assert trunk["port_id"] == ids["parent"]
    assert trunk["sub_ports"] == [
        {"port_id": ids["b"], "segmentation_type": "vlan", "segmentation_id": 200}
    ]
    _delete(world, mark)


@requires_heat
def test_heats_firewall_policy_and_rule_run_and_update() -> None:
    world = _world("neutron.firewall")

    def resources(action: str) -> dict[str, Any]:
        return {
            "rule": {
                "type": "OS::Neutron::FirewallRule",
                "properties": {"protocol": "tcp", "destination_port": "22", "action": action},
            },
            "policy": {
                "type": "OS::Neutron::FirewallPolicy",
                "properties": {"firewall_rules": [{"get_resource": "rule"}]},
            },
            "firewall": {
                "type": "OS::Neutron::Firewall",
                "properties": {"firewall_policy_id": {"get_resource": "policy"}},
            },
        }

    mark, ids = _run(world, resources("deny"), resources("allow"))
    neutron = world.client_plugin("neutron").client()
    assert neutron.show_firewall_rule(ids["rule"])["firewall_rule"]["action"] == "allow"
    assert neutron.show_firewall(ids["firewall"])["firewall"]["status"] == "INACTIVE"
    _delete(world, mark)


@requires_heat
def test_heats_rbac_policy_shares_a_network_and_changes_its_target() -> None:
    world = _world("neutron.rbac_policy")

    def resources(target: str) -> dict[str, Any]:
        return {
            "net": {"type": "OS::Neutron::Net", "properties": {}},
            "rbac": {
                "type": "OS::Neutron::RBACPolicy",
                "properties": {
                    "object_type": "network",
                    "object_id": {"get_resource": "net"},
                    "action": "access_as_shared",
                    "target_tenant": target,
                },
            },
        }

    mark, ids = _run(world, resources("project-a"), resources("project-b"))
    neutron = world.client_plugin("neutron").client()
    rbac = neutron.show_rbac_policy(ids["rbac"])["rbac_policy"]
    assert (rbac["object_id"], rbac["target_tenant"]) == (ids["net"], "project-b")
    _delete(world, mark)


@requires_heat
def test_heats_network_gateway_moves_its_connection_on_update() -> None:
    world = _world("neutron.network_gateway")

    def resources(net: str) -> dict[str, Any]:
        return {
            "n1": {"type": "OS::Neutron::Net", "properties": {}},
            "n2": {"type": "OS::Neutron::Net", "properties": {}},
            "gw": {
                "type": "OS::Neutron::NetworkGateway",
                "properties": {
                    "devices": [{"id": "dev-1", "interface_name": "breth0"}],
                    "connections": [{"network": {"get_resource": net}}],
                },
            },
        }

    mark, ids = _run(world, resources("n1"), resources("n2"))
    neutron = world.client_plugin("neutron").client()
    gateway = neutron.show_network_gateway(ids["gw"])["network_gateway"]
    assert [c["network_id"] for c in gateway["ports"]] == [ids["n2"]]
    _delete(world, mark)


@requires_heat
def test_heats_sfc_port_chain_runs_on_ext_resources() -> None:
    world = _world(
        "neutron.sfc.port_pair",
        "neutron.sfc.port_pair_group",
        "neutron.sfc.flow_classifier",
        "neutron.sfc.port_chain",
    )

    def resources(name: str) -> dict[str, Any]:
        return {
            "ingress": _port("in"),
            "egress": _port("out"),
            "pair": {
                "type": "OS::Neutron::PortPair",
                "properties": {
                    "ingress": {"get_resource": "ingress"},
                    "egress": {"get_resource": "egress"},
                },
            },
            "group": {
                "type": "OS::Neutron::PortPairGroup",
                "properties": {"port_pairs": [{"get_resource": "pair"}]},
            },
            "classifier": {
                "type": "OS::Neutron::FlowClassifier",
                "properties": {
                    "protocol": "tcp",
                    "logical_source_port": {"get_resource": "ingress"},
                },
            },
            "chain": {
                "type": "OS::Neutron::PortChain",
                "properties": {
                    "name": name,
                    "port_pair_groups": [{"get_resource": "group"}],
                    "flow_classifiers": [{"get_resource": "classifier"}],
                },
            },
        }

    mark, ids = _run(world, resources("chain"), resources("renamed"))
    neutron = world.client_plugin("neutron").client()
    chain = neutron.show_ext("/sfc/port_chains/%s", ids["chain"])["port_chain"]
    assert (chain["name"], chain["port_pair_groups"]) == ("renamed", [ids["group"]])
    assert chain["flow_classifiers"] == [ids["classifier"]]
    _delete(world, mark)


@requires_heat
def test_heats_tap_service_and_flow_run_and_rename() -> None:
    world = _world("neutron.taas.tap_service", "neutron.taas.tap_flow")

    def resources(name: str) -> dict[str, Any]:
        return {
            "mirror": _port("mirror"),
            "source": _port("source"),
            "service": {
                "type": "OS::Neutron::TaaS::TapService",
                "properties": {"port": {"get_resource": "mirror"}},
            },
            "flow": {
                "type": "OS::Neutron::TaaS::TapFlow",
                "properties": {
                    "name": name,
                    "port": {"get_resource": "source"},
                    "tap_service": {"get_resource": "service"},
                    "direction": "IN",
                },
            },
        }

    mark, ids = _run(world, resources("flow"), resources("renamed"))
    neutron = world.client_plugin("neutron").client()
    flow = neutron.show_tap_flow(ids["flow"])["tap_flow"]
    assert (flow["name"], flow["tap_service_id"]) == ("renamed", ids["service"])
    _delete(world, mark)


@requires_heat
def test_heats_metering_label_and_l2_gateway_run() -> None:
    world = _world("neutron.metering", "neutron.l2_gateway", "neutron.l2_gateway_connection")

    def resources(device: str) -> dict[str, Any]:
        return {
            "label": {"type": "OS::Neutron::MeteringLabel", "properties": {"name": "m"}},
            "rule": {
                "type": "OS::Neutron::MeteringRule",
                "properties": {
                    "metering_label_id": {"get_resource": "label"},
                    "remote_ip_prefix": "10.0.0.0/24",
                },
            },
            "net": {"type": "OS::Neutron::Net", "properties": {}},
            "gw": {
                "type": "OS::Neutron::L2Gateway",
                "properties": {
                    "name": "gw",
                    "devices": [{"device_name": device, "interfaces": [{"name": "eth1"}]}],
                },
            },
            "conn": {
                "type": "OS::Neutron::L2GatewayConnection",
                "properties": {
                    "l2_gateway_id": {"get_resource": "gw"},
                    "network_id": {"get_resource": "net"},
                },
            },
        }

    mark, ids = _run(world, resources("sw1"), resources("sw2"))
    neutron = world.client_plugin("neutron").client()
    gateway = neutron.show_l2_gateway(ids["gw"])["l2_gateway"]
    assert [d["device_name"] for d in gateway["devices"]] == ["sw2"]
    rule = neutron.show_metering_label_rule(ids["rule"])["metering_label_rule"]
    assert rule["metering_label_id"] == ids["label"]
    _delete(world, mark)


@requires_heat
def test_heats_host_aggregate_moves_hosts_and_metadata_on_update() -> None:
    world = _world("nova.host_aggregate")

    def resources(hosts: list[str], metadata: dict[str, str]) -> dict[str, Any]:
        props = {"name": "rack", "availability_zone": "az-1", "hosts": hosts, "metadata": metadata}
        return {"agg": {"type": "OS::Nova::HostAggregate", "properties": props}}

    mark, ids = _run(world, resources([], {"ssd": "true"}), resources(["plugsim"], {"gpu": "1"}))
    nova = world.client_plugin("nova").client()
    agg = nova.aggregates.get(ids["agg"])
    assert agg.hosts == ["plugsim"]
    assert agg.metadata == {"availability_zone": "az-1", "ssd": "true", "gpu": "1"}
    _delete(world, mark)  # Heat takes the hosts out first, as nova requires


@requires_heat
def test_a_constraint_on_an_extension_object_names_what_is_missing() -> None:
    from sdk import exception

    world = _world("neutron.qos", "neutron.sfc.port_pair_group")
    mark = world.cloud.snapshot_inventory()
    rule = {
        "type": "OS::Neutron::QoSDscpMarkingRule",
        "properties": {"policy": "nowhere", "dscp_mark": 8},
    }
    group = {"type": "OS::Neutron::PortPairGroup", "properties": {"port_pairs": ["no-pair"]}}
    for name, resource, message in (
        ("rule", rule, "The QoSPolicy (nowhere) could not be found."),
        ("group", group, "Unable to find port_pair with name or id 'no-pair'"),  # Heat's words
    ):
        try:
            world.create_stack(name, _template({name: resource}))
        except exception.StackValidationFailed as failure:
            assert message in str(failure), failure
        else:
            raise AssertionError(f"{name}: the stack was made")
    assert list(world.cloud.leaks(mark)) == []
    world.close()


@requires_heat
def test_heats_cinder_qos_specs_association_and_encrypted_type_run() -> None:
    world = _world("cinder.volume_type", "cinder.qos_specs", "cinder.encrypted_volume_type")

    def resources(iops: int, cipher: str) -> dict[str, Any]:
        return {
            "vtype": {"type": "OS::Cinder::VolumeType", "properties": {"name": "fast"}},
            "qos": {
                "type": "OS::Cinder::QoSSpecs",
                "properties": {"name": "gold", "specs": {"read_iops_sec": iops}},
            },
            "assoc": {
                "type": "OS::Cinder::QoSAssociation",
                "properties": {
                    "qos_specs": {"get_resource": "qos"},
                    "volume_types": [{"get_resource": "vtype"}],
                },
            },
            "enc": {
                "type": "OS::Cinder::EncryptedVolumeType",
                "properties": {
                    "volume_type": {"get_resource": "vtype"},
                    "provider": "luks",
                    "cipher": cipher,
                },
            },
        }

    mark, ids = _run(world, resources(100, "aes-xts-plain64"), resources(200, "aes-cbc-essiv"))
    cinder = world.client_plugin("cinder").client()
    assert cinder.qos_specs.get(ids["qos"]).specs == {"read_iops_sec": "200"}
    assert cinder.volume_types.get(ids["vtype"]).qos_specs_id == ids["qos"]
    assert cinder.volume_encryption_types.get(ids["vtype"]).cipher == "aes-cbc-essiv"
    _delete(world, mark)


@requires_heat
def test_heats_port_and_net_take_a_qos_policy_and_change_it_in_place() -> None:
    world = _world("neutron.qos", "neutron.net", "neutron.port")

    def resources(policy: str) -> dict[str, Any]:
        return {
            "gold": {"type": "OS::Neutron::QoSPolicy", "properties": {"name": "gold"}},
            "silver": {"type": "OS::Neutron::QoSPolicy", "properties": {"name": "silver"}},
            "net": {
                "type": "OS::Neutron::Net",
                "properties": {"qos_policy": {"get_resource": "gold"}},
            },
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.61.0.0/24"},
            },
            "port": {
                "type": "OS::Neutron::Port",
                "depends_on": ["subnet"],
                "properties": {
                    "network": {"get_resource": "net"},
                    "qos_policy": {"get_resource": policy},
                },
            },
        }

    mark, ids = _run(world, resources("gold"), resources("silver"))
    neutron = world.client_plugin("neutron").client()
    assert neutron.show_network(ids["net"])["network"]["qos_policy_id"] == ids["gold"]
    assert neutron.show_port(ids["port"])["port"]["qos_policy_id"] == ids["silver"]
    _delete(world, mark)


@pytest.mark.material
@requires_heat
def test_the_inventory_runs_modules_whose_prerequisites_come_from_other_heat_modules() -> None:
    """A port chain needs a group, which needs a pair, which needs a port: each made first."""
    import importlib.util
    import sys
    from pathlib import Path

    from simulator.heat_compat import find_heat_package

    tool_path = Path(__file__).resolve().parents[2] / "tools" / "heat_inventory.py"
    spec = importlib.util.spec_from_file_location("heat_inventory", tool_path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    sys.modules["heat_inventory"] = tool
    spec.loader.exec_module(tool)
    resources: dict[str, Any] = {}
    tool._add_prerequisite("neutron.port_pair_group", resources)
    assert list(resources) == [
        "pre_neutron_port",
        "pre_neutron_port_pair",
        "pre_neutron_port_pair_group",
    ]
    assert tool.heat_modules_needed(resources) == [
        "neutron.sfc.port_pair",
        "neutron.sfc.port_pair_group",
    ]
    package = find_heat_package()
    base = package / "engine" / "resources" / "openstack"
    for module in ("neutron.sfc.port_chain", "neutron.taas.tap_flow", "nova.host_aggregate"):
        row = tool.measure(base.joinpath(*module.split(".")).with_suffix(".py"), module)
        assert row["runs"], row["reason"]
