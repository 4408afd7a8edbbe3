"""Loading a cloud driver module the way salt-cloud does.

A driver is found by name (``driver:`` in providers.yaml) in, in order: the
explicit ``drivers`` mapping (name -> path or import name), the driver
directories (a file ``<name>.py``, or any ``*.py`` declaring
``__virtualname__ = "<name>"``) and the bundled examples. Every provider alias
gets its own, fresh module object, so injected globals never leak between
aliases or into ``sys.modules``' copy of an importable module.

Before the module's code runs its globals hold ``__opts__``,
``__active_provider_name__`` (``alias:driver``), ``__utils__``, ``__salt__``,
an empty ``__context__`` and a default ``__virtualname__`` (the file's stem). After it ran, its
``time`` references are pointed at virtual time and ``__virtual__()`` decides:
``True`` loads it, a string renames it, ``False`` or ``(False, reason)``
disables it.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import itertools
import os
import sys
import traceback
import types
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk.cloud_driver import REQUIRED_FUNCTIONS, DriverRuntime
from sdk.exception import PluginLoadError
from simulator.drivers.vtime import VirtualTimeModule, patch_module_time

#: The directory of the example drivers shipped with plugsim (a source checkout).
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "examples" / "drivers"

_COUNTER = itertools.count(1)

#: What salt-cloud itself requires of a driver: it drops a provider whose driver lacks
#: ``get_configured_provider`` ("could not be loaded"); every other function is looked
#: up only when an operation needs it (``--list-sizes`` without ``avail_sizes`` is refused
#: then, not at load time).
SALT_CLOUD_REQUIRED: tuple[str, ...] = ("get_configured_provider",)


class DriverLoadError(PluginLoadError):
    """A driver module could not be found, imported or initialised."""


class DriverUnavailable(DriverLoadError):
    """A driver's ``__virtual__()`` disabled it."""


@dataclass
class LoadedDriver:
    """One driver module loaded for one provider alias."""

    name: str
    alias: str
    module: types.ModuleType
    source: str
    time_patched: list[str] = field(default_factory=list)
    #: The functions the module must define to be used at all (plugsim's contract, or
    #: salt-cloud's in real-Salt mode: :data:`SALT_CLOUD_REQUIRED`).
    required: tuple[str, ...] = REQUIRED_FUNCTIONS

    @property
    def provider(self) -> str:
        """Return ``alias:driver``."""
        return f"{self.alias}:{self.name}"

    def function(self, name: str) -> Callable[..., Any] | None:
        """Return the module-level callable *name*, or None."""
        value = getattr(self.module, name, None)
        return value if callable(value) else None

    def missing_functions(self) -> list[str]:
        """Return the required functions the module does not define, in contract order."""
        return [n for n in self.required if self.function(n) is None]


def declared_virtualname(path: Path) -> str | None:
    """Return the string a file assigns to ``__virtualname__`` at top level, if any."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "__virtualname__":
                    value = node.value.value
                    return value if isinstance(value, str) else None
    return None


class DriverLocator:
    """Finds the source of a driver by name.

    Without Salt the order is: the explicit ``drivers`` mapping, the driver
    directories, the bundled examples (by file name or declared
    ``__virtualname__``). With *salt* set (real-Salt mode) it is salt-cloud's
    own: the explicit mapping, then the driver directories (Salt's
    ``cloud_dirs`` / extension modules, which Salt 3007 searches before its
    own package), then Salt's in-tree drivers in ``salt.cloud.clouds`` (by
    file name or ``__virtualname__``: ``vultr`` is ``vultrpy.py``), and the
    bundled examples only by their own file names (``digitalocean_v2``), so
    ``driver: digitalocean`` is Salt's driver as it is for a salt-cloud user.
    """

    def __init__(
        self,
        drivers: Mapping[str, str | os.PathLike[str]] | None = None,
        driver_dirs: Iterable[str | os.PathLike[str]] = (),
        *,
        bundled: bool = True,
        salt: bool = False,
    ) -> None:
        self.drivers = {k: os.fspath(v) for k, v in (drivers or {}).items()}
        self.dirs = [Path(d) for d in driver_dirs]
        self.salt = salt
        self.bundled: list[Path] = []
        if bundled and BUNDLED_DIR.is_dir():
            self.bundled = [BUNDLED_DIR, *(BUNDLED_DIR / d for d in BUNDLED_SUBDIRS)]
            if not salt:
                self.dirs.append(BUNDLED_DIR)

    def _scan(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for directory in self.dirs:
            _scan_dir(directory, found, virtualnames=True)
        if self.salt:
            for name, module in salt_in_tree_drivers().items():
                found.setdefault(name, module)
            for directory in self.bundled:
                _scan_dir(directory, found, virtualnames=False)
        return found

    def known(self) -> list[str]:
        """Return every driver name this locator can find, sorted."""
        return sorted(set(self.drivers) | set(self._scan()))

    def find(self, name: str) -> str | None:
        """Return the path or import name serving driver *name*, or None."""
        if name in self.drivers:
            return self.drivers[name]
        return self._scan().get(name)

    def by_file_name(self, name: str, source: str) -> bool:
        """True when *source* was found by its file name *name* among the bundled examples.

        Such a driver is served under *name* whatever its ``__virtual__()``
        returns (``digitalocean_v2.py`` calls itself ``digitalocean``).
        """
        return (
            self.salt
            and name not in self.drivers
            and Path(source).stem == name
            and any(Path(source).parent == d for d in self.bundled)
        )


#: Sub-directories of the bundled examples also searched in real-Salt mode (by file name).
BUNDLED_SUBDIRS = ("salt_style",)


@functools.cache
def salt_in_tree_drivers() -> dict[str, str]:
    """Return Salt's in-tree driver names (file names and ``__virtualname__``) -> import names."""
    directory = salt_clouds_dir()
    if directory is None:
        return {}
    inner: dict[str, str] = {}
    _scan_dir(directory, inner, virtualnames=True)
    return {name: f"salt.cloud.clouds.{Path(path).stem}" for name, path in inner.items()}


