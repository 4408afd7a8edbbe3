"""Upgrade conformance: a stack built with a plug-in's old version keeps working with the new one.

:func:`check_upgrade` copies the OLD plug-in files into a working directory and creates a stack of each
resource type with them in a file-backed world. Then the working directory's files are replaced by the
NEW version, exactly as a deployment upgrades a plug-in in place, and a second interpreter opens the same
world and checks, per type:

* ``stack check`` passes;
* every attribute the new version declares still resolves;
* an update with the same template calls no handler and replaces nothing, and every property reads
  what the old version stored (a changed default would change the resource at its next update); a
  finding names the property;
* an update of each property the old version changed in place is still made in place (a release that
  turns ``update_allowed`` off, or whose handler asks for replacement, silently replaces resources
  at their owners' next routine update); a finding names the property;
* an update that sets only properties the new version added works;
* delete leaves nothing behind in the fake cloud.

Each phase runs in an interpreter of its own (``python -m sdk.testing.upgrade``), so the old and the new
modules, which share names and paths, never meet in one process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from sdk import exception

STACK = "upgrade"


@dataclass
class UpgradeResult:
    """What upgrading one resource type showed: ``problems`` is empty when it kept working."""

    resource_type: str
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the stack survived the upgrade."""
        return not self.problems


def _template(type_name: str, props: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"res": {"type": type_name, "properties": dict(props)}},
    }


def put_version(source: Path, target: Path) -> None:
    """Make *target* a directory holding exactly the plug-in file or directory *source*."""
    if target.exists():
        shutil.rmtree(target)
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        target.mkdir(parents=True)
        shutil.copy2(source, target / source.name)


