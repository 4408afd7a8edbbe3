"""What a directive documents: resource classes by module mapping or class path, and what is visible.

A type, property or attribute whose *current* support status is HIDDEN is never documented.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from sdk import exception, support
from sdk.resource import Resource


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except Exception as ex:
        raise exception.ConfigurationError(
            f"cannot import module '{module}': {type(ex).__name__}: {ex}"
        ) from None


def module_resource_types(module: str) -> dict[str, type[Resource]]:
    """Return ``{type name: class}`` of *module*'s resource mapping, sorted by name.

    ``available_resource_mapping()`` wins over ``resource_mapping()`` when a
    module defines both, as in the plug-in loader. Raises
    :class:`sdk.exception.ConfigurationError` naming the module when it cannot
    be imported, has no mapping function, or the mapping is not a map of
    resource classes.
    """
    mod = _import(module)
    func_name = "available_resource_mapping"
    func = getattr(mod, func_name, None)
    if not callable(func):
        func_name, func = "resource_mapping", getattr(mod, "resource_mapping", None)
    if not callable(func):
        raise exception.ConfigurationError(
            f"module '{module}' defines neither resource_mapping() nor available_resource_mapping()"
        )
    try:
        mapping = func()
    except Exception as ex:
        raise exception.ConfigurationError(
            f"{module}.{func_name}() raised {type(ex).__name__}: {ex}"
        ) from None
    if not isinstance(mapping, Mapping):
        raise exception.ConfigurationError(
            f"{module}.{func_name}() must return a map of type names to classes, "
            f"got {type(mapping).__name__}"
        )
    for name, cls in mapping.items():
        if not (isinstance(cls, type) and issubclass(cls, Resource)):
            raise exception.ConfigurationError(
                f"{module}.{func_name}(): '{name}' maps to {cls!r}, not a Resource subclass"
            )
    return {str(name): mapping[name] for name in sorted(mapping, key=str)}


def find_resource_class(
    type_name: str, module: str | None = None, class_path: str | None = None
) -> type[Resource]:
    """Return the class documenting *type_name*, from a module mapping or a class path.

    Exactly one of *module* and *class_path* (``'package.module.ClassName'``) is
    given. Raises :class:`sdk.exception.ConfigurationError` with a message
    naming what was not found.
    """
    if (module is None) == (class_path is None):
        raise exception.ConfigurationError(
            f"resource type '{type_name}': give exactly one of :module: and :class:"
        )
    if module is not None:
        types = module_resource_types(module)
        if type_name not in types:
            known = ", ".join(types) or "none"
            raise exception.ConfigurationError(
                f"module '{module}' has no resource type '{type_name}' (known: {known})"
            )
        return types[type_name]
    assert class_path is not None
    mod_name, _, attr = class_path.rpartition(".")
    if not mod_name:
        raise exception.ConfigurationError(
            f"class '{class_path}' must be a dotted path such as 'package.module.ClassName'"
        )
    cls = getattr(_import(mod_name), attr, None)
    if cls is None:
        raise exception.ConfigurationError(f"module '{mod_name}' has no attribute '{attr}'")
    if not (isinstance(cls, type) and issubclass(cls, Resource)):
        raise exception.ConfigurationError(f"'{class_path}' is not a Resource subclass")
    return cls


def is_hidden(status: support.SupportStatus | None) -> bool:
    """Return True when the *current* support status is HIDDEN (never documented)."""
    return status is not None and status.status == support.HIDDEN


def visible(schema_map: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Yield ``(name, schema)`` of the members of *schema_map* that are not HIDDEN."""
    for name, s in schema_map.items():
        if not is_hidden(getattr(s, "support_status", None)):
            yield str(name), s
