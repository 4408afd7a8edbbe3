"""Resource type lookup: the environment first, then the type sources the world gives.

A type name in a template is resolved in this order: the stack environment's
``resource_registry`` (aliases, per-resource overrides, template resources),
then the plug-in classes of the registry's *sources*. The registry does not
know where classes come from: the world builds it
(:func:`simulator.type_sources.world_registry`) from an ordered list of
:class:`TypeSource` objects — plugsim's built-ins, installed plug-ins,
plug-in directories and, when asked, plug-ins written for other engines —
and a factory for template-resource classes. Two sources giving different
classes for one type name is a :class:`sdk.exception.PluginConflict`, except
that the classes of an *overriding* source win over every other's. Problems
met while loading are kept in :attr:`TypeRegistry.errors` and mentioned when
a type is not found.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from sdk import exception
from sdk.constraints import default_registry
from sdk.plugins import LoadError, LoadReport
from simulator.stack_source import StackSource


class TypeSource(Protocol):
    """One place resource types come from (built-ins, entry points, directories ...).

    :ivar overrides: True when this source's classes win over every other
        source's without a conflict check.
    """

    overrides: bool

    def load(self, dirs: tuple[str, ...]) -> LoadReport:
        """Return this source's types for a stack whose plug-in directories are *dirs*."""


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


#: ``template_classes(spec, source)``: the class of an environment's template resource.
TemplateClasses = Callable[[Any, StackSource], type]


class TypeRegistry:
    """Finds the class for a resource type name (see the module docstring).

    *plugin_dirs* are the engine's own plug-in directories; the sources are
    asked with those plus the stack's. *template_classes* turns a template
    resource the environment names into a class (without it such a type is
    an error).
    """

    def __init__(
        self,
        sources: Iterable[TypeSource] = (),
        *,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        template_classes: TemplateClasses | None = None,
    ) -> None:
        self.sources = list(sources)
        self.plugin_dirs = [str(Path(d).resolve()) for d in plugin_dirs]
        for d in self.plugin_dirs:
            if not Path(d).is_dir():
                raise exception.ConfigurationError(f"--plugin-dir {d}: not a directory")
        self.template_classes = template_classes
        self.errors: list[LoadError] = []
        self._mappings: dict[tuple[str, ...], dict[str, type]] = {}
        #: (id(env registry), dirs, type name, resource name) -> (env registry, class)
        self._classes: dict[tuple[Any, ...], tuple[Any, type]] = {}

    def plugins(self, dirs: Iterable[str] = ()) -> dict[str, type]:
        """Return ``{type name: class}`` of every source, for a stack with plug-in *dirs*."""
        key = tuple(dirs)
        cached = self._mappings.get(key)
        if cached is None:
            cached = self._mappings[key] = self._plugins(key)
        return cached

    def _note(self, errors: Iterable[LoadError]) -> None:
        for err in errors:
            if err not in self.errors:
                self.errors.append(err)

    def _plugins(self, dirs: tuple[str, ...]) -> dict[str, type]:
        all_dirs = tuple(dict.fromkeys([*self.plugin_dirs, *dirs]))
        mapping: dict[str, type] = {}
        origins: dict[str, str] = {}
        overriding: list[LoadReport] = []
        for source in self.sources:
            report = source.load(all_dirs)
            self._note(report.errors)
            if source.overrides:
                overriding.append(report)
                continue
            for name, cls in report.mapping.items():
                if name in mapping and mapping[name] is not cls:
                    raise exception.PluginConflict(
                        type_name=name, first=origins[name], second=report.sources.get(name, "?")
                    )
                mapping[name] = cls
                origins[name] = report.sources.get(name, "?")
        for report in overriding:
            mapping.update(report.mapping)
        return mapping

    def get_class(self, type_name: str, resource_name: str | None, source: StackSource) -> type:
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
        if self.template_classes is None:
            raise exception.ResourceTypeNotFound(
                f"{type_name}: template resources are not available in this registry"
            )
        return self.template_classes(found, source)

    def type_lookup(self, source: StackSource, stack: Any = None) -> TypeLookup:
        """Return ``lookup(type_name, resource_name)`` for template validation."""
        return TypeLookup(self, source, stack)


class TypeLookup:
    """``lookup(type_name, resource_name)`` for one source, knowing the stack it validates for.

    Validation reads :attr:`stack` (a :class:`simulator.stack.Stack`, or None)
    to reach the world's clients (custom constraints) and the stack's identity.
    """

    def __init__(self, registry: TypeRegistry, source: StackSource, stack: Any) -> None:
        self.registry = registry
        self.source = source
        self.stack = stack
        #: the clock validation offers plug-ins (None: the stack's world's clock)
        self.clock: Any = None

    def __call__(self, type_name: str, resource_name: str | None = None) -> type:
        """Return the class implementing *type_name* for *resource_name*."""
        return self.registry.get_class(type_name, resource_name, self.source)
