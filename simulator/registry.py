"""Resource type lookup: built-ins, installed plug-ins, plug-in directories, environments.

A type name in a template is resolved in this order: the stack environment's
``resource_registry`` (aliases, per-resource overrides, template resources),
then the plug-in classes — plugsim's own test types (:mod:`simulator.resources`),
the entry-point group ``plugsim.resources`` and the stack's plug-in
directories. Loading a set of plug-in directories happens once per process
and is cached; problems met while loading are kept in :attr:`TypeRegistry.errors`
and mentioned when a type is not found.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sdk import exception
from sdk.constraints import default_registry
from sdk.plugins import LoadError, load_entry_points, load_plugin_dirs

if TYPE_CHECKING:
    from simulator.stack import Stack
    from simulator.stack_source import StackSource

_DIR_CACHE: dict[tuple[str, ...], Any] = {}
_EP_CACHE: dict[str, Any] = {}


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


def _load_dirs(dirs: tuple[str, ...]) -> Any:
    report = _DIR_CACHE.get(dirs)
    if report is None:
        try:
            report = load_plugin_dirs(dirs, constraint_registry=PluginConstraints())
        except exception.PluginConflict:
            raise
        _DIR_CACHE[dirs] = report
    return report


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
    """Finds the class for a resource type name (see the module docstring)."""

    def __init__(
        self, plugin_dirs: Iterable[str | os.PathLike[str]] = (), *, entry_points: bool = True
    ) -> None:
        self.plugin_dirs = [str(Path(d).resolve()) for d in plugin_dirs]
        for d in self.plugin_dirs:
            if not Path(d).is_dir():
                raise exception.ConfigurationError(f"--plugin-dir {d}: not a directory")
        self.entry_points = entry_points
        self.errors: list[LoadError] = []
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
            reports.append(_load_dirs(all_dirs))
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

        return template_resource_class(found, source, self)

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
