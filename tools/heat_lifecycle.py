"""Beyond create and delete: each running Heat type driven through the rest of its lifecycle.

``tools/heat_inventory.py`` finds which of Heat's in-tree types run create →
delete. This module takes each of those types further, on the default world
and the same one-resource template (:func:`heat_inventory.type_template`),
one phase per fresh world so a failure is the phase's own:

``update_in_place``
    an ``update_allowed`` property of a plug-in with ``handle_update``
    changed to another valid value: ``UPDATE_COMPLETE``, the same physical
    id, the new value in the resource's properties;
``update_replace``
    a property that is neither ``update_allowed`` nor immutable changed:
    ``UPDATE_COMPLETE`` with a new physical id;
``suspend_resume``
    (a plug-in with ``handle_suspend``) ``SUSPEND_COMPLETE`` then
    ``RESUME_COMPLETE``;
``snapshot``
    (a plug-in with ``handle_snapshot``) a ``COMPLETE`` snapshot, restored
    (``RESTORE_COMPLETE``), then deleted;
``check``
    ``CHECK_COMPLETE``;
``no_leak``
    after every run's delete (``DELETE_COMPLETE``) and an hour of virtual
    time, no fake-cloud entity made by the run is alive.

The properties changed and their new values come from the conformance kit's
own derivation (:func:`sdk.testing.cli.derived_updates`), so the inventory
and ``plugsim conformance`` change the same thing. A phase is ``ok``,
``FAIL`` or ``-`` (the schema or the plug-in offers nothing to drive it).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import heat_inventory  # noqa: E402 - a sibling script, found through the line above

#: The phases measured beyond create and delete, in report order.
PHASES = ("update_in_place", "update_replace", "suspend_resume", "snapshot", "check", "no_leak")

OK, FAIL, NONE = "ok", "FAIL", "-"

_one_line = heat_inventory._one_line


class PhaseFailed(Exception):
    """A phase did not reach the state it should (the message says which and why)."""


def _expect(stack: Any, action: str, status: str = "COMPLETE") -> None:
    if (stack.action, stack.status) != (action, status):
        raise PhaseFailed(
            f"{stack.action}_{stack.status} (not {action}_{status}): "
            f"{_one_line(stack.status_reason)}"
        )


#: The name of the stack each phase runs in.
STACK = "lifecycle"


def _resource(world: Any) -> Any:
    return world.get_stack(STACK).resources["r"]


#: Changes given where the derived one is valid for the schema but not for the
#: cloud or the rest of the map (the reason beside each); the derived change
#: of the other path stays.
CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    # each allowed resource must be one of the stack's: the resource itself is
    "OS::Heat::AccessPolicy": {"update_replace": {"AllowedResources": ["r"]}},
    # value_specs' keys go to Neutron as they are, and it refuses unknown ones
    "OS::Neutron::FloatingIP": {"update_replace": {"floating_ip_address": "172.24.4.60"}},
    # a rule differing only in its description duplicates the old one, which
    # Neutron refuses while the old one still exists (Heat creates the new first)
    "OS::Neutron::SecurityGroupRule": {"update_replace": {"protocol": "udp"}},
    # ip_version 6 contradicts the IPv4 cidr
    "OS::Neutron::Subnet": {"update_replace": {"cidr": "10.31.0.0/24"}},
    # the default world's only floating-IP pool is the public network
    "OS::Nova::FloatingIP": {"update_replace": {"pool": "public"}},
    # the derived devices carry no interfaces, which networking-l2gw refuses
    # (validate_gwdevice_list: "Cannot create a gateway with an empty interfaces")
    "OS::Neutron::L2Gateway": {"update_in_place": {"name": "l2gw-renamed"}},
    # the derived devices have a blank id and interface name, which the NSX
    # gateway API refuses; the name is what a user changes in place
    "OS::Neutron::NetworkGateway": {"update_in_place": {"name": "gw-renamed"}},
    # a vlan segment needs a physical network (Heat's own Segment.validate says so)
    "OS::Neutron::Segment": {"update_replace": {"network_type": "vxlan"}},
    # derived port ranges need protocol tcp or udp (networking-sfc refuses them alone)
    "OS::Neutron::FlowClassifier": {"update_replace": {"protocol": "tcp"}},
}


def changes(
    type_name: str, plugin: type, template: dict[str, Any]
) -> dict[str, dict[str, Any] | None]:
    """``update_in_place`` / ``update_replace`` property changes for *plugin* (or None each).

    Derived as ``plugsim conformance`` derives them, unless :data:`CHANGES` says.
    """
    from sdk.testing.cli import derived_updates

    props = template["resources"]["r"]["properties"]
    derived = derived_updates(plugin, props)
    given = CHANGES.get(type_name, {})
    return {k: given.get(k, derived.get(k)) for k in ("update_in_place", "update_replace")}


def _with(template: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(template)
    out["resources"]["r"]["properties"].update(copy.deepcopy(change))
    return out


def _created_again(world: Any, mark: int) -> bool:
    """True when resource ``r`` was created (replaced) after event *mark*."""
    return any(
        e.id > mark and e.resource_name == "r" and (e.action, e.status) == ("CREATE", "COMPLETE")
        for e in world.store.events()
    )


def _update_in_place(world: Any, template: dict[str, Any], change: dict[str, Any]) -> None:
    """In place: no new resource (a plug-in may still set a new physical id, as a
    VolumeAttachment re-attaching does)."""
    name = STACK
    mark = world.store.last_event_id()
    _expect(world.update_stack(name, _with(template, change)), "UPDATE")
    if _created_again(world, mark):
        raise PhaseFailed(f"replaced by a change it allows ({sorted(change)})")
    res = _resource(world)
    for key, value in change.items():
        if not _reads_as(res.properties[key], value):
            raise PhaseFailed(f"property {key} reads {res.properties[key]!r}, not {value!r}")


def _reads_as(got: Any, given: Any) -> bool:
    """True when a property given *given* reads *got* (a map's schema fills its unset keys)."""
    if isinstance(given, dict) and isinstance(got, dict):
        return all(_reads_as(got.get(k), v) for k, v in given.items())
    return bool(got == given)


def _update_replace(world: Any, template: dict[str, Any], change: dict[str, Any]) -> None:
    name = STACK
    mark = world.store.last_event_id()
    _expect(world.update_stack(name, _with(template, change)), "UPDATE")
    if not _created_again(world, mark):
        raise PhaseFailed(f"not replaced for a change that replaces ({sorted(change)})")


def _suspend_resume(world: Any) -> None:
    name = STACK
    _expect(world.suspend_stack(name), "SUSPEND")
    _expect(world.resume_stack(name), "RESUME")


def _snapshot(world: Any) -> None:
    name = STACK
    snap = world.snapshot_stack(name, "lifecycle")
    if snap.status != "COMPLETE":
        raise PhaseFailed(f"snapshot {snap.status}: {_one_line(snap.reason)}")
    _expect(world.restore_stack(name, snap.id), "RESTORE")
    world.delete_snapshot(name, snap.id)


def _check(world: Any) -> None:
    _expect(world.check_stack(STACK), "CHECK")


def _declared(plugin: type, method: str) -> bool:
    from sdk.testing._conformance_support import declared

    return declared(plugin, method)


def _leaks(world: Any, mark: Any) -> list[str]:
    from sdk.testing._world import SETTLE_SECONDS

    world.clock.advance(SETTLE_SECONDS)
    return [f"{i.service}/{i.kind} {i.id} ({i.status})" for i in world.cloud.leaks(mark)]


def run_phase(
    world_factory: Any, template: dict[str, Any], phase: Any
) -> tuple[str | None, list[str]]:
    """Create, run *phase(world)*, delete: ``(why the run failed or None, leaked entities)``."""
    from sdk import exception

    name = STACK
    world = world_factory(*heat_inventory.prerequisite_modules(template))
    try:
        mark = world.cloud.snapshot_inventory()
        why: str | None = None
        try:
            _expect(world.create_stack(name, template, disable_rollback=True), "CREATE")
            phase(world)
        except PhaseFailed as ex:
            why = str(ex)
        except exception.PlugsimError as ex:
            why = f"rejected: {_one_line(ex)}"
        except Exception as ex:  # noqa: BLE001 - any failure is a finding of the inventory
            why = f"crashed: {type(ex).__name__}: {_one_line(ex)}"
        try:
            stack = world.get_stack(name)
            if stack.action != "DELETE" or stack.status != "COMPLETE":
                stack = world.delete_stack(name)
            _expect(stack, "DELETE")
        except Exception as ex:  # noqa: BLE001 - a delete failure is a finding too
            why = why or f"delete: {_one_line(ex)}"
        return why, _leaks(world, mark)
    finally:
        world.close()


def lifecycle_type(type_name: str, plugin: type, world_factory: Any) -> dict[str, Any]:
    """The lifecycle row of one type: ``type``, ``phases`` ({phase: ok/FAIL/-}), ``reason``."""
    template = heat_inventory.type_template(type_name, plugin)
    change = changes(type_name, plugin, template)
    steps: dict[str, Any] = {
        "update_in_place": (
            (lambda w: _update_in_place(w, template, change["update_in_place"]))
            if change["update_in_place"]
            else None
        ),
        "update_replace": (
            (lambda w: _update_replace(w, template, change["update_replace"]))
            if change["update_replace"]
            else None
        ),
        "suspend_resume": _suspend_resume if _declared(plugin, "handle_suspend") else None,
        "snapshot": _snapshot if _declared(plugin, "handle_snapshot") else None,
        "check": _check,
    }
    phases: dict[str, str] = {}
    reasons: list[str] = []
    leaked: list[str] = []
    for phase, step in steps.items():
        if step is None:
            phases[phase] = NONE
            continue
        why, leaks = run_phase(world_factory, template, step)
        phases[phase] = OK if why is None else FAIL
        if why is not None:
            reasons.append(f"{phase}: {why}")
        leaked.extend(f"{phase}: {item}" for item in leaks)
    phases["no_leak"] = OK if not leaked else FAIL
    if leaked:
        reasons.append(f"no_leak: leaked {leaked[0]}")
    return {
        "type": type_name,
        "phases": phases,
        "changes": change,
        "reason": reasons[0] if reasons else "",
    }


def lifecycle_rows(package: Path) -> list[dict[str, Any]]:
    """One lifecycle row per type that runs create → delete, over Heat's in-tree modules."""
    from simulator.heat_compat import load_heat_plugin

    base = package / "engine" / "resources" / "openstack"
    rows: list[dict[str, Any]] = []
    for path in heat_inventory.heat_modules(package):
        module = ".".join(path.relative_to(base).with_suffix("").parts)
        report = load_heat_plugin(path)
        if report.errors:
            continue

        world_factory = heat_inventory.module_world_factory(path, module)

        for type_name in sorted(report.mapping):
            plugin = report.mapping[type_name]
            if heat_inventory.run_type(type_name, plugin, world_factory) is not None:
                continue
            row = lifecycle_type(type_name, plugin, world_factory)
            row["module"] = module
            rows.append(row)
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    """Print the table: one line per type, then how many pass each phase."""
    head = "  ".join(f"{p[:14]:<14}" for p in PHASES)
    print(f"{'type':<38} {head}")
    for row in rows:
        cells = "  ".join(f"{row['phases'][p]:<14}" for p in PHASES)
        print(f"{row['type']:<38} {cells}")
        if row["reason"]:
            print(f"    {row['reason']}")
    print(f"{len(rows)} types run create -> delete; beyond that:")
    for phase in PHASES:
        ok = sum(r["phases"][phase] == OK for r in rows)
        tried = sum(r["phases"][phase] != NONE for r in rows)
        print(f"  {phase:<16} {ok} of {tried} pass ({len(rows) - tried} have nothing to drive)")


def main(package: Path, *, as_json: bool = False) -> int:
    """Print the lifecycle table of Heat's in-tree types (or its rows as JSON)."""
    import json

    rows = lifecycle_rows(package)
    if as_json:
        print(json.dumps(rows, indent=1, sort_keys=True))
    else:
        print_rows(rows)
    return 0
