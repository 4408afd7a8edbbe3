"""Fake clouds: stateful backends that simulate latency and failures from a seed.

``FakeCloud(seed=0, clock=None, faults=None, latency=None)`` is one world;
``load_backend(name)`` builds a world from the ``plugsim.fake_clouds``
entry-point group (:mod:`fake_clouds.backend`). See :mod:`fake_clouds.core` for
the building blocks.
"""

from fake_clouds.backend import ENTRY_POINT_GROUP, available_backends, load_backend
from fake_clouds.core import (
    CLIENT_ALIASES,
    FakeCloud,
    FaultRule,
    InventoryItem,
    InventorySnapshot,
    Service,
    leaks,
    load_profile,
    operation,
    register_service,
)

__all__ = [
    "CLIENT_ALIASES",
    "ENTRY_POINT_GROUP",
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
