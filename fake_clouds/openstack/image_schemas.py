"""The JSON schemas glance publishes under ``/v2/schemas`` (images, members, metadefs).

Clients fetch them to learn which attributes an entity has (openstacksdk's
``get_*_schema``, glanceclient validates its arguments against them). Each
document lists the attributes the fake's entities carry, with their JSON
types; free-form image properties are strings (``additionalProperties``).
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, route

_STR = {"type": "string"}
_NSTR = {"type": ["null", "string"]}
_INT = {"type": "integer"}
_NINT = {"type": ["null", "integer"]}
_BOOL = {"type": "boolean"}
_STRS = {"type": "array", "items": {"type": "string"}}
_STAMP = {"type": "string", "format": "date-time"}

_IMAGE = {
    "id": {"type": "string", "pattern": "^[0-9a-fA-F-]{36}$"},
    "name": {"type": ["null", "string"], "maxLength": 255},
    "status": {
        "type": "string",
        "enum": ["queued", "saving", "active", "killed", "deleted", "deactivated"],
    },
    "visibility": {"type": "string", "enum": ["public", "private", "shared", "community"]},
    "protected": _BOOL,
    "os_hidden": _BOOL,
    "checksum": _NSTR,
    "os_hash_algo": _NSTR,
    "os_hash_value": _NSTR,
    "owner": _NSTR,
    "size": _NINT,
    "virtual_size": _NINT,
    "min_ram": _INT,
    "min_disk": _INT,
    "disk_format": _NSTR,
    "container_format": _NSTR,
    "tags": _STRS,
    "created_at": _STAMP,
    "updated_at": _STAMP,
    "self": _STR,
    "file": _STR,
    "schema": _STR,
}
_MEMBER = {
    "image_id": _STR,
    "member_id": _STR,
    "status": {"type": "string", "enum": ["pending", "accepted", "rejected"]},
    "created_at": _STAMP,
    "updated_at": _STAMP,
    "schema": _STR,
}
_NAMESPACE = {
    "namespace": _STR,
    "display_name": _STR,
    "description": _STR,
    "visibility": {"type": "string", "enum": ["public", "private"]},
    "protected": _BOOL,
    "owner": _STR,
    "resource_type_associations": {"type": "array", "items": {"type": "object"}},
    "properties": {"type": "object"},
    "objects": {"type": "array", "items": {"type": "object"}},
    "tags": {"type": "array", "items": {"type": "object"}},
    "created_at": _STAMP,
    "updated_at": _STAMP,
    "schema": _STR,
    "self": _STR,
}
_PROPERTY = {
    "name": _STR,
    "title": _STR,
    "description": _STR,
    "type": {
        "type": "string",
        "enum": ["array", "boolean", "integer", "number", "object", "string"],
    },
    "default": {},
    "enum": {"type": "array"},
    "minimum": {"type": "number"},
    "maximum": {"type": "number"},
    "readonly": _BOOL,
    "operators": _STRS,
}
_OBJECT = {
    "name": _STR,
    "description": _STR,
    "required": _STRS,
    "properties": {"type": "object"},
    "created_at": _STAMP,
    "updated_at": _STAMP,
    "schema": _STR,
    "self": _STR,
}
_RESOURCE_TYPE = {
    "name": _STR,
    "prefix": _STR,
    "properties_target": _STR,
    "created_at": _STAMP,
    "updated_at": _STAMP,
}
_TAG = {"name": _STR, "created_at": _STAMP, "updated_at": _STAMP}

#: schema name -> (entity properties, required, collection key or None)
_ENTITIES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "image": (_IMAGE, []),
    "member": (_MEMBER, []),
    "metadefs/namespace": (_NAMESPACE, ["namespace"]),
    "metadefs/object": (_OBJECT, ["name"]),
    "metadefs/property": (_PROPERTY, ["name", "title", "type"]),
    "metadefs/resource_type": (_RESOURCE_TYPE, ["name"]),
    "metadefs/tag": (_TAG, ["name"]),
}
#: collection schema name -> (its entity schema, the list key)
_COLLECTIONS = {
    "images": ("image", "images"),
    "members": ("member", "members"),
    "metadefs/namespaces": ("metadefs/namespace", "namespaces"),
    "metadefs/objects": ("metadefs/object", "objects"),
    "metadefs/properties": ("metadefs/property", "properties"),
    "metadefs/resource_types": ("metadefs/resource_type", "resource_type_associations"),
    "metadefs/tags": ("metadefs/tag", "tags"),
}


def schema_document(name: str) -> dict[str, Any]:
    """Return the schema called *name* (``image``, ``metadefs/tags`` ...); KeyError if none."""
    if name in _COLLECTIONS:
        entity, key = _COLLECTIONS[name]
        return {
            "name": name.rsplit("/", 1)[-1],
            "properties": {
                key: {"type": "array", "items": schema_document(entity)},
                "first": _STR,
                "next": _STR,
                "schema": _STR,
            },
            "links": [
                {"rel": "first", "href": "{first}"},
                {"rel": "next", "href": "{next}"},
                {"rel": "describedby", "href": "{schema}"},
            ],
        }
    properties, required = _ENTITIES[name]
    doc: dict[str, Any] = {
        "name": name.rsplit("/", 1)[-1],
        "properties": dict(properties),
        "additionalProperties": name == "image" and {"type": "string"},
    }
    if required:
        doc["required"] = list(required)
    return doc


class ImageSchemaRoutes:
    """``GET /v2/schemas/...`` of :class:`~fake_clouds.openstack.image.ImageAPI` (a mixin)."""

    @route("GET", "/v2/schemas/<path:name>")
    def schema(self, req: ApiRequest, name: str) -> Reply:
        """One schema document, or glance's 404."""
        try:
            return Reply(200, schema_document(name))
        except KeyError:
            raise ApiError(404, f"Schema {name} could not be found.", unserved=True) from None
