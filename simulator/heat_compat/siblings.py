"""Imports of a Heat plug-in's own directory: ``from common.mixins import ...``.

Heat loads its ``plugin_dirs`` as one package (``heat.engine.plugins``) whose
``__path__`` is those directories; every module and sub-package in them is a
member of that package. Plug-ins written for Heat on Python 2 (F5's
``f5_heat/resources``) reach a helper package beside them with a bare
``import common.mixins``, which Python 2 resolved inside the enclosing package
first. Python 3 has no such lookup: Heat 27 then finds ``common`` only when
the operator puts the plug-in directory on the engine's ``sys.path``.

:func:`sibling_imports` gives a plug-in file, while it is imported, what that
deployment gives it: a top-level name that is a package or module beside the
file resolves to that sibling, before any module of the same name elsewhere.
Nothing else changes: ``sys.path`` is never touched, and once the import is
over the top-level names leave :data:`sys.modules` (whatever they shadowed is
put back). The siblings stay known per directory, so every plug-in of one
directory shares one ``common.mixins`` as in Heat's single package.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

from simulator.heat_compat._finder import ROOTS

#: The sibling modules imported so far, by directory, under their top-level names.
_LOADED: dict[str, dict[str, ModuleType]] = {}


def sibling_names(directory: Path, exclude: str = "") -> frozenset[str]:
    """The top-level names *directory* provides: packages (with ``__init__.py``) and modules.

    *exclude* (the importing plug-in's own stem) and the names the compat layer
    serves (``heat``, ``oslo_*`` ...) are left out.
    """
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return frozenset()
    names = set()
    for entry in entries:
        path = directory / entry
        if entry.endswith(".py") and path.is_file():
            names.add(entry[:-3])
        elif (path / "__init__.py").is_file():
            names.add(entry)
    return frozenset(n for n in names if n.isidentifier() and n != exclude and n not in ROOTS)


class _SiblingFinder(importlib.abc.MetaPathFinder):
    """Finds the top-level *names* in *directory* only."""

    def __init__(self, directory: Path, names: frozenset[str]) -> None:
        self.directory = str(directory)
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The spec of a sibling for a top-level *fullname*; None for anything else."""
        if path is not None or fullname not in self.names:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [self.directory])


def _top(name: str) -> str:
    return name.split(".", 1)[0]


@contextlib.contextmanager
def sibling_imports(plugin_file: str | os.PathLike[str]) -> Iterator[None]:
    """While the block runs, top-level imports of *plugin_file*'s siblings find them.

    See the module docstring. Afterwards :data:`sys.modules` holds none of the
    sibling names (earlier holders are restored) and ``sys.path`` is as before.
    """
    resolved = Path(plugin_file).resolve()
    directory = resolved.parent
    names = sibling_names(directory, exclude=resolved.stem)
    if not names:
        yield
        return
    key = str(directory)
    known = _LOADED.setdefault(key, {})
    shadowed = {n: sys.modules.pop(n) for n in list(sys.modules) if _top(n) in names}
    sys.modules.update(known)
    had_cache = key in sys.path_importer_cache
    finder = _SiblingFinder(directory, names)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if _top(n) in names]:
            module = sys.modules.pop(name)
            if _inside(module, directory):
                known[name] = module
        sys.modules.update(shadowed)
        if not had_cache:
            sys.path_importer_cache.pop(key, None)


def _inside(module: ModuleType, directory: Path) -> bool:
    """True when *module* was loaded from a file under *directory*."""
    where = getattr(module, "__file__", None)
    if not where:
        return False
    try:
        Path(where).resolve().relative_to(directory)
    except ValueError:
        return False
    return True


__all__ = ["sibling_imports", "sibling_names"]
