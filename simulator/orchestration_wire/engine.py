"""Stack actions of a served world, run in the background in virtual time.

The CLI runs an action to its end with :meth:`World.run`. A server cannot: a
``POST /stacks`` answers at once, and the action goes on while other requests
(polls, event lists, other stacks) are answered. :class:`ServedEngine` keeps
the actions as tasks on the world's own virtual-time loop and moves that loop
forward only when asked:

* :meth:`ServedEngine.start` schedules the verb's coroutine (the same
  ``StackAPI.a*`` coroutine the CLI runs) and runs the current virtual instant
  until every task waits for a later one. A verb that fails before anything
  started (a template that does not validate, a stack busy with another
  action) fails there, so the request answers with the error instead of a 2xx.
* :meth:`ServedEngine.advance_to` runs the loop up to a virtual instant: every
  timer due by then fires at its own instant (resources that take 30 virtual
  seconds end 30 virtual seconds later, whoever is polling), and the world
  commits once per instant as for the CLI (``VirtualClock.before_jump``).
  ``plugsim serve`` calls it before every request with ``start + elapsed wall
  time x --time-scale``; in-process, each request moves time by a fixed step.

Nothing here decides what an action does: that is :mod:`simulator.stack_api`.
Every call is made under the server's lock, on whatever thread holds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

#: virtual seconds between two looks at a pending hook (Heat polls about once a second)
HOOK_POLL = 1.0


class ServedEngine:
    """The background stack actions of one served :class:`~simulator.world.World`."""

    def __init__(self, world: Any) -> None:
        self.world = world
        self.loop: asyncio.AbstractEventLoop = world.loop
        self.clock = world.clock
        #: running actions: task -> (run id, stack id)
        self._tasks: dict[asyncio.Task[Any], tuple[int, str | None]] = {}
        #: failures of background actions nobody awaited (kept for the report)
        self.failures: list[str] = []
        self._early: asyncio.Task[Any] | None = None
        # a breakpoint waits in virtual time here: the server goes on answering
        world.hook_wait = lambda: asyncio.sleep(HOOK_POLL)

    @property
    def busy(self) -> bool:
        """True while some action is still running."""
        return any(not t.done() for t in self._tasks)

    def start(
        self,
        coro_factory: Callable[[], Awaitable[Any]],
        *,
        action: str,
        stack_id: str | None = None,
    ) -> asyncio.Task[Any]:
        """Schedule an action and run the current instant; re-raise an early failure.

        Returns the task (done already when the action needed no virtual time).
        """
        store = self.world.store
        run_id = store.start_run(stack_id, action, self.world.seed, self.clock.now())
        task = self.loop.create_task(_call(coro_factory))
        self._tasks[task] = (run_id, stack_id)
        self._early = task
        try:
            self._run(None)
        finally:
            self._early = None
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]  # the request's error
        return task

    def run_now(self, coro_factory: Callable[[], Awaitable[Any]], *, action: str) -> Any:
        """Run an action to its end now (snapshots, signals): other actions move along with it."""
        task = self.start(coro_factory, action=action)
        while not task.done():
            self._run(task)
        return task.result()

    def advance_to(self, instant: float) -> None:
        """Move virtual time to *instant*, running every action's work due by then."""
        if not self.busy:
            self.clock.advance_to(instant)
            self._reap()
            return
        self._run(instant)

    def _run(self, until: float | asyncio.Task[Any] | None) -> None:
        with self.world.http_wire():
            try:
                self.loop.run_until_complete(self._until(until))
            finally:
                self._reap()
                self.world.commit()

    async def _until(self, until: float | asyncio.Task[Any] | None) -> None:
        if isinstance(until, asyncio.Task):
            await asyncio.wait([until])
        elif until is not None and until > self.clock.now():
            await asyncio.sleep(until - self.clock.now())
        await _finish_instant(self.loop)

    def _reap(self) -> None:
        """Record the end of finished actions (the run rows the CLI writes too)."""
        store = self.world.store
        for task in [t for t in self._tasks if t.done()]:
            run_id, stack_id = self._tasks.pop(task)
            failed = task.cancelled() or task.exception() is not None
            if failed and not task.cancelled() and task is not self._early:
                self.failures.append(f"{stack_id or '-'}: {task.exception()!r}")
            store.finish_run(run_id, self.clock.now(), "error" if failed else "done")

    def stop(self) -> None:
        """Cancel what still runs (the server is stopping) and commit."""
        for task in self._tasks:
            if not task.done():
                task.cancel()
        if self._tasks:
            with self.world.http_wire():
                self.loop.run_until_complete(asyncio.gather(*self._tasks, return_exceptions=True))
        self._reap()
        self.world.commit()


async def _call(coro_factory: Callable[[], Awaitable[Any]]) -> Any:
    return await coro_factory()


async def _finish_instant(loop: Any) -> None:
    """Return once nothing else can run at the current virtual instant.

    The loop's queue of ready callbacks and its timers are asyncio's own
    (``_ready``, ``_scheduled``): when both hold nothing due now, every task
    waits for a later instant or for something outside the loop.
    """
    while True:
        await asyncio.sleep(0)
        if loop._ready:
            continue
        due = loop._scheduled
        if due and due[0].when() <= loop.time() and not due[0].cancelled():
            continue
        return
