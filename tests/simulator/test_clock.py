"""The virtual clock and its event loop."""

import asyncio

import pytest

from simulator.clock import SimulationDeadlock, VirtualClock, run


def test_sleep_advances_virtual_time_only():
    clock = VirtualClock()

    async def main():
        await asyncio.sleep(3600)
        return clock.now()

    assert run(main, clock) == 3600


def test_concurrent_tasks_interleave_as_in_real_time():
    clock = VirtualClock()
    finished = []

    async def worker(name, delay):
        await asyncio.sleep(delay)
        finished.append((name, clock.now()))

    async def main():
        await asyncio.gather(worker("slow", 30), worker("fast", 10), worker("mid", 20))

    run(main, clock)
    assert finished == [("fast", 10), ("mid", 20), ("slow", 30)]
    assert clock.now() == 30


def test_charged_latency_is_per_task_debt():
    clock = VirtualClock()

    async def worker(cost):
        clock.charge(cost)
        assert clock.debt() == cost
        await clock.settle()
        return clock.now()

    async def main():
        return await asyncio.gather(worker(5), worker(7))

    # Each task pays its own latency: they do not add up.
    assert run(main, clock) == [5, 7]


def test_charge_outside_loop_advances_clock():
    clock = VirtualClock(100)
    clock.sleep_sync(2.5)
    assert clock.now() == 102.5


def test_deadlock_is_reported_not_hung():
    clock = VirtualClock()

    async def main():
        await asyncio.get_running_loop().create_future()

    with pytest.raises(SimulationDeadlock, match="no task is runnable"):
        run(main, clock)


def test_clock_never_moves_backwards():
    with pytest.raises(ValueError, match="backwards"):
        VirtualClock().advance(-1)


def test_a_socket_the_loop_watches_is_still_read_at_once():
    import socket

    from simulator.clock import VirtualTimeEventLoop

    loop = VirtualTimeEventLoop()
    ours, theirs = socket.socketpair()
    got: list[tuple[float, bytes]] = []
    loop.add_reader(ours.fileno(), lambda: got.append((loop.time(), ours.recv(10))))

    async def main():
        theirs.send(b"ping")
        for _ in range(3):  # the reader runs in the next iterations, without virtual time passing
            await asyncio.sleep(0)
        await asyncio.sleep(5)

    try:
        loop.run_until_complete(main())
    finally:
        loop.remove_reader(ours.fileno())
        loop.close()
        ours.close()
        theirs.close()
    assert got == [(0.0, b"ping")]


def test_callbacks_from_other_threads_run_however_many_arrive():
    import threading

    from simulator.clock import VirtualTimeEventLoop

    loop = VirtualTimeEventLoop()
    seen: list[int] = []

    async def main():
        def post():
            for i in range(500):
                loop.call_soon_threadsafe(seen.append, i)

        thread = threading.Thread(target=post)
        thread.start()
        while len(seen) < 500:
            await asyncio.sleep(0)  # the loop's wake-up socket fills up meanwhile: no matter
        thread.join()

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert seen == list(range(500))
