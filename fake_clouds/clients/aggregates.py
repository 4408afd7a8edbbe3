"""novaclient's ``aggregates`` and ``hosts`` over the fake compute service.

``aggregates`` has python-novaclient's calls: ``create(name,
availability_zone)``, ``get``, ``list``, ``update(aggregate, values)``,
``add_host``, ``remove_host``, ``set_metadata``, ``delete``; an
:class:`Aggregate` offers the same as methods (``aggregate.add_host(host)``).
``hosts.list()`` gives the compute hosts (``host_name``, ``service``, ``zone``).
"""

from __future__ import annotations

import builtins
from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager, id_of
from sdk import exception


class Aggregate(ClientObject):
    """A host aggregate (``id``, ``name``, ``availability_zone``, ``hosts``, ``metadata``)."""

    def update(self, values: dict[str, Any]) -> Aggregate:
        """Rename or move to another availability zone; return the fresh aggregate."""
        return self._refresh(self.manager.update(self.id, values))

    def add_host(self, host: str) -> Aggregate:
        """Add a compute host."""
        return self._refresh(self.manager.add_host(self.id, host))

    def remove_host(self, host: str) -> Aggregate:
        """Remove a host."""
        return self._refresh(self.manager.remove_host(self.id, host))

    def set_metadata(self, metadata: dict[str, Any]) -> Aggregate:
        """Merge metadata in (``None`` removes a key)."""
        return self._refresh(self.manager.set_metadata(self.id, metadata))

    def _refresh(self, fresh: ClientObject) -> Aggregate:
        self._load(fresh.to_dict())
        return self


class AggregateManager(Manager):
    """``client.aggregates``."""

    resource_class = Aggregate

    def list(self) -> list[Aggregate]:
        """Every aggregate."""
        return self._wrap_all(self.service.list_aggregates())  # type: ignore[return-value]

    def get(self, aggregate: Any) -> Aggregate:
        """One aggregate by id."""
        return self._wrap(self.service.get_aggregate(id_of(aggregate)))  # type: ignore[return-value]

    def create(self, name: str, availability_zone: str | None = None) -> Aggregate:
        """Create an aggregate."""
        made = self.service.create_aggregate(name, availability_zone)
        return self._wrap(made)  # type: ignore[return-value]

    def update(self, aggregate: Any, values: dict[str, Any]) -> Aggregate:
        """Change the name or availability zone."""
        changed = self.service.update_aggregate(id_of(aggregate), values)
        return self._wrap(changed)  # type: ignore[return-value]

    def add_host(self, aggregate: Any, host: str) -> Aggregate:
        """Add a compute host to an aggregate."""
        changed = self.service.add_aggregate_host(id_of(aggregate), host)
        return self._wrap(changed)  # type: ignore[return-value]

    def remove_host(self, aggregate: Any, host: str) -> Aggregate:
        """Remove a host from an aggregate."""
        changed = self.service.remove_aggregate_host(id_of(aggregate), host)
        return self._wrap(changed)  # type: ignore[return-value]

    def set_metadata(self, aggregate: Any, metadata: dict[str, Any]) -> Aggregate:
        """Merge metadata into an aggregate's."""
        changed = self.service.set_aggregate_metadata(id_of(aggregate), metadata)
        return self._wrap(changed)  # type: ignore[return-value]

    def delete(self, aggregate: Any) -> None:
        """Delete an aggregate (it must have no hosts)."""
        self.service.delete_aggregate(id_of(aggregate))


class Host(ClientObject):
    """A compute host (``host_name``, ``service``, ``zone``)."""


class HostManager(Manager):
    """``client.hosts``: the hosts where ``nova-compute`` runs."""

    resource_class = Host

    def list(self, zone: str | None = None) -> list[Host]:
        """Every compute host (in *zone* when given)."""
        hosts = [
            {"host_name": host, "service": "compute", "zone": "nova"}
            for host in self.service.compute_hosts()
        ]
        return self._wrap_all([h for h in hosts if zone in (None, h["zone"])])  # type: ignore[return-value]

    def get(self, host: str) -> builtins.list[Host]:
        """The host *host* (novaclient answers a list); NotFound when nova lacks it."""
        found = [h for h in self.list() if h.host_name == host]
        if not found:
            raise exception.NotFound(f"Compute host {host} could not be found.")
        return found
