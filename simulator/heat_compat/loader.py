"""Loading unmodified Heat plug-ins into plugsim.

:func:`load_heat_plugin` imports a Heat plug-in module (a file, a directory of
them, or a dotted name inside the installed ``openstack-heat`` package) with
the shim modules of :mod:`simulator.heat_compat._finder` serving its
``heat.*`` imports, and returns sdk's :class:`~sdk.plugins.LoadReport`.
:class:`HeatCompatLoader` is sdk's plug-in loader that does this by itself for
any file whose imports need it (``--heat-compat`` behaviour), and
:func:`use_heat_plugins` makes a :class:`simulator.world.World` resolve type
names to such plug-ins first.
"""

from __future__ import annotations

import ast
import glob
import hashlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from sdk import exception
from sdk.constraints import default_registry
from sdk.plugins import LoadReport, PluginLoader, iter_plugin_files
from simulator.heat_compat import _vtime
from simulator.heat_compat._finder import ROOTS, MissingHeatName, shim_imports
from simulator.registry import TypeRegistry

#: Environment variable naming the python of a virtualenv with ``openstack-heat``.
HEAT_PYTHON_ENV = "PLUGSIM_HEAT_PYTHON"
#: Where the Heat venv is looked for when the variable is not set.
DEFAULT_HEAT_VENV = "/tmp/heatvenv"
#: The in-tree plug-ins that need no OpenStack service client (module stems).
CLIENTLESS_PLUGINS = ("none_resource", "random_string", "test_resource", "value")


def heat_python() -> str | None:
    """The python of the Heat virtualenv (``$PLUGSIM_HEAT_PYTHON`` or the default), or None."""
    configured = os.environ.get(HEAT_PYTHON_ENV)
    candidate = configured or os.path.join(DEFAULT_HEAT_VENV, "bin", "python")
    return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None


def find_heat_package(python: str | None = None) -> Path | None:
    """Return the directory of the installed ``heat`` package next to *python*, or None.

    Looks in the virtualenv that *python* (default :func:`heat_python`) belongs
    to, without importing Heat.
    """
    python = python or heat_python()
    if python is None:
        return None
    venv = Path(python).parent.parent
    for found in sorted(glob.glob(str(venv / "lib" / "python*" / "site-packages" / "heat"))):
        if (Path(found) / "engine" / "resource.py").is_file():
            return Path(found)
    return None


