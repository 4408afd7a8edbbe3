"""The schemas of a plug-in version as plain data, for comparing two versions.

:func:`describe` imports the plug-ins below some paths (files or directories, with the SDK's own loader)
and returns, for each resource type, where its class is defined, its properties (type, required, default,
update_allowed, immutable, constraints, support status, nested schema), its attributes and the source of
its ``translation_rules`` if it defines them. ``python -m sdk.lint.schema_dump ROOT PATH...`` prints the
same as JSON: ``plugsim lint --against`` runs it in a separate interpreter for the old version, so the two
versions' modules never meet in one process.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sdk.plugins import PluginLoader

#: Constraint parameters that decide which values pass.
CONSTRAINT_KEYS = ("allowed", "min", "max", "pattern", "step", "offset", "name")


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=repr, sort_keys=True))


def _status(schema: Any) -> str:
    support = getattr(schema, "support_status", None)
    return str(getattr(support, "status", "SUPPORTED") or "SUPPORTED")


def describe_property(schema: Any) -> dict[str, Any]:
    """One property schema as plain data."""
    out: dict[str, Any] = {
        "type": str(schema.type),
        "required": bool(schema.required),
        "default": _plain(schema.default),
        "update_allowed": bool(getattr(schema, "update_allowed", False)),
        "immutable": bool(getattr(schema, "immutable", False)),
        "status": _status(schema),
        "constraints": [
            {"kind": type(c).__name__}
            | {k: _plain(getattr(c, k)) for k in CONSTRAINT_KEYS if hasattr(c, k)}
            for c in (schema.constraints or ())
        ],
    }
    nested = schema.schema
    if isinstance(nested, Mapping):
        out["schema"] = {str(k): describe_property(v) for k, v in sorted(nested.items())}
    elif nested is not None and hasattr(nested, "type"):
        out["schema"] = {"*": describe_property(nested)}
    return out


def _where(cls: type) -> tuple[str, int]:
    try:
        path = inspect.getsourcefile(cls) or ""
        line = inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return "", 1
    return path, line


def _translation_source(cls: type) -> str:
    method = getattr(cls, "translation_rules", None)
    if method is None:
        return ""
    owner = next((k for k in cls.__mro__ if "translation_rules" in vars(k)), None)
    if owner is None or owner.__module__.startswith("sdk."):
        return ""  # the SDK's default (no rules)
    try:
        return inspect.getsource(method)
    except (OSError, TypeError):
        return ""


def describe_class(cls: type) -> dict[str, Any]:
    """A resource class's schemas as plain data (see the module docstring)."""
    path, line = _where(cls)
    props = getattr(cls, "properties_schema", {}) or {}
    attrs = getattr(cls, "attributes_schema", {}) or {}
    return {
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "file": path,
        "line": line,
        "status": _status(cls),
        "properties": {str(k): describe_property(v) for k, v in sorted(props.items())},
        "attributes": {
            str(k): {"type": str(getattr(v, "type", None)), "status": _status(v)}
            for k, v in sorted(attrs.items())
        },
        "translation": _translation_source(cls),
    }


def describe(paths: Sequence[str | os.PathLike[str]]) -> dict[str, Any]:
    """Every resource type the plug-ins below *paths* map, with its schemas, sorted by name."""
    loader = PluginLoader()
    for path in paths:
        if Path(path).is_dir():
            loader.load_plugin_dirs([path])
        else:
            loader.load_file(path)
    report = loader.report
    report._sort()
    return {
        "types": {name: describe_class(cls) for name, cls in report.mapping.items()},
        "errors": [str(e) for e in report.errors],
    }


def main(argv: Sequence[str]) -> int:
    """``python -m sdk.lint.schema_dump ROOT PATH...``: print the JSON of :func:`describe`."""
    root, *paths = argv
    sys.path.insert(0, root)
    print(json.dumps(describe([os.path.join(root, p) for p in paths]), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
