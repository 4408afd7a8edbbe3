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
    "neutron.port": {"type": "OS::Neutron::Port", "properties": {"network": "public"}},
    "neutron.router": {"type": "OS::Neutron::Router", "properties": {}},
    "nova.server": {
        "type": "OS::Nova::Server",
        "properties": {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "public"}]},
    },
}


#: Properties a type needs that its schema cannot say: each is required only
#: jointly ("size or a source", "cidr or a subnet pool"), by the plug-in's own
#: validate() or by the API version in use, or names a cloud object without a
#: custom constraint. Given on top of the simplest map; ``PREREQUISITE + name``
#: stands for the prerequisite resource of that constraint name.
PREREQUISITE = "prerequisite:"
JOINTLY_REQUIRED: dict[str, dict[str, Any]] = {
    "OS::Cinder::Volume": {"size": 1},
    "OS::Cinder::VolumeType": {"name": "inventory-type"},  # cinder takes no empty name
    "OS::Cinder::VolumeAttachment": {"instance_uuid": PREREQUISITE + "nova.server"},
    "OS::Nova::Flavor": {"ram": 64, "vcpus": 1},  # nova takes neither below 1
    "OS::Nova::FloatingIPAssociation": {"floating_ip": PREREQUISITE + "floating_ip"},
    "OS::Nova::Server": {"image": "cirros"},
    "OS::Neutron::FloatingIPAssociation": {
        "floatingip_id": PREREQUISITE + "floating_ip",
        "port_id": PREREQUISITE + "neutron.port",
    },
    "OS::Neutron::RouterGateway": {"network": "public"},
    "OS::Neutron::RouterInterface": {"subnet": "public-subnet"},
    "OS::Neutron::Subnet": {"cidr": "10.30.0.0/24"},
    "OS::Nova::KeyPair": {
        "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIInventoryKeyForPlugsimOnly00000000 inv"
    },
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
            key = "pre_" + name.replace(".", "_")
            resources[key] = PREREQUISITE_RESOURCES[name]
            value = {"get_resource": key}
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


def type_template(type_name: str, plugin: type) -> dict[str, Any]:
    """The one-resource template (resource ``r`` and its prerequisites) *type_name* is run with.

    :raises Exception: no valid property map can be made (the reason is a finding).
    """
    props, prerequisites = inventory_properties(plugin)
    for name, value in JOINTLY_REQUIRED.get(type_name, {}).items():
        if isinstance(value, str) and value.startswith(PREREQUISITE):
            constraint = value[len(PREREQUISITE) :]
            key = "pre_" + constraint.replace(".", "_")
            prerequisites[key] = PREREQUISITE_RESOURCES[constraint]
            value = {"get_resource": key}
        props[name] = value
    return {
        "heat_template_version": "2018-08-31",
        "resources": {**prerequisites, "r": {"type": type_name, "properties": props}},
    }


def run_type(type_name: str, plugin: type, world_factory: Any) -> str | None:
    """Create then delete one *type_name* resource; None when both complete, else why not."""
    from sdk import exception

    try:
        template = type_template(type_name, plugin)
    except Exception as ex:  # noqa: BLE001 - any failure is a finding of the inventory
        return f"no valid property map: {type(ex).__name__}: {_one_line(ex)}"
    world = world_factory()
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


def measure(path: Path, module: str) -> dict[str, Any]:
    """The row of one plug-in file: ``module``, ``types``, ``loads``, ``runs``, ``reason``."""
    from simulator.heat_compat import load_heat_plugin, use_heat_plugins
    from simulator.store import Store
    from simulator.world import World

    report = load_heat_plugin(path)
    row: dict[str, Any] = {"module": module, "types": sorted(report.mapping)}
    if report.errors:
        reason = str(report.errors[0]).split("layer: ", 1)[-1]
        row.update(loads=False, runs=False, types_run=[], reason=_one_line(reason))
        return row
    row["loads"] = True

    def world_factory() -> Any:
        world = World(Store(":memory:"), seed=7, entry_points=True)
        use_heat_plugins(world, path)
        return world

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
    return [measure(path, str(path)) for path in files]


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
    args = parser.parse_args(argv)
    package = find_heat_package()
    if package is None:
        print(f"heat_inventory: no openstack-heat found; set {HEAT_PYTHON_ENV}", file=sys.stderr)
        return 2
    if args.conformance:
        import heat_conformance

        return heat_conformance.main(package, as_json=args.json)
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
