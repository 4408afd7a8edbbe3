"""Virtual time: one clock per simulated world.

Nothing simulated costs wall time. :class:`VirtualClock` holds the current
virtual instant; :class:`VirtualTimeEventLoop` is an asyncio event loop whose
``time()`` is that clock and which, when nothing is runnable, jumps straight to
the next timer instead of blocking. ``asyncio.sleep`` inside the loop therefore
costs no wall time, and independent tasks still interleave as they would in
real time.

Synchronous code (a fake-cloud client call made from a plug-in handler) cannot
await. It *charges* its latency with :meth:`VirtualClock.charge`: inside a task
of the loop the charge is added to that task's debt, which the caller pays with
``await clock.settle()`` (so concurrent resources do not serialise each other's
latency); outside any loop the clock simply advances.
"""

from __future__ import annotations

import asyncio
import selectors
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class SimulationDeadlock(RuntimeError):
    """Nothing is runnable and no timer is pending: the simulation cannot progress."""


class VirtualClock:
    """A monotonic virtual clock measured in seconds from an arbitrary epoch."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._debts: weakref.WeakKeyDictionary[asyncio.Task[Any], float] = (
            weakref.WeakKeyDictionary()
        )
        self._loop: VirtualTimeEventLoop | None = None
        #: called when the loop has nothing left to run at the current instant,
        #: before it moves the clock to the next timer (a world commits there)
        self.before_jump: Callable[[], None] | None = None

    def now(self) -> float:
        """Return the current virtual time in seconds."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock forward by *seconds* (never backwards); return the new time."""
        if seconds < 0:
            raise ValueError(f"cannot move a clock backwards (by {seconds} s)")
        self._now += seconds
        return self._now

    def advance_to(self, instant: float) -> float:
        """Move the clock forward to *instant* if it lies in the future."""
        if instant > self._now:
            self._now = float(instant)
        return self._now

    def _current_task(self) -> asyncio.Task[Any] | None:
        loop = self._loop
        if loop is None or not loop.is_running():
            return None
        try:
            return asyncio.current_task(loop)
        except RuntimeError:
            return None

    def charge(self, seconds: float) -> None:
        """Account *seconds* of latency spent by synchronous code.

        Inside a task of this clock's loop the latency becomes the task's debt,
        paid by :meth:`settle`; otherwise the clock advances immediately.
        """
        if seconds <= 0:
            return
        task = self._current_task()
        if task is None:
            self.advance(seconds)
        else:
            self._debts[task] = self._debts.get(task, 0.0) + seconds

    def debt(self) -> float:
        """Return the latency the current task has charged but not yet paid."""
        task = self._current_task()
        return 0.0 if task is None else self._debts.get(task, 0.0)

    async def settle(self) -> None:
        """Wait (in virtual time) for the latency the current task has charged."""
        if not self._debts:  # nothing charged by any task (the usual case): no task lookup
            return
        task = self._current_task()
        if task is None:
            return
        owed = self._debts.pop(task, 0.0)
        if owed > 0:
            await asyncio.sleep(owed)

    async def sleep(self, seconds: float) -> None:
        """Sleep *seconds* of virtual time (paying any outstanding debt first)."""
        task = self._current_task()
        if task is None:
            self.advance(max(0.0, seconds))
            await asyncio.sleep(0)
            return
        if self._debts:
            owed = self._debts.pop(task, 0.0)
            if owed > 0:
                await asyncio.sleep(owed)
        await asyncio.sleep(max(0.0, seconds))

    def sleep_sync(self, seconds: float) -> None:
        """A drop-in for :func:`time.sleep` in synchronous code: costs no wall time."""
        self.charge(max(0.0, float(seconds)))


#: Polls of a selector watching only its loop's wake-up socket between two real ones.
_IDLE_POLLS = 64


class _VirtualSelector(selectors.DefaultSelector):
    """A selector that advances virtual time instead of blocking.

    It never waits, so the kernel is asked only for what is ready now. When the only file it
    watches is the loop's own wake-up socket (a simulation's usual case), nothing it could report
    changes what runs: a callback handed over from another thread is queued before the socket is
    written, and the socket is only drained. It then polls one call in :data:`_IDLE_POLLS` (so the
    socket never fills) instead of every loop iteration, a system call several hundred times per
    stack action.
    """

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self._clock = clock
        self._idle = 0
        #: the loop's wake-up socket (set by :class:`VirtualTimeEventLoop`)
        self.wakeup_fd = -1

    def select(self, timeout: float | None = None):  # type: ignore[override]
        if timeout is None:
            raise SimulationDeadlock(
                "simulation deadlock: no task is runnable and no timer is pending"
            )
        if timeout > 0:
            hook = self._clock.before_jump
            if hook is not None:
                hook()
            self._clock.advance(timeout)
        fds = self._fd_to_key
        if len(fds) == 1 and self.wakeup_fd in fds:
            self._idle += 1
            if self._idle < _IDLE_POLLS:
                return []
            self._idle = 0
        return super().select(0)


class VirtualTimeEventLoop(asyncio.SelectorEventLoop):
    """An asyncio loop whose time is a :class:`VirtualClock`."""

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock if clock is not None else VirtualClock()
        selector = _VirtualSelector(self.clock)
        super().__init__(selector=selector)
        selector.wakeup_fd = self._ssock.fileno()
        self.clock._loop = self
        self._clock_resolution = 1e-9

    def time(self) -> float:
        """Return the virtual time (the loop schedules timers against it)."""
        return self.clock.now()


def run(
    coro_or_factory: Awaitable[T] | Callable[[], Awaitable[T]], clock: VirtualClock | None = None
) -> T:
    """Run a coroutine to completion in virtual time and return its result."""
    loop = VirtualTimeEventLoop(clock)
    try:
        coro = coro_or_factory() if callable(coro_or_factory) else coro_or_factory
        return loop.run_until_complete(coro)
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