def run_phase(name: str, runs: Sequence[Mapping[str, Any]], scratch: str) -> list[dict[str, Any]]:
    """Run phase *name* for each of *runs* in one new interpreter; their results, in order.

    *scratch*, the temporary directory the runs live in, reads ``<scratch>`` in the results, so
    they are the same wherever the directory was made. A run that raised is ``{"error": text}``.
    """
    done = subprocess.run(
        [sys.executable, "-m", "sdk.testing.upgrade", name, "-"],
        input=json.dumps([dict(r) for r in runs]),
        capture_output=True,
        text=True,
        timeout=600 + 120 * len(runs),
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise exception.PlugsimError(f"upgrade {name} phase failed: {last}")
    results: list[dict[str, Any]] = json.loads(lines[-1].replace(scratch, "<scratch>"))
    return results


def _phase(name: str, args: Mapping[str, Any], scratch: str) -> dict[str, Any]:
    (result,) = run_phase(name, [args], scratch)
    if "error" in result:
        raise exception.PlugsimError(f"upgrade {name} phase failed: {result['error']}")
    return result


def check_upgrade(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str],
    properties: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    seed: int = 0,
    updates: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[UpgradeResult]:
    """Create with *old*, upgrade in place to *new*, check (see the module docstring).

    *old* and *new* are plug-in files or directories; *properties* gives the valid properties of some
    types (the rest get the simplest map their old schema accepts). *updates* gives, per type, the
    property changes the old version makes in place (the rest get one generated value for each of
    the old version's ``update_allowed`` properties).
    """
    with tempfile.TemporaryDirectory(prefix="plugsim-upgrade-") as scratch:
        work = Path(scratch) / "plugins"
        put_version(Path(old), work)
        args = {
            "plugins": str(work),
            "state": str(Path(scratch) / "world.db"),
            "seed": seed,
            "properties": properties or {},
            "updates": updates or {},
        }
        created = _phase("create", args, scratch)
        put_version(Path(new), work)
        checked = _phase("upgrade", {**args, "created": created}, scratch)
    return [UpgradeResult(t, problems) for t, problems in sorted(checked["results"].items())]


# --- the phases, each in an interpreter of its own ------------------------------------------------


def _open(args: Mapping[str, Any], faults: Any = None) -> Any:
    """The world of *args*, with the plug-ins of its directory only.

    Installed plug-ins (entry points) stay out: the project under test is usually installed too, as
    the new version, and would claim the old version's type names.
    """
    from simulator.world import World

    return World.open(
        args["state"],
        seed=args["seed"],
        plugin_dirs=[args["plugins"]],
        entry_points=False,
        faults=faults,
    )


def _types(plugins: str) -> dict[str, type]:
    from sdk.plugins import load_plugin_dirs

    return dict(load_plugin_dirs([plugins]).mapping)


def phase_create(args: Mapping[str, Any]) -> dict[str, Any]:
    """Create one stack per type with the old version; return what phase two compares with.

    ``args["properties"]`` maps a type to its properties; a type without them gets the simplest
    valid map, or, with ``args["generate"]``, a map drawn from its schema by the run's seed.
    """
    world = _open(args)
    out: dict[str, Any] = {"baseline": sorted(map(list, world.cloud.snapshot_inventory().keys))}
    try:
        for index, (type_name, cls) in enumerate(sorted(_types(args["plugins"]).items())):
            props = dict(args["properties"].get(type_name) or _properties(cls, args))
            stack = world.create_stack(f"{STACK}-{index}", _template(type_name, props))
            res = stack.resources["res"]
            stored = _plain(dict(res.properties))
            given = (args.get("updates") or {}).get(type_name)
            out[type_name] = {
                "stack": stack.name,
                "state": str(stack.state),
                "reason": stack.status_reason,
                "properties": props,
                "old_names": sorted(getattr(cls, "properties_schema", {}) or {}),
                "physical_id": res.resource_id,
                "identity": identity(res),
                "stored": stored,
                "in_place": dict(given) if given is not None else in_place_changes(cls, stored),
            }
        from sdk.testing._world import SETTLE_SECONDS

        world.clock.advance(SETTLE_SECONDS)  # time passes between a release and the next
    finally:
        world.close()
    return out


def _properties(cls: type, args: Mapping[str, Any]) -> dict[str, Any]:
    from sdk.testing.strategies import simplest_properties, valid_properties

    if args.get("generate"):
        return _plain(seeded_example(valid_properties(cls.properties_schema), args["seed"]))  # type: ignore[attr-defined]
    return simplest_properties(cls)


def seeded_example(strategy: Any, seed: int, spread: int = 8) -> Any:
    """One value of the hypothesis *strategy*, a pure function of *seed* (and hypothesis's version).

    Hypothesis tries its simplest example first; the seed also picks how many examples to take
    (1 to *spread*), so seeds differ even where the simplest example is the common one.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fixed_seed

    seen: list[Any] = []

    @fixed_seed(seed)
    @settings(
        database=None,
        max_examples=1 + seed % spread,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        seen.append(value)

    from sdk.testing.stable_draws import stable_draws

    with stable_draws():
        collect()
    return seen[-1]


def in_place_changes(cls: type, stored: Mapping[str, Any]) -> dict[str, Any]:
    """For each property *cls* updates in place, the simplest valid value unlike the stored one."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    from sdk import properties as props_mod
    from sdk.testing.stable_draws import stable_draws
    from sdk.testing.strategies import Ungeneratable, find_settings, values

    schema = props_mod.schemata(getattr(cls, "properties_schema", {}) or {})
    allowed = set(props_mod.update_allowed_properties(schema)) | set(
        getattr(cls, "update_allowed_properties", ()) or ()
    )
    fixed = set(props_mod.immutable_properties(schema))
    changes: dict[str, Any] = {}
    for name in sorted(allowed - fixed):
        if name not in schema:
            continue
        try:
            with stable_draws():
                value = find(
                    values(schema[name]),
                    _differs_from(stored.get(name)),
                    settings=find_settings(max_examples=100),
                )
        except (Ungeneratable, NoSuchExample):
            continue
        changes[name] = _plain(value)
    return changes


def identity(res: Any) -> list[Any]:
    """What a replacement changes: the engine's instance id and the physical id.

    The physical id alone is not enough: a container is named by its ``name``, so its replacement
    has the same one.
    """
    return _plain([res.uuid, res.resource_id])


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def phase_upgrade(args: Mapping[str, Any]) -> dict[str, Any]:
    """Open the world with the new version and check every stack phase one created.

    Returns ``results`` (the problems per type), the ``faults`` ``args["faults"]`` injected after
    the upgrade, the ``digest`` of the world's whole event log and its ``virtual_seconds``.
    """
    import hashlib

    from simulator.events import event_log

    created = args["created"]
    world = _open(args, args.get("faults"))
    types = _types(args["plugins"])
    results: dict[str, list[str]] = {}
    try:
        for type_name, before in sorted((k, v) for k, v in created.items() if k != "baseline"):
            problems: list[str] = []
            results[type_name] = problems
            if not before["state"].endswith("CREATE_COMPLETE"):
                problems.append(f"the old version did not create it: {before['reason']}")
                continue
            cls = types.get(type_name)
            if cls is None:
                problems.append("the new version does not map this resource type any more")
                continue
            try:
                problems += _check_one(world, type_name, before, cls)
            except exception.PlugsimError as ex:
                problems.append(f"the stack no longer loads or runs: {ex}")
                problems += _delete_quietly(world, before["stack"])
        from sdk.testing._world import SETTLE_SECONDS

        world.clock.advance(SETTLE_SECONDS)  # let deletions the cloud finishes later complete
        baseline = {tuple(k) for k in created["baseline"]}
        left = [i for i in world.cloud.inventory() if i.key not in baseline and not i.preseeded]
        for item in left:
            results.setdefault("(leaks)", []).append(
                f"{item.service}/{item.kind} {item.name} ({item.id}) left behind"
            )
        log = event_log(world.store.events())
        out = {
            "results": results,
            "faults": [f.to_dict() for f in world.cloud.injected_faults()],
            "digest": hashlib.sha256(log.encode()).hexdigest(),
            "virtual_seconds": world.clock.now(),
        }
    finally:
        world.close()
    return out


def _check_one(world: Any, type_name: str, before: Mapping[str, Any], cls: type) -> list[str]:
    from sdk.testing.strategies import simplest_properties

    problems: list[str] = []
    name = before["stack"]
    stack = world.check_stack(name)
    if stack.status != "COMPLETE":
        problems.append(f"stack check failed: {stack.status_reason}")
    res = world.get_stack(name).resources["res"]
    for attr in sorted(getattr(cls, "attributes_schema", {}) or {}):
        try:
            res.FnGetAtt(attr)
        except Exception as ex:  # noqa: BLE001 - any failure to resolve is the finding
            problems.append(f"attribute {attr} no longer resolves: {type(ex).__name__}: {ex}")
    problems += _same_update(world, name, type_name, before)
    current, found = _in_place(world, name, type_name, before, cls)
    problems += found
    problems += _additions(world, name, type_name, before, current, cls, simplest_properties)
    deleted = world.delete_stack(name)
    if deleted.status != "COMPLETE":
        problems.append(f"delete failed: {deleted.status_reason}")
    return problems


def _delete_quietly(world: Any, name: str) -> list[str]:
    """Try to delete a stack the new version cannot run; the leak check reports what stays."""
    try:
        world.delete_stack(name)
    except exception.PlugsimError as ex:
        return [f"delete failed too: {ex}"]
    return []


def _events_since(world: Any, mark: int) -> list[Any]:
    return [e for e in world.store.events(after=mark) if not e.is_stack_event]


def _same_update(world: Any, name: str, type_name: str, before: Mapping[str, Any]) -> list[str]:
    mark = world.store.last_event_id()
    stack = world.update_stack(name, _template(type_name, before["properties"]))
    problems = []
    if stack.status != "COMPLETE":
        problems.append(f"an update with the same template failed: {stack.status_reason}")
    touched = sorted({e.action for e in _events_since(world, mark)})
    res = stack.resources["res"]
    now = _plain(dict(res.properties))
    old_names = set(before["old_names"])  # what the new version added cannot have changed
    changed = sorted(k for k in old_names if now.get(k) != before["stored"].get(k))
    why = (
        f" (property {', '.join(changed)} differs from what the old version stored)"
        if changed
        else ""
    )
    if identity(res) != before["identity"]:
        problems.append(f"an update with the same template replaced the resource{why}")
    elif touched:
        problems.append(f"an update with the same template ran {'/'.join(touched)} handlers{why}")
    else:
        for key in changed:
            problems.append(
                f"property {key} now reads {now.get(key)!r} where the old version stored "
                f"{before['stored'].get(key)!r}: the stack's next update will change it"
            )
    return problems


def _in_place(
    world: Any, name: str, type_name: str, before: Mapping[str, Any], cls: type
) -> tuple[dict[str, Any], list[str]]:
    """Update, one at a time, each property the old version changed in place; name any replaced.

    Returns the properties the stack has at the end and the problems found.
    """
    current = dict(before["properties"])
    problems: list[str] = []
    schema = getattr(cls, "properties_schema", {}) or {}
    for key, value in sorted((before.get("in_place") or {}).items()):
        if key not in schema:
            continue  # a removed property: the lint rules and loading the stack report it
        was = identity(world.get_stack(name).resources["res"])
        current[key] = value
        stack = world.update_stack(name, _template(type_name, current))
        what = f"an update of property {key}, which the old version makes in place,"
        if stack.status != "COMPLETE":
            problems.append(f"{what} failed: {stack.status_reason}")
        elif identity(stack.resources["res"]) != was:
            problems.append(f"{what} replaced the resource")
    return current, problems


def _differs_from(current: Any) -> Callable[[Any], bool]:
    """A predicate: a value that is set and not *current* (compared as JSON)."""

    def differs(value: Any) -> bool:
        return value is not None and _plain(value) != current

    return differs


def _additions(
    world: Any,
    name: str,
    type_name: str,
    before: Mapping[str, Any],
    current: Mapping[str, Any],
    cls: type,
    simplest: Any,
) -> list[str]:
    added = sorted(set(cls.properties_schema) - set(before["old_names"]))  # type: ignore[attr-defined]
    if not added:
        return []
    values = simplest(cls)
    props = {**current, **{k: values[k] for k in added if k in values}}
    if props == dict(current):
        return []
    stack = world.update_stack(name, _template(type_name, props))
    if stack.status != "COMPLETE":
        return [
            f"an update setting the new properties {', '.join(added)} failed: {stack.status_reason}"
        ]
    return []


class UpgradeConformance:
    """The upgrade check as a conformance test: set ``upgrade_from`` to the previous version.

    ``upgrade_from`` is the previous release's plug-in file or directory (a checkout, an unpacked
    wheel); the new version is the file that defines ``resource_class`` (its directory when
    ``upgrade_from`` is a directory). The class's ``update_in_place`` changes are the ones the old
    version must still make in place. Without ``upgrade_from`` the test skips, giving
    ``upgrade_skip_reason``. Mixed into :class:`sdk.testing.ResourceConformance`.
    """

    upgrade_from: ClassVar[str | os.PathLike[str] | None] = None
    upgrade_skip_reason: ClassVar[str] = (
        "no upgrade_from declared (the previous version's plug-in file or directory)"
    )

    def test_upgrade_from_previous_version(self) -> None:
        """A stack created with ``upgrade_from`` keeps working after an in-place upgrade."""
        import inspect

        import pytest

        if not self.upgrade_from:
            pytest.skip(self.upgrade_skip_reason)
        assert self.upgrade_from is not None
        if not Path(self.upgrade_from).exists():
            pytest.fail(f"upgrade_from {self.upgrade_from}: no such file or directory")
        cls = getattr(self, "resource_class", None)
        type_name = getattr(self, "resource_type", None)
        source = Path(inspect.getsourcefile(cls) or "") if cls is not None else Path()
        new = source.parent if Path(self.upgrade_from).is_dir() else source
        props = dict(getattr(self, "valid_properties", None) or {})
        in_place = getattr(self, "update_in_place", None)
        results = check_upgrade(
            self.upgrade_from,
            new,
            {type_name: props} if type_name else {},
            updates={type_name: dict(in_place)} if type_name and in_place else None,
        )
        problems = [
            f"{r.resource_type}: {p}"
            for r in results
            if r.resource_type in (type_name, "(leaks)")
            for p in r.problems
        ]
        assert not problems, "\n".join(problems)


def main(argv: Sequence[str]) -> int:
    """``python -m sdk.testing.upgrade create|upgrade -``: run one phase per run read from stdin.

    Stdin holds a JSON list of runs' arguments; stdout gets the list of their results.
    """
    phase = argv[0]
    runs = json.loads(sys.stdin.read())
    out: list[Any] = []
    for args in runs:
        try:
            out.append(phase_create(args) if phase == "create" else phase_upgrade(args))
        except Exception as ex:  # noqa: BLE001 - one run's failure is its result, not the batch's
            out.append({"error": f"{type(ex).__name__}: {ex}"})
    print(json.dumps(out, sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
