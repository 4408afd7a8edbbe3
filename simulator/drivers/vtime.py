"""Virtual time for driver modules: a per-module stand-in for the ``time`` module.

A driver that polls with ``time.sleep(10)`` must cost no wall time under the
harness, and a driver that computes a deadline with ``time.time()`` must see
that deadline approach. :func:`patch_module_time` replaces, in *one driver
module's globals only*, the ``time`` module and any function imported from it
(``from time import sleep``) by :class:`VirtualTimeModule` equivalents bound to
the world's virtual clock. Nothing outside that module object changes.
"""

from __future__ import annotations

import time as _real_time
import types
from typing import Any

from simulator.clock import VirtualClock

#: Wall-clock instant (seconds since the Unix epoch) that virtual time 0 maps to.
DEFAULT_EPOCH = 1_700_000_000.0


class VirtualTimeModule(types.ModuleType):
    """A ``time`` module whose clock functions read, and whose ``sleep`` advances, a virtual clock.

    Everything else (``strptime``, ``struct_time``, constants ...) is the real
    module's.
    """

    def __init__(self, clock: VirtualClock, epoch: float = DEFAULT_EPOCH) -> None:
        super().__init__("time", "virtual time (plugsim driver harness)")
        self._clock = clock
        self._epoch = float(epoch)

    def __getattr__(self, name: str) -> Any:
        return getattr(_real_time, name)

    def sleep(self, seconds: float) -> None:
        """Advance the virtual clock by *seconds*; costs no wall time."""
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            raise TypeError(f"'{type(seconds).__name__}' object cannot be interpreted as a number")
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        self._clock.sleep_sync(float(seconds))

    def _virtual_now(self) -> float:
        return self._clock.now() + self._clock.debt()

    def time(self) -> float:
        """Return the virtual wall-clock time (epoch + virtual seconds)."""
        return self._epoch + self._virtual_now()

    def time_ns(self) -> int:
        """Return :meth:`time` in nanoseconds."""
        return int(self.time() * 1_000_000_000)

    def monotonic(self) -> float:
        """Return the virtual clock reading."""
        return self._virtual_now()

    def monotonic_ns(self) -> int:
        """Return :meth:`monotonic` in nanoseconds."""
        return int(self._virtual_now() * 1_000_000_000)

    perf_counter = monotonic
    perf_counter_ns = monotonic_ns

    def gmtime(self, secs: float | None = None) -> _real_time.struct_time:
        """Return UTC time for *secs* (default: virtual now)."""
        return _real_time.gmtime(self.time() if secs is None else secs)

    def localtime(self, secs: float | None = None) -> _real_time.struct_time:
        """Return UTC time for *secs* (virtual time has no local zone)."""
        return self.gmtime(secs)

    def ctime(self, secs: float | None = None) -> str:
        """Return :func:`time.ctime` of *secs* (default: virtual now)."""
        return _real_time.asctime(self.gmtime(secs))

    def strftime(self, fmt: str, t: Any = None) -> str:
        """Format *t* (default: virtual now) like :func:`time.strftime`."""
        return _real_time.strftime(fmt, self.gmtime() if t is None else t)


_FUNCTIONS = (
    "sleep",
    "time",
    "time_ns",
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "gmtime",
    "localtime",
    "ctime",
    "strftime",
)


def patch_module_time(module: types.ModuleType, shim: VirtualTimeModule) -> list[str]:
    """Point *module*'s references to ``time`` (and functions from it) at *shim*.

    Returns the global names replaced, sorted. Only *module*'s own globals
    change; the real ``time`` module and every other module are untouched.
    """
    real = {getattr(_real_time, n): n for n in _FUNCTIONS}
    replaced = []
    namespace = vars(module)
    for key, value in list(namespace.items()):
        if value is _real_time:
            namespace[key] = shim
            replaced.append(key)
            continue
        try:
            name = real.get(value)
        except TypeError:  # an unhashable global cannot be a time function
            continue
        if name is not None:
            namespace[key] = getattr(shim, name)
            replaced.append(key)
    return sorted(replaced)
