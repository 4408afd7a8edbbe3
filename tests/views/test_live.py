"""The live progress line: silent for a second, then one updated line, and never off a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from simulator.events import Event
from simulator.views.live import LiveProgress


def _event(i, name, status, time, stack=False):
    rtype = "OS::Heat::Stack" if stack else "T"
    return Event(i, "s", "s", name, rtype, None, "CREATE", status, "", time)


class Wall:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _events():
    return [
        _event(1, "s", "IN_PROGRESS", 0.0, stack=True),
        _event(2, "a", "IN_PROGRESS", 0.0),
        _event(3, "b", "IN_PROGRESS", 0.0),
        _event(4, "a", "COMPLETE", 12.5),
        _event(5, "b", "FAILED", 38.036),
    ]


def test_the_line_counts_actions_virtual_time_and_faults():
    progress = LiveProgress(Console(file=io.StringIO()), faults=lambda: 2)
    for ev in _events():
        progress(ev)
    assert progress.line().plain == (
        "2/2 resource actions done (1 failed) · virtual 00:00:38.036 · 2 faults injected"
    )


def test_it_draws_only_after_the_delay_and_only_on_a_terminal():
    wall = Wall()
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    progress = LiveProgress(console, wall=wall, delay=1.0)
    first, *rest = _events()
    progress(first)
    assert out.getvalue() == ""  # a run shorter than a second shows nothing
    wall.now = 1.5
    for ev in rest:
        progress(ev)
    progress.close()
    assert "resource actions done" in out.getvalue()

    piped = io.StringIO()
    quiet = LiveProgress(Console(file=piped, force_terminal=False), wall=wall, delay=0.0)
    for ev in _events():
        quiet(ev)
    quiet.close()
    assert piped.getvalue() == ""
