"""What the dynamic rules create a resource class with: its property map and its companions.

Both come from the ``[tool.plugsim.lint]`` tables of the project (keyed by type name), else from
a class attribute (``lint_properties``, ``lint_companions``), else (properties only) from the
schema's simplest valid map; when none is usable the reason is returned instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def property_map(
    type_name: str, cls: type, configured: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """The property map to create *cls* with, and where it came from (or why there is none)."""
    if type_name in configured:
        value = configured[type_name]
        if isinstance(value, Mapping):
            return dict(value), "[tool.plugsim.lint] properties"
        return None, f"[tool.plugsim.lint] properties.{type_name!r} is not a table"
    own = getattr(cls, "lint_properties", None)
    if own is not None:
        if isinstance(own, Mapping):
            return dict(own), f"{cls.__name__}.lint_properties"
        return None, f"{cls.__name__}.lint_properties is {type(own).__name__}, not a dict"
    from sdk.testing.strategies import Ungeneratable

    try:
        from sdk.testing.strategies import simplest_properties

        return simplest_properties(cls), "generated from the schema"
    except Ungeneratable as exc:
        return None, f"no property map can be generated ({exc})"
    except Exception as exc:  # noqa: BLE001 - a schema the strategies cannot read
        return None, f"no property map can be generated ({type(exc).__name__}: {exc})"


def companion_map(
    type_name: str, cls: type, configured: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """The companion resources *cls* is created beside (or why they are unusable)."""
    if type_name in configured:
        value, origin = configured[type_name], f"[tool.plugsim.lint] companions.{type_name!r}"
    else:
        value, origin = getattr(cls, "lint_companions", None) or {}, "lint_companions"
        origin = f"{cls.__name__}.{origin}"
    if not isinstance(value, Mapping) or not all(
        isinstance(body, Mapping) and isinstance(body.get("type"), str) for body in value.values()
    ):
        return None, f"{origin} must map resource names to bodies with a 'type', got {value!r}"
    return {str(k): dict(v) for k, v in value.items()}, origin


def is_reference(value: Any) -> bool:
    """True for an intrinsic function such as ``{get_resource: server}``."""
    return (
        isinstance(value, Mapping) and len(value) == 1 and str(next(iter(value))).startswith("get_")
    )
