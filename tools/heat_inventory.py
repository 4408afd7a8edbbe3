"""Which of Heat's in-tree plug-in modules load and run under plugsim.

Walks ``heat/engine/resources/openstack/{heat,nova,neutron,cinder}`` of the
openstack-heat that ``$PLUGSIM_HEAT_PYTHON`` names, loads each module
through the compat layer (:mod:`simulator.heat_compat`) and, for each type a
module registers, creates a one-resource stack on the default world with the
simplest property map its schema allows, then deletes it. A module *runs*
when every type it registers reaches ``CREATE_COMPLETE`` and then
``DELETE_COMPLETE``.

Usage::

    PLUGSIM_HEAT_PYTHON=/path/to/heatvenv/bin/python python tools/heat_inventory.py [--json]
    ... python tools/heat_inventory.py --plugins DIR_OR_FILE ...   # third-party plug-ins

Prints one line per module (``load``/``run`` and the first reason it does
not), then the totals. The output is sorted and deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

#: The groups of Heat's in-tree modules measured.
GROUPS = ("heat", "nova", "neutron", "cinder")
#: The dotted package of Heat's in-tree OpenStack plug-in modules.
OPENSTACK = "heat.engine.resources.openstack."


def heat_modules(package: Path) -> list[Path]:
    """The plug-in module files of :data:`GROUPS` under *package* (sorted)."""
    base = package / "engine" / "resources" / "openstack"
    return sorted(
        path
        for group in GROUPS
        for path in (base / group).rglob("*.py")
        if path.name != "__init__.py"
    )


#: What a property under a custom constraint is given, by constraint name: the
#: name of an object the default world holds, or a resource of plugsim's own
#: bundled types created first in the same stack (``{"get_resource": ...}``).
WORLD_OBJECTS: dict[str, Any] = {
    "glance.image": "cirros",
    "ip_addr": "172.24.4.50",
    "keystone.project": "admin",  # the fake keystone's bootstrap project
    "mac_addr": "fa:16:3e:00:00:01",
    "net_cidr": "10.20.0.0/16",
    "neutron.network": "public",
    "neutron.security_group": "default",
    "neutron.subnet": "public-subnet",
    "nova.flavor": "m1.tiny",
    "nova.keypair": "default",
}
PREREQUISITE_RESOURCES: dict[str, dict[str, Any]] = {
    "cinder.volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
    "floating_ip": {
        "type": "OS::Neutron::FloatingIP",
        "properties": {"floating_network": "public"},
    },
    "neutron.net": {"type": "OS::Neutron::Net", "properties": {}},
    "neutron.bgpvpn": {"type": "OS::Neutron::BGPVPN", "properties": {}},  # networking-bgpvpn
    "neutron.port": {"type": "OS::Neutron::Port", "properties": {"network": "public"}},
    "swift_signal_handle": {"type": "OS::Heat::SwiftSignalHandle", "properties": {}},
    "wait_condition_handle": {  # Heat's handle (a companion module) signalling itself
        "type": "OS::Heat::WaitConditionHandle",
        "properties": {"signal_transport": "NO_SIGNAL"},
    },
    "neutron.router": {"type": "OS::Neutron::Router", "properties": {}},
    # F5's plug-ins (third-party): a partition names its device by reference; the device is the
    # default BIG-IP of the fake world (fake_clouds.bigip)
    "f5.bigip": {
        "type": "F5::BigIP::Device",
        "properties": {"ip": "192.0.2.245", "username": "admin", "password": "admin"},
    },
    "nova.server": {
        "type": "OS::Nova::Server",
        "properties": {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "public"}]},
    },
    # a server whose config agent takes software deployments (Heat's deployments check it)
    "software_config_server": {
        "type": "OS::Nova::Server",
        "properties": {
            "image": "cirros",
            "flavor": "m1.tiny",
            "networks": [{"network": "public"}],
            "user_data_format": "SOFTWARE_CONFIG",
        },
    },
    # made by Heat's own module (``heat_module``), loaded beside the one measured; a
    # ``pre_<name>`` it refers to is made too
    "cinder.qos_specs": {
        "type": "OS::Cinder::QoSSpecs",
        "properties": {"name": "inventory-qos", "specs": {"read_iops_sec": 100}},
        "heat_module": "cinder.qos_specs",
    },
    "cinder.vtype": {
        "type": "OS::Cinder::VolumeType",
        "properties": {"name": "inventory-vtype"},
        "heat_module": "cinder.volume_type",
    },
    "vpnservice": {
        "type": "OS::Neutron::VPNService",
        "properties": {"router": {"get_resource": "pre_neutron_router"}, "subnet": "public-subnet"},
        "heat_module": "neutron.vpnservice",
    },
    "ikepolicy": {
        "type": "OS::Neutron::IKEPolicy",
        "properties": {},
        "heat_module": "neutron.vpnservice",
    },
    "ipsecpolicy": {
        "type": "OS::Neutron::IPsecPolicy",
        "properties": {},
        "heat_module": "neutron.vpnservice",
    },
    "launch_config": {  # its module is a companion of heat.instance_group
        "type": "AWS::AutoScaling::LaunchConfiguration",
        "properties": {"ImageId": "cirros", "InstanceType": "m1.tiny"},
    },
    "firewall_policy": {
        "type": "OS::Neutron::FirewallPolicy",
        "properties": {},
        "heat_module": "neutron.firewall",
    },
    "l2_gateway": {
        "type": "OS::Neutron::L2Gateway",
        "properties": {
            "name": "inventory-l2gw",
            "devices": [{"device_name": "sw1", "interfaces": [{"name": "eth1"}]}],
        },
        "heat_module": "neutron.l2_gateway",
    },
    "metering_label": {
        "type": "OS::Neutron::MeteringLabel",
        "properties": {},
        "heat_module": "neutron.metering",
    },
    "neutron.qos_policy": {
        "type": "OS::Neutron::QoSPolicy",
        "properties": {},
        "heat_module": "neutron.qos",
    },
    "neutron.port_pair": {
        "type": "OS::Neutron::PortPair",
        "properties": {
            "ingress": {"get_resource": "pre_neutron_port"},
            "egress": {"get_resource": "pre_neutron_port"},
        },
        "heat_module": "neutron.sfc.port_pair",
    },
    "neutron.port_pair_group": {
        "type": "OS::Neutron::PortPairGroup",
        "properties": {"port_pairs": [{"get_resource": "pre_neutron_port_pair"}]},
        "heat_module": "neutron.sfc.port_pair_group",
    },
    "neutron.taas.tap_service": {
        "type": "OS::Neutron::TaaS::TapService",
        "properties": {"port": {"get_resource": "pre_neutron_port"}},
        "heat_module": "neutron.taas.tap_service",
    },
}


def _add_prerequisite(name: str, resources: dict[str, Any]) -> str:
    """Add the prerequisite *name* (and those it refers to) to *resources*; return its key."""
    key = "pre_" + name.replace(".", "_")
    spec = {k: v for k, v in PREREQUISITE_RESOURCES[name].items() if k != "heat_module"}
    text = json.dumps(spec)
    for other in PREREQUISITE_RESOURCES:  # those it refers to first: the compat layer
        if other != name and f'"pre_{other.replace(".", "_")}"' in text:  # resolves in order
            _add_prerequisite(other, resources)
    resources[key] = spec
    return key


def heat_modules_needed(resources: dict[str, Any]) -> list[str]:
    """Heat's modules (dotted, under ``openstack``) the prerequisites in *resources* come from."""
    keys = {"pre_" + name.replace(".", "_"): name for name in PREREQUISITE_RESOURCES}
    return sorted(
        {
            PREREQUISITE_RESOURCES[keys[key]]["heat_module"]
            for key in resources
            if key in keys and "heat_module" in PREREQUISITE_RESOURCES[keys[key]]
        }
    )


