"""Finding and loading resource plug-ins.

Plug-ins come from two places:

* **plug-in directories** (the engine's ``plugin_dirs``): every ``*.py`` file
  below each directory, walked recursively in sorted order, is imported by
  path under a unique module name;
* the **entry-point group** ``plugsim.resources`` of installed distributions.

A plug-in module registers resource types with ``resource_mapping()``, which
returns ``{type_name: ResourceClass}``. A module may instead (or as well)
define ``available_resource_mapping()``: when present it is used in place of
``resource_mapping()``, and an empty result means "my optional dependency is
missing" — the module is recorded in :attr:`LoadReport.disabled` and nothing
else happens. A module may also define ``constraint_mapping()`` returning
``{name: constraint class}``; those custom constraints are registered into the
constraint registry passed to the loader.

Rules of the directory walk:

* anything below a directory named ``tests`` is never loaded (plug-ins keep
  their tests there, with test-only dependencies);
* directories named ``__pycache__`` or starting with ``.`` are skipped;
* files whose name starts with ``_`` (private helpers) are not loaded as
  plug-in modules, but a package's ``__init__.py`` is: a plug-in may live in it,
  as Heat's loader finds it there.

As Heat's loader does, a directory is imported as a package: each directory of
``plugin_dirs`` becomes a package of its own (``plugsim_plugins.r<digest>``, so
two directories may hold modules or packages of the same name without clashing)
and each file below it a module of that package (``acme/storage/volume.py`` is
``...acme.storage.volume``), so relative imports between the modules of a
plug-in package work. A file whose path is not a dotted name (``my-plugin.py``)
and a file loaded alone (:meth:`PluginLoader.load_file`) are imported by path
under a name of their own.

The loader never crashes on a bad plug-in: a module that fails to import
(syntax error, missing dependency, any exception), a mapping function that
raises or returns something other than a map, and a mapping value that is not a
:class:`sdk.resource.Resource` subclass are each recorded in
:attr:`LoadReport.errors` with the module's path and skipped. The one error
that is raised is a conflict — two different plug-ins claiming one type name —
as :class:`sdk.exception.PluginConflict` naming both modules, because silently
picking one would make a stack's behaviour depend on load order.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from sdk import exception
from sdk._entry_points import group_entry_points

__all__ = [
    "ENTRY_POINT_GROUP",
    "LoadError",
    "LoadReport",
    "PluginLoader",
    "load_plugin_dirs",
    "load_entry_points",
    "iter_plugin_files",
]

#: The entry-point group installed distributions use to publish resource plug-ins.
ENTRY_POINT_GROUP = "plugsim.resources"

_SKIPPED_DIRS = frozenset({"tests", "__pycache__"})


@dataclass(frozen=True)
class LoadError:
    """One problem met while loading plug-ins: where (``path``) and what (``message``)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class LoadReport:
    """What a load found.

    :ivar mapping: resource type name → class, sorted by type name.
    :ivar sources: resource type name → the module path (or entry point) that
        registered it.
    :ivar errors: problems, in the order met; each names its module.
    :ivar disabled: modules whose ``available_resource_mapping()`` returned an
        empty map.
    :ivar modules: every module loaded successfully.
    :ivar constraints: custom constraint name → class, from
        ``constraint_mapping()``.
    """

    mapping: dict[str, type] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    errors: list[LoadError] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)
    constraints: dict[str, Any] = field(default_factory=dict)

    def _sort(self) -> None:
        self.mapping = dict(sorted(self.mapping.items()))
        self.sources = dict(sorted(self.sources.items()))
        self.constraints = dict(sorted(self.constraints.items()))


def iter_plugin_files(directory: str | os.PathLike[str]) -> list[Path]:
    """Return the plug-in module files below *directory*, in sorted order.

    Applies the walk rules of this module: skips ``tests``, ``__pycache__``
    and hidden directories and files starting with ``_``.
    """
    root = Path(directory)
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if d not in _SKIPPED_DIRS and not d.startswith(".")
        )
        for name in sorted(filenames):
            if name == "__init__.py" or (name.endswith(".py") and not name.startswith(("_", "."))):
                found.append(Path(dirpath) / name)
    return found


def _package_root_name(root: Path) -> str:
    digest = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:12]
    return f"plugsim_plugins.r{digest}"


