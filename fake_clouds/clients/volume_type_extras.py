"""cinderclient's ``qos_specs`` and ``volume_encryption_types`` over the generic entity service.

Written from cinder's block storage API reference. Both are entities of the
world's entity service (kinds ``qos_specs`` and ``volume_encryption``), beside
the volume types (:mod:`fake_clouds.clients.volume_types`), so they change at
once, as cinder's do, and one left behind is a leak.

* **QoS specs**: a unique name (409), a ``consumer`` (``front-end``,
  ``back-end`` or ``both``) and string specs (``set_keys`` / ``unset_keys``).
  ``associate`` links a volume type (its ``qos_specs_id``); a type holds one
  QoS specs at a time (400). QoS specs still associated cannot be deleted
  (400) until ``disassociate`` / ``disassociate_all``.
* **Encryption types**: one per volume type (400 when it has one), naming a
  ``provider``, an optional ``cipher``, ``key_size`` and ``control_location``
  (``front-end``/``back-end``); none for a type a volume uses (400). Deleting
  the volume type's encryption takes the type's id.
"""

from __future__ import annotations

import builtins
from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager, id_of
from sdk import exception

_CONSUMERS = ("front-end", "back-end", "both")
_LOCATIONS = ("front-end", "back-end")


def _entities(service: Any, kind: str) -> Any:
    """The entity service, with *kind* made and deleted at once."""
    entities = service.world.service("entity")
    spec = entities.counters.get("kinds", {}).get(kind) or {}
    instant = {"create": [None, "ACTIVE"], "update": None, "delete": [None, None]}
    if any(spec.get(k) != v for k, v in instant.items()):
        entities.define_kind(kind, create=(None, "ACTIVE"), update=None, delete=(None, None))
    return entities


def _specs(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str | int | float) for k, v in value.items()
    ):
        raise exception.BadRequest("Invalid input for field/attribute specs: a map of strings")
    return {k: str(v) for k, v in value.items()}


class QoSSpecs(ClientObject):
    """QoS specs (``id``, ``name``, ``consumer``, ``specs``)."""


class QoSSpecsManager(Manager):
    """``client.qos_specs``."""

    resource_class = QoSSpecs

    def __init__(self, service: Any, types: Any) -> None:
        super().__init__(service)
        self._types = types

    def _view(self, entity: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": entity["id"],
            "name": entity["name"],
            "consumer": entity.get("consumer", "back-end"),
            "specs": dict(entity.get("specs") or {}),
        }

    def list(self) -> list[QoSSpecs]:
        """Every QoS specs."""
        made = _entities(self.service, "qos_specs").list_entities("qos_specs")
        return self._wrap_all([self._view(e) for e in made])  # type: ignore[return-value]

    def get(self, qos_specs: Any) -> QoSSpecs:
        """One QoS specs by id (404 otherwise)."""
        ref = id_of(qos_specs)
        for item in self.list():
            if item.id == ref:
                return item
        raise exception.NotFound(f"No such QoS spec {ref}.")

    def create(self, name: str, specs: dict[str, Any]) -> QoSSpecs:
        """Create QoS specs; ``consumer`` may be one of the *specs* (409 for a taken name)."""
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise exception.BadRequest("Invalid input for field/attribute name: 1 to 255 chars")
        values = _specs(specs)
        consumer = values.pop("consumer", "back-end")
        if consumer not in _CONSUMERS:
            raise exception.BadRequest(f"Invalid consumer {consumer!r}: one of {_CONSUMERS}")
        if any(q.name == name for q in self.list()):
            raise exception.Conflict(f"QoS Specs {name} already exists.")
        attrs = {"consumer": consumer, "specs": values}
        # the made entity is the answer (cinder's one POST): no call comes between the
        # making and the id reaching the caller, where a failure would orphan the specs
        made = _entities(self.service, "qos_specs").create_entity("qos_specs", attrs, name=name)
        return self._wrap(self._view(made))  # type: ignore[return-value]

    def set_keys(self, qos_specs: Any, specs: dict[str, Any]) -> QoSSpecs:
        """Add or change spec keys."""
        item = self.get(qos_specs)
        merged = {**item.specs, **_specs(specs)}
        _entities(self.service, "qos_specs").update_entity(item.id, {"specs": merged})
        return self.get(item.id)

    def unset_keys(self, qos_specs: Any, keys: builtins.list[str]) -> None:
        """Remove spec keys (404 for a key it lacks)."""
        item = self.get(qos_specs)
        missing = [k for k in keys if k not in item.specs]
        if missing:
            raise exception.NotFound(f"QoS spec {item.id} has no key {missing[0]}.")
        kept = {k: v for k, v in item.specs.items() if k not in keys}
        _entities(self.service, "qos_specs").update_entity(item.id, {"specs": kept})

    def get_associations(self, qos_specs: Any) -> builtins.list[ClientObject]:
        """The volume types associated with the QoS specs."""
        item = self.get(qos_specs)
        linked = [t for t in self._type_entities() if t.get("qos_specs_id") == item.id]
        return [
            ClientObject(
                self, {"association_type": "volume_type", "id": t["id"], "name": t["name"]}
            )
            for t in linked
        ]

    def _type_entities(self) -> builtins.list[dict[str, Any]]:
        return list(self._types.entities().list_entities("volume_type"))

    def associate(self, qos_specs: Any, vtype_id: Any) -> None:
        """Link a volume type (400 when it has other QoS specs)."""
        item = self.get(qos_specs)
        vtype = self._types.get(vtype_id)
        current = self._types.entities().get_entity(vtype.id).get("qos_specs_id")
        if current and current != item.id:
            raise exception.BadRequest(
                f"Volume type {vtype.id} is already associated with QoS specs {current}."
            )
        self._types.entities().update_entity(vtype.id, {"qos_specs_id": item.id})

    def disassociate(self, qos_specs: Any, vtype_id: Any) -> None:
        """Unlink a volume type (404 only when the specs or the type do not exist).

        cinder's ``volume_type_qos_disassociate`` clears the link of a type linked to
        these specs and does nothing for one that is not: no error either way.
        """
        item = self.get(qos_specs)
        vtype = self._types.get(vtype_id)
        if self._types.entities().get_entity(vtype.id).get("qos_specs_id") != item.id:
            return
        self._types.entities().update_entity(vtype.id, {"qos_specs_id": None})

    def disassociate_all(self, qos_specs: Any) -> None:
        """Unlink every volume type."""
        item = self.get(qos_specs)
        for vtype in self._type_entities():
            if vtype.get("qos_specs_id") == item.id:
                self._types.entities().update_entity(vtype["id"], {"qos_specs_id": None})

    def delete(self, qos_specs: Any, force: bool = False) -> None:
        """Delete QoS specs (400 while associated, unless *force*)."""
        item = self.get(qos_specs)
        if self.get_associations(item.id):
            if not force:
                raise exception.BadRequest(
                    f"QoS Specs {item.id} is still associated with entities."
                )
            self.disassociate_all(item.id)
        _entities(self.service, "qos_specs").delete_entity(item.id)


