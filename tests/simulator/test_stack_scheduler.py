"""The dependency scheduler: concurrency, order, failure and cancellation."""

import asyncio

import pytest

from simulator.clock import VirtualClock, run
from simulator.scheduler import GraphFailed, run_graph


def _drive(coro_factory):
    clock = VirtualClock()
    return run(coro_factory, clock), clock


def test_independent_nodes_run_concurrently_and_dependants_wait():
    log = []

    async def job(node):
        log.append(("start", node, asyncio.get_running_loop().time()))
        await asyncio.sleep({"a": 10, "b": 30, "c": 5}[node])
        log.append(("end", node, asyncio.get_running_loop().time()))

    async def main():
        await run_graph(["a", "b", "c"], {"c": ["a"]}, job)

    _, clock = _drive(main)
    assert ("start", "a", 0.0) in log and ("start", "b", 0.0) in log
    assert ("start", "c", 10.0) in log  # as soon as a is done, not when b is
    assert clock.now() == 30.0


def test_reverse_runs_dependants_first():
    order = []

    async def job(node):
        order.append(node)
        await asyncio.sleep(1)

    run(lambda: run_graph(["a", "b", "c"], {"b": ["a"], "c": ["b"]}, job, reverse=True))
    assert order == ["c", "b", "a"]


def test_failure_stops_new_nodes_and_reports():
    started = []

    async def job(node):
        started.append(node)
        if node == "a":
            raise ValueError("a broke")
        await asyncio.sleep(5)

    with pytest.raises(GraphFailed) as info:
        run(lambda: run_graph(["a", "b", "c"], {"c": ["a"]}, job))
    assert started == ["a", "b"]
    assert str(info.value.first) == "a broke"


def test_running_nodes_are_cancelled_after_error_wait_time():
    cancelled = []

    async def job(node):
        if node == "a":
            raise ValueError("a broke")
        try:
            await asyncio.sleep(10_000)
        except asyncio.CancelledError:
            cancelled.append((node, asyncio.get_running_loop().time()))
            raise

    with pytest.raises(GraphFailed):
        run(lambda: run_graph(["a", "b"], {}, job, error_wait_time=60))
    assert cancelled == [("b", 60.0)]


def test_cancelling_the_graph_cancels_and_awaits_running_nodes():
    cleaned = []

    async def job(node):
        try:
            await asyncio.sleep(1000)
        except asyncio.CancelledError:
            await asyncio.sleep(3)  # a cancel handler that takes time
            cleaned.append(node)
            raise

    async def main():
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(50):
                await run_graph(["a", "b"], {}, job)
        return asyncio.get_running_loop().time()

    end, _ = _drive(main)
    assert cleaned == ["a", "b"]
    assert end == 53.0


def test_cycle_is_reported():
    async def job(node):
        return None

    with pytest.raises(GraphFailed, match="cycle"):
        run(lambda: run_graph(["a", "b"], {"a": ["b"], "b": ["a"]}, job))


def test_ten_thousand_nodes_linear():
    count = 0

    async def job(node):
        nonlocal count
        count += 1

    nodes = list(range(10_000))
    requires = {i: [i - 100] for i in range(100, 10_000)}
    run(lambda: run_graph(nodes, requires, job))
    assert count == 10_000


def test_full_collections_are_rarer_inside_engine_blocks_and_restored_after():
    import gc

    from simulator.scheduler import FULL_COLLECTION_THRESHOLD, fewer_full_collections

    before = gc.get_threshold()
    with fewer_full_collections():
        inside = gc.get_threshold()
        with fewer_full_collections():
            assert gc.get_threshold() == inside
        assert gc.get_threshold() == inside
    assert inside == (before[0], before[1], max(before[2], FULL_COLLECTION_THRESHOLD))
    assert gc.get_threshold() == before


def test_a_frozen_heap_block_freezes_what_is_alive_until_the_outermost_ends():
    """In a fresh process (no other test's world or frozen heap around)."""
    import subprocess
    import sys

    code = (
        "import gc\n"
        "from simulator.scheduler import frozen_heap\n"
        "assert gc.get_freeze_count() == 0\n"
        "with frozen_heap():\n"
        "    frozen = gc.get_freeze_count()\n"
        "    assert frozen > 0\n"
        "    with frozen_heap():\n"
        "        assert gc.get_freeze_count() == frozen\n"
        "    assert gc.get_freeze_count() == frozen\n"
        "assert gc.get_freeze_count() == 0\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


def test_a_frozen_heap_block_leaves_a_heap_the_process_froze_itself_as_it_was():
    import gc

    from simulator.scheduler import frozen_heap

    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        with frozen_heap():
            assert gc.get_freeze_count() == mine
        assert gc.get_freeze_count() == mine
    finally:
        gc.unfreeze()


def test_a_world_run_and_its_last_commit_are_one_engine_block():
    import simulator.scheduler as scheduler
    from simulator.world import World

    depths = []
    world = World()
    try:
        commit = world.commit
        world.commit = lambda: depths.append(scheduler._quiet_depth) or commit()
        depth, frozen = scheduler._quiet_depth, scheduler._frozen_depth
        world.run(lambda: _noop())
        assert depths and min(depths) >= depth + 1
        assert (scheduler._quiet_depth, scheduler._frozen_depth) == (depth, frozen)
    finally:
        world.close()


async def _noop() -> None:
    return None


def test_thresholds_are_restored_when_a_graph_run_fails():
    import asyncio
    import gc

    from simulator.scheduler import GraphFailed, run_graph

    before = gc.get_threshold()

    async def job(node):
        raise ValueError(node)

    with pytest.raises(GraphFailed):
        asyncio.run(run_graph(["a"], {}, job))
    assert gc.get_threshold() == before
