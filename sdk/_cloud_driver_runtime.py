"""Errors, the event bus and the runtime seam of cloud driver modules (private).

Import these names from :mod:`sdk.cloud_driver`. The *runtime* is what a
driver's helpers reach the world through: the event bus, ``sleep`` and
``now`` (virtual under the plugsim harness, real otherwise) and the
deployment hook. The harness installs its runtime with :func:`use_runtime`
for the duration of every driver call; outside the harness a default
runtime with the real clock and a private bus is used.
"""

from __future__ import annotations

import contextvars
import copy
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sdk.exception import PlugsimError

# --- errors -------------------------------------------------------------------------


class CloudDriverError(PlugsimError):
    """Base class of the errors a cloud driver module raises on purpose."""


class SaltCloudSystemExit(CloudDriverError):
    """A driver refuses a call (wrong ``call=``, missing argument, unusable state)."""


class SaltCloudConfigError(CloudDriverError):
    """The provider or profile configuration is incomplete or wrong."""


class SaltCloudNotFound(CloudDriverError):
    """A node, image, size or location the caller named does not exist."""


class SaltCloudExecutionTimeout(CloudDriverError):
    """Waiting for the cloud (an IP address, a state, a port) took too long."""


class SaltCloudExecutionFailure(CloudDriverError):
    """The cloud kept failing while the driver waited for it."""


# --- events -------------------------------------------------------------------------


@dataclass(frozen=True)
class CloudEvent:
    """One event a driver fired: sequence number, virtual time, tag and payload."""

    seq: int
    time: float
    tag: str
    data: dict[str, Any]
    message: str = ""

    @property
    def kind(self) -> str:
        """Return the last part of the tag (``creating``, ``requesting`` ...)."""
        return self.tag.rsplit("/", 1)[-1]

    def to_dict(self) -> dict[str, Any]:
        """Return the event as plain data."""
        return {
            "seq": self.seq,
            "time": self.time,
            "tag": self.tag,
            "message": self.message,
            "data": copy.deepcopy(self.data),
        }


def _copy_payload(data: Any) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        return {"data": repr(data)}
    try:
        return copy.deepcopy(dict(data))
    except Exception:  # an uncopyable object in a payload is recorded by its repr
        return {str(k): repr(v) for k, v in data.items()}


class EventBus:
    """Records fired events in order and passes each one to the subscribers."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock
        self._events: list[CloudEvent] = []
        self._listeners: list[Callable[[CloudEvent], None]] = []

    def fire(
        self, tag: str, data: Mapping[str, Any] | None = None, message: str = ""
    ) -> CloudEvent:
        """Record an event tagged *tag* with a copy of *data*; return it."""
        if not isinstance(tag, str) or not tag:
            raise SaltCloudSystemExit(f"an event tag must be a non-empty string, not {tag!r}")
        now = self._clock() if self._clock is not None else 0.0
        event = CloudEvent(len(self._events) + 1, now, tag, _copy_payload(data), str(message))
        self._events.append(event)
        for listener in list(self._listeners):
            listener(event)
        return event

    def subscribe(self, listener: Callable[[CloudEvent], None]) -> None:
        """Call *listener* with every event fired from now on."""
        self._listeners.append(listener)

    def events(self, prefix: str = "") -> list[CloudEvent]:
        """Return the events whose tag starts with *prefix*, in firing order."""
        return [e for e in self._events if e.tag.startswith(prefix)]

    def tags(self, prefix: str = "") -> list[str]:
        """Return the tags of :meth:`events`."""
        return [e.tag for e in self.events(prefix)]

    def mark(self) -> int:
        """Return a position; :meth:`since` returns the events fired after it."""
        return len(self._events)

    def since(self, mark: int) -> list[CloudEvent]:
        """Return the events fired after :meth:`mark` returned *mark*."""
        return list(self._events[mark:])


# --- the runtime seam -----------------------------------------------------------------


@dataclass
class ConfigNote:
    """A provider that :func:`is_provider_configured` found incomplete."""

    provider: str
    missing: list[str]


def _no_deploy(method: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    raise SaltCloudSystemExit(
        f"cannot deploy to {kwargs.get('host')!r} over {method}: plugsim never connects to a "
        "machine; run the driver under simulator.drivers (the harness simulates deployment)"
    )


@dataclass
class DriverRuntime:
    """What driver helpers use to reach the world; the harness supplies a virtual one."""

    bus: EventBus = field(default_factory=EventBus)
    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], float] = time.time
    deploy: Callable[[str, Mapping[str, Any]], dict[str, Any]] = _no_deploy
    notes: list[ConfigNote] = field(default_factory=list)


_DEFAULT = DriverRuntime()
_CURRENT: contextvars.ContextVar[DriverRuntime | None] = contextvars.ContextVar(
    "plugsim_cloud_driver_runtime", default=None
)


def current_runtime() -> DriverRuntime:
    """Return the runtime installed by :func:`use_runtime`, or the default (real) one."""
    runtime = _CURRENT.get()
    return runtime if runtime is not None else _DEFAULT


@contextmanager
def use_runtime(runtime: DriverRuntime) -> Iterator[DriverRuntime]:
    """Install *runtime* for the code run inside the ``with`` block (this context only)."""
    token = _CURRENT.set(runtime)
    try:
        yield runtime
    finally:
        _CURRENT.reset(token)