def _dotted_name(root: Path, path: Path) -> str | None:
    """``plugsim_plugins.r<digest>.a.b`` for *path* below *root*, or None when some part of
    the path is not an identifier (such a file is imported by path)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join([_package_root_name(root), *parts])


def _root_package(root: Path) -> ModuleType:
    """The package standing for plug-in directory *root* (made once per process)."""
    if "plugsim_plugins" not in sys.modules:
        top = ModuleType("plugsim_plugins")
        top.__path__ = []
        sys.modules["plugsim_plugins"] = top
    name = _package_root_name(root)
    package = sys.modules.get(name)
    if package is None:
        package = ModuleType(name)
        package.__path__ = [str(root)]
        sys.modules[name] = package
    return package


def _module_name_for(path: Path) -> str:
    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:12]
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in path.stem)
    return f"plugsim_plugins.m{digest}_{stem}"


def _describe_exception(ex: BaseException) -> str:
    if isinstance(ex, SyntaxError):
        where = f"line {ex.lineno}" if ex.lineno else "unknown line"
        return f"SyntaxError: {ex.msg} ({where})"
    return f"{type(ex).__name__}: {ex}"


def _is_resource_class(value: Any) -> bool:
    from sdk.resource import Resource  # deferred: resource imports much of the SDK

    return isinstance(value, type) and issubclass(value, Resource)


class PluginLoader:
    """Loads plug-ins into one :class:`LoadReport`.

    :param constraint_registry: where ``constraint_mapping()`` entries go: an
        object with a ``register(name, cls)`` method (such as
        :class:`sdk.constraints.ConstraintRegistry`) or a callable
        ``register(name, cls)``. None keeps them only in the report.
    """

    def __init__(self, constraint_registry: Any = None) -> None:
        self.report = LoadReport()
        self._constraint_registry = constraint_registry
        self._loaded_paths: set[str] = set()
        #: the plug-in directory being walked: its files are modules of one package
        self._package_root: Path | None = None
        self._conflicts: list[exception.PluginConflict] = []

    # --- public API ----------------------------------------------------------

    def load_plugin_dirs(self, dirs: Iterable[str | os.PathLike[str]]) -> LoadReport:
        """Load every plug-in module below each directory of *dirs*."""
        for directory in dirs:
            root = Path(directory)
            if not root.is_dir():
                self._error(str(root), "plug-in directory does not exist or is not a directory")
                continue
            self._package_root = root.resolve()
            try:
                for path in iter_plugin_files(root):
                    self.load_file(path)
            finally:
                self._package_root = None
        return self._finish()

    def load_file(self, path: str | os.PathLike[str]) -> ModuleType | None:
        """Import one plug-in file by path and register what it maps.

        Returns the module, or None when it could not be imported (the error
        is in the report). A file already loaded by this loader is skipped.
        """
        resolved = Path(path).resolve()
        key = str(resolved)
        if key in self._loaded_paths:
            return None
        self._loaded_paths.add(key)
        shown = str(path)
        root = self._package_root
        dotted = None
        if root is not None and resolved.is_relative_to(root):
            dotted = _dotted_name(root, resolved)
        if root is not None and dotted is not None:
            return self._load_in_package(root, dotted, shown)
        name = _module_name_for(resolved)
        try:
            spec = importlib.util.spec_from_file_location(name, resolved)
            if spec is None or spec.loader is None:
                self._error(shown, "cannot be imported as a Python module")
                return None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        except BaseException as ex:  # a plug-in may raise anything, even SystemExit
            sys.modules.pop(name, None)
            if isinstance(ex, KeyboardInterrupt):
                raise
            self._error(shown, f"failed to import: {_describe_exception(ex)}")
            return None
        self.register_module(module, shown)
        return module

    def _load_in_package(self, root: Path, dotted: str, shown: str) -> ModuleType | None:
        """Import *dotted* as a module of the package standing for *root* (its parent
        packages first, as Python imports them) and register what it maps."""
        _root_package(root)
        before = set(sys.modules)
        try:
            module = importlib.import_module(dotted)
        except BaseException as ex:  # a plug-in may raise anything, even SystemExit
            for name in set(sys.modules) - before:
                sys.modules.pop(name, None)
            if isinstance(ex, KeyboardInterrupt):
                raise
            self._error(shown, f"failed to import: {_describe_exception(ex)}")
            return None
        self.register_module(module, shown)
        return module

    def load_entry_points(
        self,
        group: str = ENTRY_POINT_GROUP,
        entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
    ) -> LoadReport:
        """Load the plug-ins published in the entry-point *group*.

        An entry point may name a module (its mapping functions are used), a
        mapping function, or a Resource subclass (registered under the entry
        point's name). *entry_points* replaces discovery (for tests).
        """
        if entry_points is None:
            entry_points = group_entry_points(group)  # scanned once per process
        for ep in sorted(entry_points, key=lambda e: (e.name, e.value)):
            where = f"entry point {ep.name} = {ep.value} (group {group})"
            try:
                target = ep.load()
            except BaseException as ex:
                if isinstance(ex, KeyboardInterrupt):
                    raise
                self._error(where, f"failed to import: {_describe_exception(ex)}")
                continue
            if isinstance(target, ModuleType):
                self.register_module(target, where)
            elif isinstance(target, type):
                self._register_mapping({ep.name: target}, where, "the entry point")
            elif callable(target):
                mapping = self._call_mapping(target, where, f"{ep.value}()")
                if mapping is not None:
                    self._register_mapping(mapping, where, f"{ep.value}()")
            else:
                self._error(
                    where,
                    f"must name a module, a mapping function or a Resource class, "
                    f"not {type(target).__name__}",
                )
        return self._finish()

    def register_module(self, module: ModuleType, source: str) -> None:
        """Register the resource types and constraints a loaded *module* maps."""
        self.report.modules.append(source)
        available = getattr(module, "available_resource_mapping", None)
        plain = getattr(module, "resource_mapping", None)
        if callable(available):
            mapping = self._call_mapping(available, source, "available_resource_mapping()")
            if mapping is not None:
                if mapping:
                    self._register_mapping(mapping, source, "available_resource_mapping()")
                else:
                    self.report.disabled.append(source)
        elif callable(plain):
            mapping = self._call_mapping(plain, source, "resource_mapping()")
            if mapping is not None:
                self._register_mapping(mapping, source, "resource_mapping()")
        constraints = getattr(module, "constraint_mapping", None)
        if callable(constraints):
            mapping = self._call_mapping(constraints, source, "constraint_mapping()")
            if mapping is not None:
                self._register_constraints(mapping, source)

    # --- internals -------------------------------------------------------------

    def _error(self, path: str, message: str) -> None:
        self.report.errors.append(LoadError(path, message))

    def _call_mapping(
        self, func: Callable[[], Any], source: str, what: str
    ) -> Mapping[Any, Any] | None:
        try:
            result = func()
        except BaseException as ex:
            if isinstance(ex, KeyboardInterrupt):
                raise
            self._error(source, f"{what} raised {_describe_exception(ex)}")
            return None
        if result is None:
            return {}
        if not isinstance(result, Mapping):
            self._error(source, f"{what} must return a map, not {type(result).__name__}")
            return None
        return result

    def _register_mapping(self, mapping: Mapping[Any, Any], source: str, what: str) -> None:
        for type_name in sorted(mapping, key=str):
            cls = mapping[type_name]
            if not isinstance(type_name, str) or not type_name:
                self._error(source, f"{what} has a key {type_name!r} that is not a type name")
                continue
            if not _is_resource_class(cls):
                shown = cls.__name__ if isinstance(cls, type) else type(cls).__name__
                kind = "class" if isinstance(cls, type) else "value of type"
                self._error(
                    source,
                    f"{what} maps {type_name!r} to {kind} {shown}, "
                    f"which is not a subclass of sdk.resource.Resource",
                )
                continue
            previous = self.report.mapping.get(type_name)
            if previous is not None and previous is not cls:
                self._conflicts.append(
                    exception.PluginConflict(
                        type_name=type_name, first=self.report.sources[type_name], second=source
                    )
                )
                continue
            self.report.mapping[type_name] = cls
            self.report.sources.setdefault(type_name, source)

    def _register_constraints(self, mapping: Mapping[Any, Any], source: str) -> None:
        from sdk.constraints import ConstraintRegistry  # deferred, like Resource

        registry = self._constraint_registry
        for name in sorted(mapping, key=str):
            cls = mapping[name]
            if not isinstance(name, str) or not name:
                self._error(source, f"constraint_mapping() has a key {name!r} that is not a name")
                continue
            if registry is not None:
                try:
                    if isinstance(registry, ConstraintRegistry):
                        registry.register(name, cls, origin=f"plug-in {source}")
                    else:
                        getattr(registry, "register", registry)(name, cls)
                except BaseException as ex:
                    if isinstance(ex, KeyboardInterrupt):
                        raise
                    self._error(
                        source,
                        f"constraint_mapping() entry {name!r} was rejected: "
                        f"{_describe_exception(ex)}",
                    )
                    continue
            self.report.constraints[name] = cls

    def _finish(self) -> LoadReport:
        self.report._sort()
        if self._conflicts:
            first = self._conflicts[0]
            first.report = self.report  # type: ignore[attr-defined]
            first.conflicts = list(self._conflicts)  # type: ignore[attr-defined]
            self._conflicts = []
            raise first
        return self.report


def load_plugin_dirs(
    dirs: Iterable[str | os.PathLike[str]], constraint_registry: Any = None
) -> LoadReport:
    """Load the plug-ins below *dirs* and return the :class:`LoadReport`.

    :raises sdk.exception.PluginConflict: two modules claim one type name; the
        exception's ``report`` attribute holds everything else that loaded.
    """
    return PluginLoader(constraint_registry).load_plugin_dirs(dirs)


def load_entry_points(
    group: str = ENTRY_POINT_GROUP,
    constraint_registry: Any = None,
    entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
) -> LoadReport:
    """Load the plug-ins of the entry-point *group* and return the :class:`LoadReport`.

    :raises sdk.exception.PluginConflict: two plug-ins claim one type name.
    """
    return PluginLoader(constraint_registry).load_entry_points(group, entry_points)
