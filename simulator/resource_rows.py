"""A resource's row document: its data, template digest and applied properties as plain JSON.

:class:`simulator.stack.Stack` writes one document per resource row; these
helpers make the values plain (what a JSON round trip gives) and compare a
row's data cheaply so an unchanged document is not rewritten.
"""

from __future__ import annotations

import json
from typing import Any

from sdk.resource import Resource

_SCALARS = (str, int, float, bool, type(None))


def plain(value: Any) -> Any:
    """Return *value* as the JSON round trip ``json.loads(json.dumps(value, default=str))`` would.

    Plain data (str, int, float, bool, None, lists, tuples, dicts with string
    keys) is copied directly; anything else takes the JSON round trip.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                return json.loads(json.dumps(value, default=str))
            out[key] = plain(item)
        return out
    if kind is list or kind is tuple:
        return [plain(item) for item in value]
    return json.loads(json.dumps(value, default=str))


def json_data(res: Resource) -> dict[str, Any]:
    """The resource's data as a flat dict of JSON scalars (other values as strings)."""
    try:
        data = res.data()
    except Exception:  # a plug-in's data() must not break persistence
        return {}
    # no sorting here: the store writes documents with sorted keys
    return {str(k): v if isinstance(v, _SCALARS) else str(v) for k, v in dict(data).items()}


def same_scalars(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """True when two flat dicts of JSON scalars are equal, types included (``1`` is not ``True``)."""
    if len(old) != len(new):
        return False
    missing = _SCALARS  # a value no data dict holds
    for key, value in new.items():
        before = old.get(key, missing)
        if type(before) is not type(value) or before != value:
            return False
    return True


def uuid4_text(digest: bytes) -> str:
    """``str(uuid.UUID(bytes=digest[:16], version=4))``, without building the UUID object.

    The version nibble becomes 4 and the variant bits 10, as :class:`uuid.UUID` sets them.
    """
    raw = bytearray(digest[:16])
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
