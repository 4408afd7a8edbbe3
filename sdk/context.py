"""The context a resource runs in: its only window on the world.

The engine hands every :class:`sdk.resource.Resource` a context. Through it
the resource reaches its clients, the clock and the persistence of its state;
it never touches the engine's internals. :class:`LocalContext` is a complete,
in-memory context so that a single resource can be driven alone in a unit
test, with no engine and no real clock.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, runtime_checkable

from sdk import exception
from sdk.clients import ClientPlugin


@runtime_checkable
class Clock(Protocol):
    """What a resource needs of a clock; the simulator's ``VirtualClock`` fits."""

    def now(self) -> float:
        """Return the current (virtual) time in seconds."""

    async def sleep(self, seconds: float) -> None:
        """Sleep in (virtual) time."""

    async def settle(self) -> None:
        """Pay latency charged by synchronous client calls of the current task."""


class CounterClock:
    """A minimal virtual clock for standalone use: sleeping only adds to a counter."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        """Return the current virtual time."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by *seconds*."""
        self._now += max(0.0, seconds)
        return self._now

    def charge(self, seconds: float) -> None:
        """Account latency of a synchronous call (advances at once here)."""
        self.advance(seconds)

    async def sleep(self, seconds: float) -> None:
        """Advance the counter and yield to the event loop once."""
        self.advance(seconds)
        await asyncio.sleep(0)

    async def settle(self) -> None:
        """Nothing to pay: :meth:`charge` advanced the counter already."""
        await asyncio.sleep(0)


@dataclass
class StackInfo:
    """What a resource may know about the stack it belongs to."""

    name: str = "standalone"
    id: str = "00000000-0000-4000-8000-000000000000"
    parameters: dict[str, Any] = field(default_factory=dict)
    timeout_mins: float | None = None


class Reporting(Protocol):
    """What a context reads of the resource reporting a change to it.

    :class:`sdk.resource.Resource` fits; naming only this keeps the context
    below the resource (the resource holds a context, not the other way round).
    """

    @property
    def name(self) -> str:
        """The resource's name in its stack."""

    @property
    def action(self) -> str:
        """The action of the resource's state."""

    @property
    def status(self) -> str:
        """The status of the resource's state."""

    @property
    def resource_id(self) -> Any:
        """The physical resource's id, or None."""

    def data(self) -> dict[str, Any]:
        """A copy of the resource's private data."""


class ResourceContext(Protocol):
    """The engine-side services a resource uses.

    Implementations: :class:`LocalContext` (standalone) and the simulator's
    per-stack context.
    """

    clock: Clock
    stack: StackInfo
    poll_interval: float
    max_poll_interval: float

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the client plug-in for service *name*."""

    def state_changed(self, resource: Reporting, action: str, status: str, reason: str) -> None:
        """Persist the resource's new state and record the event (before returning)."""

    def data_changed(self, resource: Reporting) -> None:
        """Persist the resource's ``resource_id`` and data."""


@dataclass
class RecordedEvent:
    """One state change seen by a :class:`LocalContext`."""

    time: float
    resource: str
    action: str
    status: str
    reason: str
    physical_id: str | None


class LocalContext:
    """An in-memory context for driving one resource without an engine.

    ``clients`` maps a service name to a client object, a zero-argument factory
    or a ready :class:`ClientPlugin`. Events are kept in :attr:`events`.
    """

    def __init__(
        self,
        clients: dict[str, Any] | None = None,
        *,
        clock: Clock | None = None,
        stack: StackInfo | None = None,
        poll_interval: float = 1.0,
        max_poll_interval: float = 30.0,
    ) -> None:
        self.clock: Clock = clock if clock is not None else CounterClock()
        self.stack = stack if stack is not None else StackInfo()
        self.poll_interval = poll_interval
        self.max_poll_interval = max_poll_interval
        self.events: list[RecordedEvent] = []
        self.saved: dict[str, dict[str, Any]] = {}
        self._plugins: dict[str, ClientPlugin] = {}
        for name, value in (clients or {}).items():
            self.add_client(name, value)

    def add_client(self, name: str, value: Any) -> None:
        """Register a client (object, factory or ClientPlugin) under *name*."""
        if isinstance(value, ClientPlugin):
            self._plugins[name] = value
        elif inspect.isfunction(value) or inspect.ismethod(value) or isinstance(value, partial):
            self._plugins[name] = ClientPlugin(name, factory=value)
        else:
            self._plugins[name] = ClientPlugin(name, client=value)

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the client plug-in registered under *name*."""
        try:
            return self._plugins[name]
        except KeyError:
            known = ", ".join(sorted(self._plugins)) or "none"
            raise exception.ConfigurationError(
                f"No client named '{name}' in this context (known: {known})"
            ) from None

    def state_changed(self, resource: Reporting, action: str, status: str, reason: str) -> None:
        """Record the transition as an event and remember the state."""
        self.events.append(
            RecordedEvent(
                self.clock.now(), resource.name, action, status, reason, resource.resource_id
            )
        )
        self.data_changed(resource)

    def data_changed(self, resource: Reporting) -> None:
        """Remember the resource's id, state and data."""
        self.saved[resource.name] = {
            "resource_id": resource.resource_id,
            "action": resource.action,
            "status": resource.status,
            "data": dict(resource.data()),
        }
