"""Importing lifecycle plug-ins written against Heat: through the shims when they need them.

The lifecycle registry (:mod:`simulator.lifecycle`) imports ``module:Class``
specs and entry points within :func:`heat_aware`, so a module whose source
imports ``heat`` sees the compat layer's ``heat.engine.lifecycle_plugin``
(:mod:`simulator.heat_compat.lifecycle`) while every other module imports as
before.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from types import ModuleType

from simulator.heat_compat._shims import shim_imports
from simulator.heat_compat.loader import needs_heat_compat

#: The entry-point group Heat reads stack lifecycle plug-ins from.
HEAT_ENTRY_POINT_GROUP = "heat.stack_lifecycle_plugins"


def _imports_heat(module_name: str) -> bool:
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return False
    origin = getattr(spec, "origin", None) if spec is not None else None
    return bool(origin) and str(origin).endswith(".py") and needs_heat_compat(origin)


def heat_aware(module_name: str) -> contextlib.AbstractContextManager[None]:
    """A context to import *module_name* in: the compat layer's shims when it imports ``heat``."""
    if module_name in sys.modules or not _imports_heat(module_name):
        return contextlib.nullcontext()
    return shim_imports()


def import_heat_aware(module_name: str) -> ModuleType:
    """Import *module_name*; through the compat layer's shims when its source imports ``heat``."""
    with heat_aware(module_name):
        return importlib.import_module(module_name)
