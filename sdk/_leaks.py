"""Threads a plug-in leaves running, and processes it forks, noticed at the call boundary.

Every call into a plug-in (:func:`sdk._actions.call`) runs inside
:func:`plugin_call`, which does two things for the time of the call:

* **Threads.** A thread the plug-in starts is labelled with the plug-in method
  and the file:line of the ``start()`` call (``threading.Thread.start`` is
  wrapped once, the first time a plug-in is called; outside a plug-in call the
  wrapper only passes through). :func:`leftover_threads` lists the non-daemon
  threads still alive, with those labels; the command line uses it to exit
  when its own work is done instead of waiting for ever on a thread a plug-in
  forgot (:mod:`simulator.cli._shared`).
* **Forks.** ``os.register_at_fork`` marks a child process forked while a
  plug-in call runs. Such a child may do what it likes inside the plug-in
  (``exec``, its own ``os._exit``), but when it comes back to the call
  boundary, into engine code, :func:`exit_if_forked_child` ends it with
  ``os._exit`` and one line on stderr, so the child never runs a second engine
  (committing the world, printing the result twice). Forks made outside a
  plug-in call (the engine's own, a test runner's) are left alone.

The calls in progress are a context variable, so they are right per thread
(the test kit runs worlds in worker threads) and per asyncio task (coroutine
handlers of several resources interleave).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

#: Exit status of a forked child stopped at the call boundary.
FORKED_CHILD_STATUS = 70

#: The plug-in calls in progress in this thread / task, innermost last (the callables: a call's
#: label is made only when a thread or fork needs it, see :func:`_label`).
_CALLS: ContextVar[tuple[Callable[..., Any], ...]] = ContextVar("plugsim_plugin_calls", default=())
_original_start: Callable[..., Any] | None = None
#: Label of the plug-in call a child was forked in (set only in such a child).
_forked_in: str | None = None


def _label(func: Callable[..., Any]) -> str:
    owner = getattr(func, "__self__", None)
    name = getattr(func, "__name__", None) or type(func).__name__
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    kind = type(owner).__name__ if owner is not None else ""
    return f"{kind + '.' if kind else ''}{name}{where}"


def _caller() -> str:
    """file:line of the frame that called ``Thread.start`` (skipping the threading module)."""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == threading.__file__:
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _start(self: threading.Thread) -> None:
    calls = _CALLS.get()
    if calls:
        self._plugsim_target = getattr(self, "_target", None)  # type: ignore[attr-defined]
        self._plugsim_origin = f"started at {_caller()} in {_label(calls[-1])}"  # type: ignore[attr-defined]
    assert _original_start is not None
    _original_start(self)


def _install() -> None:
    global _original_start
    if _original_start is None:
        _original_start = threading.Thread.start
        threading.Thread.start = _start  # type: ignore[method-assign]
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork_in_child)


def _after_fork_in_child() -> None:
    global _forked_in
    calls = _CALLS.get()
    if calls:
        _forked_in = _label(calls[-1])


@contextmanager
def plugin_call(func: Callable[..., Any]) -> Iterator[None]:
    """Run the body as a call of plug-in *func* (threads and forks it makes are noticed)."""
    token = enter_call(func)
    try:
        yield
    finally:
        leave_call(token)


def enter_call(func: Callable[..., Any]) -> Token[tuple[Callable[..., Any], ...]]:
    """Begin a call of plug-in *func* (what :func:`plugin_call` does on entry); return its token.

    The engine's hot path (:func:`sdk._actions.call`) pairs it with :func:`leave_call` instead
    of entering a context manager per plug-in call.
    """
    if _original_start is None:
        _install()
    return _CALLS.set((*_CALLS.get(), func))


def leave_call(token: Token[tuple[Callable[..., Any], ...]]) -> None:
    """End the call :func:`enter_call` began (a forked child stops here)."""
    # a coroutine closed from another context has no token of ours to reset there
    with contextlib.suppress(ValueError):
        _CALLS.reset(token)
    if _forked_in is not None:
        exit_if_forked_child()


def exit_if_forked_child() -> None:
    """End this process at once if it is a child forked inside a plug-in call."""
    if _forked_in is None:
        return
    line = (
        f"plugsim: a process forked in plug-in {_forked_in} returned to the engine; "
        f"the child (pid {os.getpid()}) stops here\n"
    )
    # no flush: the buffers hold the parent's unwritten output, which the parent writes
    os.write(2, line.encode("utf-8", "replace"))
    os._exit(FORKED_CHILD_STATUS)


def leftover_threads() -> list[threading.Thread]:
    """The non-daemon threads other than this one that are still alive."""
    me = threading.current_thread()
    return [t for t in threading.enumerate() if t is not me and not t.daemon and t.is_alive()]


def describe_thread(thread: threading.Thread) -> str:
    """Name a thread for a message: name, target and where a plug-in started it."""
    target = getattr(thread, "_target", None) or getattr(thread, "_plugsim_target", None)
    text = thread.name
    if target is not None:
        module = getattr(target, "__module__", None) or ""
        qual = getattr(target, "__qualname__", None) or repr(target)
        text += f" (target {module + '.' if module else ''}{qual})"
    origin = getattr(thread, "_plugsim_origin", None)
    return f"{text} {origin}" if origin else text
