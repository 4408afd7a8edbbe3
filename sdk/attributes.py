"""Attribute schemas and the :class:`Attributes` mapping of a resource.

Attributes expose a resource's runtime state (``get_attr``). A plug-in
declares ``attributes_schema = {name: Schema(...)}``; every resource also has
the ``show`` attribute (:func:`base_attributes_schema`). Values come from a
resolver (the resource's ``_resolve_attribute``) and are cached per the
attribute's ``cache_mode`` until :meth:`Attributes.reset_resolved_values`.
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any

from sdk import exception, support

LOG = logging.getLogger(__name__)


class Schema:
    """The schema of one attribute: description, type, support status, caching."""

    STRING = "String"
    NUMBER = "Number"
    INTEGER = "Integer"
    BOOLEAN = "Boolean"
    MAP = "Map"
    LIST = "List"

    #: The valid attribute types.
    TYPES: tuple[str, ...] = (STRING, NUMBER, INTEGER, BOOLEAN, MAP, LIST)

    CACHE_LOCAL = "cache_local"
    CACHE_NONE = "cache_none"

    #: The valid cache modes: keep the resolved value, or resolve on every read.
    CACHE_MODES: tuple[str, ...] = (CACHE_LOCAL, CACHE_NONE)

    def __init__(
        self,
        description: str | None = None,
        type: str | None = None,  # noqa: A002 - Heat's keyword name
        support_status: support.SupportStatus | None = None,
        cache_mode: str = CACHE_LOCAL,
    ) -> None:
        if description is not None and not isinstance(description, str):
            raise exception.InvalidSchemaError(
                f"An attribute description must be a string, got {description!r}"
            )
        if type is not None and (not isinstance(type, str) or type not in self.TYPES):
            raise exception.InvalidSchemaError(
                f"Invalid attribute type {type!r}; valid types are: {', '.join(self.TYPES)}"
            )
        if support_status is None:
            support_status = support.SupportStatus()
        if not isinstance(support_status, support.SupportStatus):
            raise exception.InvalidSchemaError(
                f"support_status must be a SupportStatus, got {support_status!r}"
            )
        if cache_mode not in self.CACHE_MODES:
            raise exception.InvalidSchemaError(
                f"Invalid attribute cache_mode {cache_mode!r}; valid modes are: "
                f"{', '.join(self.CACHE_MODES)}"
            )
        self.description = description
        self.type = type
        self.support_status = support_status
        self.cache_mode = cache_mode

    @classmethod
    def from_value(cls, value: Schema | str | None) -> Schema:
        """Return *value* as a Schema (a bare string is taken as the description)."""
        if isinstance(value, Schema):
            return value
        if value is None or isinstance(value, str):
            return cls(value)
        raise exception.InvalidSchemaError(
            f"An attribute schema must be an attributes.Schema or a description, got {value!r}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description of the attribute."""
        return {
            "description": self.description,
            "type": self.type,
            "support_status": self.support_status.to_dict(),
            "cache_mode": self.cache_mode,
        }

    def __repr__(self) -> str:
        return f"Schema({self.description!r}, type={self.type!r})"


SHOW = "show"


def base_attributes_schema() -> dict[str, Schema]:
    """Return the attributes every resource has: ``show``, never cached."""
    return {
        SHOW: Schema(
            "Detailed information about the resource.",
            type=Schema.MAP,
            cache_mode=Schema.CACHE_NONE,
        )
    }


