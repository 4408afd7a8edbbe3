"""The engine side of the ``signals()`` facet: one stack's signal mailboxes.

A signal sent to a resource (:meth:`simulator.stack_api.StackAPI.signal_resource`)
is kept in the store's ``signals`` table under the stack and the resource's
name, so an engine running in another process sees it. What a fake server's
config agent sends to a signal endpoint is kept by the fake cloud's compute
service; :meth:`StackSignals.from_agents` reads it from there.
"""

from __future__ import annotations

from typing import Any

from simulator.store import Store


class StackSignals:
    """The signal mailboxes of one stack's resources (:class:`sdk.context.Signals`)."""

    def __init__(self, store: Store, stack_id: str, cloud: object) -> None:
        self._store = store
        self._stack_id = stack_id
        self._cloud = cloud

    def received(self, resource: str) -> list[dict[str, Any]]:
        """Return the signals kept for *resource*, oldest first."""
        return self._store.signals(self._stack_id, resource)

    def clear(self, resource: str) -> None:
        """Forget the signals kept for *resource*."""
        self._store.clear_signals(self._stack_id, resource)

    def from_agents(self, endpoint: str) -> list[dict[str, Any]]:
        """Return what the fake servers' config agents sent to *endpoint*, oldest first.

        The reports are the compute service's (``agent_signals``); a backend
        without such a service has no agents, so nothing was sent.
        """
        names = getattr(self._cloud, "service_names", None)
        service = getattr(self._cloud, "service", None)
        if names is None or service is None or "compute" not in names():
            return []
        reports = getattr(service("compute"), "agent_signals", None)
        if reports is None:
            return []
        return [dict(report) for report in reports(endpoint)]
