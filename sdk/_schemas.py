"""Schema-derived data of resource plug-in classes, converted once per class.

Nothing here is public API; :class:`sdk.resource.Resource` uses it so that
building a resource does not convert its class's schemas again.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple

from sdk import attributes as attributes_mod
from sdk import properties as properties_mod


class _ClassSchemas(NamedTuple):
    """Schema-derived data of one plug-in class, computed once, not per instance."""

    properties_source: Any
    properties_copy: dict[str, Any]
    attributes_source: Any
    attributes_copy: dict[str, Any]
    properties: dict[str, properties_mod.Schema]
    attributes: dict[str, attributes_mod.Schema]


_SCHEMAS: weakref.WeakKeyDictionary[type, _ClassSchemas] = weakref.WeakKeyDictionary()


def class_schemas(res: Any) -> _ClassSchemas:
    """Return the converted property and attribute schemas of *res*'s class.

    Cached per class; the cache is used only while the class (or instance)
    still has the very same schema objects with the same entries, so a plug-in
    that swaps or edits its schema is converted again.
    """
    props, attrs = res.properties_schema, res.attributes_schema
    cls = type(res)
    cached = _SCHEMAS.get(cls)
    if (
        cached is not None
        and cached.properties_source is props
        and cached.attributes_source is attrs
        and cached.properties_copy == props
        and cached.attributes_copy == attrs
    ):
        return cached
    converted = _ClassSchemas(
        props,
        dict(props) if isinstance(props, Mapping) else {},
        attrs,
        dict(attrs) if isinstance(attrs, Mapping) else {},
        properties_mod.schemata(props),
        attributes_mod.schemata({**attributes_mod.base_attributes_schema(), **dict(attrs)}),
    )
    _SCHEMAS[cls] = converted
    return converted