def needs_heat_compat(path: str | os.PathLike[str]) -> bool:
    """Return True when the module at *path* imports ``heat`` (so it needs the shims)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if any(name.split(".", 1)[0] == "heat" for name in names):
            return True
    return False


def _register_heat_constraints() -> None:
    from simulator.heat_compat._shims import TestConstraintDelay

    registry = default_registry()
    if "test_constr" not in registry.names():
        registry.register("test_constr", TestConstraintDelay, origin="plugsim heat_compat")


class HeatCompatLoader(PluginLoader):
    """sdk's plug-in loader, with Heat plug-ins loaded through the compat layer.

    A file is loaded with the shims when it imports ``heat`` (or always, with
    ``force=True``); any other file is loaded exactly as sdk loads it.
    """

    def __init__(self, constraint_registry: Any = None, *, force: bool = False) -> None:
        super().__init__(constraint_registry)
        self.force = force

    def load_file(self, path: str | os.PathLike[str]) -> ModuleType | None:
        """Import one plug-in file, through the compat layer when it needs it."""
        if not (self.force or needs_heat_compat(path)):
            return super().load_file(path)
        resolved = Path(path).resolve()
        if str(resolved) in self._loaded_paths:
            return None
        self._loaded_paths.add(str(resolved))
        digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
        stem = "".join(c if c.isalnum() else "_" for c in resolved.stem)
        name = f"plugsim_heat_plugins.m{digest}_{stem}"
        try:
            spec = importlib.util.spec_from_file_location(name, resolved)
            if spec is None or spec.loader is None:
                self._error(str(path), "cannot be imported as a Python module")
                return None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            with shim_imports():
                spec.loader.exec_module(module)
        except BaseException as ex:  # a plug-in may raise anything
            sys.modules.pop(name, None)
            if isinstance(ex, KeyboardInterrupt):
                raise
            self._error(
                str(path), f"failed to import through the Heat compat layer: {_describe(ex)}"
            )
            return None
        _vtime.patch_module(module)
        _register_heat_constraints()
        self.register_module(module, f"{path} (heat compat)")
        return module


def _describe(ex: BaseException) -> str:
    if isinstance(ex, ImportError) and not isinstance(ex, ModuleNotFoundError):
        found = re.match(r"cannot import name '([^']+)' from '([^']+)'", str(ex))
        if found and found.group(2).split(".", 1)[0] in ROOTS:
            return str(MissingHeatName(f"{found.group(2)}.{found.group(1)}"))
    return f"{type(ex).__name__}: {ex}"


def _resolve_target(target: str | os.PathLike[str]) -> list[Path]:
    text = os.fspath(target)
    path = Path(text)
    if path.is_dir():
        return iter_plugin_files(path)
    if path.is_file():
        return [path]
    if text.split(".", 1)[0] == "heat" and "/" not in text:
        package = find_heat_package()
        if package is None:
            raise exception.ConfigurationError(
                f"Heat plug-in {text}: no openstack-heat found (set {HEAT_PYTHON_ENV} to the "
                f"python of a virtualenv where openstack-heat is installed)"
            )
        relative = Path(*text.split(".")[1:])
        candidate = package / relative.with_suffix(".py")
        if candidate.is_file():
            return [candidate]
        if (package / relative).is_dir():
            return iter_plugin_files(package / relative)
    raise exception.ConfigurationError(
        f"Heat plug-in {text}: not a file, a directory or a module of the installed heat package"
    )


def load_heat_plugin(
    *targets: str | os.PathLike[str], constraint_registry: Any = None
) -> LoadReport:
    """Load Heat plug-ins (files, directories or ``heat.…`` module names) unmodified.

    Returns the :class:`~sdk.plugins.LoadReport`; a plug-in that needs a name
    the layer lacks is an entry of ``report.errors`` naming that name.
    """
    loader = HeatCompatLoader(constraint_registry, force=True)
    for target in targets:
        for path in _resolve_target(target):
            loader.load_file(path)
    return loader._finish()


def clientless_plugins() -> list[Path]:
    """The files of Heat's in-tree plug-ins that need no service client (empty without Heat)."""
    package = find_heat_package()
    if package is None:
        return []
    base = package / "engine" / "resources" / "openstack" / "heat"
    return [base / f"{stem}.py" for stem in CLIENTLESS_PLUGINS if (base / f"{stem}.py").is_file()]


class HeatCompatRegistry(TypeRegistry):
    """A type registry where the given Heat plug-ins win over every other class."""

    def __init__(
        self,
        heat_plugins: Iterable[str | os.PathLike[str]],
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        *,
        entry_points: bool = True,
    ) -> None:
        super().__init__(plugin_dirs, entry_points=entry_points)
        self.heat_report = load_heat_plugin(*heat_plugins)
        self.errors.extend(self.heat_report.errors)

    def _plugins(self, dirs: tuple[str, ...]) -> dict[str, type]:
        mapping = super()._plugins(dirs)
        mapping.update(self.heat_report.mapping)
        return mapping


def use_heat_plugins(world: Any, *targets: str | os.PathLike[str]) -> LoadReport:
    """Make *world* resolve type names to these Heat plug-ins first; return the load report."""
    registry = HeatCompatRegistry(
        targets, world.registry.plugin_dirs, entry_points=world.registry.entry_points
    )
    world.registry = registry
    return registry.heat_report


__all__ = [
    "CLIENTLESS_PLUGINS",
    "DEFAULT_HEAT_VENV",
    "HEAT_PYTHON_ENV",
    "ROOTS",
    "HeatCompatLoader",
    "HeatCompatRegistry",
    "clientless_plugins",
    "find_heat_package",
    "heat_python",
    "load_heat_plugin",
    "needs_heat_compat",
    "use_heat_plugins",
]
