"""Fake clouds: stateful backends that simulate latency and failures from a seed.

``FakeCloud(seed=0, clock=None, faults=None, latency=None)`` is one world;
``load_backend(name)`` builds a world from the ``plugsim.fake_clouds``
entry-point group. See :mod:`fake_clouds.core` for the building blocks.
"""

from fake_clouds.core import (
    CLIENT_ALIASES,
    FakeCloud,
    FaultRule,
    InventoryItem,
    InventorySnapshot,
    Service,
    available_backends,
    leaks,
    load_backend,
    load_profile,
    operation,
    register_service,
)

__all__ = [
    "CLIENT_ALIASES",
    "FakeCloud",
    "FaultRule",
    "InventoryItem",
    "InventorySnapshot",
    "Service",
    "available_backends",
    "leaks",
    "load_backend",
    "load_profile",
    "operation",
    "register_service",
]
