"""Private helpers of ``Resource.update``: what changed between two definitions.

Nothing here is public API; :mod:`sdk.resource` documents the behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sdk import properties as props_mod
from sdk import rsrc_defn

#: Snippet keys that never make a resource update (the engine handles them).
IGNORED_SNIPPET_KEYS = frozenset({rsrc_defn.CONDITION, rsrc_defn.DESCRIPTION})

_MISSING = object()


def resolved_value(props: props_mod.Properties, key: str) -> Any:
    """Return the resolved, converted value of *key*, or a marker when unknowable.

    A value that cannot be resolved yet (or is invalid) compares unequal to
    everything, so it counts as changed.
    """
    try:
        return props[key]
    except Exception:
        return _MISSING


def _differs(before: Any, after: Any) -> bool:
    if before is _MISSING or after is _MISSING:
        return True
    try:
        return bool(before != after)
    except Exception:
        return True


def property_diff(before: props_mod.Properties, after: props_mod.Properties) -> dict[str, Any]:
    """Return ``{name: new value}`` for every property whose resolved value changed.

    Only properties set on either side are compared (one set on neither side
    has its default on both). A property present before and absent now maps to
    None, as the plug-in guide specifies. Keys are in sorted order.
    """
    before_data = before.data if isinstance(before.data, Mapping) else {}
    after_data = after.data if isinstance(after.data, Mapping) else {}
    diff: dict[str, Any] = {}
    for key in sorted(set(before_data) | set(after_data), key=str):
        if key in before.props or key in after.props:
            old = resolved_value(before, key) if key in before.props else _MISSING
            new = resolved_value(after, key) if key in after.props else _MISSING
        else:
            old, new = before_data.get(key, _MISSING), after_data.get(key, _MISSING)
        if not _differs(old, new):
            continue
        if key not in after_data or after_data[key] is None:
            diff[key] = None
        elif new is _MISSING:
            diff[key] = after_data[key]
        else:
            diff[key] = new
    return diff


def template_diff(
    before: rsrc_defn.ResourceDefinition,
    after: rsrc_defn.ResourceDefinition,
    prop_diff: Mapping[str, Any],
    after_props: props_mod.Properties,
) -> dict[str, Any]:
    """Return the changed top-level HOT snippet keys with their new values.

    Keys are the lower-case HOT names (``properties``, ``metadata``,
    ``depends_on``, ``deletion_policy``, ``update_policy``, ``type``,
    ``external_id``); a removed key maps to None. ``properties`` is reported
    when *prop_diff* is not empty (compared on resolved values), with the
    resolved new property data. ``condition`` and ``description`` never count.
    """
    old, new = before.to_dict(), after.to_dict()
    diff: dict[str, Any] = {}
    for key in sorted(set(old) | set(new)):
        if key in IGNORED_SNIPPET_KEYS or key == rsrc_defn.PROPERTIES:
            continue
        if old.get(key) != new.get(key):
            diff[key] = new.get(key)
    if prop_diff:
        resolved = {}
        for key, raw in new[rsrc_defn.PROPERTIES].items():
            value = resolved_value(after_props, key) if key in after_props.props else _MISSING
            resolved[key] = raw if value is _MISSING else value
        diff[rsrc_defn.PROPERTIES] = resolved
    return dict(sorted(diff.items()))
