"""A run's timeline in virtual time, read from its events.

:func:`build_timeline` turns an event log into :class:`Span` bars, one per resource action (from its
``*_IN_PROGRESS`` event to the event that ended it), with rows named by stack path (``web1/server`` for the
``server`` of the nested stack that ``web1`` owns), injected faults placed on the row of the entity they hit,
and the critical path of every stack action marked.

The critical path is read from the events alone: a resource starts at the virtual instant its last
requirement finished, so the span that ended last (at or before another's start) in the same stack action is
what that one waited on. When the dependency graph is known (``dependencies``), only real requirements are
considered. Nested stacks are followed: the critical path goes on inside the nested stack of a critical
resource. Everything is ordered by event id, never by hash order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from simulator.events import STACK_TYPE, Event, StackPaths

#: Actions the engine runs dependants first (so a resource waits on what requires it).
REVERSE_ACTIONS = frozenset({"DELETE", "SUSPEND"})

#: Two virtual instants closer than this are the same instant.
EPSILON = 1e-9


@dataclass(frozen=True)
class Span:
    """One resource action drawn as a bar: ``row`` is the stack path, ``status`` how it ended."""

    row: str
    stack_id: str
    resource: str
    resource_type: str
    action: str
    start: float
    end: float
    status: str
    reason: str
    physical_id: str | None
    depth: int
    first_event: int

    @property
    def duration(self) -> float:
        """Virtual seconds the action took."""
        return self.end - self.start


@dataclass(frozen=True)
class FaultMark:
    """An injected fault at a virtual instant, on the row of the entity it hit (None: no resource row)."""

    time: float
    row: str | None
    service: str
    operation: str
    effect: str
    rule: str

    @property
    def label(self) -> str:
        """``service.operation: effect (rule)``."""
        rule = f" ({self.rule})" if self.rule else ""
        return f"{self.service}.{self.operation}: {self.effect}{rule}"


@dataclass(frozen=True)
class Phase:
    """One action of the top-level stack (CREATE, UPDATE, SUSPEND ...) from its start to its end."""

    action: str
    start: float
    end: float
    status: str


@dataclass
class Timeline:
    """Spans, faults and the critical path of a run."""

    spans: list[Span] = field(default_factory=list)
    faults: list[FaultMark] = field(default_factory=list)
    critical: set[int] = field(default_factory=set)
    #: the critical path of each top-level stack action: (action, spans in time order)
    paths: list[tuple[str, list[Span]]] = field(default_factory=list)
    #: the top-level stack's actions, in time order (drawn as bands across every row)
    phases: list[Phase] = field(default_factory=list)
    start: float = 0.0
    end: float = 0.0

    def rows(self) -> list[str]:
        """Row names in display order: a nested stack's rows right under the resource that owns it."""
        first: dict[str, int] = {}
        for span in self.spans:
            first.setdefault(span.row, span.first_event)
        top = [r for r in first if "/" not in r]
        children: dict[str, list[str]] = {}
        for row in first:
            if "/" in row:
                children.setdefault(row.rpartition("/")[0], []).append(row)
        out: list[str] = []

        def add(row: str) -> None:
            out.append(row)
            for child in sorted(children.get(row, ()), key=first.__getitem__):
                add(child)

        for row in sorted(top, key=first.__getitem__):
            add(row)
        # Rows whose parent row never appeared (a nested stack seen without its owner) go last.
        out += [r for r in sorted(first, key=first.__getitem__) if r not in out]
        return out

    def is_critical(self, span: Span) -> bool:
        """True when *span* lies on the critical path of its stack action."""
        return span.first_event in self.critical

    def describe_paths(self) -> list[str]:
        """Each stack action's critical path in words: ``CREATE: db_volume → db``."""
        return [f"{action}: " + " → ".join(s.row for s in spans) for action, spans in self.paths]

    def failed(self) -> list[Span]:
        """The spans that ended FAILED, in time order."""
        return [s for s in self.spans if s.status == "FAILED"]


def stack_paths(events: Iterable[Event]) -> dict[str, str]:
    """Map every stack id in *events* to its path: '' for a top-level stack, ``web1/`` under ``web1``."""
    events = list(events)
    paths = StackPaths()
    for ev in events:
        paths.feed(ev)
    return {ev.stack_id: paths.prefix(ev.stack_id) for ev in events}


def build_timeline(
    events: Iterable[Event],
    faults: Iterable[Mapping[str, Any]] = (),
    dependencies: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
) -> Timeline:
    """Build the :class:`Timeline` of *events* (see the module docstring).

    *faults* are injected-fault records (``time``, ``service``, ``operation``, ``effect``, ``rule_name``,
    ``entity_id``); *dependencies* maps a stack path ('' for the top level) to ``{resource: requirements}``.
    """
    events = sorted(events, key=lambda e: e.id)
    paths = stack_paths(events)
    timeline = Timeline()
    if not events:
        return timeline
    timeline.start = min(e.time for e in events)
    timeline.end = max(e.time for e in events)
    open_spans: dict[tuple[str, str], Event] = {}
    for ev in events:
        if ev.is_stack_event:
            continue
        key = (ev.stack_id, ev.resource_name)
        if ev.status == "IN_PROGRESS":
            if key in open_spans:
                timeline.spans.append(_span(open_spans.pop(key), ev, paths, "IN_PROGRESS"))
            open_spans[key] = ev
        elif key in open_spans:
            timeline.spans.append(_span(open_spans.pop(key), ev, paths, ev.status))
    for started in open_spans.values():
        timeline.spans.append(_span(started, None, paths, "IN_PROGRESS", end=timeline.end))
    timeline.spans.sort(key=lambda s: s.first_event)
    timeline.faults = _faults(faults, timeline.spans)
    timeline.paths = _critical(events, timeline.spans, paths, dependencies or {})
    timeline.phases = _phases(events, paths)
    timeline.critical = {s.first_event for _, chain in timeline.paths for s in chain}
    return timeline