class VolumeEncryptionType(ClientObject):
    """A volume type's encryption (``volume_type_id``, ``provider``, ``cipher`` ...)."""


class VolumeEncryptionTypeManager(Manager):
    """``client.volume_encryption_types``: keyed by the volume type."""

    resource_class = VolumeEncryptionType

    def __init__(self, service: Any, types: Any) -> None:
        super().__init__(service)
        self._types = types

    def _entity(self, vtype_id: str) -> dict[str, Any] | None:
        items = _entities(self.service, "volume_encryption").list_entities("volume_encryption")
        return next((e for e in items if e.get("volume_type_id") == vtype_id), None)

    @staticmethod
    def _view(entity: dict[str, Any]) -> dict[str, Any]:
        keys = ("volume_type_id", "provider", "cipher", "key_size", "control_location")
        return {"encryption_id": entity["id"], **{k: entity.get(k) for k in keys}}

    def list(self) -> list[VolumeEncryptionType]:
        """Every volume type's encryption."""
        items = _entities(self.service, "volume_encryption").list_entities("volume_encryption")
        return self._wrap_all([self._view(e) for e in items])  # type: ignore[return-value]

    def get(self, volume_type: Any) -> VolumeEncryptionType:
        """The encryption of a volume type (an empty object when it has none, as cinder)."""
        vtype = self._types.get(volume_type)
        entity = self._entity(vtype.id)
        return self._wrap(self._view(entity) if entity else {})  # type: ignore[return-value]

    def _check(self, vtype: Any, specs: Any, creating: bool) -> dict[str, Any]:
        if not isinstance(specs, dict):
            raise exception.BadRequest("Invalid input for field/attribute encryption: a map")
        unknown = sorted(set(specs) - {"provider", "cipher", "key_size", "control_location"})
        if unknown:
            raise exception.BadRequest(f"Additional properties are not allowed ({unknown[0]})")
        if creating and not specs.get("provider"):
            raise exception.BadRequest("Invalid input for field/attribute provider: required")
        location = specs.get("control_location", "front-end")
        if location not in _LOCATIONS:
            raise exception.BadRequest(
                f"Invalid control_location {location!r}: one of {_LOCATIONS}"
            )
        size = specs.get("key_size")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise exception.BadRequest(f"Invalid key_size {size!r}: a non-negative integer")
        users = [
            v["id"]
            for v in self.service.list_volumes()
            if v.get("volume_type") in (vtype.id, vtype.name)
        ]
        if users:
            raise exception.BadRequest(f"Volume type {vtype.id} is in use by volume {users[0]}.")
        return {"control_location": location, **specs} if creating else dict(specs)

    def create(self, volume_type: Any, specs: dict[str, Any]) -> VolumeEncryptionType:
        """Give a volume type its encryption (400 when it has one)."""
        vtype = self._types.get(volume_type)
        if self._entity(vtype.id) is not None:
            raise exception.BadRequest(
                f"Volume type encryption for type {vtype.id} already exists."
            )
        attrs = {"volume_type_id": vtype.id, "cipher": None, "key_size": None}
        attrs.update(self._check(vtype, specs, creating=True))
        entities = _entities(self.service, "volume_encryption")
        # one POST in cinder: the answer is the made entity, not a second read
        made = entities.create_entity("volume_encryption", attrs, name=vtype.name)
        return self._wrap(self._view(made))  # type: ignore[return-value]

    def update(self, volume_type: Any, specs: dict[str, Any]) -> dict[str, Any]:
        """Change a volume type's encryption (404 when it has none)."""
        vtype = self._types.get(volume_type)
        entity = self._entity(vtype.id)
        if entity is None:
            raise exception.NotFound(f"Volume type encryption for type {vtype.id} not found.")
        changes = self._check(vtype, specs, creating=False)
        _entities(self.service, "volume_encryption").update_entity(entity["id"], changes)
        return changes

    def delete(self, volume_type: Any) -> None:
        """Remove a volume type's encryption (404 when it has none)."""
        vtype = self._types.get(volume_type)
        entity = self._entity(vtype.id)
        if entity is None:
            raise exception.NotFound(f"Volume type encryption for type {vtype.id} not found.")
        _entities(self.service, "volume_encryption").delete_entity(entity["id"])