#: Properties a type needs that its schema cannot say: each is required only
#: jointly ("size or a source", "cidr or a subnet pool"), by the plug-in's own
#: validate() or by the API version in use, or names a cloud object without a
#: custom constraint. Given on top of the simplest map; ``PREREQUISITE + name``
#: stands for the prerequisite resource of that constraint name.
PREREQUISITE = "prerequisite:"
JOINTLY_REQUIRED: dict[str, dict[str, Any]] = {
    "OS::Cinder::Volume": {"size": 1},
    # heat_docker (third-party): an image is optional in its schema, but pull(None) fails
    "DockerInc::Docker::Container": {"image": "nginx"},
    "OS::Cinder::VolumeType": {"name": "inventory-type"},  # cinder takes no empty name
    # F5's plug-ins: the BIG-IP's address and login name a cloud object without a constraint,
    # and BIG-IP takes no empty folder name
    "F5::BigIP::Device": {"ip": "192.0.2.245", "username": "admin", "password": "admin"},
    "F5::Sys::Partition": {"name": "inventory", "bigip_server": PREREQUISITE + "f5.bigip"},
    "OS::Heat::AutoScalingGroup": {"resource": {"type": "OS::Heat::None"}},  # a member type
    "OS::Heat::ResourceGroup": {"resource_def": {"type": "OS::Heat::None"}},
    # member type names: an empty chain gives an update nothing a cloud can take
    "OS::Heat::ResourceChain": {"resources": ["OS::Heat::None"]},
    "OS::Cinder::QoSSpecs": {"name": "inventory-qos-specs"},  # nor here
    "OS::Cinder::EncryptedVolumeType": {"provider": "luks"},
    "OS::Cinder::VolumeAttachment": {"instance_uuid": PREREQUISITE + "nova.server"},
    "OS::Neutron::Firewall": {"firewall_policy_id": PREREQUISITE + "firewall_policy"},
    "OS::Neutron::L2Gateway": {
        "devices": [{"device_name": "sw1", "interfaces": [{"name": "eth1"}]}]
    },
    "OS::Neutron::L2GatewayConnection": {
        "l2_gateway_id": PREREQUISITE + "l2_gateway",
        "network_id": PREREQUISITE + "neutron.net",  # an id: the plug-in resolves no name
    },
    "OS::Neutron::NetworkGateway": {
        "connections": [{"network": "public"}],
        "devices": [{"id": "inventory-device", "interface_name": "breth0"}],
    },
    "OS::Neutron::MeteringRule": {
        "metering_label_id": PREREQUISITE + "metering_label",
        "remote_ip_prefix": "10.50.0.0/24",  # neutron takes no empty prefix
    },
    "OS::Neutron::RBACPolicy": {
        "object_type": "network",
        "object_id": "public",
        "action": "access_as_shared",
    },
    "OS::Neutron::IPsecSiteConnection": {  # ids: the plug-in resolves no name
        "vpnservice_id": PREREQUISITE + "vpnservice",
        "ikepolicy_id": PREREQUISITE + "ikepolicy",
        "ipsecpolicy_id": PREREQUISITE + "ipsecpolicy",
        "peer_address": "172.24.4.233",
        "peer_id": "172.24.4.233",
        "peer_cidrs": ["10.2.0.0/24"],
        "psk": "inventory-key",  # neutron takes no empty key
    },
    "OS::Heat::InstanceGroup": {
        "LaunchConfigurationName": PREREQUISITE + "launch_config",
        "AvailabilityZones": ["nova"],
        "Size": 1,
    },
    "OS::Nova::Flavor": {"ram": 64, "vcpus": 1},  # nova takes neither below 1
    "OS::Nova::HostAggregate": {"name": "inventory-aggregate"},  # nova takes no empty name
    "OS::Nova::FloatingIPAssociation": {"floating_ip": PREREQUISITE + "floating_ip"},
    "OS::Nova::Quota": {"instances": 20},  # the quotas: at least one limit
    "OS::Cinder::Quota": {"volumes": 20},
    "OS::Neutron::Quota": {"network": 20},
    "OS::Nova::Server": {"image": "cirros"},
    "OS::Neutron::FloatingIPAssociation": {
        "floatingip_id": PREREQUISITE + "floating_ip",
        "port_id": PREREQUISITE + "neutron.port",
    },
    "OS::Heat::SwiftSignal": {"handle": PREREQUISITE + "swift_signal_handle"},
    # a deployment's server is a plain string; the fake agent reports on it (CFN_SIGNAL)
    "OS::Heat::SoftwareDeployment": {"server": PREREQUISITE + "software_config_server"},
    "OS::Heat::StructuredDeployment": {"server": PREREQUISITE + "software_config_server"},
    "OS::Heat::SoftwareDeploymentGroup": {
        "servers": {"one": PREREQUISITE + "software_config_server"}
    },
    "OS::Heat::StructuredDeploymentGroup": {
        "servers": {"one": PREREQUISITE + "software_config_server"}
    },
    "OS::Heat::WaitCondition": {"handle": PREREQUISITE + "wait_condition_handle"},
    "OS::Neutron::FloatingIPPortForward": {  # Heat's handle_create pops the port number
        "floating_ip": PREREQUISITE + "floating_ip",
        "internal_port_number": 22,
    },
    "OS::Neutron::RouterGateway": {"network": "public"},
    "OS::Neutron::RouterInterface": {"subnet": "public-subnet"},
    "OS::Neutron::Subnet": {"cidr": "10.30.0.0/24"},
    "OS::Nova::KeyPair": {
        "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIInventoryKeyForPlugsimOnly00000000 inv"
    },
}


