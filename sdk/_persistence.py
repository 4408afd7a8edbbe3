"""Private part of :class:`sdk.resource.Resource`: state, physical id, data and metadata.

Every change here is reported to the resource's context (which persists it);
:meth:`PersistenceMixin.restore_state` is the one way to put a stored state
back without reporting anything. Nothing here is public API on its own;
:class:`sdk.resource.Resource` inherits it and documents the behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sdk._core import ResourceCore


class PersistenceMixin(ResourceCore):
    """State transitions, ``resource_id``, resource data and metadata."""

    def state_set(self, action: str, status: str, reason: str = "state changed") -> None:
        """Move to ``(action, status)`` and report it to the context (every time)."""
        if action not in self.ACTIONS:
            raise ValueError(f"Invalid action {action!r} for resource {self.name}")
        if status not in self.STATUSES:
            raise ValueError(f"Invalid status {status!r} for resource {self.name}")
        self.action = action
        self.status = status
        self.status_reason = reason
        if status != self.COMPLETE:
            self.attributes.reset_resolved_values()
        self.context.state_changed(self, action, status, reason)

    def restore_state(
        self,
        action: str,
        status: str,
        status_reason: str = "",
        resource_id: Any = None,
        data: Mapping[str, Any] | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Put back a state recorded earlier (the engine loading a stack from its store).

        Sets the state, reason, physical id, resource data (a copy) and, when
        given, metadata, exactly as stored. Nothing runs and nothing is reported
        to the context: this is not a transition, and it records no event. An
        unknown action or status is a :class:`ValueError`.
        """
        if action not in self.ACTIONS:
            raise ValueError(f"Invalid action {action!r} for resource {self.name}")
        if status not in self.STATUSES:
            raise ValueError(f"Invalid status {status!r} for resource {self.name}")
        self.action = action
        self.status = status
        self.status_reason = status_reason
        self.resource_id = resource_id
        self._data = dict(data or {})
        if metadata is not None:
            self._metadata = dict(metadata)
        self.attributes.reset_resolved_values()

    def resource_id_set(self, value: Any) -> None:
        """Set the physical resource's id and persist it."""
        self.resource_id = value
        self.attributes.reset_resolved_values()
        self.context.data_changed(self)

    def data(self) -> dict[str, Any]:
        """Return a copy of the resource's private data (persisted key/value pairs)."""
        return dict(self._data)

    def data_set(self, key: str, value: Any) -> None:
        """Store *value* under *key* in the resource data and persist it."""
        self._data[key] = value
        self.context.data_changed(self)

    def data_delete(self, key: str) -> bool:
        """Remove *key* from the resource data; return True if it existed."""
        if key not in self._data:
            return False
        del self._data[key]
        self.context.data_changed(self)
        return True

    def metadata_get(self) -> dict[str, Any]:
        """Return the resource's metadata (the definition's until set)."""
        if self._metadata is None:
            return self.t.metadata
        return dict(self._metadata)

    def metadata_set(self, metadata: Mapping[str, Any] | None) -> None:
        """Replace the resource's metadata and persist it."""
        self._metadata = dict(metadata or {})
        self.context.data_changed(self)
