"""What asyncio costs per resource action, in CPU microseconds (issue 33).

Runs the graph of ``plugsim bench`` (N nodes in layers of W, each node
requiring the node W before it) twice:

* **asyncio**: :func:`simulator.scheduler.run_graph` on the virtual-time loop,
  each node a task whose job pays its debt, sleeps S virtual seconds S times
  and pays again, as a resource action of the bench's trivial type does;
* **direct**: the same coroutines driven by ``send()`` from a heap of virtual
  instants, with no task, future, handle or loop iteration: the least a
  scheduler of its own could cost.

The difference per node is what a discrete-event loop could save per action.
Usage: ``python tools/asyncio_cost.py [N] [W]`` (defaults 10000 and 100);
prints one line per number of sleeps (0, 1, 2), best of three runs each.
"""

from __future__ import annotations

import heapq
import sys
import time
from collections.abc import Generator
from typing import Any

from simulator.clock import VirtualClock, run
from simulator.scheduler import run_graph


def _graph(n: int, width: int) -> tuple[list[int], dict[int, list[int]]]:
    return list(range(n)), {i: [i - width] for i in range(width, n)}


def with_asyncio(n: int, width: int, sleeps: int) -> float:
    """CPU seconds of the graph on the virtual-time asyncio loop."""
    nodes, requires = _graph(n, width)
    clock = VirtualClock()

    async def job(_node: int) -> None:
        await clock.settle()
        for _ in range(sleeps):
            await clock.sleep(10.0)
        await clock.settle()

    async def main() -> None:
        await run_graph(nodes, requires, job)

    start = time.process_time()
    run(main, clock)
    return time.process_time() - start


class _Sleep:
    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __await__(self) -> Generator[Any, None, None]:
        yield self


def direct(n: int, width: int, sleeps: int) -> float:
    """CPU seconds of the same graph driven by ``send()`` from a heap of instants."""
    nodes, requires = _graph(n, width)

    async def job(_node: int) -> None:
        for _ in range(sleeps):
            await _Sleep(10.0)

    start = time.process_time()
    now = 0.0
    heap: list[tuple[float, int, int, Any]] = []
    seq = 0
    waiting = dict.fromkeys(nodes, 0)
    unblocks: dict[int, list[int]] = {node: [] for node in nodes}
    for node, deps in requires.items():
        for dep in deps:
            waiting[node] += 1
            unblocks[dep].append(node)

    def step(node: int, coro: Any) -> None:
        nonlocal seq
        try:
            sleep = coro.send(None)
        except StopIteration:
            for nxt in unblocks[node]:
                waiting[nxt] -= 1
                if not waiting[nxt]:
                    step(nxt, job(nxt))
            return
        seq += 1
        heapq.heappush(heap, (now + sleep.seconds, seq, node, coro))

    for node in nodes:
        if not waiting[node]:
            step(node, job(node))
    while heap:
        now, _, node, coro = heapq.heappop(heap)
        step(node, coro)
    return time.process_time() - start


def main(argv: list[str]) -> None:
    """Print the per-node cost of both ways for 0, 1 and 2 sleeps."""
    n = int(argv[0]) if argv else 10000
    width = int(argv[1]) if len(argv) > 1 else 100
    for sleeps in (0, 1, 2):
        a = min(with_asyncio(n, width, sleeps) for _ in range(3))
        d = min(direct(n, width, sleeps) for _ in range(3))
        print(
            f"sleeps={sleeps}: asyncio {a / n * 1e6:.1f} us/action, direct {d / n * 1e6:.1f} "
            f"us/action, difference {(a - d) / n * 1e6:.1f} us/action"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
