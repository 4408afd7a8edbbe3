"""Resource type lookup: built-ins, installed plug-ins, plug-in directories, environments.

A type name in a template is resolved in this order: the stack environment's
``resource_registry`` (aliases, per-resource overrides, template resources),
then the plug-in classes — plugsim's own test types (:mod:`simulator.resources`),
the entry-point group ``plugsim.resources`` and the stack's plug-in
directories. Loading a set of plug-in directories happens once per process
and is cached; problems met while loading are kept in :attr:`TypeRegistry.errors`
and mentioned when a type is not found.

Plug-ins written against OpenStack Heat's own modules load unmodified: a
plug-in-directory file that imports ``heat`` is imported through
:mod:`simulator.heat_compat` (every file is, with ``heat_compat=True``, the
``--heat-compat`` option), and the *heat_plugins* of a registry (``--heat-plugin``:
files, directories or ``heat.…`` module names of the installed openstack-heat)
are loaded that way too and win over every other class of the same type name.
Both default to the :class:`HeatOptions` in force (:func:`using_heat_options`),
which is how the command line reaches every world a command builds.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sdk import exception
from sdk.constraints import default_registry
from sdk.plugins import LoadError, LoadReport, load_entry_points

if TYPE_CHECKING:
    from simulator.stack import Stack
    from simulator.stack_source import StackSource

_DIR_CACHE: dict[tuple[bool, tuple[str, ...]], Any] = {}
_EP_CACHE: dict[str, Any] = {}
_HEAT_CACHE: dict[tuple[str, ...], LoadReport] = {}


@dataclass(frozen=True)
class HeatOptions:
    """How plug-ins written against Heat are loaded when a registry is not told otherwise.

    :ivar force: load every plug-in-directory file through the compat layer
        (``--heat-compat``); otherwise only files that import ``heat`` are.
    :ivar plugins: Heat plug-ins (files, directories, ``heat.…`` module names)
        whose types win over plugsim's own (``--heat-plugin``).
    """

    force: bool = False
    plugins: tuple[str, ...] = ()


_NO_HEAT_OPTIONS = HeatOptions()
_HEAT_OPTIONS: contextvars.ContextVar[HeatOptions | None] = contextvars.ContextVar(
    "plugsim_heat_options", default=None
)


def heat_options() -> HeatOptions:
    """Return the :class:`HeatOptions` in force (the defaults outside :func:`using_heat_options`)."""
    return _HEAT_OPTIONS.get() or _NO_HEAT_OPTIONS


@contextlib.contextmanager
def using_heat_options(
    *, force: bool = False, plugins: Iterable[str | os.PathLike[str]] = ()
) -> Iterator[HeatOptions]:
    """Make every :class:`TypeRegistry` built inside the block use these Heat options."""
    options = HeatOptions(bool(force), tuple(os.fspath(p) for p in plugins))
    token = _HEAT_OPTIONS.set(options)
    try:
        yield options
    finally:
        _HEAT_OPTIONS.reset(token)


class PluginConstraints:
    """Where the ``constraint_mapping()`` of plug-in modules goes: the default registry.

    :class:`sdk.constraints.CustomConstraint` looks names up in the process-wide
    default registry, and plug-in modules are loaded once per process, so their
    custom constraints are registered there. A module that maps a name to the
    very class the ``plugsim.constraints`` entry points already provide (the
    bundled OpenStack constraints do both) registers nothing new.
    """

    def register(self, name: str, cls: type) -> None:
        """Register *cls* under *name* unless that exact class is already there."""
        registry = default_registry()
        if name in registry:
            try:
                if type(registry.get(name)) is cls:
                    return
            except exception.PlugsimError:
                pass
        registry.register(name, cls, origin="plug-in module")


def _load_dirs(dirs: tuple[str, ...], force: bool = False) -> Any:
    report = _DIR_CACHE.get((force, dirs))
    if report is None:
        # deferred: the compat loader imports this module. A file that does not
        # import heat is loaded by it exactly as sdk's PluginLoader loads it.
        from simulator.heat_compat.loader import HeatCompatLoader

        loader = HeatCompatLoader(PluginConstraints(), force=force)
        report = loader.load_plugin_dirs(dirs)
        _DIR_CACHE[(force, dirs)] = report
    return report


def _load_heat_plugins(targets: tuple[str, ...]) -> LoadReport:
    from simulator.heat_compat.loader import load_heat_plugin, resolve_heat_targets

    files = tuple(dict.fromkeys(str(p.resolve()) for p in resolve_heat_targets(*targets)))
    report = _HEAT_CACHE.get(files)
    if report is None:
        report = load_heat_plugin(*files, constraint_registry=PluginConstraints())
        _HEAT_CACHE[files] = report
    return report


def _heat_load_failure(errors: list[LoadError]) -> exception.PluginLoadError:
    """One exception for the load errors of ``--heat-plugin`` targets (a missing name first)."""
    missing = [e for e in errors if getattr(e, "missing", "")]
    first = missing[0] if missing else errors[0]
    others = "; ".join(str(e) for e in errors if e is not first)
    if missing:
        failure: exception.PluginLoadError = first.to_exception()  # type: ignore[attr-defined]
    else:
        failure = exception.PluginLoadError(f"Heat plug-in {first}")
    if others:
        failure.message = f"{failure.message} (also: {others})"
    return failure


def _normalise_target(target: str | os.PathLike[str]) -> str:
    text = os.fspath(target)
    return str(Path(text).resolve()) if os.path.exists(text) else text


def _load_entry_points() -> Any:
    report = _EP_CACHE.get("eps")
    if report is None:
        report = load_entry_points(constraint_registry=PluginConstraints())
        _EP_CACHE["eps"] = report
    return report


def builtin_mapping() -> dict[str, type]:
    """Return plugsim's own small resource types (``Plugsim::Test::*``, ``OS::Heat::None``)."""
    from simulator.resources import resource_mapping

    return dict(resource_mapping())


