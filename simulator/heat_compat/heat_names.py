"""Which names Heat's own ``Resource`` has, read from the installed Heat's source.

A plug-in reading a name the compatibility layer lacks fails naming it; when
Heat's own class lacks it too (a bug of the plug-in, e.g. ``Delay`` calling
``_check_status_complete``, which only Heat's ``StackResource`` has), the
failure says so instead of blaming plugsim. Heat is never imported: its
``heat/engine/resource.py`` and ``status.py`` are parsed.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from simulator.heat_compat.heat_venv import find_heat_package


def heat_lacks(cls: type, name: str, base: type) -> bool:
    """True when Heat's own classes behind *cls* lack *name* too (so Heat fails alike).

    Only when every base of *cls* below *base* (the compat layer's ``Resource``) is
    Heat's or the plug-in's own code: a shim of a Heat base class made by
    the compat layer (a module under ``simulator``) may lack a name its
    Heat original has.
    """
    known = heat_resource_names()
    if known is None or name in known:
        return False
    below = cls.__mro__[: cls.__mro__.index(base)] if base in cls.__mro__ else ()
    return not any(c.__module__.startswith("simulator.") for c in below)


def heat_resource_names() -> frozenset[str] | None:
    """The names Heat's own ``Resource`` has, read from the installed Heat; None without one.

    Its class body, the ``self.x = ...`` it assigns and its base
    ``ResourceStatus`` (``heat/engine/status.py``), without importing Heat.
    """
    package = find_heat_package()
    return None if package is None else _names_in(str(package))


@functools.lru_cache(maxsize=4)
def _names_in(package: str) -> frozenset[str] | None:
    names: set[str] = set()
    for rel, cls in (("resource.py", "Resource"), ("status.py", "ResourceStatus")):
        try:
            tree = ast.parse((Path(package) / "engine" / rel).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return None
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cls:
                names.update(_defined(node))
    return frozenset(names)


def _defined(cls: ast.ClassDef) -> set[str]:
    """Names a class body defines or its methods assign on ``self``."""
    out: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for item in ast.walk(target):
                    if isinstance(item, ast.Name):
                        out.add(item.id)
    for item in ast.walk(cls):
        if (
            isinstance(item, ast.Attribute)
            and isinstance(item.ctx, ast.Store)
            and isinstance(item.value, ast.Name)
            and item.value.id == "self"
        ):
            out.add(item.attr)
    return out
