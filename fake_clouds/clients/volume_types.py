"""cinderclient's ``volume_types`` and ``volume_type_access`` over the generic entity service.

A volume type is an entity of kind ``volume_type`` of the world's entity
service, the same entities the OpenStack wire serves under ``/types``
(:mod:`fake_clouds.openstack.volume_types`) and world files declare, so a type
made here is seen there. Types change at once, as cinder's do; names are
unique (409); a private type lists the projects given access to it.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager, id_of
from sdk import exception

_KIND = "volume_type"
_INSTANT = {"create": [None, "ACTIVE"], "update": None, "delete": [None, None]}


def _specs(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str | int | float) for k, v in value.items()
    ):
        raise exception.BadRequest("Invalid input for field/attribute extra_specs: strings")
    return {k: str(v) for k, v in value.items()}


class VolumeType(ClientObject):
    """A volume type with cinderclient's extra-spec methods."""

    def get_keys(self) -> dict[str, str]:
        """The type's extra specs, read now."""
        return dict(self.manager.get(self.id).extra_specs)

    def set_keys(self, metadata: dict[str, Any]) -> dict[str, str]:
        """Merge *metadata* into the extra specs; return them all."""
        merged = {**self.get_keys(), **_specs(metadata)}
        self.manager.entities().update_entity(
            self.id, {"extra_specs": dict(sorted(merged.items()))}
        )
        return merged

    def unset_keys(self, keys: Any) -> None:
        """Remove each of *keys* from the extra specs (absent keys are ignored)."""
        specs = {k: v for k, v in self.get_keys().items() if k not in set(keys)}
        self.manager.entities().update_entity(self.id, {"extra_specs": specs})


class VolumeTypeManager(Manager):
    """``client.volume_types``: create, get, list, update, delete."""

    resource_class = VolumeType

    def entities(self) -> Any:
        """The entity service holding the types, their kind made instant."""
        entities = self.service.world.service("entity")
        spec = entities.counters.get("kinds", {}).get(_KIND) or {}
        if any(spec.get(k) != v for k, v in _INSTANT.items()):
            entities.define_kind(_KIND, create=(None, "ACTIVE"), update=None, delete=(None, None))
        return entities

    def _view(self, entity: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": entity["id"],
            "name": entity["name"],
            "description": entity.get("description") or None,
            "is_public": bool(entity.get("is_public", True)),
            "extra_specs": dict(entity.get("extra_specs") or {}),
            "access": list(entity.get("access") or []),
            "qos_specs_id": entity.get("qos_specs_id"),
        }

    def list(self) -> list[VolumeType]:
        """Every volume type made (cinder's built-in ``__DEFAULT__`` is the wire's)."""
        made = self.entities().list_entities(_KIND)
        return self._wrap_all([self._view(e) for e in made])  # type: ignore[return-value]

    def get(self, volume_type: Any) -> VolumeType:
        """One type by id (NotFound otherwise)."""
        ref = id_of(volume_type)
        for vtype in self.list():
            if vtype.id == ref:
                return vtype
        raise exception.NotFound(f"Volume type {ref} could not be found.")

    def create(
        self, name: str, description: str | None = None, is_public: bool = True
    ) -> VolumeType:
        """Create a type (409 when the name is taken)."""
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise exception.BadRequest("Invalid input for field/attribute name: 1 to 255 chars")
        if not isinstance(is_public, bool):
            raise exception.BadRequest("Invalid input for field/attribute is_public: a boolean")
        if any(t.name == name for t in self.list()):
            raise exception.Conflict(f"Volume Type {name} already exists.")
        attrs = {
            "description": description or "",
            "is_public": is_public,
            "extra_specs": {},
            "access": [],
        }
        # one call once the name is free, as cinder's one POST: the type comes back
        # from it, so no failure can come between its making and its id reaching the caller
        return self._wrap(self._view(self.entities().create_entity(_KIND, attrs, name=name)))  # type: ignore[return-value]

    def update(
        self,
        volume_type: Any,
        name: str | None = None,
        description: str | None = None,
        is_public: bool | None = None,
    ) -> VolumeType:
        """Rename a type or change its description or visibility."""
        vtype = self.get(volume_type)
        if name is not None and name != vtype.name and any(t.name == name for t in self.list()):
            raise exception.Conflict(f"Volume Type {name} already exists.")
        attrs: dict[str, Any] = {}
        if description is not None:
            attrs["description"] = description
        if is_public is not None:
            attrs["is_public"] = bool(is_public)
        self.entities().update_entity(vtype.id, attrs, name=name)
        return self.get(vtype.id)

    def delete(self, volume_type: Any) -> None:
        """Delete a type (400 while a volume uses it, as cinder answers)."""
        vtype = self.get(volume_type)
        users = [
            v["id"]
            for v in self.service.list_volumes()
            if v.get("volume_type") in (vtype.id, vtype.name)
        ]
        if users:
            raise exception.BadRequest(f"Target volume type is still in use: volume {users[0]}.")
        # cinder deletes the type's encryption with it (the entity service's DELETED_WITH)
        self.entities().delete_entity(vtype.id)


class VolumeTypeAccess(ClientObject):
    """One project's access to a private type (``volume_type_id``, ``project_id``)."""


class VolumeTypeAccessManager(Manager):
    """``client.volume_type_access``: the projects that may use a private type."""

    resource_class = VolumeTypeAccess

    def __init__(self, service: Any, types: VolumeTypeManager) -> None:
        super().__init__(service)
        self._types = types

    def _private(self, volume_type: Any) -> VolumeType:
        vtype = self._types.get(volume_type)
        if vtype.is_public:
            raise exception.Conflict("Invalid volume type: type access modification is not "
                                     "applicable to public volume type.")  # fmt: skip
        return vtype

    def list(self, volume_type: Any) -> list[VolumeTypeAccess]:
        """The projects given access to a private type."""
        vtype = self._private(volume_type)
        entries = [{"volume_type_id": vtype.id, "project_id": p} for p in vtype.access]
        return self._wrap_all(entries)  # type: ignore[return-value]

    def add_project_access(self, volume_type: Any, project: str) -> None:
        """Give *project* access to a private type (409 if it has it already)."""
        vtype = self._private(volume_type)
        if not isinstance(project, str) or not project:
            raise exception.BadRequest("Invalid input for field/attribute project: a project id")
        if project in vtype.access:
            raise exception.Conflict(f"Volume type access for {vtype.id}/{project} exists.")
        access = sorted([*vtype.access, project])
        self._types.entities().update_entity(vtype.id, {"access": access})

    def remove_project_access(self, volume_type: Any, project: str) -> None:
        """Take *project*'s access away (404 if it had none)."""
        vtype = self._private(volume_type)
        if project not in vtype.access:
            raise exception.NotFound(f"Volume type access not found for {vtype.id}/{project}.")
        access = [p for p in vtype.access if p != project]
        self._types.entities().update_entity(vtype.id, {"access": access})