def _span(
    started: Event, ended: Event | None, paths: Mapping[str, str], status: str, end: float = 0.0
) -> Span:
    prefix = paths.get(started.stack_id, "")
    last = ended or started
    return Span(
        row=prefix + started.resource_name,
        stack_id=started.stack_id,
        resource=started.resource_name,
        resource_type=started.resource_type,
        action=started.action,
        start=started.time,
        end=ended.time if ended is not None else max(end, started.time),
        status=status,
        reason="" if ended is None else ended.reason,
        physical_id=last.physical_resource_id or started.physical_resource_id,
        depth=prefix.count("/"),
        first_event=started.id,
    )


def _faults(faults: Iterable[Mapping[str, Any]], spans: list[Span]) -> list[FaultMark]:
    rows: dict[str, list[Span]] = {}
    for span in spans:
        if span.physical_id:
            rows.setdefault(span.physical_id, []).append(span)
    marks = []
    for fault in faults:
        time = float(fault.get("time") or 0.0)
        candidates = rows.get(str(fault.get("entity_id") or ""), [])
        # The span of that entity running at the fault's instant, else the entity's first span.
        during = [s for s in candidates if s.start - EPSILON <= time <= s.end + EPSILON]
        chosen = (during or candidates or [None])[0]
        marks.append(
            FaultMark(
                time=time,
                row=chosen.row if chosen is not None else None,
                service=str(fault.get("service", "")),
                operation=str(fault.get("operation", "")),
                effect=str(fault.get("effect", "")),
                rule=str(fault.get("rule_name") or ""),
            )
        )
    return sorted(marks, key=lambda m: (m.time, m.service, m.operation))


def _phases(events: list[Event], paths: Mapping[str, str]) -> list[Phase]:
    """The top-level stacks' actions, each with the status its last stack event gave it."""
    final: dict[tuple[str, str], str] = {}
    for ev in events:
        if ev.is_stack_event and ev.resource_type == STACK_TYPE and not paths.get(ev.stack_id):
            final[(ev.stack_id, ev.action)] = ev.status
    out = [
        Phase(action, t0, t1, final.get((sid, action), "IN_PROGRESS"))
        for sid, action, t0, t1 in _windows(events)
        if not paths.get(sid, "")
    ]
    return sorted(out, key=lambda p: (p.start, p.end))


def _windows(events: list[Event]) -> list[tuple[str, str, float, float]]:
    """Every stack action: (stack id, action, start, end), in event order."""
    started: dict[str, tuple[str, float]] = {}
    out = []
    last = events[-1].time
    for ev in events:
        if not ev.is_stack_event or ev.resource_type != STACK_TYPE:
            continue
        if ev.status == "IN_PROGRESS":
            if ev.stack_id in started:
                action, t0 = started.pop(ev.stack_id)
                out.append((ev.stack_id, action, t0, ev.time))
            started[ev.stack_id] = (ev.action, ev.time)
        elif ev.stack_id in started:
            action, t0 = started.pop(ev.stack_id)
            out.append((ev.stack_id, action, t0, ev.time))
    out += [(sid, action, t0, last) for sid, (action, t0) in started.items()]
    return out


def _critical(
    events: list[Event],
    spans: list[Span],
    paths: Mapping[str, str],
    dependencies: Mapping[str, Mapping[str, Iterable[str]]],
) -> list[tuple[str, list[Span]]]:
    by_stack: dict[str, list[Span]] = {}
    for span in spans:
        by_stack.setdefault(span.stack_id, []).append(span)
    # A nested stack's id is its owner's physical id.
    nested = {sid for sid, prefix in paths.items() if prefix}
    windows = _windows(events)

    def walk(stack_id: str, action: str, t0: float, t1: float) -> list[Span]:
        """The critical chain of one stack action, in time order, nested chains after their owner."""
        members = [
            s
            for s in by_stack.get(stack_id, ())
            if s.action == action and t0 - EPSILON <= s.start and s.end <= t1 + EPSILON
        ]
        if not members:
            return []
        requires = {k: set(v) for k, v in dependencies.get(paths.get(stack_id, ""), {}).items()}
        if action in REVERSE_ACTIONS and requires:
            reverse: dict[str, set[str]] = {}
            for name, reqs in requires.items():
                for req in reqs:
                    reverse.setdefault(req, set()).add(name)
            requires = reverse
        backwards: list[Span] = []
        current: Span | None = max(members, key=_lateness)
        while current is not None:
            backwards.append(current)
            if current.start <= t0 + EPSILON:
                break
            wanted = requires.get(current.resource) if requires else None
            # What it waited on started earlier (its first event is older), so the walk always ends.
            before = [
                s
                for s in members
                if s.end <= current.start + EPSILON
                and s.first_event < current.first_event
                and (wanted is None or s.resource in wanted)
            ]
            current = max(before, key=_lateness) if before else None
        chain: list[Span] = []
        for span in reversed(backwards):
            chain.append(span)
            if span.physical_id in nested:
                chain += walk(span.physical_id, span.action, span.start, span.end)
        return chain

    out = []
    for stack_id, action, t0, t1 in windows:
        if paths.get(stack_id, "") == "":
            chain = walk(stack_id, action, t0, t1)
            if chain:
                out.append((action, chain))
    return out


def _lateness(span: Span) -> tuple[float, float, int]:
    """Order spans by when they ended, then started, then by event order (the last one wins)."""
    return (span.end, span.start, span.first_event)
