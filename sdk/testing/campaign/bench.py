"""Campaign throughput: lifecycles per second per core, and how it scales to more processes.

``plugsim bench --campaign N`` runs N seeds of the README's three-tier example (every phase) with one
process and with two, alternating ``repeat`` times so a noisy machine affects both alike, and reports
medians. Every two-process figure includes starting its pool's workers (forked from the fork server,
which a warm-up run starts beforehand, as an earlier campaign in the same process would have).
On a shared machine the one-process rate per CPU second (``lifecycles_per_cpu_second_1``) is the
steadier figure of what one core does. A figure, never a pass/fail test.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from sdk.testing.campaign.backends import execute
from sdk.testing.campaign.runs import RunSpec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "three-tier"


def three_tier() -> RunSpec:
    """The README's example as a campaign spec (create, update, suspend, resume, snapshot, delete)."""
    return RunSpec(
        str(EXAMPLE / "stack.yaml"),
        environment=(str(EXAMPLE / "env.yaml"),),
        update_template=str(EXAMPLE / "update.yaml"),
    )


def _rate(spec: RunSpec, seeds: list[int], jobs: int, cpu: list[float] | None = None) -> float:
    """Lifecycles per wall second; per CPU second of this process appended to *cpu* (one job)."""
    started, used = time.perf_counter(), time.process_time()
    done = sum(
        len(batch)
        for batch in execute(spec, seeds, jobs=jobs, chunk=max(1, len(seeds) // (4 * jobs)))
    )
    if cpu is not None:
        cpu.append(done / max(time.process_time() - used, 1e-9))
    return done / (time.perf_counter() - started)


def run_campaign_bench(count: int, repeat: int = 3, jobs: int = 2) -> dict[str, Any]:
    """Median lifecycles per second with 1 and *jobs* processes, alternating *repeat* times."""
    spec = three_tier()
    seeds = list(range(count))
    _rate(spec, seeds[: min(count, 5)], 1)  # imports and caches, not measured
    _rate(spec, seeds[: min(count, 2 * jobs)], jobs)  # starts the fork server, not measured
    one: list[float] = []
    many: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        one.append(_rate(spec, seeds, 1, cpu))
        many.append(_rate(spec, seeds, jobs))
    serial, parallel = statistics.median(one), statistics.median(many)
    return {
        "seeds": count,
        "repeat": repeat,
        "jobs": jobs,
        "lifecycles_per_second_1": round(serial, 2),
        f"lifecycles_per_second_{jobs}": round(parallel, 2),
        "scaling": round(parallel / serial, 2) if serial else None,
        # per CPU second of the one process: what a core does, however busy the machine is
        "lifecycles_per_cpu_second_1": round(statistics.median(cpu), 2),
        "runs_1": [round(x, 2) for x in one],
        f"runs_{jobs}": [round(x, 2) for x in many],
    }