#: Modules loaded with a module measured, for the prerequisites it names (Heat's
#: wait condition takes only Heat's own handle), as ``module -> sibling files``.
COMPANIONS: dict[str, tuple[str, ...]] = {
    "heat.wait_condition": ("wait_condition_handle.py",),
    # an InstanceGroup's members are AWS instances built from an AWS launch configuration
    "heat.instance_group": ("../../aws/autoscaling/launch_config.py", "../../aws/ec2/instance.py"),
}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:240]


def _custom_names(schema: Any) -> list[str]:
    from sdk.constraints import CustomConstraint

    return [c.name for c in schema.constraints if isinstance(c, CustomConstraint)]


_NOTHING = object()


def _prerequisite(schema: Any, resources: dict[str, Any]) -> Any:
    """A value for *schema* from the world or a prerequisite resource, or ``_NOTHING``."""
    from sdk.properties import Schema

    for name in _custom_names(schema):
        if name in WORLD_OBJECTS:
            value: Any = WORLD_OBJECTS[name]
        elif name in PREREQUISITE_RESOURCES:
            value = {"get_resource": _add_prerequisite(name, resources)}
        else:
            continue
        return [value] if schema.type == Schema.LIST else value
    if schema.type == Schema.LIST and isinstance(schema.schema, Schema):
        item = _prerequisite(schema.schema, resources)
        if item is not _NOTHING:
            return [item]
    return _NOTHING


