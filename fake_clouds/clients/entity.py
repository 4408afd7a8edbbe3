"""The client of the generic entity service: ``client.entities``."""

from __future__ import annotations

from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager, id_of


class GenericEntity(ClientObject):
    """An entity of an author-defined kind (``kind``, ``status``, attributes)."""


class EntityManager(Manager):
    """``client.entities``."""

    resource_class = GenericEntity

    def create(
        self, kind: str, attrs: dict[str, Any] | None = None, name: str | None = None
    ) -> GenericEntity:
        """Create an entity of *kind*."""
        return self._wrap(self.service.create_entity(kind, attrs, name))  # type: ignore[return-value]

    def get(self, entity: Any) -> GenericEntity:
        """Return one entity."""
        return self._wrap(self.service.get_entity(id_of(entity)))  # type: ignore[return-value]

    def list(self, kind: str | None = None, **filters: Any) -> list[GenericEntity]:
        """Return entities, optionally of one kind and filtered by field values."""
        return self._wrap_all(self.service.list_entities(kind, **filters))  # type: ignore[return-value]

    def update(
        self, entity: Any, attrs: dict[str, Any] | None = None, name: str | None = None
    ) -> GenericEntity:
        """Change attributes or the name."""
        return self._wrap(self.service.update_entity(id_of(entity), attrs, name))  # type: ignore[return-value]

    def action(self, entity: Any, action: str) -> GenericEntity:
        """Run a kind-defined action."""
        return self._wrap(self.service.entity_action(id_of(entity), action))  # type: ignore[return-value]

    def delete(self, entity: Any) -> None:
        """Delete an entity."""
        self.service.delete_entity(id_of(entity))


class EntityClient:
    """Client bound to one generic entity service."""

    def __init__(self, service: Any) -> None:
        self.entities = EntityManager(service)

    def create(
        self, kind: str, attrs: dict[str, Any] | None = None, name: str | None = None
    ) -> GenericEntity:
        """Shortcut for ``entities.create``."""
        return self.entities.create(kind, attrs, name)
