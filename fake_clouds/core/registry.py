"""Service and backend registries.

*Services* are registered by name (:func:`register_service`); the built-in
ones are ``compute``, ``block_storage``, ``network``, ``object_storage`` and
``entity``. *Backends* are factories registered under the entry-point group
``plugsim.fake_clouds``: a factory takes keyword arguments (``seed``,
``clock``, ``faults``, ``latency`` ...) and returns a configured
:class:`~fake_clouds.core.world.FakeCloud` or an iterable of service classes
(then a world is built from them with the same keyword arguments).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from importlib import metadata
from typing import TYPE_CHECKING, Any

from sdk import exception

if TYPE_CHECKING:
    from fake_clouds.core.service import Service
    from fake_clouds.core.world import FakeCloud

ENTRY_POINT_GROUP = "plugsim.fake_clouds"

#: Heat-style client names mapped to service names.
CLIENT_ALIASES: dict[str, str] = {
    "nova": "compute",
    "cinder": "block_storage",
    "neutron": "network",
    "swift": "object_storage",
    "entity": "entity",
}

_BUILTIN_MODULES = {
    "compute": "fake_clouds.compute",
    "block_storage": "fake_clouds.block_storage",
    "network": "fake_clouds.network",
    "object_storage": "fake_clouds.object_storage",
    "entity": "fake_clouds.entity",
}

#: Services a world gains only when asked (the OpenStack wire adds ``identity``).
_OPTIONAL_MODULES = {"identity": "fake_clouds.identity"}

_SERVICES: dict[str, type[Service]] = {}


def register_service(cls: type[Service]) -> type[Service]:
    """Register a service class under ``cls.name`` (usable as a class decorator)."""
    if not cls.name:
        raise exception.ConfigurationError(f"service class {cls.__qualname__} has no name")
    existing = _SERVICES.get(cls.name)
    if existing is not None and existing is not cls:
        raise exception.ConfigurationError(
            f"service '{cls.name}' is registered by both {existing.__module__} and {cls.__module__}"
        )
    _SERVICES[cls.name] = cls
    return cls


def builtin_service_names() -> list[str]:
    """Return the names of the built-in services, in a fixed order."""
    return list(_BUILTIN_MODULES)


def service_class(name: str) -> type[Service]:
    """Return the service class registered as *name* (importing built-ins on demand)."""
    modules = {**_BUILTIN_MODULES, **_OPTIONAL_MODULES}
    if name not in _SERVICES and name in modules:
        importlib.import_module(modules[name])
    try:
        return _SERVICES[name]
    except KeyError:
        known = ", ".join(sorted(set(_SERVICES) | set(modules)))
        raise exception.ConfigurationError(
            f"No fake cloud service type '{name}' (known: {known})"
        ) from None


def default_backend(**kwargs: Any) -> FakeCloud:
    """The built-in backend: every built-in service and the default world."""
    from fake_clouds.core.world import FakeCloud

    return FakeCloud(**kwargs)


def _entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def available_backends() -> list[str]:
    """Return the names of installed backends (``default`` always included)."""
    return sorted({ep.name for ep in _entry_points()} | {"default"})


def load_backend(name: str = "default", **kwargs: Any) -> FakeCloud:
    """Build the backend *name* from the entry-point group (built-in fallback for ``default``)."""
    from fake_clouds.core.world import FakeCloud

    matches = [ep for ep in _entry_points() if ep.name == name]
    if not matches:
        if name == "default":
            return default_backend(**kwargs)
        known = ", ".join(available_backends())
        raise exception.ConfigurationError(
            f"No fake cloud backend '{name}' in entry-point group {ENTRY_POINT_GROUP} "
            f"(known: {known})"
        )
    ep = matches[0]
    try:
        factory = ep.load()
    except Exception as ex:  # a broken third-party package must not crash the engine
        raise exception.PluginLoadError(
            f"fake cloud backend '{name}' ({ep.value}) failed to load: {type(ex).__name__}: {ex}"
        ) from ex
    result = factory(**kwargs)
    if isinstance(result, FakeCloud):
        return result
    if isinstance(result, Iterable) and not isinstance(result, str | bytes):
        return FakeCloud(services=list(result), **kwargs)
    raise exception.PluginLoadError(
        f"fake cloud backend '{name}' ({ep.value}) returned {type(result).__name__}; "
        "expected a FakeCloud or an iterable of service classes"
    )