def inventory_properties(plugin: type) -> tuple[dict[str, Any], dict[str, Any]]:
    """The simplest property map of *plugin* and the prerequisite resources it refers to.

    A property under a custom constraint gets an object of the default world
    (:data:`WORLD_OBJECTS`) or a resource made first in the same stack
    (:data:`PREREQUISITE_RESOURCES`); only required ones are given. The rest
    is sdk's simplest valid map of the remaining schema.

    :raises sdk.testing.strategies.Ungeneratable: no valid map can be made.
    """
    import types

    from sdk.properties import schemata
    from sdk.testing.strategies import simplest_properties

    raw = getattr(plugin, "properties_schema", {})
    schema = schemata(raw)
    resources: dict[str, Any] = {}
    given: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for name in sorted(schema):
        needs: dict[str, Any] = {}
        value = _prerequisite(schema[name], needs)
        if value is _NOTHING:
            rest[name] = raw[name]
        elif schema[name].required:
            given[name] = value
            resources.update(needs)  # an optional property's prerequisite is not made
    props = simplest_properties(types.SimpleNamespace(properties_schema=rest))  # type: ignore[arg-type]
    return {**props, **given}, resources


def _with_prerequisites(value: Any, prerequisites: dict[str, Any]) -> Any:
    """*value* with each ``PREREQUISITE + name`` in it (at any depth) a reference to that resource."""
    if isinstance(value, str) and value.startswith(PREREQUISITE):
        return {"get_resource": _add_prerequisite(value[len(PREREQUISITE) :], prerequisites)}
    if isinstance(value, dict):
        return {k: _with_prerequisites(v, prerequisites) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_prerequisites(v, prerequisites) for v in value]
    return value


