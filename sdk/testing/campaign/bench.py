"""Campaign throughput: lifecycles per second per core, and how it scales to more processes.

``plugsim bench --campaign N`` runs N seeds of the README's three-tier example (every phase) with one
process and with two, alternating ``repeat`` times so a noisy machine affects both alike, and reports
medians. Every two-process figure includes starting its pool's workers (forked from the fork server,
which a warm-up run starts beforehand, as an earlier campaign in the same process would have).

Wall-clock rates depend on what else the machine runs. The CPU figures do not: every worker times the
CPU its ranges took, and with the campaign process's own CPU that gives the lifecycles per CPU second
with one process (``lifecycles_per_cpu_second_1``) and with two (``..._2``, all processes' CPU
together). Their ratio (``cpu_efficiency``) says what a second process costs in extra work (its start,
its first run, handing results back); ``cpu_scaling`` = jobs x efficiency is the scaling the pool
would reach with a core of its own per process. A figure, never a pass/fail test.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk import exception
from sdk.testing.campaign.backends import execute
from sdk.testing.campaign.runs import RunSpec, run_range

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "three-tier"


def three_tier() -> RunSpec:
    """The README's example as a campaign spec (create, update, suspend, resume, snapshot, delete)."""
    return RunSpec(
        str(EXAMPLE / "stack.yaml"),
        environment=(str(EXAMPLE / "env.yaml"),),
        update_template=str(EXAMPLE / "update.yaml"),
    )


@dataclass(frozen=True)
class _Timed:
    """A spec whose ranges also report the CPU seconds they took (in their last result)."""

    spec: RunSpec

    def run_range(self, seeds: list[int]) -> list[dict[str, Any]]:
        """:func:`~sdk.testing.campaign.runs.run_range` of the spec, timed in this process."""
        started = time.process_time()
        out = run_range(self.spec, seeds)
        if out:
            out[-1][CPU_KEY] = time.process_time() - started
        return out


#: The key of a range's CPU seconds in its last result (bench only).
CPU_KEY = "bench_cpu_seconds"


def _rate(spec: RunSpec, seeds: list[int], jobs: int) -> tuple[float, float]:
    """Lifecycles per wall second and per CPU second (every process's CPU) with *jobs* processes."""
    started, used = time.perf_counter(), time.process_time()
    done, workers = 0, 0.0
    chunk = max(1, len(seeds) // (4 * jobs))
    timed: Any = _Timed(spec)  # any spec with run_range runs on every backend
    for batch in execute(timed, seeds, jobs=jobs, chunk=chunk):
        failed = next((r for r in batch if not r.get("ok")), None)
        if failed is not None:  # a failed lifecycle is not a lifecycle: the figure would be false
            raise exception.ConfigurationError(
                f"plugsim bench --campaign: seed {failed['seed']} of {EXAMPLE / 'stack.yaml'} "
                f"did not complete its lifecycle, so no rate is reported: "
                f"{' '.join(str(p) for p in failed.get('signature') or [] if p)}"
            )
        done += len(batch)
        if jobs > 1 and batch:
            workers += batch[-1].get(CPU_KEY, 0.0)
    wall = time.perf_counter() - started
    cpu = time.process_time() - used + workers  # one job: the runs are this process's CPU
    return done / wall, done / max(cpu, 1e-9)


def run_campaign_bench(count: int, repeat: int = 3, jobs: int = 2) -> dict[str, Any]:
    """Median lifecycles per second with 1 and *jobs* processes, alternating *repeat* times."""
    spec = three_tier()
    spec.check()  # an untrusted example stops here, as a campaign of it would
    seeds = list(range(count))
    _rate(spec, seeds[: min(count, 5)], 1)  # imports and caches, not measured
    _rate(spec, seeds[: min(count, 2 * jobs)], jobs)  # starts the fork server, not measured
    one: list[float] = []
    many: list[float] = []
    cpu_one: list[float] = []
    cpu_many: list[float] = []
    for _ in range(repeat):
        wall, cpu = _rate(spec, seeds, 1)
        one.append(wall)
        cpu_one.append(cpu)
        wall, cpu = _rate(spec, seeds, jobs)
        many.append(wall)
        cpu_many.append(cpu)
    serial, parallel = statistics.median(one), statistics.median(many)
    per_cpu_1, per_cpu_n = statistics.median(cpu_one), statistics.median(cpu_many)
    efficiency = per_cpu_n / per_cpu_1 if per_cpu_1 else None
    return {
        "seeds": count,
        "repeat": repeat,
        "jobs": jobs,
        "lifecycles_per_second_1": round(serial, 2),
        f"lifecycles_per_second_{jobs}": round(parallel, 2),
        "scaling": round(parallel / serial, 2) if serial else None,
        # per CPU second (every process's): what a core does, however busy the machine is
        "lifecycles_per_cpu_second_1": round(per_cpu_1, 2),
        f"lifecycles_per_cpu_second_{jobs}": round(per_cpu_n, 2),
        "cpu_efficiency": round(efficiency, 3) if efficiency is not None else None,
        "cpu_scaling": round(jobs * efficiency, 2) if efficiency is not None else None,
        "runs_1": [round(x, 2) for x in one],
        f"runs_{jobs}": [round(x, 2) for x in many],
        "cpu_runs_1": [round(x, 2) for x in cpu_one],
        f"cpu_runs_{jobs}": [round(x, 2) for x in cpu_many],
    }
