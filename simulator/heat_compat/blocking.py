"""Synchronous Heat handlers that wait for their nested stack in the middle.

Heat's ``InstanceGroup`` and ``AutoScalingGroup`` resize inside
``handle_update`` (and a scaling signal): they start the nested stack's
update and then run ``scheduler.TaskRunner(...)(timeout=...)``, which in
Heat sleeps cooperatively (eventlet) until the child finishes. plugsim's
engine is one asyncio loop: a synchronous handler that waited there would
stop the child it waits for.

:func:`call_blocking` runs such a handler on a helper thread *in turns* with
the loop: while the handler runs, the loop's task waits for it (as for any
synchronous call); when the handler waits (:func:`wait`), the loop's task
sleeps that many virtual seconds, letting the nested stack run, then hands
the turn back. Exactly one of the two runs at any moment, so nothing races
and runs stay deterministic. Outside such a call there is no turn to give:
:func:`wait` returns False and the caller refuses clearly.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from typing import Any

_CURRENT: contextvars.ContextVar[_Turns | None] = contextvars.ContextVar(
    "plugsim_heat_blocking_turns", default=None
)


class HandlerCancelled(BaseException):
    """Raised in a waiting handler whose action was cancelled (timeout, stack cancel)."""


class _Turns:
    """The hand-over between the loop's task and the handler's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.to_engine = threading.Event()
        self.to_handler = threading.Event()
        self.seconds = 0.0
        self.finished = False
        self.cancelled = False
        self.result: Any = None
        self.error: BaseException | None = None

    def wait(self, seconds: float) -> None:
        """(handler thread) Give the turn to the loop for *seconds* of virtual time."""
        self.seconds = max(float(seconds), 0.0)
        self.to_handler.clear()
        self.to_engine.set()
        self.to_handler.wait()
        if self.cancelled:
            raise HandlerCancelled("the resource's action was cancelled while it waited")

    def run(self, context: contextvars.Context, func: Callable[..., Any], args: tuple) -> None:
        """(handler thread) Run the handler, then give the turn back for good."""
        try:
            self.result = context.run(func, *args)
        except BaseException as ex:  # handed to the loop's task, which raises it
            self.error = ex
        finally:
            self.finished = True
            self.to_engine.set()


def current_loop() -> asyncio.AbstractEventLoop | None:
    """The engine's loop when running inside :func:`call_blocking`'s thread, else None."""
    turns = _CURRENT.get()
    return turns.loop if turns is not None else None


def wait(seconds: float) -> bool:
    """Let the engine run for *seconds* of virtual time; False when there is no turn to give."""
    turns = _CURRENT.get()
    if turns is None:
        return False
    turns.wait(seconds)
    return True


async def call_blocking(clock: Any, func: Callable[..., Any], *args: Any) -> Any:
    """Call synchronous *func(\\*args)* so that it may :func:`wait` (see the module doc)."""
    turns = _Turns(asyncio.get_running_loop())
    context = contextvars.copy_context()
    context.run(_CURRENT.set, turns)
    thread = threading.Thread(
        target=turns.run, args=(context, func, args), name="plugsim-heat-handler", daemon=True
    )
    thread.start()
    try:
        while True:
            turns.to_engine.wait()
            turns.to_engine.clear()
            if turns.finished:
                break
            await clock.sleep(turns.seconds)
            turns.to_handler.set()
    except BaseException:
        # cancelled while the handler waited: unwind it (its finally blocks run) before leaving
        turns.cancelled = True
        while not turns.finished:
            turns.to_handler.set()
            turns.to_engine.wait()
            turns.to_engine.clear()
        thread.join()
        raise
    thread.join()
    if turns.error is not None:
        raise turns.error
    return turns.result
