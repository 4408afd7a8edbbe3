"""Where a campaign's runs execute: this process, a local process pool, or a Ray cluster.

Every backend hands out ranges of seeds (never one seed per task, so a task's start-up is paid once per
range), keeps a bounded number of ranges in flight (backpressure: results are written as they arrive and
memory stays flat however many seeds there are), and yields each range's results as it completes. Runs
are pure functions of (spec, seed), so the backend changes only the order results arrive in; the campaign
sorts by seed before anything reaches a report.

Ray is optional (``pip install 'plugsim[ray]'``): tasks are retried by Ray when a worker dies, so a lost
worker's range is run again elsewhere.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sdk import exception
from sdk.testing.campaign.runs import RunSpec, run_range
from simulator import project_trust

#: Ranges in flight per worker.
IN_FLIGHT = 2

#: What a worker imports before its first range (in the fork server, where there is one).
PRELOAD = [
    "sdk.testing.campaign.runs",
    "simulator.world",
    "simulator.type_sources",
    "simulator.resources.heat",
    "simulator.resources.openstack",
    "fake_clouds.backend",
    "fake_clouds.compute",
    "fake_clouds.network",
    "fake_clouds.block_storage",
    "fake_clouds.object_storage",
    # the hook a run's HTTP wire installs (the fakes answering HTTP are built on a first request)
    "fake_clouds.http_wire",
    "sdk.testing.campaign.warm",
]


def pool_context() -> Any:
    """How worker processes start: from a fork server that imported :data:`PRELOAD`, or spawned.

    Either way a worker is a fresh interpreter's child, holding no engine state of the campaign's
    process. The fork server imports plugsim once; every worker (of this pool, of the pool that
    replaces a broken one, of the next campaign in this process) is forked from it ready to run,
    instead of each starting an interpreter and importing plugsim itself.
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def chunks(seeds: Sequence[int], size: int) -> list[list[int]]:
    """*seeds* cut into ranges of at most *size*, in order."""
    size = max(1, size)
    return [list(seeds[i : i + size]) for i in range(0, len(seeds), size)]


