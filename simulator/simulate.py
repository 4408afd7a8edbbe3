"""``plugsim simulate``: one template through its whole life, with a report.

:func:`simulate` takes a template through create → update (when an update
template is given) → suspend → resume → snapshot → delete in a fresh world
(in memory unless a state file is given) and returns a :class:`Report`: the
event timeline, each phase's outcome with virtual and wall durations, the
fake-cloud resources left behind (leaks) and the faults that were injected.
The run succeeded when every phase ended COMPLETE and nothing leaked.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from simulator.events import Event, StackPaths, format_event, format_iso, format_time


@dataclass
class Phase:
    """One action of the run."""

    name: str
    state: str
    reason: str
    virtual_start: float
    virtual_end: float
    wall_seconds: float

    @property
    def ok(self) -> bool:
        """True when the phase ended COMPLETE."""
        return self.state.endswith("_COMPLETE")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "phase": self.name,
            "state": self.state,
            "reason": self.reason,
            "virtual_start": self.virtual_start,
            "virtual_end": self.virtual_end,
            "virtual_start_iso": format_iso(self.virtual_start),
            "virtual_end_iso": format_iso(self.virtual_end),
            "virtual_seconds": self.virtual_end - self.virtual_start,
            "wall_seconds": round(self.wall_seconds, 6),
            "ok": self.ok,
        }


@dataclass
class Report:
    """What :func:`simulate` saw."""

    seed: int
    template: str
    phases: list[Phase] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    wall_seconds: float = 0.0
    virtual_seconds: float = 0.0
    #: what the run was given, for the replay line
    environment: list[str] = field(default_factory=list)
    fault_spec: str | None = None
    update_template: str | None = None
    #: the stack's graph (with states after create) and its template's dependencies
    graph: Any = None
    dependencies: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    #: entity id -> the plug-in handler (``name (file:line)``) of the last call that changed it
    handlers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every phase completed and nothing leaked."""
        return bool(self.phases) and all(p.ok for p in self.phases) and not self.leaks

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` document (wall times are the only non-deterministic part)."""
        return {
            "ok": self.ok,
            "seed": self.seed,
            "template": self.template,
            "virtual_seconds": self.virtual_seconds,
            "wall_seconds": round(self.wall_seconds, 6),
            "phases": [p.to_dict() for p in self.phases],
            "events": [{**e.to_dict(), "time_iso": format_iso(e.time)} for e in self.events],
            "leaks": self.leaks,
            "injected_faults": self.faults,
        }

    def replay(self) -> str:
        """The command line that runs this simulation again, event for event."""
        words = ["plugsim", "simulate", self.template]
        for env in self.environment:
            words += ["-e", env]
        words += ["--seed", str(self.seed)]
        if self.fault_spec:
            words += ["--faults", self.fault_spec]
        if self.update_template:
            words += ["--update-template", self.update_template]
        return shlex.join(words)

    def to_page(self) -> Any:
        """The run as a :class:`simulator.views.page.RunPage` (render it with ``render_page``)."""
        from simulator.views.graph import to_svg
        from simulator.views.page import RunPage

        return RunPage(
            title=f"plugsim simulate {self.template}",
            ok=self.ok,
            seed=self.seed,
            replay=self.replay(),
            summary=[("Wall time", f"{self.wall_seconds:.3f} s")],
            phases=[p.to_dict() for p in self.phases],
            events=list(self.events),
            faults=self.faults,
            leaks=self.leaks,
            graph_svg=to_svg(self.graph) if self.graph is not None else "",
            dependencies=self.dependencies,
        )

    def to_text(self) -> str:
        """The human-readable report."""
        lines = [f"plugsim simulate {self.template} (seed {self.seed})", "", "Events:"]
        paths = StackPaths()
        lines += [f"  {format_event(e, paths)}" for e in self.events]
        lines += ["", "Phases:"]
        for p in self.phases:
            lines.append(
                f"  {p.name:<9} {p.state:<22} virtual "
                f"{format_time(p.virtual_end - p.virtual_start)}  wall "
                f"{p.wall_seconds * 1000:.1f} ms  {p.reason}"
            )
        lines.append("")
        lines.append(
            f"Virtual duration: {format_time(self.virtual_seconds)} "
            f"({self.virtual_seconds:.3f} s); wall duration: {self.wall_seconds:.3f} s"
        )
        if self.faults:
            lines.append(f"Injected faults: {len(self.faults)}")
            lines += _fault_table(self.faults)
        if self.leaks:
            lines.append(f"LEAKED fake-cloud resources: {len(self.leaks)}")
            lines += [
                f"  {leak['service']}/{leak['kind']} {leak['name']} ({leak['id']}) {leak['status']}"
                + (f", created by {leak['created_by']}" if leak.get("created_by") else "")
                for leak in self.leaks
            ]
        else:
            lines.append("Leaked fake-cloud resources: none")
        lines.append("Result: " + ("OK" if self.ok else "FAILED"))
        return "\n".join(lines) + "\n"


def simulate(
    template: Any,
    environment: Iterable[Any] = (),
    parameters: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    faults: Any = None,
    update_template: Any = None,
    state: str = ":memory:",
    plugin_dirs: Iterable[str] = (),
    stack_name: str = "simulated",
    listener: Any = None,
    lifecycle_plugins: Iterable[Any] = (),
    strict_lifecycle: bool = False,
    **world_options: Any,
) -> Report:
    """Run the whole life of a stack and report it (see the module docstring).

    *lifecycle_plugins* (``module:Class`` strings, classes or instances) run
    around every action; *strict_lifecycle* fails an action whose plug-in
    changes the stack. Other keyword arguments go to :class:`simulator.world.World`
    (``durability``, ``wait`` ...). *world_file* (a YAML file, a
    preset name or world data) is what the fake cloud holds before the first call.
    An in-memory world is transient (:class:`~simulator.world.World`): nothing reopens it, so its
    commits leave out the fake cloud's state, the clock and the random streams.
    """
    from simulator.world import World

    world_options.setdefault("transient", str(state) == ":memory:")
    started = time.perf_counter()
    world = World.open(
        state,
        seed=seed,
        faults=faults,
        plugin_dirs=plugin_dirs,
        lifecycle_plugins=lifecycle_plugins,
        strict_lifecycle=strict_lifecycle,
        **world_options,
    )
    if listener is not None:
        world.listeners.append(listener)
        if hasattr(listener, "attach"):
            listener.attach(world)
    report = Report(
        seed=world.seed,
        template=str(template),
        environment=[str(e) for e in environment if isinstance(e, str | os.PathLike)],
        fault_spec=faults if isinstance(faults, str) else None,
        update_template=str(update_template) if update_template is not None else None,
    )
    first_event = world.store.last_event_id()
    before = world.cloud.snapshot_inventory()
    v0 = world.clock.now()
    envs = list(environment)

    def phase(name: str, call: Any) -> Any:
        t0, w0 = world.clock.now(), time.perf_counter()
        result = call()
        stack = world.get_stack(stack_name, deleted_ok=True)
        report.phases.append(
            Phase(
                name,
                stack.state,
                stack.status_reason,
                t0,
                world.clock.now(),
                time.perf_counter() - w0,
            )
        )
        return result

    try:
        phase("create", lambda: world.create_stack(stack_name, template, envs, parameters))
        _capture_views(report, world.get_stack(stack_name, deleted_ok=True))
        if report.phases[-1].ok:
            if update_template is not None:
                phase(
                    "update",
                    lambda: world.update_stack(stack_name, update_template, envs, parameters),
                )
            phase("suspend", lambda: world.suspend_stack(stack_name))
            phase("resume", lambda: world.resume_stack(stack_name))
            snap = phase("snapshot", lambda: world.snapshot_stack(stack_name, "simulate"))
            if snap.status != "COMPLETE":
                report.phases[-1].state = f"SNAPSHOT_{snap.status}"
        phase("delete", lambda: world.delete_stack(stack_name))
        report.events = [e for e in world.store.events(after=first_event)]
        history = getattr(world.cloud, "history", None)
        report.leaks = [_made_by(history, item) for item in world.cloud.leaks(before)]
        report.handlers = _last_handlers(history)
        report.faults = [f.to_dict() for f in world.cloud.injected_faults()]
        report.virtual_seconds = world.clock.now() - v0
    finally:
        world.close()
    report.wall_seconds = time.perf_counter() - started
    return report


def _capture_views(report: Report, stack: Any) -> None:
    """Keep what the pictures need of the stack after create: its graph and dependencies.

    Nothing here may call the fake cloud (resolving outputs would): that would change the run.
    """
    from simulator.views.graph import from_stack

    report.graph = from_stack(stack)
    graph = stack.dependency_graph()
    report.dependencies = {"": {name: graph.requires(name) for name in graph}}


def _fault_table(faults: list[dict[str, Any]]) -> list[str]:
    """Injected faults as aligned columns: virtual time, call, effect, rule, entity."""
    header = ("time", "call", "effect", "rule", "entity")
    rows = [
        (
            format_time(float(f.get("time") or 0.0)),
            f"{f.get('service')}.{f.get('operation')}",
            str(f.get("effect") or ""),
            str(f.get("rule_name") or f.get("rule_index", "")),
            str(f.get("entity_id") or "-"),
        )
        for f in faults
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def _made_by(history: Any, item: Any) -> dict[str, Any]:
    """A leaked inventory item as a dict, with the call that created it (``created_by``)."""
    out = item.to_dict()
    creator = history.creator(item.kind, item.id, item.service) if history is not None else None
    if creator is not None:
        out["created_by"] = creator.describe()
    return out


def _last_handlers(history: Any) -> dict[str, str]:
    """Entity id -> ``handler (file:line)`` of the last recorded call that changed it."""
    out: dict[str, str] = {}
    for record in history.all() if history is not None else ():
        if record.handler:
            out[record.id] = f"{record.handler} ({record.site})"
    return out
