"""Driving a resource plug-in on a fake cloud for the dynamic rules (PS15x).

Every resource class a linted module registers is created once in a fresh
in-memory world (:class:`sdk.testing.harness.PlugsimEnv`, seed 0: its own
virtual clock and fake cloud, never the network), then its attributes are
resolved and each property it allows to change is updated in turn, comparing
what the update could change before and after.

The property map comes from the ``[tool.plugsim.lint] properties`` table
(keyed by type name), else from a ``lint_properties`` class attribute, else
from the schema strategies (the simplest valid map). When none is usable the
class is *skipped* with a reason, never guessed at. A type that needs other
resources (an attachment needs a server and a volume) names them as
*companions* (``[tool.plugsim.lint] companions`` or a ``lint_companions``
class attribute: resource name -> HOT resource body); they are created in
the same stack and its property map refers to them with ``get_resource`` /
``get_attr``.

An update is observed through the fake cloud's state (its entities and
other service state such as the config agent's jobs), the resource's
``show``, its attributes' values and its resource data. A generated value
the plug-in's own validation refuses is no finding: that property is left
unprobed.

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

from sdk.lint.dynamic_crash import Crash, crash_of
from sdk.lint.dynamic_inputs import companion_map, is_reference, property_map
from sdk.lint.loading import network_blocked
from sdk.testing import oracles, oracles_cloud

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
    #: Properties whose in-place update changed nothing observable (see ``_Driver._observed``).
    ignored_updates: list[str] = field(default_factory=list)
    #: Why some update checks could not run: ``(property or None, what happened)``.
    notes: list[tuple[str | None, str]] = field(default_factory=list)
    #: What the oracles of :mod:`sdk.testing.oracles` saw: ``(check, method, message)``,
    #: *check* one of :data:`ORACLE_CHECKS`, *method* the handler to point at.
    oracle_findings: list[tuple[str, str, str]] = field(default_factory=list)
    #: The create ran into the virtual-time limit (its completion check never said done).
    timed_out: bool = False
    #: Plug-in handlers that raised a programming error (:class:`Crash`) while being driven.
    crashes: list[Crash] = field(default_factory=list)


#: The oracle checks a dynamic run makes (each is a lint rule of its own).
ORACLE_CHECKS = ("replaced", "repeated", "doubled", "suspend", "stale")


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


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


#: Parts of a fake service's state that are bookkeeping, not what a plug-in changes.
_SERVICE_BOOKKEEPING = frozenset({"quotas", "counters", "entities"})


def _cloud_snapshot(world: Any) -> list[tuple[Any, ...]]:
    services = world.cloud.to_state()["services"]
    out: list[tuple[Any, ...]] = []
    for service, state in sorted(services.items()):
        for key in sorted(set(state) - _SERVICE_BOOKKEEPING):  # e.g. the config agent's jobs
            out.append((service, key, repr(state[key])))
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

    from sdk.testing.stable_draws import stable_draws
    from sdk.testing.strategies import Ungeneratable, values

    # The explain phase stays: leaving it out changes the values this search finds (the
    # bundled OS::Cinder::VolumeType's probe then updates projects instead of metadata).
    options = settings(
        database=None, derandomize=True, max_examples=200, suppress_health_check=list(HealthCheck)
    )
    for wanted in (lambda v: v != current and bool(v), lambda v: v != current):
        try:
            with stable_draws():
                return True, find(values(schema), wanted, settings=options)
        except (NoSuchExample, Ungeneratable):
            continue
    return False, None


def _never_complete(h: Any, cls: type) -> str:
    """Why a create timed out: the completion check that kept polling, the virtual time and the
    resource's and its cloud entity's last status (not the property values)."""
    from sdk.testing.verdict import handler_site, observe

    try:
        resource = h.resource
    except Exception:  # noqa: BLE001 - no resource to read
        resource = None
    seen = observe("timeout", "", world=h.world, resource=resource, stack=h.name)
    check = handler_site(cls, "check_create_complete") or seen.handler or "the create"
    when = f"t={seen.time:g}s" if seen.time is not None else "the limit"
    return (
        f"{check} never reported the create complete: the stack timed out after "
        f"{VIRTUAL_TIMEOUT_MINS:g} virtual minutes ({when}; resource "
        f"{seen.resource_status or 'unknown'}; cloud entity {seen.entity_status or 'none'})"
    )


def _resource_crash(h: Any, doing: str, prop: str | None = None) -> Crash | None:
    try:
        resource = h.resource
    except Exception:  # noqa: BLE001 - a stack without the resource: no crash to read
        return None
    return crash_of(resource, doing, prop)


class _Driver:
    def __init__(
        self,
        run: ClassRun,
        props: dict[str, Any],
        companions: dict[str, Any],
        types: Mapping[str, type],
        seed: int,
    ) -> None:
        from sdk.testing.harness import PlugsimEnv

        self.run = run
        self.props = props
        self.companions = companions
        self.types = types
        self.env = PlugsimEnv(seed, wall_limit=HANDLER_WALL_LIMIT)
        #: the handlers the class runs, recorded (the oracles name the one that crashed)
        self.record = oracles.HandlerRecord()
        self.spied = oracles.recording(run.cls, self.record)

    def _created(self, probe: bool = False) -> Any:
        """A new stack of the class (and its companions), created and settled; None if not.

        *probe*: a further stack for an oracle, beside the first one in the same world; its
        create may meet what the first one holds (a keypair's name, a subnet's range), so a
        failure there says nothing of the class and skips only that oracle.
        """
        run = self.run
        h = self.env.harness(
            self.spied,
            self.props,
            type_name=run.type_name,
            timeout_mins=VIRTUAL_TIMEOUT_MINS,
            companions=self.companions,
        )
        h.create()
        if h.state != "CREATE_COMPLETE" and probe:
            return None
        if h.state != "CREATE_COMPLETE":
            crash = _resource_crash(h, f"creating {run.type_name} with properties {self.props!r}")
            if crash is not None:
                if crash not in run.crashes:
                    run.crashes.append(crash)
                return None
            if "timed out" in h.status_reason.lower():
                run.skipped = run.skipped or _never_complete(h, run.cls)
                run.timed_out = True
                return None
            run.skipped = run.skipped or (
                f"creating {run.type_name} with properties {self.props!r} ended "
                f"{h.state}: {h.status_reason}"
            )
            return None
        h.world.settle(SETTLE_SECONDS)
        return h

    def drive(self) -> None:
        run, cls = self.run, self.run.cls
        for type_name, sibling in sorted(self.types.items()):
            self.env.world.add_type(type_name, sibling)  # a companion may be one of them
        h = self._created()
        if h is None:
            return
        resource = h.resource
        if _overrides(cls, "handle_create") and resource.resource_id is None:
            run.no_resource_id = True
        self._attributes(resource)
        if "status" in (getattr(cls, "attributes_schema", None) or {}):
            self._found(
                "stale",
                "_resolve_attribute",
                oracles_cloud.status_followed(cls, h.world, resource, resource.resource_id),
            )
        self._repeated(h)
        if resource.resource_id is not None and _overrides(cls, "handle_update"):
            self._updates(h)
        if _overrides(cls, "handle_suspend"):
            self._suspend_resume()
        self._retried_create()

    def _resolved(self, resource: Any) -> dict[str, Any]:
        """Attribute name -> its value, or the exception it raised (empty: no resolver)."""
        cls = self.run.cls
        if _overrides(cls, "_resolve_attribute"):
            resolve = resource._resolve_attribute
        elif _overrides(cls, "FnGetAtt"):
            resolve = resource.FnGetAtt
        else:
            return {}  # no resolver at all: PS110's business
        out: dict[str, Any] = {}
        for name in sorted(getattr(cls, "attributes_schema", {}) or {}):
            if name == "show":
                continue
            try:
                out[name] = resolve(name)
            except Exception as exc:  # noqa: BLE001 - the finding
                out[name] = exc
        return out

    def _attributes(self, resource: Any) -> None:
        for name, value in self._resolved(resource).items():
            if isinstance(value, Exception):
                self.run.unresolved[name] = f"raised {_reason(value)}"
            elif value is None:
                self.run.unresolved[name] = "returned None"

    def _observed(self, h: Any) -> Any:
        """What an update may change: cloud entities, ``show``, attribute values, resource data."""
        resource = h.resource
        attrs = sorted(
            (name, _reason(value) if isinstance(value, Exception) else repr(value))
            for name, value in self._resolved(resource).items()
        )
        data = sorted((repr(k), repr(v)) for k, v in resource.data().items())
        return (_cloud_snapshot(h.world), _show(resource), attrs, data)

    def _updatable(self) -> list[str]:
        from sdk.properties import schemata

        cls = self.run.cls
        schema = schemata(getattr(cls, "properties_schema", {}) or {})
        extra = set(getattr(cls, "update_allowed_properties", ()) or ())
        return [n for n in sorted(schema) if schema[n].update_allowed or n in extra]

    def _updates(self, h: Any) -> None:
        """Change each updatable property alone, observe, and change it back.

        Each probe starts from the created property map, so one probe cannot
        hide another (switching a deployment's ``actions`` off would make
        every later change look ignored). When a change cannot be undone (a
        volume does not shrink) the next probe starts on a new stack.
        """
        from sdk.exception import StackValidationFailed
        from sdk.properties import schemata

        schema = schemata(getattr(self.run.cls, "properties_schema", {}) or {})
        for name in self._updatable():
            before_value = self.props.get(name, schema[name].default)
            if is_reference(before_value):
                continue  # wired to a companion: a literal instead would probe nothing
            found, new_value = _other_value(schema[name], before_value)
            if not found:
                continue
            if h is None:
                h = self._created(probe=True)
                if h is None:
                    return
            old_id, old_resource = h.physical_id, h.resource
            before = self._observed(h)
            facts = oracles.entity(h.world, old_id)
            try:
                h.update({**self.props, name: new_value})
            except StackValidationFailed:
                continue  # the plug-in refuses the generated value: nothing was touched
            crash = None
            if h.state != "UPDATE_COMPLETE":
                crash = _resource_crash(h, f"updating property {name} to {new_value!r}", name)
            if crash is not None:
                self.run.crashes.append(crash)
            elif h.state != "UPDATE_COMPLETE":
                self.run.notes.append(
                    (
                        name,
                        f"updating property {name} to {new_value!r} ended {h.state}: "
                        f"{h.status_reason}",
                    )
                )
            elif h.resource is old_resource:  # in place: the same object, and changed
                h.world.settle(SETTLE_SECONDS)
                self._found(
                    "replaced",
                    "handle_update",
                    oracles.in_place(h.world, self.run.cls, [name], facts, h.physical_id),
                )
                if h.physical_id == old_id and before == self._observed(h):
                    self.run.ignored_updates.append(name)
            h.update(dict(self.props))
            if h.state == "UPDATE_COMPLETE":
                h.world.settle(SETTLE_SECONDS)
            else:
                h = None  # not undone: the next probe gets a stack of its own

    def _found(self, check: str, method: str, messages: list[str]) -> None:
        for message in messages:
            self.run.oracle_findings.append((check, method, message))

    def _repeated(self, h: Any) -> None:
        """The created stack updated to its own template: no write call."""
        h.world.settle(SETTLE_SECONDS)
        mark = len(h.world.cloud.trace())
        h.update(dict(self.props))
        if h.state == "UPDATE_COMPLETE":
            trace = h.world.cloud.trace()[mark:]
            self._found("repeated", "handle_update", oracles.repeated_update(self.run.cls, trace))

    def _suspend_resume(self) -> None:
        """Suspend and resume a new stack: each changes the cloud object; attributes follow."""
        h = self._created(probe=True)
        if h is None:
            return
        cls = self.run.cls
        start = oracles.entity(h.world, h.physical_id)
        mirrors = oracles.mirrored_attributes(h.resource, start)
        previous = start
        for action, run_it in (("SUSPEND", h.suspend), ("RESUME", h.resume)):
            if action == "RESUME" and not _overrides(cls, "handle_resume"):
                return
            run_it()
            if h.state != f"{action}_COMPLETE":
                crash = _resource_crash(h, f"{action.lower()}ing the resource")
                if crash is not None:
                    self.run.crashes.append(crash)
                return
            h.world.settle(SETTLE_SECONDS)
            now = oracles.entity(h.world, h.physical_id)
            method = f"handle_{action.lower()}"
            self._found("suspend", method, oracles.action_changed(cls, action, previous, now))
            self._found(
                "stale",
                "_resolve_attribute",
                oracles.stale_attributes(cls, h.resource, now, mirrors, action.lower()),
            )
            previous = now

    def _retried_create(self) -> None:
        """A 409 on the call after the one that made the object: the retried create must not double."""
        world = self.env.world
        mark, known = len(world.cloud.trace()), oracles.all_entities(world)
        h = self._created(probe=True)
        if h is None:
            return
        trace = h.world.cloud.trace()[mark:]
        clean = oracles.new_entities(h.world, known)
        first = next((i for i, t in enumerate(trace) if oracles.writes([t]) and t.entity_id), None)
        if first is None or first + 1 >= len(trace) or not clean:
            return
        after = trace[first + 1]
        key = (after.service, after.operation)
        nth = sum(1 for t in trace[: first + 2] if (t.service, t.operation) == key)
        world = self.env.new_world(
            faults=[
                {
                    "name": "transient conflict after the create call",
                    "service": after.service,
                    "operation": after.operation,
                    "nth": nth,
                    "effect": {"type": "error", "status": 409, "message": "injected conflict"},
                }
            ],
            seed=self.env.seed,
        )
        for type_name, sibling in sorted(self.types.items()):
            world.add_type(type_name, sibling)
        retried = self.env.harness(
            self.spied,
            self.props,
            world=world,
            type_name=self.run.type_name,
            timeout_mins=VIRTUAL_TIMEOUT_MINS,
            companions=self.companions,
        ).create()
        if retried.state == "CREATE_COMPLETE":
            retried.world.settle(SETTLE_SECONDS)
            self._found(
                "doubled",
                "handle_create",
                oracles.doubled(
                    self.run.cls, clean, oracles.all_entities(retried.world), retried.world
                ),
            )

    def close(self) -> None:
        self.env.close()


def drive_class(
    type_name: str,
    cls: type,
    configured: Mapping[str, Any] | None = None,
    *,
    companions: Mapping[str, Any] | None = None,
    types: Mapping[str, type] | None = None,
    seed: int = 0,
    wall_limit: float = CLASS_WALL_LIMIT,
) -> ClassRun:
    """Create *cls* on a fake cloud and probe its attributes and updates; never raises.

    *configured* and *companions* are the ``[tool.plugsim.lint]`` tables of
    property maps and companion resources, keyed by type name; *types* are
    the other types the plug-in module registers (companions may use them).
    """
    run = ClassRun(type_name, cls)
    props, origin = property_map(type_name, cls, configured or {})
    if props is None:
        run.skipped = origin
        return run
    extra, extra_origin = companion_map(type_name, cls, companions or {})
    if extra is None:
        run.skipped = extra_origin
        return run
    run.properties = props
    driver: _Driver | None = None

    def go() -> None:
        nonlocal driver
        driver = _Driver(run, props, extra, types or {}, seed)
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
    if run.skipped is not None and origin == "generated from the schema" and not run.timed_out:
        run.skipped += (
            " (the properties were generated from the schema; give a working map in "
            "[tool.plugsim.lint] properties or a lint_properties class attribute)"
        )
    return run
