"""Driving a resource plug-in on a fake cloud for the dynamic rules (PS15x).

Every resource class a linted module registers is created once in a fresh
in-memory world (:class:`sdk.testing.harness.PlugsimEnv`, seed 0: its own
virtual clock and fake cloud, never the network), then its attributes are
resolved and each property it allows to change is updated in turn, comparing
the fake cloud's entities and the resource's ``show`` before and after.

The property map comes from the ``[tool.plugsim.lint] properties`` table
(keyed by type name), else from a ``lint_properties`` class attribute, else
from the schema strategies (the simplest valid map). When none is usable the
class is *skipped* with a reason, never guessed at.

Every run is bounded: the stack has a virtual-time limit, a handler that
blocks is stopped by the harness's wall-clock watchdog
(:func:`sdk.testing.watchdog.run_watched`), and the whole run of one class
has a wall-clock budget of its own (a resolver that never returns). Socket
connections and name lookups are blocked throughout, as during the import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sdk.lint.loading import network_blocked

T = TypeVar("T")

#: Virtual minutes a create or update may take before the stack times out.
VIRTUAL_TIMEOUT_MINS = 60.0
#: Wall seconds a single handler may block before the watchdog stops it.
HANDLER_WALL_LIMIT = 5.0
#: Wall seconds the whole dynamic run of one class may take.
CLASS_WALL_LIMIT = 30.0
#: Virtual seconds let pass after a create or update, so the fake cloud's entities settle.
SETTLE_SECONDS = 600.0
#: Keys of ``show`` that change with time alone, ignored when comparing.
VOLATILE_KEYS = frozenset({"status", "updated_at", "created_at", "updated", "created"})


class DynamicTimeout(Exception):
    """The dynamic run of one class exceeded its wall-clock budget."""


@dataclass
class ClassRun:
    """What driving one resource class on a fake cloud showed."""

    type_name: str
    cls: type
    skipped: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    #: Attribute name -> what went wrong (``raised KeyError: 'x'`` / ``returned None``).
    unresolved: dict[str, str] = field(default_factory=dict)
    no_resource_id: bool = False
    #: Properties whose in-place update changed neither the fake cloud nor ``show``.
    ignored_updates: list[str] = field(default_factory=list)
    #: Why some update checks could not run (an update that failed).
    notes: list[str] = field(default_factory=list)


def bounded(func: Callable[[], T], seconds: float, what: str) -> T:
    """Run *func* in a daemon thread; raise :class:`DynamicTimeout` after *seconds* of wall time.

    The thread cannot be killed: a run that overstays is abandoned.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = func()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller as-is
            box["error"] = exc

    worker = threading.Thread(target=target, name="plugsim-lint-dynamic", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise DynamicTimeout(f"{what} did not finish within {seconds:g} s of wall time")
    if "error" in box:
        raise box["error"]
    return box["result"]


def _overrides(cls: type, name: str) -> bool:
    from sdk.resource import Resource

    return getattr(cls, name, None) is not getattr(Resource, name, None)


def property_map(
    type_name: str, cls: type, configured: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """The property map to create *cls* with, and where it came from (or why there is none)."""
    if type_name in configured:
        value = configured[type_name]
        if isinstance(value, Mapping):
            return dict(value), "[tool.plugsim.lint] properties"
        return None, f"[tool.plugsim.lint] properties.{type_name!r} is not a table"
    own = getattr(cls, "lint_properties", None)
    if own is not None:
        if isinstance(own, Mapping):
            return dict(own), f"{cls.__name__}.lint_properties"
        return None, f"{cls.__name__}.lint_properties is {type(own).__name__}, not a dict"
    from sdk.testing.strategies import Ungeneratable

    try:
        from sdk.testing.cli import simplest_properties

        return simplest_properties(cls), "generated from the schema"
    except Ungeneratable as exc:
        return None, f"no property map can be generated ({exc})"
    except Exception as exc:  # noqa: BLE001 - a schema the strategies cannot read
        return None, f"no property map can be generated ({type(exc).__name__}: {exc})"


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _cloud_snapshot(world: Any) -> Any:
    services = world.cloud.to_state()["services"]
    out = []
    for service, state in sorted(services.items()):
        for kind, items in sorted(state["entities"].items()):
            for item in items:
                out.append(
                    (
                        service,
                        kind,
                        item.get("id"),
                        item.get("name"),
                        repr(item.get("attrs")),
                        item.get("deleted"),
                    )
                )
    return sorted(out)


def _show(resource: Any) -> Any:
    try:
        shown = resource._show_resource()
    except Exception as exc:  # noqa: BLE001 - compared, not reported
        return f"raised {type(exc).__name__}"
    if isinstance(shown, Mapping):
        return repr(sorted((k, repr(v)) for k, v in shown.items() if k not in VOLATILE_KEYS))
    return repr(shown)


def _other_value(schema: Any, current: Any) -> tuple[bool, Any]:
    """A valid value of *schema* different from *current* (found deterministically).

    A non-empty value is preferred, so that a change from "unset" is a real change.
    """
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    from sdk.testing.strategies import Ungeneratable, values

    options = settings(
        database=None, derandomize=True, max_examples=200, suppress_health_check=list(HealthCheck)
    )
    for wanted in (lambda v: v != current and bool(v), lambda v: v != current):
        try:
            return True, find(values(schema), wanted, settings=options)
        except (NoSuchExample, Ungeneratable):
            continue
    return False, None


class _Driver:
    def __init__(self, run: ClassRun, props: dict[str, Any], seed: int) -> None:
        from sdk.testing.harness import PlugsimEnv

        self.run = run
        self.props = props
        self.env = PlugsimEnv(seed, wall_limit=HANDLER_WALL_LIMIT)

    def drive(self) -> None:
        run, cls = self.run, self.run.cls
        h = self.env.harness(
            cls, self.props, type_name=run.type_name, timeout_mins=VIRTUAL_TIMEOUT_MINS
        )
        h.create()
        if h.state != "CREATE_COMPLETE":
            run.skipped = (
                f"creating {run.type_name} with properties {self.props!r} ended "
                f"{h.state}: {h.status_reason}"
            )
            return
        h.world.settle(SETTLE_SECONDS)
        resource = h.resource
        if _overrides(cls, "handle_create") and resource.resource_id is None:
            run.no_resource_id = True
        self._attributes(resource)
        if resource.resource_id is not None and _overrides(cls, "handle_update"):
            self._updates(h)

    def _attributes(self, resource: Any) -> None:
        cls = self.run.cls
        if _overrides(cls, "_resolve_attribute"):
            resolve = resource._resolve_attribute
        elif _overrides(cls, "FnGetAtt"):
            resolve = resource.FnGetAtt
        else:
            return  # no resolver at all: PS110's business
        for name in sorted(getattr(cls, "attributes_schema", {}) or {}):
            if name == "show":
                continue
            try:
                value = resolve(name)
            except Exception as exc:  # noqa: BLE001 - the finding
                self.run.unresolved[name] = f"raised {_reason(exc)}"
                continue
            if value is None:
                self.run.unresolved[name] = "returned None"

    def _updatable(self) -> list[str]:
        from sdk.properties import schemata

        cls = self.run.cls
        schema = schemata(getattr(cls, "properties_schema", {}) or {})
        extra = set(getattr(cls, "update_allowed_properties", ()) or ())
        return [n for n in sorted(schema) if schema[n].update_allowed or n in extra]

    def _updates(self, h: Any) -> None:
        from sdk.properties import schemata

        schema = schemata(getattr(self.run.cls, "properties_schema", {}) or {})
        current = dict(self.props)
        for name in self._updatable():
            before_value = current.get(name, schema[name].default)
            found, new_value = _other_value(schema[name], before_value)
            if not found:
                continue
            wanted = {**current, name: new_value}
            old_id = h.physical_id
            before = (_cloud_snapshot(h.world), _show(h.resource))
            h.update(wanted)
            if h.state != "UPDATE_COMPLETE":
                self.run.notes.append(
                    f"updating property {name} to {new_value!r} ended {h.state}: {h.status_reason}"
                )
                return
            current = wanted
            if h.physical_id != old_id:
                continue  # replaced: the change certainly reached the cloud
            h.world.settle(SETTLE_SECONDS)
            after = (_cloud_snapshot(h.world), _show(h.resource))
            if before == after:
                self.run.ignored_updates.append(name)

    def close(self) -> None:
        self.env.close()


def drive_class(
    type_name: str,
    cls: type,
    configured: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    wall_limit: float = CLASS_WALL_LIMIT,
) -> ClassRun:
    """Create *cls* on a fake cloud and probe its attributes and updates; never raises."""
    run = ClassRun(type_name, cls)
    props, origin = property_map(type_name, cls, configured or {})
    if props is None:
        run.skipped = origin
        return run
    run.properties = props
    driver: _Driver | None = None

    def go() -> None:
        nonlocal driver
        driver = _Driver(run, props, seed)
        try:
            driver.drive()
        finally:
            driver.close()

    try:
        with network_blocked("driving a plug-in on a fake cloud"):
            bounded(go, wall_limit, f"driving {type_name}")
    except DynamicTimeout as exc:
        run.skipped = str(exc)
    except Exception as exc:  # noqa: BLE001 - the plug-in or its properties broke the run
        run.skipped = f"driving {type_name} with properties {props!r} failed: {_reason(exc)}"
    if run.skipped is not None and origin == "generated from the schema":
        run.skipped += (
            " (the properties were generated from the schema; give a working map in "
            "[tool.plugsim.lint] properties or a lint_properties class attribute)"
        )
    return run
