"""Importing a plug-in module for the dynamic rules, safely.

A plug-in is imported from its file under a private module name, with its
directory on ``sys.path`` for sibling imports and with the network switched
off: any socket connection or name lookup made during the import raises
``OSError``. Whatever the import raises (even ``SystemExit``) is captured and
reported as a finding; ``sys.modules`` and ``sys.path`` are restored
afterwards. Handlers are never called. A file that imports ``heat`` is
imported through :mod:`simulator.heat_compat`, as the engine loads it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import socket
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any


class NetworkBlocked(OSError):
    """Raised by any network access attempted while a plug-in is being imported."""


@contextlib.contextmanager
def network_blocked(while_: str = "importing a plug-in") -> Iterator[None]:
    """Make socket connections and DNS lookups fail for the duration of the block.

    The error names what the linter was doing (*while_*).
    """

    def _blocked(*args: Any, **kwargs: Any) -> Any:
        raise NetworkBlocked(f"plugsim lint: network access is blocked while {while_}")

    names: tuple[tuple[object, str], ...] = (
        (socket.socket, "connect"),
        (socket.socket, "connect_ex"),
        (socket, "create_connection"),
        (socket, "getaddrinfo"),
    )
    saved = [getattr(owner, name) for owner, name in names]
    for owner, name in names:
        setattr(owner, name, _blocked)
    try:
        yield
    finally:
        for (owner, name), original in zip(names, saved, strict=True):
            setattr(owner, name, original)


@dataclass
class Loaded:
    """The outcome of importing one plug-in file."""

    module: ModuleType | None
    error: str | None = None
    line: int = 1
    #: Module name -> source file of the modules the import brought in from the plug-in's own
    #: directory (sibling imports), which are dropped from ``sys.modules`` afterwards: what
    #: finding the source of a class they define still needs.
    sources: dict[str, str] = field(default_factory=dict)


def private_name(path: Path) -> str:
    """A module name for *path* that cannot clash with a real one."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"_plugsim_lint_{stem}_{digest}"


def _error_line(exc: BaseException, path: Path) -> int:
    target = str(path.resolve())
    line = 1
    for frame in traceback.extract_tb(exc.__traceback__):
        with contextlib.suppress(OSError):
            if str(Path(frame.filename).resolve()) == target and frame.lineno:
                line = frame.lineno
    if isinstance(exc, SyntaxError) and exc.lineno and exc.filename:
        with contextlib.suppress(OSError):
            if str(Path(exc.filename).resolve()) == target:
                line = exc.lineno
    return line


def import_file(path: Path, name: str | None = None) -> Loaded:
    """Import *path* in isolation; never raises for anything the module does."""
    name = name or private_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return Loaded(None, f"cannot import {path.name}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    directory = str(path.parent.resolve())
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    before = set(sys.modules)
    sys.modules[name] = module
    sources: dict[str, str] = {}
    heat = _heat_compat(path)
    try:
        with network_blocked(), heat.imports():
            spec.loader.exec_module(module)
        heat.adopt(module)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a crashing plug-in is a finding
        return Loaded(None, f"{type(exc).__name__}: {exc}", _error_line(exc, path))
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(directory)
        for extra in sorted(set(sys.modules) - before):
            top = extra.split(".")[0]
            if extra == name or (top not in before and _is_local(sys.modules.get(top), directory)):
                filename = getattr(sys.modules.pop(extra, None), "__file__", None)
                if filename:
                    sources[extra] = filename
    return Loaded(module, sources=sources)


@dataclass(frozen=True)
class _HeatCompat:
    """How a plug-in file is imported: through Heat's compat layer when it imports ``heat``."""

    needed: bool

    def imports(self) -> contextlib.AbstractContextManager[None]:
        if not self.needed:
            return contextlib.nullcontext()
        from simulator.heat_compat.loader import heat_imports

        return heat_imports()

    def adopt(self, module: ModuleType) -> None:
        if self.needed:
            from simulator.heat_compat.loader import adopt_heat_module

            adopt_heat_module(module)


def _heat_compat(path: Path) -> _HeatCompat:
    """A file that imports ``heat`` is imported as ``--plugin-dir`` and conformance import it."""
    from simulator.heat_compat.loader import needs_heat_compat

    return _HeatCompat(needs_heat_compat(path))


def _is_local(module: ModuleType | None, directory: str) -> bool:
    filename = getattr(module, "__file__", None)
    if not filename:
        return False
    try:
        where = Path(filename).resolve().parent
    except OSError:
        return False
    if getattr(module, "__path__", None) is not None:
        where = where.parent
    return str(where) == directory


@dataclass
class MappingCall:
    """The outcome of calling a module's ``resource_mapping``-style function."""

    function: str
    mapping: dict[Any, Any] | None
    error: str | None = None


def call_mapping(module: ModuleType, function: str) -> MappingCall | None:
    """Call ``module.<function>()`` if it exists; None when the module lacks it."""
    fn = getattr(module, function, None)
    if fn is None:
        return None
    if not callable(fn):
        return MappingCall(function, None, f"{function} is {type(fn).__name__}, not a function")
    try:
        with network_blocked():
            result = fn()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as a finding
        return MappingCall(function, None, f"raised {type(exc).__name__}: {exc}")
    if not isinstance(result, dict):
        return MappingCall(function, None, f"returned {type(result).__name__}, not a dict")
    return MappingCall(function, result)


def resource_base() -> type | None:
    """The SDK's Resource class, or None when the SDK's resource module cannot be imported."""
    try:
        from sdk.resource import Resource
    except Exception:  # noqa: BLE001 - the SDK may be broken; fall back to names
        return None
    return Resource


def is_resource_class(value: Any) -> bool:
    """Whether *value* is a Resource subclass (by identity, or by name without the SDK)."""
    if not isinstance(value, type):
        return False
    base = resource_base()
    if base is not None:
        return issubclass(value, base)
    return any(k.__name__ == "Resource" for k in value.__mro__)
