"""What a plug-in raises that ordinary error handling would not survive.

``except Exception`` does not catch ``SystemExit``, ``KeyboardInterrupt`` or
``GeneratorExit``, and formatting an exception whose ``__str__`` raises fails
again while the failure is being reported. Every call into a plug-in passes
its escape through :func:`contain`, which turns it into an ordinary
:class:`sdk.exception.PluginAborted` naming the plug-in and the method, so the
state machine records a FAILED resource instead of leaving it IN_PROGRESS.

:class:`WallClockInterrupt` is what the engine's watchdog raises inside a
plug-in that does not return (:mod:`simulator.watchdog`). It derives from
``BaseException`` so the plug-in's own ``except Exception`` cannot swallow it.
``asyncio.CancelledError`` is never contained: it is how the engine cancels;
nor is a ``GeneratorExit`` outside a running task (a coroutine being closed).
"""

from __future__ import annotations

import asyncio
from typing import Any

from sdk import exception


class WallClockInterrupt(BaseException):  # noqa: N818 - an interrupt, like KeyboardInterrupt
    """Raised inside a plug-in by the engine's watchdog or by Ctrl-C; carries the reason."""

    #: The reason, when raised as a class (asynchronously into another thread).
    reason = "interrupted"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else self.reason


def safe_str(exc: BaseException) -> str:
    """Return ``str(exc)``, or a description when the exception cannot render itself."""
    try:
        return str(exc)
    except Exception as ex:  # noqa: BLE001 - any failure of a plug-in's __str__
        try:
            why = f"{type(ex).__name__}: {ex}"
        except Exception:  # noqa: BLE001
            why = type(ex).__name__
        return f"<message could not be rendered: {why}>"


def describe(exc: BaseException) -> str:
    """Return ``Type(args)`` for an exit-like exception, ``Type: message`` otherwise."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r})"
    text = safe_str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def owner_label(owner: Any) -> str:
    """Name a plug-in object for a message: its type and resource name when it is a resource."""
    rtype = getattr(owner, "type", None)
    name = getattr(owner, "name", None)
    if callable(rtype):
        try:
            return f"{rtype()} (resource '{name}')"
        except Exception:  # noqa: BLE001
            pass
    return type(owner).__name__


def _in_task() -> bool:
    try:
        return asyncio.current_task() is not None
    except RuntimeError:  # no running loop
        return False


def contain(exc: BaseException, owner: Any, method: str) -> exception.PluginAborted | None:
    """Return the failure to raise instead of *exc*, or None to let *exc* through.

    ``CancelledError`` and ordinary exceptions that render are let through
    unchanged (so typed client errors keep their type for retries).
    """
    if isinstance(exc, asyncio.CancelledError):
        return None
    if isinstance(exc, GeneratorExit) and not _in_task():
        return None  # the coroutine itself is being closed (garbage collection), not a failure
    if isinstance(exc, WallClockInterrupt):
        return exception.PluginAborted(safe_str(exc))
    if isinstance(exc, Exception):
        try:
            str(exc)
        except Exception:  # noqa: BLE001
            return exception.PluginAborted(
                f"plug-in {owner_label(owner)} raised {type(exc).__name__} from {method} "
                f"{safe_str(exc)}"
            )
        return None
    if isinstance(exc, SystemExit | KeyboardInterrupt | GeneratorExit):
        return exception.PluginAborted(
            f"plug-in {owner_label(owner)} raised {describe(exc)} from {method}"
        )
    # Any other BaseException is a test framework's or a tool's control flow (hypothesis's
    # StopTest, pytest's outcomes): it must reach its owner unchanged.
    return None
