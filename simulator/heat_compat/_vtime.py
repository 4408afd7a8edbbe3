"""Virtual time and per-resource randomness for Heat plug-ins run under plugsim.

Heat plug-ins read the wall clock (``oslo_utils.timeutils.utcnow()``), sleep
(``time.sleep``) and draw secrets from the operating system
(``heat.common.password_gen``). Under plugsim all three must follow the world:
the clock is the stack's virtual clock and randomness comes from a stream
derived from the stack id and resource name, so that a run is reproducible.

The resource whose code is running is kept in a :class:`contextvars.ContextVar`
that the compat resource base sets around each of its actions; every asyncio
task has its own copy, so concurrent resources never see each other's clock.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import hashlib
import random
import time as _real_time
import types
import uuid as _real_uuid
from collections.abc import Iterator
from typing import Any

#: Wall-clock instant (seconds since the Unix epoch) that virtual time 0 maps to.
EPOCH = 1_700_000_000.0

_ACTIVE: contextvars.ContextVar[Any] = contextvars.ContextVar("plugsim_heat_resource", default=None)


@contextlib.contextmanager
def running(resource: Any) -> Iterator[None]:
    """Make *resource* the one whose clock and random stream plug-in code uses."""
    token = _ACTIVE.set(resource)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_resource() -> Any:
    """Return the resource whose code is running, or None."""
    return _ACTIVE.get()


def _clock() -> Any:
    resource = _ACTIVE.get()
    if resource is None:
        return None
    return getattr(getattr(resource, "context", None), "clock", None)


def now() -> float:
    """Virtual seconds since the Unix epoch (``EPOCH`` when no resource runs)."""
    clock = _clock()
    return EPOCH + (float(clock.now()) if clock is not None else 0.0)


def sleep(seconds: float) -> None:
    """Spend *seconds* of virtual time (charged to the running resource's clock).

    Outside a resource action there is no clock to charge and nothing happens:
    wall time is never spent.
    """
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        raise ValueError(f"sleep length must be a non-negative number, not {seconds!r}")
    clock = _clock()
    if clock is None or not seconds:
        return
    charge = getattr(clock, "charge", None)
    if callable(charge):
        charge(float(seconds))


def utcnow() -> datetime.datetime:
    """The virtual time as a naive UTC :class:`datetime.datetime` (as oslo's ``utcnow``)."""
    stamp = datetime.datetime.fromtimestamp(now(), tz=datetime.UTC)
    return stamp.replace(tzinfo=None)


def rng() -> random.Random:
    """A random stream for the running resource, reproducible for a given stack.

    Each call draws from the resource's own stream (stack id, resource name and
    a per-resource counter), so two resources never share values and a rerun
    of the same world gives the same values.
    """
    resource = _ACTIVE.get()
    if resource is None:
        return random.Random(0)
    stack = getattr(resource, "stack", None)
    stack_id = str(getattr(stack, "id", "") or "")
    count = int(getattr(resource, "_heat_compat_draws", 0)) + 1
    resource._heat_compat_draws = count
    material = f"{stack_id}/{resource.name}/{count}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:8], "big"))


class VirtualTime(types.ModuleType):
    """A stand-in for the ``time`` module inside a Heat plug-in module.

    ``sleep``, ``time`` and ``monotonic`` follow the running resource's
    virtual clock; everything else is the real module's.
    """

    def __init__(self) -> None:
        super().__init__("time", "virtual time (plugsim heat compatibility layer)")

    def __getattr__(self, name: str) -> Any:
        return getattr(_real_time, name)

    @staticmethod
    def sleep(seconds: float) -> None:
        """Spend virtual seconds (see :func:`sleep`)."""
        sleep(seconds)

    @staticmethod
    def time() -> float:
        """Virtual seconds since the epoch."""
        return now()

    @staticmethod
    def monotonic() -> float:
        """Virtual seconds (monotonic as the virtual clock is)."""
        return now()


class SeededUUID(types.ModuleType):
    """A stand-in for the ``uuid`` module inside a Heat plug-in module.

    ``uuid4`` draws from the running resource's random stream (:func:`rng`),
    so an id a plug-in makes up (a software deployment's, say) is the same on
    every run of the same world; everything else is the real module's.
    """

    def __init__(self) -> None:
        super().__init__("uuid", "seeded uuid4 (plugsim heat compatibility layer)")

    def __getattr__(self, name: str) -> Any:
        return getattr(_real_uuid, name)

    #: the stream of ids made outside any resource's action (one stream, so they differ)
    _outside = random.Random(0)

    @classmethod
    def uuid4(cls) -> _real_uuid.UUID:
        """A version-4 UUID from the running resource's random stream and the virtual time.

        The stream alone is the same for a resource and its replacement (same stack, same
        name, a new object counting from one), so the virtual instant of the draw is mixed
        in: a replacement made later gets a new id, as Heat's does.
        """
        if active_resource() is None:
            return _real_uuid.UUID(int=cls._outside.getrandbits(128), version=4)
        material = f"{rng().getrandbits(128)}/{now():.6f}".encode()
        bits = int.from_bytes(hashlib.sha256(material).digest()[:16], "big")
        return _real_uuid.UUID(int=bits, version=4)


class SeededRandom(types.ModuleType):
    """A stand-in for the ``random`` module inside a Heat plug-in module.

    The module-level draws (``random()``, ``uniform``, ``randint``, ``choice`` ...) come from
    the running resource's stream (:func:`rng`), so ``OS::Heat::Delay``'s jitter is the same
    on every run of the same world; ``Random``, ``SystemRandom`` and the rest are the real
    module's.
    """

    _DRAWS = frozenset(
        ("random", "uniform", "randint", "randrange", "choice", "choices", "shuffle", "sample")
    )

    def __init__(self) -> None:
        super().__init__("random", "seeded random (plugsim heat compatibility layer)")

    def __getattr__(self, name: str) -> Any:
        if name in self._DRAWS:
            stream = rng() if active_resource() is not None else SeededUUID._outside
            return getattr(stream, name)
        return getattr(random, name)


def patch_module(module: types.ModuleType) -> None:
    """Point a plug-in module's ``time`` global (if it imported ``time``) at virtual time,
    and its ``uuid`` global at seeded ids."""
    namespace = vars(module)
    if namespace.get("time") is _real_time:
        namespace["time"] = VirtualTime()
    if namespace.get("uuid") is _real_uuid:
        namespace["uuid"] = SeededUUID()
    if namespace.get("random") is random:
        namespace["random"] = SeededRandom()
    for name, value in list(namespace.items()):
        if value is _real_time.sleep:
            namespace[name] = VirtualTime.sleep
        elif value is _real_time.time:
            namespace[name] = VirtualTime.time
