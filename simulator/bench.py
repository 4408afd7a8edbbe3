"""``plugsim bench``: the engine's throughput on an N-resource layered stack.

The stack has ``N`` ``Plugsim::Test::Trivial`` resources in layers of
``width``; every resource of a layer depends on one resource of the layer
before, and each takes ``delay`` virtual seconds to create and update. The
benchmark creates it, updates every resource (a property changed in place),
suspends, resumes and deletes it, on the default fake cloud with a real
SQLite store (a temporary file unless told otherwise), and measures wall time
per phase, resources per second, simulated seconds per wall second and peak
memory (``ru_maxrss``). It is never a pass/fail test.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

PHASES = ("create", "update", "suspend", "resume", "delete")


def layered_template(n: int, width: int, value: str = "v1", delay: float = 10.0) -> dict[str, Any]:
    """Return a template of *n* trivial resources in layers of *width*."""
    if n < 1 or width < 1:
        raise ValueError("--resources and --width must be at least 1")
    resources: dict[str, Any] = {}
    for i in range(n):
        props: dict[str, Any] = {"value": f"{value}-{i}", "delay": delay}
        if i >= width:
            props["depends"] = {"get_resource": f"r{i - width}"}
        resources[f"r{i}"] = {"type": "Plugsim::Test::Trivial", "properties": props}
    return {"heat_template_version": "2018-08-31", "resources": resources}


@dataclass
class BenchResult:
    """Figures of one benchmark run."""

    resources: int
    width: int
    wall: dict[str, float] = field(default_factory=dict)
    virtual: dict[str, float] = field(default_factory=dict)
    #: CPU seconds of this process per phase (``time.process_time``)
    cpu: dict[str, float] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    peak_rss_mib: float = 0.0

    durability: str = "instant"

    @property
    def total_wall(self) -> float:
        """Wall seconds of the whole lifecycle."""
        return sum(self.wall.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        total_virtual = sum(self.virtual.values())
        return {
            "resources": self.resources,
            "width": self.width,
            "durability": self.durability,
            "phases": {
                p: {
                    "wall_seconds": round(self.wall[p], 4),
                    "cpu_seconds": round(self.cpu.get(p, 0.0), 4),
                    "virtual_seconds": self.virtual[p],
                    "state": self.states[p],
                    "resources_per_second": round(self.resources / self.wall[p], 1)
                    if self.wall[p]
                    else None,
                }
                for p in self.wall
            },
            "total_wall_seconds": round(self.total_wall, 4),
            "total_cpu_seconds": round(sum(self.cpu.values()), 4),
            "resource_actions_per_second": round(
                len(self.wall) * self.resources / self.total_wall, 1
            )
            if self.total_wall
            else None,
            "simulated_seconds_per_wall_second": round(total_virtual / self.total_wall, 1)
            if self.total_wall
            else None,
            "peak_rss_mib": round(self.peak_rss_mib, 1),
        }

    def to_text(self) -> str:
        """Human-readable figures."""
        d = self.to_dict()
        lines = [
            f"plugsim bench: {self.resources} resources, width {self.width}, "
            f"durability {self.durability}"
        ]
        for name, ph in d["phases"].items():
            lines.append(
                f"  {name:<8} {ph['wall_seconds']:>8.3f} s wall  "
                f"{ph['resources_per_second']:>10} res/s  virtual "
                f"{ph['virtual_seconds']:.0f} s  {ph['state']}"
            )
        lines.append(
            f"  total    {d['total_wall_seconds']:>8.3f} s wall  "
            f"{d['resource_actions_per_second']} resource-actions/s"
        )
        lines.append(
            f"  simulated seconds per wall second: {d['simulated_seconds_per_wall_second']}"
        )
        lines.append(f"  peak memory (max RSS): {d['peak_rss_mib']} MiB")
        return "\n".join(lines) + "\n"


def run_bench(
    n: int,
    width: int = 100,
    *,
    state: str | None = None,
    delay: float = 10.0,
    durability: str = "instant",
) -> BenchResult:
    """Run the lifecycle once and return its figures.

    The engine's modules are imported before the clock starts, so the figures
    measure the engine rather than Python compiling modules (which it does on
    every run when bytecode caching is off).
    """
    import simulator.nested
    import simulator.stack_api
    import simulator.stack_update
    import simulator.template  # noqa: F401 - warm-up imports
    from simulator.limits import Limits
    from simulator.world import World

    tmpdir = None
    if state is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="plugsim-bench-")
        state = os.path.join(tmpdir.name, "bench.db")
    result = BenchResult(n, width, durability=durability)
    try:
        # one stack of n resources: lift Heat's max_resources_per_stack (1000)
        world = World.open(state, durability=durability, limits=Limits(max_resources_per_stack=-1))
        steps = {
            "create": lambda: world.create_stack("bench", layered_template(n, width, "v1", delay)),
            "update": lambda: world.update_stack("bench", layered_template(n, width, "v2", delay)),
            "suspend": lambda: world.suspend_stack("bench"),
            "resume": lambda: world.resume_stack("bench"),
            "delete": lambda: world.delete_stack("bench"),
        }
        for name in PHASES:
            v0, w0, c0 = world.clock.now(), time.perf_counter(), time.process_time()
            stack = steps[name]()
            result.wall[name] = time.perf_counter() - w0
            result.cpu[name] = time.process_time() - c0
            result.virtual[name] = world.clock.now() - v0
            result.states[name] = stack.state
        world.close()
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
    result.peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return result
