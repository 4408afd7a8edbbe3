"""Private machinery of the resource state machine: handler calls, polling, backoff.

Nothing here is public API; :mod:`sdk.resource` documents the behaviour.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from sdk import _escapes, _leaks, exception

LOG = logging.getLogger("sdk.resource")

#: How much the delay between two polls grows each time (by half).
POLL_GROWTH = 1.5


class PollingClock(Protocol):
    """The part of a context's clock handlers are run on."""

    async def sleep(self, seconds: float) -> None:
        """Sleep in (virtual) time."""

    async def settle(self) -> None:
        """Pay latency charged by synchronous client calls of the current task."""


class PollingContext(Protocol):
    """The part of a resource's context handlers are run with: the clock and the poll pacing."""

    @property
    def clock(self) -> PollingClock:
        """The clock checks are polled on."""

    @property
    def poll_interval(self) -> float:
        """Virtual seconds before the second check."""

    @property
    def max_poll_interval(self) -> float:
        """The longest wait between two checks."""


class Actor(Protocol):
    """What running a handler needs of a resource: its name and its context.

    The handlers themselves (``handle_<action>``, ``check_<action>_complete``,
    ``handle_<action>_cancel``) are looked up by name: a plug-in may or may not
    define them.
    """

    @property
    def name(self) -> str:
        """The resource's name (for log lines)."""

    @property
    def context(self) -> PollingContext:
        """The resource's context."""


async def call(func: Callable[..., Any], *args: Any) -> Any:
    """Call a sync or async plug-in method and return its (awaited) result.

    What the plug-in raises past ``except Exception`` (``SystemExit`` ...) or
    cannot render becomes :class:`sdk.exception.PluginAborted` (see
    :mod:`sdk._escapes`).
    """
    try:
        token = _leaks.enter_call(func)
        try:
            result = func(*args)
            if result is not None and type(result) is not bool and inspect.isawaitable(result):
                result = await result
        finally:
            _leaks.leave_call(token)
    except BaseException as ex:
        contained = _escapes.contain(ex, getattr(func, "__self__", None), _method_name(func))
        if contained is None:
            raise
        raise contained from ex
    return result


def _method_name(func: Callable[..., Any]) -> str:
    return str(getattr(func, "__name__", None) or type(func).__name__)


def _accepts_one_argument(func: Callable[..., Any]) -> bool:
    try:
        inspect.signature(func).bind(None)
    except TypeError:
        return False
    except ValueError:  # no signature available (builtins): assume Heat's form
        return True
    return True


async def call_canceller(resource: Actor, name: str, token: Any) -> None:
    """Call ``handle_<name>_cancel`` if the plug-in defines it; never raise.

    Heat passes the handler's token to the canceller; a canceller written
    without a parameter is called without one.
    """
    canceller = getattr(resource, f"handle_{name}_cancel", None)
    if not callable(canceller):
        return
    try:
        if _accepts_one_argument(canceller):
            await call(canceller, token)
        else:
            await call(canceller)
    except Exception:
        LOG.exception("Error cancelling %s of resource %s", name, resource.name)


def next_poll_delay(delay: float, context: PollingContext) -> float:
    """Return the delay after *delay*: half as long again, capped at the context's maximum."""
    first = float(context.poll_interval)
    largest = max(first, float(context.max_poll_interval))
    return min(delay * POLL_GROWTH, largest)


async def run_handler(
    resource: Actor,
    handler_name: str,
    check_name: str,
    args: Sequence[Any] = (),
) -> Any:
    """Run ``handle_<handler_name>(*args)`` then poll ``check_<check_name>_complete``.

    Returns the handler's token (None when there is no handler). On
    cancellation (``asyncio.CancelledError``) the plug-in's
    ``handle_<handler_name>_cancel`` is called before the error propagates.
    """
    handler = getattr(resource, f"handle_{handler_name}", None)
    if not callable(handler):
        return None
    context = resource.context
    clock = context.clock
    token: Any = None
    try:
        token = await call(handler, *args)
        await clock.settle()
        check = getattr(resource, f"check_{check_name}_complete", None)
        if callable(check):
            delay = float(context.poll_interval)
            while True:
                skip = 1
                try:
                    done = await call(check, token)
                except exception.PollDelay as later:
                    done, skip = False, later.period
                await clock.settle()
                if done:
                    break
                if skip > 1:
                    # PollDelay(n): not polled again for n of Heat's one-interval steps
                    await clock.sleep(skip * float(context.poll_interval))
                    continue
                await clock.sleep(delay)
                delay = next_poll_delay(delay, context)
    except asyncio.CancelledError:
        await call_canceller(resource, handler_name, token)
        raise
    return token


def failure_reason(exc: BaseException) -> str:
    """Format an exception as a status reason: ``'<ExceptionClass>: <message>'``."""
    return f"{type(exc).__name__}: {_escapes.safe_str(exc)}"


def unwrap(exc: BaseException) -> BaseException:
    """Return the exception a :class:`ResourceFailure` wraps (or *exc* itself)."""
    while isinstance(exc, exception.ResourceFailure) and exc.exc is not None:
        exc = exc.exc
    return exc


def retry_delay(attempt: int, exc: BaseException | None = None) -> float:
    """Return the virtual seconds to wait before retry number *attempt* (1, 2, ...).

    ``2 ** attempt`` seconds (2, 4, 8 ...), or the ``retry_after`` an
    over-limit error asks for when that is longer. No jitter: runs are
    deterministic.
    """
    delay = float(2**attempt)
    retry_after = getattr(exc, "retry_after", None)
    if isinstance(retry_after, int | float) and retry_after > delay:
        delay = float(retry_after)
    return delay