def type_template(type_name: str, plugin: type) -> dict[str, Any]:
    """The one-resource template (resource ``r`` and its prerequisites) *type_name* is run with.

    :raises Exception: no valid property map can be made (the reason is a finding).
    """
    props, prerequisites = inventory_properties(plugin)
    for name, value in JOINTLY_REQUIRED.get(type_name, {}).items():
        props[name] = _with_prerequisites(value, prerequisites)
    return {
        "heat_template_version": "2018-08-31",
        "resources": {**prerequisites, "r": {"type": type_name, "properties": props}},
    }


def prerequisite_modules(template: dict[str, Any]) -> list[str]:
    """Heat's modules the prerequisite resources of a :func:`type_template` come from."""
    return heat_modules_needed({k: v for k, v in template["resources"].items() if k != "r"})


def run_type(type_name: str, plugin: type, world_factory: Any) -> str | None:
    """Create then delete one *type_name* resource; None when both complete, else why not."""
    from sdk import exception

    try:
        template = type_template(type_name, plugin)
    except Exception as ex:  # noqa: BLE001 - any failure is a finding of the inventory
        return f"no valid property map: {type(ex).__name__}: {_one_line(ex)}"
    world = world_factory(*prerequisite_modules(template))
    try:
        stack = world.create_stack("inventory", template, disable_rollback=True)
        if (stack.action, stack.status) != ("CREATE", "COMPLETE"):
            return f"create: {_one_line(stack.status_reason)}"
        stack = world.delete_stack("inventory")
        if (stack.action, stack.status) != ("DELETE", "COMPLETE"):
            return f"delete: {_one_line(stack.status_reason)}"
    except exception.PlugsimError as ex:
        return f"rejected: {_one_line(ex)}"
    except Exception as ex:  # noqa: BLE001 - any failure is a finding of the inventory
        return f"crashed: {type(ex).__name__}: {_one_line(ex)}"
    finally:
        world.close()
    return None


def module_world_factory(path: Path, module: str, companions: tuple[Path, ...] = ()) -> Any:
    """``world_factory(*needed)``: a default world running *path*'s plug-ins, its sibling
    files, *companions* and the Heat modules *needed* by the prerequisites."""
    from simulator.heat_compat import use_heat_plugins
    from simulator.store import Store
    from simulator.world import World

    module_name = OPENSTACK + module

    def world_factory(*needed: str) -> Any:
        world = World(Store(":memory:"), seed=7, entry_points=True)
        prerequisite_modules = [OPENSTACK + m for m in needed if OPENSTACK + m != module_name]
        own = [path.parent / f for f in COMPANIONS.get(module, ())]
        use_heat_plugins(world, *prerequisite_modules, path, *own, *companions)
        return world

    return world_factory


