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


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:240]


def run_type(type_name: str, plugin: type, world_factory: Any) -> str | None:
    """Create then delete one *type_name* resource; None when both complete, else why not."""
    from sdk import exception
    from sdk.testing.strategies import simplest_properties

    try:
        props = simplest_properties(plugin)
    except Exception as ex:  # noqa: BLE001 - any failure is a finding of the inventory
        return f"no valid property map: {type(ex).__name__}: {_one_line(ex)}"
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"r": {"type": type_name, "properties": props}},
    }
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


def inventory(package: Path) -> list[dict[str, Any]]:
    """One row per module: ``module``, ``types``, ``loads``, ``runs``, ``reason``."""
    from simulator.heat_compat import load_heat_plugin, use_heat_plugins
    from simulator.store import Store
    from simulator.world import World

    base = package / "engine" / "resources" / "openstack"
    rows = []
    for path in heat_modules(package):
        module = ".".join(path.relative_to(base).with_suffix("").parts)
        report = load_heat_plugin(path)
        row: dict[str, Any] = {"module": module, "types": sorted(report.mapping)}
        if report.errors:
            reason = str(report.errors[0]).split("layer: ", 1)[-1]
            row.update(loads=False, runs=False, types_run=[], reason=_one_line(reason))
            rows.append(row)
            continue
        row["loads"] = True

        def world_factory(path: Path = path) -> Any:
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
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the inventory; exit 2 without an openstack-heat to measure."""
    from simulator.heat_compat import HEAT_PYTHON_ENV, find_heat_package

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    package = find_heat_package()
    if package is None:
        print(f"heat_inventory: no openstack-heat found; set {HEAT_PYTHON_ENV}", file=sys.stderr)
        return 2
    rows = inventory(package)
    if args.json:
        print(json.dumps(rows, indent=1, sort_keys=True))
        return 0
    for row in rows:
        state = "runs" if row["runs"] else ("loads" if row["loads"] else "fails")
        print(f"{row['module']:<40} {state:<6} {row['reason']}")
    loaded = sum(r["loads"] for r in rows)
    ran = sum(r["runs"] for r in rows)
    types = sum(len(r["types"]) for r in rows)
    types_ran = sum(len(r["types_run"]) for r in rows)
    print(f"{loaded} of {len(rows)} modules load, {ran} run create -> delete")
    print(f"{types_ran} of the {types} types they register run create -> delete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
