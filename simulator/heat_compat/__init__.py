"""Run unmodified OpenStack Heat resource plug-ins under plugsim.

Heat plug-ins import ``heat.engine.resource``, ``heat.engine.properties``,
``heat.common.exception`` and friends. This package maps that API surface
onto :mod:`sdk` with shim modules that exist only while such a plug-in is
being imported (see :mod:`simulator.heat_compat._finder`), so a process where
the real Heat is importable is not disturbed. What is not Heat's engine (the
oslo libraries, Heat's pure helpers) is imported as it is
(:mod:`simulator.heat_compat._borrowed`); what plug-ins ask of Heat's engine
and client plug-ins is imitated (``resource``, ``engine_api``,
``neutron_plugin``, ``nova_plugin``, ``volume_plugins``, ``rpc_client``,
``constraints``, ``heat_config``).

Public API::

    load_heat_plugin(*targets) -> sdk.plugins.LoadReport
    HeatCompatLoader(constraint_registry=None, *, force=False)
    use_heat_plugins(world, *targets) -> LoadReport
    HeatPluginTypes(targets, constraint_registry=None, *, strict=True)  (a registry type source)
    heat_report(registry) -> LoadReport | None
    HeatOptions, heat_options(), using_heat_options(force=, plugins=)  (simulator.heat_compat.options)
    resolve_heat_targets(*targets) -> list[Path]
    find_heat_package(python=None) -> Path | None
    heat_python() -> str | None
    clientless_plugins() -> list[Path]
    needs_heat_compat(path) -> bool
    MissingHeatName(qualified_name, where=None)
    HeatNameMissing (the LoadError of a plug-in needing such a name)

From the command line, ``--plugin-dir`` loads a file that imports ``heat``
through this layer by itself, ``--heat-compat`` loads every plug-in-dir file
through it and ``--heat-plugin TARGET`` loads Heat plug-ins whose types win
(see :func:`simulator.heat_compat.options.using_heat_options`; the world's
registry takes its Heat source from :func:`simulator.type_sources.world_registry`).
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as type checkers see them
    from simulator.heat_compat.loader import (
        CLIENTLESS_PLUGINS,
        DEFAULT_HEAT_VENV,
        HEAT_PYTHON_ENV,
        HeatCompatLoader,
        HeatNameMissing,
        HeatPluginTypes,
        clientless_plugins,
        find_heat_package,
        heat_python,
        heat_report,
        load_heat_plugin,
        needs_heat_compat,
        resolve_heat_targets,
        use_heat_plugins,
    )
    from simulator.heat_compat.missing import MissingHeatName

#: where each public name lives; a name is imported on first use (PEP 562), so a command
#: that only reads the Heat options (every ``plugsim`` command does) does not import the
#: loader, its shims and constraint modules: about a third of a second of start-up
_HOMES = {
    "MissingHeatName": "simulator.heat_compat.missing",
    **dict.fromkeys(
        (
            "CLIENTLESS_PLUGINS",
            "DEFAULT_HEAT_VENV",
            "HEAT_PYTHON_ENV",
            "HeatCompatLoader",
            "HeatNameMissing",
            "HeatPluginTypes",
            "clientless_plugins",
            "find_heat_package",
            "heat_python",
            "heat_report",
            "load_heat_plugin",
            "needs_heat_compat",
            "resolve_heat_targets",
            "use_heat_plugins",
        ),
        "simulator.heat_compat.loader",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "CLIENTLESS_PLUGINS",
    "DEFAULT_HEAT_VENV",
    "HEAT_PYTHON_ENV",
    "HeatCompatLoader",
    "HeatPluginTypes",
    "HeatNameMissing",
    "MissingHeatName",
    "clientless_plugins",
    "find_heat_package",
    "heat_report",
    "heat_python",
    "load_heat_plugin",
    "needs_heat_compat",
    "resolve_heat_targets",
    "use_heat_plugins",
]
