"""A live progress line for runs a person waits on: actions done, virtual time, faults so far.

:class:`LiveProgress` is an event listener. It stays silent for the first second of wall time (most runs
finish sooner), then keeps one line up to date on the terminal with rich; when the output is not a
terminal it never draws anything, so logs and pipes stay clean. Wall time decides only *whether* the line
shows, never what any output says.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.text import Text

from simulator.events import Event, format_time

#: Wall seconds a run may take before the progress line appears.
DELAY = 1.0


class LiveProgress:
    """Listener drawing ``12/20 resource actions done · virtual 00:00:38.036 · 2 faults``."""

    def __init__(
        self,
        console: Console | None = None,
        *,
        faults: Callable[[], int] | None = None,
        delay: float = DELAY,
        wall: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console or Console(stderr=True)
        self.faults = faults or (lambda: 0)
        self.delay = delay
        self.wall = wall
        self.started_at = wall()
        self.started = 0
        self.done = 0
        self.failed = 0
        self.now = 0.0
        self._live: Live | None = None

    def __call__(self, event: Event) -> None:
        """Count *event* and refresh the line (drawn once the delay has passed, on a terminal)."""
        if not event.is_stack_event:
            if event.status == "IN_PROGRESS":
                self.started += 1
            elif event.status in ("COMPLETE", "FAILED"):
                self.done += 1
                self.failed += event.status == "FAILED"
        self.now = max(self.now, event.time)
        if not self.console.is_terminal:
            return
        if self._live is None:
            if self.wall() - self.started_at < self.delay:
                return
            self._live = Live(self.line(), console=self.console, transient=True, auto_refresh=False)
            self._live.start()
        self._live.update(self.line(), refresh=True)

    def attach(self, world: Any) -> None:
        """Count the faults *world*'s fake cloud injects (the engine calls this when it opens it)."""
        self.faults = lambda: len(world.cloud.injected_faults())

    def line(self) -> Text:
        """The progress line as it stands."""
        text = Text()
        text.append(f"{self.done}/{max(self.started, self.done)} resource actions done", "bold")
        if self.failed:
            text.append(f" ({self.failed} failed)", "red")
        text.append(f" · virtual {format_time(self.now)}")
        faults = self.faults()
        if faults:
            text.append(f" · {faults} fault{'s' if faults != 1 else ''} injected", "yellow")
        return text

    def close(self) -> None:
        """Take the line away (it is transient: the final output is what stays)."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __enter__(self) -> LiveProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
