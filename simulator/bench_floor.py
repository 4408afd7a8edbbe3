"""``plugsim bench --floor``: the least a resource transition can cost in this design.

The engine's bench lifecycle (:mod:`simulator.bench`) makes two transitions per resource per phase
(``IN_PROGRESS`` then ``COMPLETE``), ten per resource in all. In this design a transition cannot
cost less than

* changing the resource's state in memory (two attributes of an object),
* its event (a tuple appended to the instant's list) and its row marked dirty, and
* its share of the instant's commit: one ``executemany`` of events and one of row states into the
  same SQLite schema the store uses, then ``COMMIT``, once per layer of ``width`` resources (the
  resources of a layer change state at the same virtual instant).

:func:`measure_floor` times exactly that for the same number of resources and layers, in CPU
seconds (``time.process_time``), and :func:`floor_report` puts it beside the engine's own cost per
transition from :func:`simulator.bench.run_bench`: the engine's cost as a multiple of the floor.
Everything the engine does above it (validation, property resolution, plug-in calls, scheduling,
the fake cloud) is what the multiple measures.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

from simulator.bench import PHASES

#: transitions per resource in the bench lifecycle (IN_PROGRESS and COMPLETE per phase)
TRANSITIONS_PER_RESOURCE = 2 * len(PHASES)


class _Row:
    __slots__ = ("rid", "name", "action", "status")

    def __init__(self, rid: int) -> None:
        self.rid = rid
        self.name = f"r{rid}"
        self.action = "INIT"
        self.status = "COMPLETE"


def measure_floor(n: int, width: int = 100, *, state: str | None = None) -> dict[str, Any]:
    """CPU seconds of the floor for *n* resources in layers of *width*, over the lifecycle."""
    from simulator.store import Store

    tmpdir = None
    if state is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="plugsim-floor-")
        state = os.path.join(tmpdir.name, "floor.db")
    try:
        store = Store(state)  # the store's own schema and pragmas
        db = store._raw
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT INTO resources(stack_id, rid, name, type, action, status, reason,"
            " physical_id, current, doc) VALUES ('s', ?, ?, 'T', 'INIT', 'COMPLETE', '', NULL, 1,"
            " '{}')",
            [(i, f"r{i}") for i in range(n)],
        )
        db.execute("COMMIT")
        rows = [_Row(i) for i in range(n)]
        layers = [rows[i : i + width] for i in range(0, n, width)]
        event_id = 0
        commits = 0
        start = time.process_time()
        for action in ("CREATE", "UPDATE", "SUSPEND", "RESUME", "DELETE"):
            for layer in layers:
                for status in ("IN_PROGRESS", "COMPLETE"):
                    events: list[tuple[Any, ...]] = []
                    dirty: dict[int, _Row] = {}
                    for row in layer:
                        row.action, row.status = action, status
                        event_id += 1
                        events.append((event_id, "s", row.name, action, status, float(event_id)))
                        dirty[row.rid] = row
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany(
                        "INSERT INTO events(id, stack_id, stack_name, resource_name,"
                        " resource_type, physical_id, action, status, reason, time)"
                        " VALUES (?, ?, 'bench', ?, 'T', NULL, ?, ?, '', ?)",
                        events,
                    )
                    db.executemany(
                        "UPDATE resources SET action=?, status=? WHERE stack_id='s' AND rid=?",
                        [(r.action, r.status, r.rid) for r in dirty.values()],
                    )
                    db.execute("COMMIT")
                    commits += 1
        cpu = time.process_time() - start
        store.close()
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
    transitions = n * TRANSITIONS_PER_RESOURCE
    return {
        "transitions": transitions,
        "commits": commits,
        "cpu_seconds": round(cpu, 4),
        "us_per_transition": round(cpu / transitions * 1e6, 3),
    }


def floor_report(n: int, width: int = 100, *, state: str | None = None) -> dict[str, Any]:
    """The floor and the engine's bench lifecycle on the same stack, per transition."""
    from simulator.bench import run_bench

    floor = measure_floor(n, width)
    result = run_bench(n, width, state=state)
    engine_cpu = sum(result.cpu.values())
    transitions = n * TRANSITIONS_PER_RESOURCE
    engine_us = engine_cpu / transitions * 1e6
    return {
        "resources": n,
        "width": width,
        "floor": floor,
        "engine": {
            "transitions": transitions,
            "cpu_seconds": round(engine_cpu, 4),
            "us_per_transition": round(engine_us, 3),
            "states": dict(result.states),
        },
        "multiple": round(engine_us / floor["us_per_transition"], 1)
        if floor["us_per_transition"]
        else None,
    }


def format_floor(report: dict[str, Any]) -> str:
    """Human-readable lines of :func:`floor_report`."""
    floor, engine = report["floor"], report["engine"]
    return (
        f"plugsim bench --floor: {report['resources']} resources, width {report['width']}, "
        f"{engine['transitions']} transitions\n"
        f"  floor    {floor['us_per_transition']:>10.2f} us CPU per transition "
        f"({floor['cpu_seconds']} s; state in memory + share of {floor['commits']} "
        f"per-instant row writes)\n"
        f"  engine   {engine['us_per_transition']:>10.2f} us CPU per transition "
        f"({engine['cpu_seconds']} s)\n"
        f"  the engine costs {report['multiple']}x the floor\n"
    )