class TypeRegistry:
    """Finds the class for a resource type name (see the module docstring).

    *heat_compat* and *heat_plugins* default to :func:`heat_options`. A Heat
    plug-in of *heat_plugins* that fails to load raises at construction
    (:class:`simulator.heat_compat.MissingHeatName` naming the file and the
    name when the compat layer lacks a name it needs).
    """

    #: raise when a Heat plug-in fails to load (else keep the error in :attr:`errors`)
    heat_strict = True

    def __init__(
        self,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        *,
        entry_points: bool = True,
        heat_compat: bool | None = None,
        heat_plugins: Iterable[str | os.PathLike[str]] | None = None,
    ) -> None:
        self.plugin_dirs = [str(Path(d).resolve()) for d in plugin_dirs]
        for d in self.plugin_dirs:
            if not Path(d).is_dir():
                raise exception.ConfigurationError(f"--plugin-dir {d}: not a directory")
        self.entry_points = entry_points
        self.errors: list[LoadError] = []
        options = heat_options()
        #: load every plug-in-directory file through the Heat compat layer
        self.heat_compat = options.force if heat_compat is None else bool(heat_compat)
        targets = options.plugins if heat_plugins is None else heat_plugins
        #: Heat plug-ins whose types win over every other class (paths resolved)
        self.heat_plugins = list(dict.fromkeys(_normalise_target(t) for t in targets))
        #: what loading :attr:`heat_plugins` found (None without any)
        self.heat_report: LoadReport | None = None
        if self.heat_plugins:
            self.heat_report = _load_heat_plugins(tuple(self.heat_plugins))
            if self.heat_report.errors and self.heat_strict:
                raise _heat_load_failure(self.heat_report.errors)
            self.errors.extend(self.heat_report.errors)
        self._mappings: dict[tuple[str, ...], dict[str, type]] = {}
        #: (id(env registry), dirs, type name, resource name) -> (env registry, class)
        self._classes: dict[tuple[Any, ...], tuple[Any, type]] = {}

    def plugins(self, dirs: Iterable[str] = ()) -> dict[str, type]:
        """Return ``{type name: class}`` from built-ins, entry points and *dirs*."""
        key = tuple(dirs)
        cached = self._mappings.get(key)
        if cached is None:
            cached = self._mappings[key] = self._plugins(key)
        return cached

    def _plugins(self, dirs: tuple[str, ...]) -> dict[str, type]:
        mapping = builtin_mapping()
        sources = dict.fromkeys(mapping, "plugsim built-in")
        reports = []
        if self.entry_points:
            reports.append(_load_entry_points())
        all_dirs = tuple(dict.fromkeys([*self.plugin_dirs, *dirs]))
        if all_dirs:
            reports.append(_load_dirs(all_dirs, self.heat_compat))
        for report in reports:
            for err in report.errors:
                if err not in self.errors:
                    self.errors.append(err)
            for name, cls in report.mapping.items():
                if name in mapping and mapping[name] is not cls:
                    raise exception.PluginConflict(
                        type_name=name, first=sources[name], second=report.sources.get(name, "?")
                    )
                mapping[name] = cls
                sources[name] = report.sources.get(name, "?")
        if self.heat_report is not None:
            mapping.update(self.heat_report.mapping)
        return mapping

    def get_class(
        self,
        type_name: str,
        resource_name: str | None,
        source: StackSource,
        stack: Stack | None = None,
    ) -> type:
        """Return the class implementing *type_name* for *resource_name* in *source*.

        A plug-in class found once for the same environment, plug-in
        directories, type and resource name is remembered (template resources
        and registry choices are resolved every time).
        """
        env_registry = source.environment.registry
        key = (id(env_registry), tuple(source.plugin_dirs), type_name, resource_name)
        hit = self._classes.get(key)
        if hit is not None and hit[0] is env_registry:
            return hit[1]
        plugins = self.plugins(source.plugin_dirs)
        try:
            found = env_registry.get_class(
                type_name, resource_name, plugins, base_dir=source.base_dir
            )
        except exception.ResourceTypeNotFound as ex:
            if self.errors:
                problems = "; ".join(str(e) for e in self.errors)
                raise exception.ResourceTypeNotFound(
                    f"{ex} (plug-ins that failed to load: {problems})"
                ) from None
            raise
        if isinstance(found, type):
            self._classes[key] = (env_registry, found)
            return found
        from simulator.nested import template_resource_class

        return template_resource_class(found, source)

    def type_lookup(self, source: StackSource, stack: Stack | None = None) -> TypeLookup:
        """Return ``lookup(type_name, resource_name)`` for template validation."""
        return TypeLookup(self, source, stack)


class TypeLookup:
    """``lookup(type_name, resource_name)`` for one source, knowing the stack it validates for.

    Validation reads :attr:`stack` to reach the world's clients (custom
    constraints) and the stack's identity.
    """

    def __init__(self, registry: TypeRegistry, source: StackSource, stack: Stack | None) -> None:
        self.registry = registry
        self.source = source
        self.stack = stack

    def __call__(self, type_name: str, resource_name: str | None = None) -> type:
        """Return the class implementing *type_name* for *resource_name*."""
        return self.registry.get_class(type_name, resource_name, self.source, self.stack)
