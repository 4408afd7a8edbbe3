"""Property values only the cloud can give: names of objects it already holds.

A property whose constraint asks the cloud (a custom constraint such as
``cinder.vtype`` or ``glance.image``) has no value hypothesis can draw: only an
object the cloud holds satisfies it. The fake cloud of a test world is seeded
with such objects (volume types, images, flavors, networks ...); this module
draws a changed value for such a property from them, asking the property's own
constraints (through the resource's context, as the engine validates) which one
fits. Used by the oracle tests that change every updatable property.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _asks_cloud(schema: Any) -> bool:
    """True when one of *schema*'s constraints is a custom (cloud) constraint."""
    from sdk.constraints import CustomConstraint

    return any(isinstance(c, CustomConstraint) for c in getattr(schema, "constraints", ()) or ())


def _candidates(world: Any) -> list[str]:
    """Names, then ids, of the cloud's preseeded objects, in inventory order, without repeats."""
    cloud = getattr(world, "cloud", None)
    inventory = getattr(cloud, "inventory", None)
    if not callable(inventory):
        return []
    items = [i for i in inventory() if i.preseeded]
    out: dict[str, None] = {}
    for item in items:
        if item.name:
            out.setdefault(item.name, None)
    for item in items:
        out.setdefault(item.id, None)
    return list(out)


def cloud_value(
    name: str, schema: Any, base: Mapping[str, Any], world: Any, context: Any
) -> dict[str, Any] | None:
    """``{name: value}``: a preseeded object's name (or id) the property's constraints accept.

    Only for a string (or list of strings) property with a custom constraint; the value
    differs from *base*'s and from the default. None when no object fits (or the
    property needs no cloud).
    """
    from sdk.properties import Properties, Schema

    kind = getattr(schema, "type", None)
    item_schema = getattr(schema, "schema", None) if kind == Schema.LIST else None
    asks = _asks_cloud(schema) or (isinstance(item_schema, Schema) and _asks_cloud(item_schema))
    if not asks or kind not in (Schema.STRING, Schema.LIST):
        return None
    avoid = [base.get(name), getattr(schema, "default", None)]
    for found in _candidates(world):
        value: Any = [found] if kind == Schema.LIST else found
        if value in avoid:
            continue
        try:
            Properties({name: schema}, {name: value}, context=context).validate()
        except Exception:  # noqa: BLE001 - a value the constraints refuse is not drawn
            continue
        return {name: value}
    return None
