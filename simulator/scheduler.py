"""Run a dependency graph of asynchronous jobs concurrently, in dependency order.

:func:`run_graph` starts every node whose requirements are done as its own
asyncio task, so independent resources progress concurrently and a dependant
starts the moment its last requirement completes. Bookkeeping is done in task
callbacks, so the cost is linear in nodes + edges (10,000 resources are fine).

On the first failure no new node starts; nodes already running get
``error_wait_time`` (virtual) seconds to finish and are then cancelled, as Heat
does. Cancelling :func:`run_graph` itself (a stack timeout, a user cancel)
cancels every running node and waits for them, so each resource gets to run
its ``handle_<action>_cancel`` before the caller continues.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: Heat's default grace period for running tasks after a failure.
ERROR_WAIT_TIME = 240.0


class GraphFailed(Exception):
    """One or more nodes failed; :attr:`failures` lists ``(node, exception)`` in order."""

    def __init__(self, failures: list[tuple[Any, BaseException]]) -> None:
        self.failures = failures
        super().__init__(str(failures[0][1]) if failures else "graph failed")

    @property
    def first(self) -> BaseException:
        """Return the first failure's exception."""
        return self.failures[0][1]


class _Run(Generic[K]):
    def __init__(
        self,
        nodes: Sequence[K],
        requires: Mapping[K, Iterable[K]],
        job: Callable[[K], Awaitable[Any]],
        reverse: bool,
        error_wait_time: float,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.job = job
        self.error_wait_time = error_wait_time
        self.order = {node: i for i, node in enumerate(nodes)}
        self.waiting: dict[K, int] = dict.fromkeys(nodes, 0)
        self.unblocks: dict[K, list[K]] = {node: [] for node in nodes}
        for node in nodes:
            for dep in requires.get(node, ()):
                if dep not in self.order or dep == node:
                    continue
                if reverse:
                    # dependants first: dep waits for node
                    self.waiting[dep] += 1
                    self.unblocks[node].append(dep)
                else:
                    self.waiting[node] += 1
                    self.unblocks[dep].append(node)
        self.running: dict[asyncio.Task[Any], K] = {}
        self.failures: list[tuple[K, BaseException]] = []
        self.finished = 0
        self.total = len(self.order)
        self.done: asyncio.Future[None] = self.loop.create_future()
        self.grace: asyncio.TimerHandle | None = None

    def start(self) -> None:
        ready = [n for n, count in self.waiting.items() if count == 0]
        if not ready and self.total:
            self.done.set_exception(
                GraphFailed([(None, RuntimeError("dependency cycle: no node can start"))])
            )
            return
        for node in ready:
            self._launch(node)
        self._check_done()

    def _launch(self, node: K) -> None:
        try:
            awaitable = self.job(node)
        except Exception as ex:  # a job that fails before returning its awaitable
            awaitable = _raise(ex)
        if not asyncio.iscoroutine(awaitable):
            awaitable = _await(awaitable)
        task = self.loop.create_task(awaitable)
        self.running[task] = node
        task.add_done_callback(self._on_done)

    def _on_done(self, task: asyncio.Task[Any]) -> None:
        node = self.running.pop(task)
        self.finished += 1
        exc = None if task.cancelled() else task.exception()
        if task.cancelled():
            if not self.failures:
                self.failures.append((node, asyncio.CancelledError(f"{node} cancelled")))
        elif exc is not None:
            self.failures.append((node, exc))
            if self.grace is None and self.running:
                self.grace = self.loop.call_later(self.error_wait_time, self.cancel_running)
        elif not self.failures:
            waiting = self.waiting
            ready = []
            for nxt in self.unblocks[node]:
                left = waiting[nxt] - 1
                waiting[nxt] = left
                if left == 0:
                    ready.append(nxt)
            if len(ready) > 1:
                ready.sort(key=self.order.__getitem__)
            for nxt in ready:
                self._launch(nxt)
        self._check_done()

    def cancel_running(self) -> None:
        for task in list(self.running):
            task.cancel()

    def _check_done(self) -> None:
        if self.running or self.done.done():
            return
        if self.grace is not None:
            self.grace.cancel()
        if self.failures:
            self.done.set_exception(GraphFailed(self.failures))
        elif self.finished < self.total:
            blocked = sorted(
                (n for n, c in self.waiting.items() if c > 0), key=self.order.__getitem__
            )
            self.done.set_exception(
                GraphFailed([(blocked[0], RuntimeError(f"dependency cycle among {blocked}"))])
            )
        else:
            self.done.set_result(None)


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def _raise(ex: Exception) -> Any:
    raise ex


async def run_graph(
    nodes: Sequence[K],
    requires: Mapping[K, Iterable[K]],
    job: Callable[[K], Awaitable[Any]],
    *,
    reverse: bool = False,
    error_wait_time: float = ERROR_WAIT_TIME,
) -> None:
    """Run ``job(node)`` for every node, each after the nodes it requires.

    *nodes* fixes the start order among nodes that become ready together (so a
    run is deterministic). ``requires[n]`` lists the nodes *n* depends on;
    unknown names are ignored. With *reverse* dependants run first (delete,
    suspend). Raises :class:`GraphFailed` when a job failed.
    """
    run = _Run(nodes, requires, job, reverse, error_wait_time)
    with fewer_full_collections():
        await _wait(run)


async def _wait(run: _Run[Any]) -> None:
    run.start()
    try:
        await asyncio.shield(run.done)
    except asyncio.CancelledError:
        run.cancel_running()
        while run.running:
            await asyncio.wait(list(run.running))
        if run.done.done() and not run.done.cancelled():
            run.done.exception()  # mark retrieved
        raise


#: The oldest generation's threshold while an engine block runs (Python's default is 10).
FULL_COLLECTION_THRESHOLD = 1000

_quiet_depth = 0
_saved_thresholds: tuple[int, int, int] | None = None


@contextmanager
def fewer_full_collections() -> Iterator[None]:
    """Make the cyclic garbage collector's full collections rare while the block runs.

    A big stack is hundreds of thousands of long-lived objects (resources,
    definitions, parsed templates). With Python's default thresholds a full
    collection walks all of them every ~70,000 allocations, which cost about
    a fifth of the wall time of a 10,000-resource action. Inside the block
    young objects are still collected as usual (short-lived cycles die there);
    only the full collection waits about 100 times longer. The thresholds are
    restored when the outermost block ends (nested blocks share one setting).
    """
    global _quiet_depth, _saved_thresholds
    if _quiet_depth == 0:
        saved = gc.get_threshold()
        _saved_thresholds = saved
        gc.set_threshold(saved[0], saved[1], max(saved[2], FULL_COLLECTION_THRESHOLD))
    _quiet_depth += 1
    try:
        yield
    finally:
        _quiet_depth -= 1
        if _quiet_depth == 0 and _saved_thresholds is not None:
            gc.set_threshold(*_saved_thresholds)
            _saved_thresholds = None


_frozen_depth = 0
#: whether the outermost :func:`frozen_heap` froze the heap (and so unfreezes it)
_froze = False


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Keep the objects alive when the outermost block starts out of every collection.

    They are frozen (:func:`gc.freeze`) until the outermost block ends, so a
    full collection inside the block walks only what the block made. Only
    synchronous blocks that always end use it (a world's run): a coroutine
    left suspended inside a block would keep the heap frozen. A process that
    froze objects of its own keeps them frozen and unfrozen as it chose.
    """
    global _frozen_depth, _froze
    if _frozen_depth == 0:
        _froze = gc.get_freeze_count() == 0
        if _froze:
            gc.freeze()
    _frozen_depth += 1
    try:
        yield
    finally:
        _frozen_depth -= 1
        if _frozen_depth == 0 and _froze:
            gc.unfreeze()
            _froze = False
