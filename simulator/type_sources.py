"""The type sources a world's registry is built from.

:func:`world_registry` builds the :class:`simulator.registry.TypeRegistry` of
a world from, in order: plugsim's own test types (:mod:`simulator.resources`),
the entry-point group ``plugsim.resources`` (the bundled Heat and OpenStack
library is registered there too), the plug-in directories (loaded
through the Heat compatibility loader, which loads a file that does not
import ``heat`` exactly as sdk's ``PluginLoader`` does) and, when asked, Heat
plug-ins whose types win over every other class. Template resources get
their classes from :func:`simulator.nested.template_resource_class`.
Loading a set of plug-in directories, the entry points or a set of Heat
plug-ins happens once per process and is cached.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from sdk.plugins import LoadReport, load_entry_points
from simulator.heat_compat.loader import HeatCompatLoader, HeatPluginTypes
from simulator.heat_compat.options import heat_options
from simulator.nested import template_resource_class
from simulator.registry import PluginConstraints, TypeRegistry, TypeSource

_DIR_CACHE: dict[tuple[bool, tuple[str, ...]], LoadReport] = {}
_EP_CACHE: dict[str, LoadReport] = {}


def builtin_mapping() -> dict[str, type]:
    """Return plugsim's own small resource types (``Plugsim::Test::*``, ``OS::Heat::None``)."""
    from simulator.resources import resource_mapping

    return dict(resource_mapping())


class BuiltinTypes:
    """plugsim's own test types (:func:`builtin_mapping`)."""

    overrides = False

    def load(self, dirs: tuple[str, ...]) -> LoadReport:
        """The test types (whatever the directories)."""
        mapping = builtin_mapping()
        return LoadReport(mapping=mapping, sources=dict.fromkeys(mapping, "plugsim built-in"))


class EntryPointTypes:
    """The installed plug-ins of the entry-point group ``plugsim.resources``."""

    overrides = False

    def load(self, dirs: tuple[str, ...]) -> LoadReport:
        """The entry points' types (loaded once per process)."""
        report = _EP_CACHE.get("eps")
        if report is None:
            report = load_entry_points(constraint_registry=PluginConstraints())
            _EP_CACHE["eps"] = report
        return report


class PluginDirTypes:
    """The plug-in modules of the stack's and the engine's plug-in directories.

    Files are loaded by the Heat compatibility loader: one that imports
    ``heat`` (every one, with *force*: ``--heat-compat``) through the shims,
    any other exactly as sdk's ``PluginLoader`` loads it.
    """

    overrides = False

    def __init__(self, force: bool = False) -> None:
        self.force = bool(force)

    def load(self, dirs: tuple[str, ...]) -> LoadReport:
        """The directories' types (each set of directories loaded once per process)."""
        if not dirs:
            return LoadReport()
        report = _DIR_CACHE.get((self.force, dirs))
        if report is None:
            loader = HeatCompatLoader(PluginConstraints(), force=self.force)
            report = loader.load_plugin_dirs(dirs)
            _DIR_CACHE[(self.force, dirs)] = report
        return report


def world_registry(
    plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    *,
    entry_points: bool = True,
    heat_compat: bool | None = None,
    heat_plugins: Iterable[str | os.PathLike[str]] | None = None,
) -> TypeRegistry:
    """Build a world's type registry from its sources.

    *heat_compat* and *heat_plugins* default to the
    :func:`simulator.heat_compat.options.heat_options` in force. A Heat
    plug-in of *heat_plugins* that fails to load raises here
    (:class:`simulator.heat_compat.MissingHeatName` naming the file and the
    name when the compat layer lacks a name it needs).
    """
    options = heat_options()
    sources: list[TypeSource] = [BuiltinTypes()]
    if entry_points:
        sources.append(EntryPointTypes())
    sources.append(PluginDirTypes(options.force if heat_compat is None else bool(heat_compat)))
    targets = options.plugins if heat_plugins is None else tuple(heat_plugins)
    if targets:
        sources.append(HeatPluginTypes(targets, PluginConstraints(), strict=True))
    return TypeRegistry(sources, plugin_dirs=plugin_dirs, template_classes=template_resource_class)
