"""plugsim's testing kit: the pytest plugin, stack handles, conformance classes, strategies.

What plug-in authors import::

    from sdk.testing import ResourceConformance, PlugsimEnv, StackHandle, ResourceHarness
    from sdk.testing import strategies
    from sdk.testing import load_plugins   # a plug-in's classes by type name (Heat ones too)

Names are loaded on first use, so the pytest plugin (:mod:`sdk.testing.plugin`)
costs nothing in test runs that never ask for a plugsim fixture.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "PlugsimEnv": "sdk.testing.harness",
    "StackHandle": "sdk.testing.harness",
    "ResourceHarness": "sdk.testing.harness",
    "ResourceConformance": "sdk.testing.conformance",
    "LifecyclePluginConformance": "sdk.testing.lifecycle_conformance",
    "CloudDriverConformance": "sdk.testing.driver_conformance",
    "HandlerBlocked": "sdk.testing.watchdog",
    "Coverage": "sdk.testing.report",
    "load_plugins": "sdk.testing.cli",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import an exported name from its module on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sdk.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