def balanced_chunks(seeds: Sequence[int], size: int, jobs: int) -> list[list[int]]:
    """*seeds* in ranges of *size*, the last ``jobs * size`` seeds in quarter-size ranges.

    Ranges are handed out as workers free up, so the campaign ends when the worker holding the
    last range finishes it while the others wait: with full-size ranges the tail could leave
    one process alone for a whole range. Smaller ranges at the end let every worker finish
    within a quarter range of the others (in order; results are the same).
    """
    size = max(1, size)
    if jobs <= 1 or size < 4:
        return chunks(seeds, size)
    tail = min(len(seeds), jobs * size)
    head = len(seeds) - tail
    return chunks(seeds[:head], size) + chunks(seeds[head:], max(1, size // 4))


def run_serial(spec: RunSpec, ranges: Iterable[list[int]]) -> Iterator[list[dict[str, Any]]]:
    """Run every range in this process, in order."""
    for seeds in ranges:
        yield run_range(spec, seeds)


def crashed(seed: int) -> dict[str, Any]:
    """The result of a seed whose worker process died twice running it alone (a crash finding)."""
    from sdk.testing.campaign.signature import Signature

    sig = Signature("crash", "", "", "WorkerDied", "the worker process died running this seed")
    return {
        "seed": seed,
        "ok": False,
        "signature": sig.to_list(),
        "phases": [],
        "virtual_seconds": 0.0,
        "wall_seconds": 0.0,
        "digest": "",
    }


def run_local(
    spec: RunSpec, ranges: Iterable[list[int]], jobs: int
) -> Iterator[list[dict[str, Any]]]:
    """Run ranges in a pool of *jobs* worker processes (:func:`pool_context`).

    A worker that dies (a plug-in calling ``os._exit``, the kernel's OOM killer) breaks the pool: the
    ranges it had in flight run again in a new pool, then seed by seed; a seed whose worker dies
    again alone is reported as a ``crash`` finding instead of ending the campaign.
    """
    if jobs <= 1:
        yield from run_serial(spec, ranges)
        return
    context = pool_context()
    todo: Iterator[list[int]] = iter(ranges)
    retry: list[tuple[list[int], int]] = []  # (seeds, times they already broke a pool)
    while True:
        broken: list[tuple[list[int], int]] = []
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            pending: dict[concurrent.futures.Future[list[dict[str, Any]]], tuple[list[int], int]]
            pending = {}
            _refill(pool, spec, pending, retry, todo, jobs * IN_FLIGHT)
            while pending:
                done, _ = concurrent.futures.wait(
                    list(pending), return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in done:
                    item = pending.pop(future)
                    try:
                        results = future.result()
                    except concurrent.futures.process.BrokenProcessPool:
                        broken.append(item)
                        continue
                    yield results
                if broken:
                    broken += list(pending.values())  # every range in flight is lost with the pool
                    pending.clear()
                    break
                _refill(pool, spec, pending, retry, todo, jobs * IN_FLIGHT)
        if not broken:
            return
        for seeds, failures in broken:
            if failures == 0 or len(seeds) > 1:  # again as it was, then seed by seed
                retry += [([s], failures + 1) for s in seeds] if failures else [(seeds, 1)]
            else:
                yield [crashed(seeds[0])]


def _refill(
    pool: concurrent.futures.ProcessPoolExecutor,
    spec: RunSpec,
    pending: dict[Any, tuple[list[int], int]],
    retry: list[tuple[list[int], int]],
    todo: Iterator[list[int]],
    limit: int,
) -> None:
    """Submit retried ranges first, then new ones, until *limit* ranges are in flight."""
    while len(pending) < limit:
        if retry:
            item = retry.pop(0)
        else:
            seeds = next(todo, None)
            if seeds is None:
                return
            item = (seeds, 0)
        pending[pool.submit(run_handed_range, project_trust.handover(), spec, item[0])] = item


def run_handed_range(
    rule: tuple[str | None, str], spec: RunSpec, seeds: list[int]
) -> list[dict[str, Any]]:
    """:func:`run_range` in a worker, under the trust rule of the process that handed it out."""
    with project_trust.applied(rule):
        return run_range(spec, seeds)


def run_ray(
    spec: RunSpec, ranges: Iterable[list[int]], jobs: int, address: str | None = None
) -> Iterator[list[dict[str, Any]]]:
    """Run ranges as Ray tasks (on the cluster at *address*, or a local one Ray starts)."""
    try:
        import ray
    except ImportError:
        raise exception.ConfigurationError(
            "--backend ray needs Ray: pip install 'plugsim[ray]' (or pip install ray)"
        ) from None
    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        else:  # a private local cluster, on the loopback interface only
            kwargs["num_cpus"] = max(1, jobs)
            kwargs["_node_ip_address"] = "127.0.0.1"
        ray.init(**kwargs)
        started_here = True
    try:
        task = ray.remote(max_retries=3)(run_handed_range)
        rule = project_trust.handover()
        limit = max(1, jobs) * IN_FLIGHT
        pending: list[Any] = []
        for seeds in ranges:
            pending.append(task.remote(rule, spec, seeds))
            if len(pending) >= limit:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield ray.get(ref)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started_here:
            ray.shutdown()


def execute(
    spec: RunSpec,
    seeds: Sequence[int],
    *,
    backend: str = "local",
    jobs: int = 1,
    chunk: int = 25,
    address: str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Run *seeds* on *backend*, yielding each range's results as they arrive."""
    ranges = balanced_chunks(seeds, chunk, jobs)
    if backend == "local":
        return run_local(spec, ranges, jobs)
    if backend == "ray":
        return run_ray(spec, ranges, jobs, address)
    raise exception.ConfigurationError(f"unknown campaign backend {backend!r} (local, ray)")
