"""time.sleep inside driver code runs on the virtual clock, for that module only."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.clock import VirtualClock
from simulator.drivers import DriverHarness
from simulator.drivers.vtime import DEFAULT_EPOCH, VirtualTimeModule

POLLER = """
import time
from time import sleep as nap

def __virtual__():
    return True

def poll(kwargs=None, call=None):
    deadline = time.time() + 600
    polls = 0
    while time.time() < deadline:
        time.sleep(10)
        polls += 1
    nap(5)
    return {"polls": polls, "monotonic": time.monotonic()}
"""


def test_a_driver_polling_ten_simulated_minutes_takes_milliseconds(write_driver):
    path = write_driver("poller", POLLER)
    h = DriverHarness({"p": {"driver": "poller"}}, {}, driver_dirs=[path.parent], bundled=False)
    start_wall = time.perf_counter()
    start = h.now()
    result = h.function("poll", "p")["p"]["poller"]
    wall = time.perf_counter() - start_wall
    assert result["polls"] == 60
    assert h.now() - start == 605
    assert result["monotonic"] == h.now()
    assert wall < 1.0
    assert time.sleep.__module__ == "time"  # the real module is untouched


def test_the_patch_covers_from_imports(write_driver):
    path = write_driver("poller", POLLER)
    h = DriverHarness({"p": {"driver": "poller"}}, {}, driver_dirs=[path.parent], bundled=False)
    loaded = h.driver("p")
    assert loaded.time_patched == ["nap", "time"]
    assert isinstance(loaded.module.time, VirtualTimeModule)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e5, allow_nan=False), max_size=20))
def test_virtual_sleep_advances_by_the_sum(sleeps):
    clock = VirtualClock(3.0)
    shim = VirtualTimeModule(clock)
    for s in sleeps:
        shim.sleep(s)
    assert abs(clock.now() - (3.0 + sum(sleeps))) < 1e-6 * max(1.0, sum(sleeps))
    assert abs(shim.time() - (DEFAULT_EPOCH + clock.now())) < 1e-6


def test_virtual_sleep_rejects_what_time_sleep_rejects():
    shim = VirtualTimeModule(VirtualClock())
    for bad, exc in ((-1, ValueError), ("1", TypeError)):
        try:
            shim.sleep(bad)
        except exc:
            continue
        raise AssertionError(f"sleep({bad!r}) did not raise {exc.__name__}")
    assert shim.strftime("%Y", None) == time.strftime("%Y", time.gmtime(DEFAULT_EPOCH))