def salt_clouds_dir() -> Path | None:
    """Return the directory of Salt's in-tree cloud drivers, or None without Salt."""
    try:
        spec = importlib.util.find_spec("salt.cloud.clouds")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _scan_dir(directory: Path, found: dict[str, str], *, virtualnames: bool) -> None:
    if not directory.is_dir():
        return
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        names = (declared_virtualname(path), path.stem) if virtualnames else (path.stem,)
        for name in names:
            if name and name not in found:
                found[name] = str(path)


def _is_path(source: str) -> bool:
    return source.endswith(".py") or os.sep in source or os.path.exists(source)


def _spec_for(source: str, where: str) -> tuple[Any, str]:
    private = f"_plugsim_cloud_driver_{next(_COUNTER)}"
    if _is_path(source):
        path = Path(source)
        if not path.is_file():
            raise DriverLoadError(f"{where}: driver file {source} does not exist")
        return importlib.util.spec_from_file_location(private, path), str(path)
    try:
        found = importlib.util.find_spec(source)
    except (ImportError, ValueError) as ex:
        raise DriverLoadError(f"{where}: cannot import driver module {source!r}: {ex}") from None
    if found is None or not found.origin or not os.path.isfile(found.origin):
        raise DriverLoadError(f"{where}: cannot find driver module {source!r}")
    return importlib.util.spec_from_file_location(private, found.origin), found.origin


def _line_in(path: str, ex: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(ex.__traceback__) if f.filename == path]
    return f" (line {frames[-1].lineno})" if frames else ""


def load_driver(
    source: str,
    *,
    alias: str,
    driver: str,
    opts: dict[str, Any],
    utils: Mapping[str, Any],
    salt: Mapping[str, Any],
    time_shim: VirtualTimeModule,
    session: Callable[[], AbstractContextManager[Any]],
    runtime: DriverRuntime,
    where: str,
) -> LoadedDriver:
    """Load *source* for provider *alias* (driver *driver*) and honour ``__virtual__()``.

    *where* prefixes every error (``providers.yaml: my-do.driver``);
    *session* is entered around the module's code (virtual time, fakes,
    network guard). Raises :class:`DriverLoadError` / :class:`DriverUnavailable`.
    """
    spec, path = _spec_for(source, where)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(
        __opts__=opts,
        __active_provider_name__=f"{alias}:{driver}",
        __utils__=utils,
        __salt__=salt,
        __context__={},  # Salt's loader gives every module a context dict (openstack caches in it)
        __virtualname__=Path(path).stem,
    )
    sys.modules[spec.name] = module
    try:
        with session():
            spec.loader.exec_module(module)
    except SyntaxError as ex:
        sys.modules.pop(spec.name, None)
        raise DriverLoadError(
            f"{ex.filename or path}:{ex.lineno}: syntax error in driver {driver!r}: {ex.msg}"
        ) from None
    except Exception as ex:
        sys.modules.pop(spec.name, None)
        raise DriverLoadError(
            f"{path}: importing driver {driver!r} raised {type(ex).__name__}: {ex}{_line_in(path, ex)}"
        ) from None
    patched = patch_module_time(module, time_shim)
    name = _run_virtual(module, path, driver, session, runtime, alias)
    return LoadedDriver(name, alias, module, path, patched)


def _run_virtual(
    module: types.ModuleType,
    path: str,
    driver: str,
    session: Callable[[], AbstractContextManager[Any]],
    runtime: DriverRuntime,
    alias: str,
) -> str:
    virtual = getattr(module, "__virtual__", None)
    default = getattr(module, "__virtualname__", None) or Path(path).stem
    if not callable(virtual):
        return driver if default in (driver, Path(path).stem) else default
    before = len(runtime.notes)
    try:
        with session():
            result = virtual()
    except Exception as ex:
        raise DriverLoadError(
            f"{path}: __virtual__() of driver {driver!r} raised {type(ex).__name__}: {ex}"
            f"{_line_in(path, ex)}"
        ) from None
    reason = None
    if isinstance(result, tuple) and result and result[0] is False:
        reason = str(result[1]) if len(result) > 1 else None
        result = False
    if result is False or result is None:
        notes = [n for n in runtime.notes[before:] if n.provider in (f"{alias}:{driver}", driver)]
        if notes and reason is None:
            reason = f"provider {notes[-1].provider} lacks {', '.join(notes[-1].missing)}"
        raise DriverUnavailable(
            f"{path}: driver {driver!r} is disabled by __virtual__(): "
            f"{reason or 'it returned False without a reason'}"
        )
    if isinstance(result, str):
        return result
    if result is True:
        return driver if default in (driver, Path(path).stem) else default
    raise DriverLoadError(
        f"{path}: __virtual__() of driver {driver!r} returned {result!r}; expected True, False, "
        "(False, reason) or the driver's name"
    )
