"""The context a resource runs in: its only window on the world.

The engine hands every :class:`sdk.resource.Resource` a context. Through it
the resource reaches its clients, the clock, the persistence of its state and
three facets: the signals kept for the stack's resources (:class:`Signals`),
the nested stacks a resource may own (:class:`NestedStacks`, used by
:class:`sdk.stack_resource.StackResource`) and the stack's other resources by
reference (:class:`Member`); it never touches the engine's internals. :class:`LocalContext` is a complete,
in-memory context so that a single resource can be driven alone in a unit
test, with no engine and no real clock.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
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


class Member(Reporting, Protocol):
    """A resource of a stack as another resource sees it (:class:`sdk.resource.Resource` fits)."""

    def get_reference_id(self) -> str:
        """What ``get_resource`` gives for it."""

    def get_attribute(self, key: str, *path: Any) -> Any:
        """What ``get_attr`` gives for it."""


class NestedOwner(Reporting, Protocol):
    """What the nested-stacks facet needs of the resource owning a nested stack."""

    def resource_id_set(self, value: Any) -> None:
        """Set the resource's physical id (its nested stack's id)."""


class Signals(Protocol):
    """The signal mailboxes of one stack's resources (``context.signals()``).

    A signal sent to a resource (``plugsim stack resource signal``) is kept
    in the store under the stack and the resource's name, so an engine
    running in another process sees it.
    """

    def received(self, resource: str) -> list[dict[str, Any]]:
        """Return the signals kept for the stack's resource *resource* (a name), oldest first."""

    def clear(self, resource: str) -> None:
        """Forget the signals kept for the stack's resource *resource*."""

    def from_agents(self, endpoint: str) -> list[dict[str, Any]]:
        """Return what the cloud's server config agents sent to *endpoint*, oldest first."""


class NestedStack(Protocol):
    """What a resource sees of the nested stack it owns."""

    @property
    def id(self) -> str:
        """The nested stack's id (the owner's ``resource_id``)."""

    @property
    def name(self) -> str:
        """The nested stack's name."""

    @property
    def status_reason(self) -> str:
        """Why the nested stack is in its current state."""

    @property
    def resources(self) -> Mapping[str, Member]:
        """The nested stack's current resources by name (template order)."""

    @property
    def template(self) -> dict[str, Any]:
        """The template the nested stack was last created or updated with."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters the nested stack was last given."""

    def output(self, key: str) -> Any:
        """Return the value of the nested stack's output *key*."""


class NestedStacks(Protocol):
    """The nested stacks resources of one stack own (``context.nested_stacks()``).

    The owner's ``resource_id`` is its nested stack's id. Every action
    returns whether the nested stack ended that action ``COMPLETE``.
    """

    def get(self, owner: NestedOwner) -> NestedStack | None:
        """Return *owner*'s nested stack (None before it exists)."""

    async def create(
        self,
        owner: NestedOwner,
        template: dict[str, Any],
        parameters: dict[str, Any],
        *,
        template_name: str,
        base_dir: str | None = None,
    ) -> bool:
        """Create *owner*'s nested stack from *template* (the owner's files and environments).

        Relative paths in it resolve from *base_dir* (default: the owner's
        stack's); *template_name* names it in errors.
        """

    async def update(
        self, owner: NestedOwner, template: dict[str, Any] | None, parameters: dict[str, Any]
    ) -> bool:
        """Update *owner*'s nested stack to *template* (None: keep it) and *parameters*."""

    async def act(self, owner: NestedOwner, action: str) -> bool:
        """Run ``DELETE``, ``SUSPEND``, ``RESUME`` or ``CHECK`` on *owner*'s nested stack."""

    async def snapshot(self, owner: NestedOwner) -> tuple[bool, dict[str, Any]]:
        """Snapshot every resource of *owner*'s nested stack: (ok, name → entry)."""

    async def delete_snapshot(self, owner: NestedOwner, entries: Mapping[str, Any]) -> None:
        """Delete what a snapshot's *entries* made for *owner*'s nested resources."""


class ResourceContext(Protocol):
    """The engine-side services a resource uses.

    Implementations: :class:`LocalContext` (standalone) and the simulator's
    per-stack context.
    """

    clock: Clock
    poll_interval: float
    max_poll_interval: float

    @property
    def stack(self) -> StackInfo:
        """What the resource may know about its stack."""

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the client plug-in for service *name*."""

    def state_changed(self, resource: Reporting, action: str, status: str, reason: str) -> None:
        """Persist the resource's new state and record the event (before returning)."""

    def data_changed(self, resource: Reporting) -> None:
        """Persist the resource's ``resource_id`` and data."""

    def signals(self) -> Signals:
        """Return the signal mailboxes of the stack's resources."""

    def nested_stacks(self) -> NestedStacks:
        """Return the nested stacks of the stack's resources."""

    def resource_by_reference(self, reference: str) -> Member | None:
        """Return the stack's resource whose reference id (or name) is *reference*, or None."""

    def stack_members(self) -> dict[str, Member]:
        """Return the stack's resources by name (a new dict, in the stack's order)."""


class LocalSignals:
    """In-memory :class:`Signals` for a :class:`LocalContext` (:meth:`add` puts one in)."""

    def __init__(self) -> None:
        self.kept: dict[str, list[dict[str, Any]]] = {}
        self.agents: dict[str, list[dict[str, Any]]] = {}

    def add(self, resource: str, signal: dict[str, Any]) -> None:
        """Keep *signal* for *resource*, as the engine does for a sent signal."""
        self.kept.setdefault(resource, []).append(dict(signal))

    def received(self, resource: str) -> list[dict[str, Any]]:
        """Return the signals kept for *resource*, oldest first."""
        return list(self.kept.get(resource, []))

    def clear(self, resource: str) -> None:
        """Forget the signals kept for *resource*."""
        self.kept.pop(resource, None)

    def from_agents(self, endpoint: str) -> list[dict[str, Any]]:
        """Return the agent reports put in :attr:`agents` for *endpoint*."""
        return list(self.agents.get(endpoint, []))


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
        #: the signal mailboxes (:meth:`signals`)
        self.local_signals = LocalSignals()
        #: other resources of the standalone "stack", by name (:meth:`resource_by_reference`)
        self.peers: dict[str, Member] = {}
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

    def signals(self) -> LocalSignals:
        """Return the in-memory signal mailboxes."""
        return self.local_signals

    def nested_stacks(self) -> NestedStacks:
        """A standalone resource has no engine to run a nested stack: a clear error."""
        raise exception.ConfigurationError(
            "A LocalContext runs no nested stacks; drive a stack resource through "
            "sdk.testing's harness (a world) instead"
        )

    def resource_by_reference(self, reference: str) -> Member | None:
        """Return the peer in :attr:`peers` whose reference id or name is *reference*."""
        for res in self.peers.values():
            if reference in (res.get_reference_id(), res.name):
                return res
        return None

    def stack_members(self) -> dict[str, Member]:
        """Return the peers of the standalone "stack" by name (a copy of :attr:`peers`)."""
        return dict(self.peers)
