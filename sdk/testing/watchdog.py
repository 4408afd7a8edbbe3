"""A wall-clock watchdog for plug-in handlers that block the event loop.

Virtual time makes every simulated wait free, but it cannot rescue a handler
that never returns from a synchronous call (``time.sleep(3600)``, a busy loop,
a socket read with no timeout). :func:`run_watched` runs the engine in a
daemon worker thread and samples that thread's Python stack while it waits.
When the *same* frame of a plug-in handler (``handle_*`` / ``check_*`` of a
resource) stays on the stack for longer than the wall limit, the wait ends
with :class:`HandlerBlocked` naming the handler; the worker thread is
abandoned (it cannot be killed) and the world it ran is marked unusable.

Wall time only decides *whether* a handler blocked; it never reaches a
message, an event or a report (the message quotes the configured limit).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

from sdk import exception

T = TypeVar("T")

#: Default wall-clock limit (seconds) for one handler call.
DEFAULT_WALL_LIMIT = 10.0
#: How often the waiting thread samples the worker's stack (seconds of wall time).
SAMPLE_INTERVAL = 0.05


class HandlerBlocked(exception.PlugsimError):
    """A plug-in handler blocked the event loop longer than the wall limit."""

    def __init__(self, handler: str, limit: float) -> None:
        self.handler = handler
        self.limit = limit
        super().__init__(
            f"{handler} blocked the event loop for more than {limit:g} s of wall time "
            "(a synchronous call that never returns cannot be fixed by virtual time; "
            "raise the limit with --plugsim-wall-limit if the handler is merely slow)"
        )


def handler_frame(frame: FrameType | None) -> tuple[int, str] | None:
    """Return ``(id, label)`` of the innermost plug-in handler frame on a stack, if any.

    A handler frame is a function named ``handle_*`` or ``check_*_complete``
    whose ``self`` is a :class:`sdk.resource.Resource`; the label names the
    class, the method and the resource.
    """
    from sdk.resource import Resource

    while frame is not None:
        name = frame.f_code.co_name
        if name.startswith(("handle_", "check_")):
            owner = frame.f_locals.get("self")
            if isinstance(owner, Resource):
                label = (
                    f"handler {type(owner).__name__}.{name} of resource "
                    f"'{owner.name}' ({owner.type()})"
                )
                return id(frame), label
        frame = frame.f_back
    return None


def install_heartbeat(loop: Any) -> Callable[[], int]:
    """Count the iterations of *loop* (this loop object only); return the counter reader.

    A loop whose counter does not move is stuck inside one callback: the
    handler running in it is blocking.
    """
    beats = [0]
    inner = loop._run_once

    def run_once() -> None:
        beats[0] += 1
        inner()

    loop._run_once = run_once
    return lambda: beats[0]


def run_watched(
    func: Callable[[], T],
    wall_limit: float | None = DEFAULT_WALL_LIMIT,
    heartbeat: Callable[[], int] | None = None,
) -> T:
    """Run *func* in a daemon thread; raise :class:`HandlerBlocked` if a handler hangs.

    A handler counts as hanging when the same handler frame stays on the
    worker's stack and the *heartbeat* (see :func:`install_heartbeat`) does
    not move for longer than *wall_limit* seconds. With ``wall_limit=None`` (or
    <= 0) there is no watchdog, but *func* still runs in its own thread (so it
    may be called from inside a running asyncio loop, e.g. an async test).
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["result"] = func()
        except BaseException as ex:  # handed to the waiting thread as-is
            box["error"] = ex
        finally:
            done.set()

    worker = threading.Thread(target=target, name="plugsim-engine", daemon=True)
    worker.start()
    seen: tuple[int, str, int] | None = None
    since = 0.0
    limit = float(wall_limit) if wall_limit else 0.0
    while not done.wait(SAMPLE_INTERVAL if limit > 0 else None):
        frame = sys._current_frames().get(worker.ident or -1)
        found = handler_frame(frame)
        beat = heartbeat() if heartbeat is not None else 0
        current = None if found is None else (found[0], found[1], beat)
        now = time.monotonic()
        if current is None or current != seen:
            seen, since = current, now
            continue
        if now - since > limit:
            raise HandlerBlocked(seen[1], limit)
    if "error" in box:
        raise box["error"]
    return box["result"]
