"""Parallel driver calls in virtual time (``salt-cloud -P``), deterministic.

salt-cloud's ``-P`` creates the nodes of a map at the same time, so three
creates that each wait five minutes take five minutes, not fifteen. Driver
code is synchronous and waits with ``time.sleep`` (virtual under the
harness), so :func:`run_parallel` gives each call a thread and lets exactly
one run at a time: a call that sleeps (or is charged REST latency) yields
until the virtual clock reaches its wake time, and the call with the earliest
wake time runs next (ties by position). The clock only moves forward, the
interleaving depends only on virtual times, and the same seed gives the same
result and the same events.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simulator.clock import VirtualClock


@dataclass
class Outcome:
    """What one parallel call returned or raised."""

    value: Any = None
    error: BaseException | None = None


class _Scheduler:
    def __init__(self, clock: VirtualClock, count: int) -> None:
        self.clock = clock
        self.cond = threading.Condition()
        self.wake: dict[int, float] = dict.fromkeys(range(count), clock.now())
        self.running: int | None = None
        self.local = threading.local()

    def charge(self, seconds: float) -> None:
        index = getattr(self.local, "index", None)
        if index is None:
            self.clock.advance(max(0.0, seconds))
            return
        with self.cond:
            self.wake[index] = self.clock.now() + max(0.0, seconds)
            self.running = None
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.running == index)

    def enter(self, index: int) -> None:
        self.local.index = index
        with self.cond:
            self.cond.wait_for(lambda: self.running == index)

    def leave(self, index: int) -> None:
        with self.cond:
            self.wake.pop(index, None)
            self.running = None
            self.cond.notify_all()

    def drive(self) -> None:
        while True:
            with self.cond:
                self.cond.wait_for(lambda: self.running is None)
                if not self.wake:
                    return
                index = min(self.wake, key=lambda i: (self.wake[i], i))
                self.clock.advance_to(self.wake[index])
                self.running = index
                self.cond.notify_all()


def run_parallel(clock: VirtualClock, calls: Sequence[Callable[[], Any]]) -> list[Outcome]:
    """Run *calls* as if at the same time on *clock*; return their outcomes in order.

    While they run, ``clock.sleep_sync``/``clock.charge`` from a call's thread
    suspend that call until its virtual wake time.
    """
    scheduler = _Scheduler(clock, len(calls))
    outcomes = [Outcome() for _ in calls]

    def body(index: int, call: Callable[[], Any]) -> None:
        scheduler.enter(index)
        try:
            outcomes[index].value = call()
        except BaseException as ex:  # noqa: BLE001 - reported to the caller per call
            outcomes[index].error = ex
        finally:
            scheduler.leave(index)

    threads = [
        threading.Thread(target=body, args=(i, c), name=f"plugsim-parallel-{i}", daemon=True)
        for i, c in enumerate(calls)
    ]
    clock.charge = scheduler.charge  # type: ignore[method-assign]
    try:
        for thread in threads:
            thread.start()
        scheduler.drive()
        for thread in threads:
            thread.join()
    finally:
        del clock.charge
    return outcomes
