"""The service registry: service classes by name, and Heat-style client names.

*Services* are registered by name (:func:`register_service`); the built-in
ones are ``compute``, ``block_storage``, ``network``, ``object_storage`` and
``entity``, imported on first use. Backends (whole worlds built from
services) are found in :mod:`fake_clouds.backend`.
"""

from __future__ import annotations

import importlib

from fake_clouds.core.service import Service
from sdk import exception

#: Heat-style client names mapped to service names.
CLIENT_ALIASES: dict[str, str] = {
    "nova": "compute",
    "cinder": "block_storage",
    "neutron": "network",
    "swift": "object_storage",
    "entity": "entity",
    "keystone": "identity",
}

_BUILTIN_MODULES = {
    "compute": "fake_clouds.compute",
    "block_storage": "fake_clouds.block_storage",
    "network": "fake_clouds.network",
    "object_storage": "fake_clouds.object_storage",
    "entity": "fake_clouds.entity",
}

#: Services a world gains only when asked (the OpenStack wire adds ``identity``, the Docker
#: Engine API ``containers``, the BIG-IP iControl REST API ``bigip``).
_OPTIONAL_MODULES = {
    "identity": "fake_clouds.identity",
    "containers": "fake_clouds.docker.engine",
    "bigip": "fake_clouds.bigip.device",
}

_SERVICES: dict[str, type[Service]] = {}


def register_service(cls: type[Service]) -> type[Service]:
    """Register a service class under ``cls.name`` (usable as a class decorator)."""
    if not cls.name:
        raise exception.ConfigurationError(f"service class {cls.__qualname__} has no name")
    existing = _SERVICES.get(cls.name)
    same = existing is not None and (existing.__module__, existing.__qualname__) == (
        cls.__module__,
        cls.__qualname__,
    )  # its module imported again (pytester drops what an in-process run imported)
    if existing is not None and existing is not cls and not same:
        raise exception.ConfigurationError(
            f"service '{cls.name}' is registered by both {existing.__module__} and {cls.__module__}"
        )
    _SERVICES[cls.name] = cls
    return cls


def optional_service(name: str) -> bool:
    """True for a service a world gains only when first asked for (``identity``)."""
    return CLIENT_ALIASES.get(name, name) in _OPTIONAL_MODULES


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
