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
import contextlib
import hashlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sdk import exception
from sdk.constraints import default_registry
from sdk.plugins import LoadError, LoadReport, PluginLoader, iter_plugin_files
from simulator.heat_compat._finder import ROOTS
from simulator.heat_compat.heat_venv import (
    DEFAULT_HEAT_VENV,
    HEAT_PYTHON_ENV,
    find_heat_package,
    heat_python,
)
from simulator.heat_compat.missing import MissingHeatName
from simulator.registry import PluginConstraints, TypeRegistry

#: The in-tree plug-ins that need no OpenStack service client (module stems).
CLIENTLESS_PLUGINS = ("none_resource", "random_string", "test_resource", "value")


def needs_heat_compat(path: str | os.PathLike[str]) -> bool:
    """Return True when the module at *path* imports ``heat`` (so it needs the shims)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        if "heat" not in text:
            return False
        tree = ast.parse(text)
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
    from simulator.heat_compat.constraints import register_missing

    registry = default_registry()
    if "test_constr" not in registry.names():
        registry.register("test_constr", TestConstraintDelay, origin="plugsim heat_compat")
    register_missing(registry)


@dataclass(frozen=True)
class HeatNameMissing(LoadError):
    """A load error of a Heat plug-in that needs a name the compat layer lacks.

    :ivar missing: the dotted name the plug-in needs (``heat.engine.service``).
    """

    missing: str = ""

    def to_exception(self) -> MissingHeatName:
        """The :class:`MissingHeatName` to raise for this error (it names the file)."""
        return MissingHeatName(self.missing, self.path)


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
        # the shims and Heat's constraint modules are imported only for a file that needs them:
        # loading plain plug-ins (every ``--plugin-dir``) stays as cheap as sdk's own loader
        from simulator.heat_compat.entry_point_constraints import constraints_of
        from simulator.heat_compat.siblings import sibling_imports

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
            with heat_imports(), sibling_imports(resolved):  # ``import common.mixins``
                spec.loader.exec_module(module)
        except BaseException as ex:  # a plug-in may raise anything
            sys.modules.pop(name, None)
            if isinstance(ex, KeyboardInterrupt):
                raise
            missing = _missing_name(ex)
            if missing is None:
                self._error(
                    str(path),
                    f"failed to import through the Heat compat layer: {type(ex).__name__}: {ex}",
                )
            else:
                message = str(MissingHeatName(missing))
                self.report.errors.append(
                    HeatNameMissing(
                        str(path),
                        f"failed to import through the Heat compat layer: {message}",
                        missing,
                    )
                )
            return None
        adopt_heat_module(module)
        self.register_module(module, f"{path} (heat compat)")
        entry_points = constraints_of(module, resolved)  # Heat's heat.constraints group
        if entry_points:
            self._register_constraints(entry_points, f"{path} (heat.constraints entry points)")
        return module


def heat_imports() -> contextlib.AbstractContextManager[None]:
    """Serve the shims (and the installed Heat's shared base modules) while a Heat plug-in imports."""
    from simulator.heat_compat._shims import shim_imports

    return shim_imports(find_heat_package())


def adopt_heat_module(module: ModuleType) -> None:
    """Finish an imported Heat plug-in module: virtual time in its namespace, Heat's constraints."""
    from simulator.heat_compat import _vtime

    _vtime.patch_module(module)
    _register_heat_constraints()


def _missing_name(ex: BaseException) -> str | None:
    """The Heat-side name whose absence made an import fail, or None for other failures."""
    if isinstance(ex, MissingHeatName):
        return ex.qualified_name
    if isinstance(ex, ModuleNotFoundError):
        if ex.name and ex.name.split(".", 1)[0] in ROOTS:
            return ex.name
        return None
    if isinstance(ex, ImportError):
        found = re.match(r"cannot import name '([^']+)' from '([^']+)'", str(ex))
        if found and found.group(2).split(".", 1)[0] in ROOTS:
            return f"{found.group(2)}.{found.group(1)}"
    return None


def _no_heat_message(text: str) -> str:
    configured = os.environ.get(HEAT_PYTHON_ENV)
    if configured and heat_python() is None:
        problem = f"{HEAT_PYTHON_ENV}={configured} is not an executable file"
    elif heat_python() is None:
        default = os.path.join(DEFAULT_HEAT_VENV, "bin", "python")
        problem = f"{HEAT_PYTHON_ENV} is not set and {default} does not exist"
    else:
        problem = f"no heat package in the virtualenv of {heat_python()}"
    return (
        f"Heat plug-in {text}: no openstack-heat found ({problem}); set {HEAT_PYTHON_ENV} "
        f"to the python of a virtualenv where openstack-heat is installed "
        f"(python -m venv VENV && VENV/bin/pip install openstack-heat)"
    )


def resolve_heat_targets(*targets: str | os.PathLike[str]) -> list[Path]:
    """The plug-in files named by *targets*: files, directories or ``heat.…`` module names.

    A dotted name is looked up in the installed openstack-heat package
    (:func:`find_heat_package`); a package name stands for its plug-in files.

    :raises sdk.exception.ConfigurationError: a target is none of these, or it
        names a Heat module and no openstack-heat is found (the message says how
        to set ``PLUGSIM_HEAT_PYTHON``).
    """
    return [path for target in targets for path in _resolve_target(target)]


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
            raise exception.ConfigurationError(_no_heat_message(text))
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
    for path in resolve_heat_targets(*targets):
        loader.load_file(path)
    return loader._finish()


def clientless_plugins() -> list[Path]:
    """The files of Heat's in-tree plug-ins that need no service client (empty without Heat)."""
    package = find_heat_package()
    if package is None:
        return []
    base = package / "engine" / "resources" / "openstack" / "heat"
    return [base / f"{stem}.py" for stem in CLIENTLESS_PLUGINS if (base / f"{stem}.py").is_file()]


_HEAT_CACHE: dict[tuple[str, ...], LoadReport] = {}


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


class HeatPluginTypes:
    """A type source (:class:`simulator.registry.TypeSource`) of Heat plug-ins whose types win.

    The plug-ins (files, directories or ``heat.…`` module names) are loaded
    when the source is made, once per process for the same files. With
    *strict* a plug-in that fails to load raises
    (:class:`MissingHeatName` naming the file and the name when the compat
    layer lacks a name it needs); otherwise its error is in :attr:`report`.
    """

    overrides = True

    def __init__(
        self,
        targets: Iterable[str | os.PathLike[str]],
        constraint_registry: Any = None,
        *,
        strict: bool = True,
    ) -> None:
        #: the targets, paths resolved
        self.targets = list(dict.fromkeys(_normalise_target(t) for t in targets))
        files = tuple(dict.fromkeys(str(p.resolve()) for p in resolve_heat_targets(*self.targets)))
        report = _HEAT_CACHE.get(files)
        if report is None:
            report = load_heat_plugin(*files, constraint_registry=constraint_registry)
            _HEAT_CACHE[files] = report
        #: what loading the plug-ins found
        self.report = report
        if report.errors and strict:
            raise _heat_load_failure(report.errors)

    def load(self, dirs: tuple[str, ...]) -> LoadReport:
        """The Heat plug-ins' types (whatever the directories)."""
        return self.report


def heat_report(registry: TypeRegistry) -> LoadReport | None:
    """What loading *registry*'s Heat plug-ins found (None when it has none)."""
    found = [s for s in registry.sources if isinstance(s, HeatPluginTypes)]
    return found[-1].report if found else None


def use_heat_plugins(world: Any, *targets: str | os.PathLike[str]) -> LoadReport:
    """Make *world* resolve type names to these Heat plug-ins first; return the load report.

    A plug-in that fails to load does not raise: its error is in the report
    (and in the registry's ``errors``).
    """
    old: TypeRegistry = world.registry
    heat = HeatPluginTypes(targets, PluginConstraints(), strict=False)
    sources = [s for s in old.sources if not isinstance(s, HeatPluginTypes)]
    world.registry = TypeRegistry(
        [*sources, heat], plugin_dirs=old.plugin_dirs, template_classes=old.template_classes
    )
    return heat.report


__all__ = [
    "CLIENTLESS_PLUGINS",
    "DEFAULT_HEAT_VENV",
    "HEAT_PYTHON_ENV",
    "ROOTS",
    "HeatCompatLoader",
    "HeatPluginTypes",
    "HeatNameMissing",
    "clientless_plugins",
    "find_heat_package",
    "heat_report",
    "heat_python",
    "load_heat_plugin",
    "needs_heat_compat",
    "resolve_heat_targets",
    "use_heat_plugins",
]
