"""``plugsim bench --vs-heat``: the same stack in OpenStack Heat's engine and in plugsim.

The stack has ``N`` ``OS::Heat::TestResource`` resources in layers of
``width`` (each resource's value refers to one resource of the layer before,
so the dependency graph is layered). Both engines run Heat's own TestResource
plug-in: Heat natively, plugsim through :mod:`simulator.heat_compat`. Each
engine creates the stack, updates every resource in place (a new value) and
deletes it; both keep their state in an in-memory SQLite database. Each
engine runs the lifecycle ``repeat`` times in one process (fresh stacks; the
first run also pays for imports and caches on both sides) and each phase's
median is compared. Heat runs
in its own virtualenv (``$PLUGSIM_HEAT_PYTHON``, default
``/tmp/heatvenv/bin/python``) through ``tools/heat_diff/heat_runner.py``, so
the two never share a process. Only wall time is compared; it is a
benchmark, never a pass/fail test.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from sdk import exception

PHASES = ("create", "update", "delete")
RUNNER = Path(__file__).resolve().parent.parent / "tools" / "heat_diff" / "heat_runner.py"


def layered_template(n: int, width: int, value: str) -> dict[str, Any]:
    """*n* TestResources in layers of *width*; values reference the layer before."""
    if n < 1 or width < 1:
        raise exception.ConfigurationError("--resources and --width must be at least 1")
    resources: dict[str, Any] = {}
    for i in range(n):
        prop: Any = f"{value}-{i}"
        if i >= width:
            prop = {"list_join": ["-", [f"{value}-{i}", {"get_resource": f"r{i - width}"}]]}
        resources[f"r{i}"] = {"type": "OS::Heat::TestResource", "properties": {"value": prop}}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _run_plugsim(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    from simulator.heat_compat import clientless_plugins, use_heat_plugins
    from simulator.store import Store
    from simulator.world import World

    world = World(Store(":memory:"), seed=0)
    report = use_heat_plugins(world, *clientless_plugins())
    if report.errors:
        raise exception.ConfigurationError(f"Heat plug-ins failed to load: {report.errors[0]}")
    steps = {
        "create": lambda: world.create_stack("bench", first),
        "update": lambda: world.update_stack("bench", second),
        "delete": lambda: world.delete_stack("bench"),
    }
    wall: dict[str, float] = {}
    states: dict[str, str] = {}
    for phase in PHASES:
        t0 = time.perf_counter()
        stack = steps[phase]()
        wall[phase] = time.perf_counter() - t0
        states[phase] = stack.state
    world.close()
    return {"wall": wall, "states": states}


def _run_heat(
    first: dict[str, Any], second: dict[str, Any], python: str, repeat: int
) -> list[dict[str, Any]]:
    case = {"bench": {"templates": [first, second]}}
    request = {"cases": [{"name": f"bench{i}", **case} for i in range(repeat)]}
    try:
        proc = subprocess.run(
            [python, str(RUNNER)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as ex:
        raise exception.ConfigurationError(f"cannot run Heat's python {python}: {ex}") from None
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise exception.ConfigurationError(
            f"Heat's engine failed ({python} {RUNNER.name}): {tail[0]}"
        )
    answer = json.loads(proc.stdout)
    return [
        {"wall": r["wall"], "states": r["states"], "version": answer["heat_version"]}
        for r in answer["results"]
    ]


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-phase medians of *runs*, the last run's states and every run's figures."""
    return {
        "wall_seconds": {
            p: round(statistics.median(r["wall"][p] for r in runs), 4) for p in PHASES
        },
        "states": runs[-1]["states"],
        "runs": [{p: round(r["wall"][p], 4) for p in PHASES} for r in runs],
    }


def run_vs_heat(
    n: int, width: int = 20, *, heat_python: str | None = None, repeat: int = 3
) -> dict[str, Any]:
    """Run the lifecycle *repeat* times in both engines; return the JSON-able comparison.

    ``{"resources", "width", "repeat", "heat_version", "engines": {"heat":
    {...}, "plugsim": {...}}, "ratios": {"create", "update", "delete"}}``
    where each engine has the median ``wall_seconds`` per phase, the
    ``states`` of its last run and every run's figures (``runs``); a ratio
    is Heat's median divided by plugsim's.
    """
    from simulator.heat_compat import HEAT_PYTHON_ENV, find_heat_package
    from simulator.heat_compat import heat_python as default_python

    if repeat < 1:
        raise exception.ConfigurationError(f"--repeat must be at least 1, not {repeat}")
    python = heat_python or default_python()
    if python is None or find_heat_package(python) is None:
        raise exception.ConfigurationError(
            f"--vs-heat needs openstack-heat in a virtualenv: set {HEAT_PYTHON_ENV} to its python "
            "(pip install openstack-heat fixtures testtools)"
        )
    first, second = layered_template(n, width, "v1"), layered_template(n, width, "v2")
    heat_runs = _run_heat(first, second, python, repeat)
    ours = _summary([_run_plugsim(first, second) for _ in range(repeat)])
    heat = _summary(heat_runs)
    return {
        "resources": n,
        "width": width,
        "repeat": repeat,
        "heat_version": heat_runs[0]["version"],
        "engines": {"heat": heat, "plugsim": ours},
        "ratios": {
            p: round(heat["wall_seconds"][p] / ours["wall_seconds"][p], 1)
            if ours["wall_seconds"][p]
            else None
            for p in PHASES
        },
    }


def format_vs_heat(result: dict[str, Any]) -> str:
    """Human-readable form of :func:`run_vs_heat`'s result."""
    heat, ours = result["engines"]["heat"], result["engines"]["plugsim"]
    lines = [
        f"plugsim bench --vs-heat: {result['resources']} OS::Heat::TestResource, "
        f"width {result['width']} (Heat {result['heat_version']}), "
        f"median of {result['repeat']} runs",
        f"  {'phase':<8} {'heat s':>10} {'plugsim s':>10} {'ratio':>8}",
    ]
    for phase in PHASES:
        lines.append(
            f"  {phase:<8} {heat['wall_seconds'][phase]:>10.3f} "
            f"{ours['wall_seconds'][phase]:>10.3f} {result['ratios'][phase]!s:>7}x"
        )
    return "\n".join(lines) + "\n"