def measure(path: Path, module: str, companions: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The row of one plug-in file: ``module``, ``types``, ``loads``, ``runs``, ``reason``.

    *companions* are the other files measured with it: their types are loaded
    too (as Heat loads all of ``plugin_dirs``), so a prerequisite resource may
    be of a type another file registers.
    """
    from simulator.heat_compat import load_heat_plugin

    report = load_heat_plugin(path)
    row: dict[str, Any] = {"module": module, "types": sorted(report.mapping)}
    if report.errors:
        reason = str(report.errors[0]).split("layer: ", 1)[-1]
        row.update(loads=False, runs=False, types_run=[], reason=_one_line(reason))
        return row
    row["loads"] = True

    world_factory = module_world_factory(path, module, companions)

    reasons = []
    row["types_run"] = []
    for type_name in row["types"]:
        why = run_type(type_name, report.mapping[type_name], world_factory)
        if why is None:
            row["types_run"].append(type_name)
        else:
            reasons.append(f"{type_name}: {why}")
    row["runs"] = bool(row["types"]) and not reasons
    row["reason"] = reasons[0] if reasons else ("" if row["types"] else "registers no type")
    return row


def inventory(package: Path) -> list[dict[str, Any]]:
    """One row per in-tree module (see :func:`measure`)."""
    base = package / "engine" / "resources" / "openstack"
    return [
        measure(path, ".".join(path.relative_to(base).with_suffix("").parts))
        for path in heat_modules(package)
    ]


def plugin_rows(targets: list[str]) -> list[dict[str, Any]]:
    """One row per plug-in file of *targets* (files or directories), e.g. third-party ones."""
    files: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.py") if p.name != "__init__.py"))
        elif path.is_file():
            files.append(path)
        else:
            raise SystemExit(f"heat_inventory: {target}: no such file or directory")
    return [measure(path, str(path), tuple(files)) for path in files]


def main(argv: list[str] | None = None) -> int:
    """Print the inventory; exit 2 without an openstack-heat to measure."""
    from simulator.heat_compat import HEAT_PYTHON_ENV, find_heat_package

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--plugins",
        nargs="+",
        metavar="PATH",
        help="measure these plug-in files or directories (third-party plug-ins) instead",
    )
    parser.add_argument(
        "--lifecycle",
        action="store_true",
        help="drive each type that runs create -> delete through update, suspend, snapshot, "
        "check and the leak check instead (tools/heat_lifecycle.py)",
    )
    parser.add_argument(
        "--conformance",
        action="store_true",
        help="run plugsim conformance on each type that runs create -> delete instead, and "
        "say which failures are plugsim's (tools/heat_conformance.py)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=(),
        metavar="TYPE_OR_MODULE",
        help="with --conformance: only these types (OS::Heat::Delay) or modules (heat.delay)",
    )
    parser.add_argument(
        "-k",
        dest="select",
        default="",
        metavar="EXPRESSION",
        help="with --conformance: only the tests this pytest expression selects",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="with --conformance: write the generated files and JUnit XML to DIR",
    )
    args = parser.parse_args(argv)
    package = find_heat_package()
    if package is None:
        print(f"heat_inventory: no openstack-heat found; set {HEAT_PYTHON_ENV}", file=sys.stderr)
        return 2
    if args.conformance:
        import heat_conformance

        return heat_conformance.main(
            package, as_json=args.json, only=tuple(args.only), select=args.select, keep=args.keep
        )
    if args.lifecycle:
        import heat_lifecycle

        return heat_lifecycle.main(package, as_json=args.json)
    rows = plugin_rows(args.plugins) if args.plugins else inventory(package)
    if args.json:
        print(json.dumps(rows, indent=1, sort_keys=True))
        return 0
    for row in rows:
        state = "runs" if row["runs"] else ("loads" if row["loads"] else "fails")
        print(f"{row['module']:<40} {state:<6} {row['reason']}")
    if args.plugins:
        return 0
    loaded = sum(r["loads"] for r in rows)
    ran = sum(r["runs"] for r in rows)
    types = sum(len(r["types"]) for r in rows)
    types_ran = sum(len(r["types_run"]) for r in rows)
    print(f"{loaded} of {len(rows)} modules load, {ran} run create -> delete")
    print(f"{types_ran} of the {types} types they register run create -> delete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