def schemata(schema: Mapping[str, Schema | str]) -> dict[str, Schema]:
    """Return *schema* with every value an attribute :class:`Schema`."""
    if not isinstance(schema, Mapping):
        raise exception.InvalidSchemaError(
            f"An attributes schema must be a dict of Schemas, got {schema!r}"
        )
    if all(isinstance(value, Schema) for value in schema.values()):
        # already converted (every resource's Attributes gets its class's converted schema)
        return dict(schema)  # type: ignore[arg-type]
    out: dict[str, Schema] = {}
    for name, value in schema.items():
        try:
            out[name] = Schema.from_value(value)
        except exception.InvalidSchemaError as ex:
            raise exception.InvalidSchemaError(f"Attribute {name}: {ex}") from None
    return out


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    Schema.STRING: lambda v: isinstance(v, str),
    Schema.NUMBER: lambda v: isinstance(v, numbers.Number) and not isinstance(v, bool),
    Schema.INTEGER: lambda v: isinstance(v, int) and not isinstance(v, bool),
    Schema.BOOLEAN: lambda v: (
        isinstance(v, bool) or (isinstance(v, str) and v.lower() in ("true", "false"))
    ),
    Schema.MAP: lambda v: isinstance(v, Mapping),
    Schema.LIST: lambda v: isinstance(v, Sequence) and not isinstance(v, str),
}


def type_matches(schema: Schema, value: Any) -> bool:
    """Return True when *value* fits the attribute's declared type (or it has none)."""
    if schema.type is None or value is None:
        return True
    return _TYPE_CHECKS[schema.type](value)


class Attributes(Mapping[str, Any]):
    """The attributes of one resource, resolved on demand and cached.

    ``resolver(name)`` returns the current value of an attribute. Values of
    ``CACHE_LOCAL`` attributes are kept until :meth:`reset_resolved_values`;
    ``CACHE_NONE`` attributes are resolved on every read. A value that does
    not fit the declared type is returned anyway, with a logged warning.
    """

    def __init__(
        self,
        resource_name: str,
        schema: Mapping[str, Schema | str],
        resolver: Callable[[str], Any],
    ) -> None:
        self.resource_name = resource_name
        self.schema = schemata(schema)
        self._resolver = resolver
        self._cache: dict[str, Any] = {}

    def _schema_for(self, key: str) -> Schema:
        try:
            return self.schema[key]
        except (KeyError, TypeError):
            raise exception.InvalidTemplateAttribute(resource=self.resource_name, key=key) from None

    def __getitem__(self, key: str) -> Any:
        schema = self._schema_for(key)
        if key in self._cache:
            return self._cache[key]
        value = self._resolver(key)
        if not type_matches(schema, value):
            LOG.warning(
                "Attribute %s of resource %s is declared %s but resolved to %r",
                key,
                self.resource_name,
                schema.type,
                value,
            )
        if schema.cache_mode != Schema.CACHE_NONE:
            self._cache[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self.schema)

    def __len__(self) -> int:
        return len(self.schema)

    def __contains__(self, key: object) -> bool:
        return key in self.schema

    def __repr__(self) -> str:
        return f"Attributes({self.resource_name!r}, {list(self.schema)!r})"

    def reset_resolved_values(self) -> None:
        """Forget every cached value (after the resource changed)."""
        self._cache.clear()

    @property
    def cached_attrs(self) -> dict[str, Any]:
        """A copy of the cached values, for persistence."""
        return dict(self._cache)

    def set_cached_attr(self, key: str, value: Any) -> None:
        """Store *value* as the cached value of *key* (e.g. restored from the store)."""
        schema = self._schema_for(key)
        if schema.cache_mode != Schema.CACHE_NONE:
            self._cache[key] = value

    def get_cache_mode(self, key: str) -> str:
        """Return the cache mode of attribute *key*."""
        return self._schema_for(key).cache_mode


def select_path(value: Any, path: Sequence[Any]) -> Any:
    """Follow *path* into *value*; a step that leads nowhere gives None.

    As in Heat, a missing key, an index out of range, a key that cannot index a
    list or a step into a scalar makes ``get_attr`` null rather than an error
    (templates rely on it: ``get_attr: [server, networks, private, 0]`` before
    a network is attached). A numeric string indexes a list.
    """
    current = value
    for part in path:
        if current is None:
            return None
        if isinstance(current, Mapping):
            current = current.get(part) if isinstance(part, Hashable) else None
        elif isinstance(current, Sequence) and not isinstance(current, str | bytes):
            if isinstance(part, str) and part.lstrip("-").isdigit():
                part = int(part)
            if not isinstance(part, int) or isinstance(part, bool):
                return None
            if not -len(current) <= part < len(current):
                return None
            current = current[part]
        else:
            return None
    return current
