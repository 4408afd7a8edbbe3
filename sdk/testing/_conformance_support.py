"""Private helpers of :mod:`sdk.testing.conformance`: declaration checks, spies, fault rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sdk import exception
from sdk.resource import Resource

TRANSIENT_KINDS = ("throttle", "conflict", "eventual_consistency", "drift")


class ConformanceDeclarationError(exception.PlugsimError):
    """A conformance class is missing an attribute or declares a wrong one."""


def declared(cls: type, name: str) -> bool:
    """True when *cls* (not ``Resource`` itself) defines method *name*."""
    found = getattr(cls, name, None)
    return callable(found) and getattr(Resource, name, None) is not found


def resolve_type(type_name: str) -> type[Resource]:
    """Return the installed plug-in class registered as *type_name*."""
    from simulator.type_sources import world_registry

    mapping = world_registry().plugins()
    if type_name not in mapping:
        raise ConformanceDeclarationError(
            f"resource_type {type_name!r} is not an installed resource type "
            f"(set resource_class to the plug-in class instead)"
        )
    plugin = mapping[type_name]
    if not issubclass(plugin, Resource):
        raise ConformanceDeclarationError(
            f"resource_type {type_name!r} is registered to {plugin!r}, not a Resource subclass"
        )
    return plugin


def validate_declaration(cls: type) -> None:
    """Check a conformance class's attributes; raise naming the first problem."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    plugin = cls.__dict__.get("resource_class", getattr(cls, "resource_class", None))
    type_name = getattr(cls, "resource_type", None)
    if plugin is None and type_name is None:
        raise ConformanceDeclarationError(
            f"{where}: missing required attribute 'resource_class' (the plug-in class) "
            f"or 'resource_type' (its registered type name)"
        )
    if plugin is not None and not (isinstance(plugin, type) and issubclass(plugin, Resource)):
        raise ConformanceDeclarationError(
            f"{where}: attribute 'resource_class' must be a subclass of sdk.resource.Resource, "
            f"got {plugin!r}"
        )
    if getattr(cls, "valid_properties", None) is None:
        raise ConformanceDeclarationError(
            f"{where}: missing required attribute 'valid_properties' "
            "(a property map the plug-in accepts)"
        )
    for attr in (
        "valid_properties",
        "update_in_place",
        "update_replace",
        "immutable_update",
        "companions",
    ):
        value = getattr(cls, attr, None)
        if value is not None and not isinstance(value, Mapping):
            raise ConformanceDeclarationError(
                f"{where}: attribute '{attr}' must be a mapping of property values, "
                f"got {type(value).__name__}"
            )
    survives = getattr(cls, "survives", None)
    for kind in survives or ():
        if kind not in TRANSIENT_KINDS:
            raise ConformanceDeclarationError(
                f"{where}: attribute 'survives': unknown fault kind {kind!r} "
                f"(known: {', '.join(TRANSIENT_KINDS)})"
            )


class Spy:
    """Wraps a bound plug-in method and records each call's arguments."""

    def __init__(self, inner: Callable[..., Any]) -> None:
        self.inner = inner
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> Any:
        self.calls.append(args)
        return self.inner(*args)


def fail_rule(service: str, operation: str, nth: int, label: str) -> dict[str, Any]:
    """A fault rule failing the *nth* ``service.operation`` call with a 500 naming *label*."""
    return {
        "name": label,
        "service": service,
        "operation": operation,
        "nth": nth,
        "effect": {"type": "error", "status": 500, "message": f"injected failure of {label}"},
    }


def numbered_calls(trace: Sequence[Any]) -> list[tuple[str, str, int]]:
    """``(service, operation, nth)`` of each call; runs of one repeated call keep ends only."""
    seen: dict[tuple[str, str], int] = {}
    out: list[tuple[str, str, int]] = []
    for index, entry in enumerate(trace):
        key = (entry.service, entry.operation)
        seen[key] = seen.get(key, 0) + 1
        prev = trace[index - 1] if index else None
        nxt = trace[index + 1] if index + 1 < len(trace) else None
        same_prev = prev is not None and (prev.service, prev.operation) == key
        same_next = nxt is not None and (nxt.service, nxt.operation) == key
        if same_prev and same_next:
            continue
        out.append((key[0], key[1], seen[key]))
    return out
