"""Print the property and attribute schemas of Heat's resource types as JSON.

Run this with the python of the Heat virtualenv (``$PLUGSIM_HEAT_PYTHON``), never
inside plugsim's own environment::

    /tmp/heatvenv/bin/python tools/heat_diff/heat_schema.py < types.json

The request is a JSON list of type names. The answer maps each name Heat knows
to ``{"properties": {...}, "attributes": {...}}``, and each name it does not
know to null. A property is ``{"type", "required", "update_allowed",
"immutable", "status", "schema"}`` (``status`` is the support status,
``schema`` the nested properties of a map, or of a list's map entries, in the
same shape); an attribute is ``{"status"}``. :func:`describe` in
``tests/heat/test_schema_diff.py`` builds the same shape from plugsim's types.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings
from typing import Any


def _nested(schema: Any) -> dict[str, Any] | None:
    inner = getattr(schema, "schema", None)
    if isinstance(inner, dict):
        return {str(k): _prop(v) for k, v in sorted(inner.items())}
    # a list's entries: one schema (Heat keeps it under the key "*")
    entry = inner.get("*") if hasattr(inner, "get") else None
    if entry is not None and isinstance(getattr(entry, "schema", None), dict):
        return _nested(entry)
    return None


def _prop(schema: Any) -> dict[str, Any]:
    status = getattr(schema, "support_status", None)
    return {
        "type": str(schema.type).lower(),
        "required": bool(schema.required),
        "update_allowed": bool(schema.update_allowed),
        "immutable": bool(getattr(schema, "immutable", False)),
        "status": getattr(status, "status", "SUPPORTED"),
        "schema": _nested(schema),
    }


def describe(cls: Any) -> dict[str, Any]:
    """The schema of Heat resource class *cls* in the shape this tool prints."""
    props = getattr(cls, "properties_schema", {}) or {}
    attrs = getattr(cls, "attributes_schema", {}) or {}
    return {
        "properties": {str(k): _prop(v) for k, v in sorted(props.items())},
        "attributes": {
            str(k): {"status": getattr(getattr(v, "support_status", None), "status", "SUPPORTED")}
            for k, v in sorted(attrs.items())
        },
    }


def main() -> int:
    """Read type names on stdin, print their Heat schemas on stdout."""
    warnings.simplefilter("ignore")
    names = json.load(sys.stdin)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        from heat.engine import resources

        resources.initialise()
        env = resources.global_env()
    out: dict[str, Any] = {}
    for name in names:
        try:
            cls = env.get_class(name)
        except Exception:  # noqa: BLE001 - an unknown type is answered with null
            out[name] = None
            continue
        out[name] = describe(cls)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
