"""How plug-ins written against Heat are loaded when a registry is not told otherwise.

The command line's ``--heat-compat`` and ``--heat-plugin`` reach every world a
command builds through :func:`using_heat_options`; the world's type sources
(:func:`simulator.type_sources.world_registry`) read :func:`heat_options`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class HeatOptions:
    """How plug-ins written against Heat are loaded.

    :ivar force: load every plug-in-directory file through the compat layer
        (``--heat-compat``); otherwise only files that import ``heat`` are.
    :ivar plugins: Heat plug-ins (files, directories, ``heat.…`` module names)
        whose types win over plugsim's own (``--heat-plugin``).
    """

    force: bool = False
    plugins: tuple[str, ...] = ()


_NO_HEAT_OPTIONS = HeatOptions()
_HEAT_OPTIONS: contextvars.ContextVar[HeatOptions | None] = contextvars.ContextVar(
    "plugsim_heat_options", default=None
)


def heat_options() -> HeatOptions:
    """Return the :class:`HeatOptions` in force (the defaults outside :func:`using_heat_options`)."""
    return _HEAT_OPTIONS.get() or _NO_HEAT_OPTIONS


@contextlib.contextmanager
def using_heat_options(
    *, force: bool = False, plugins: Iterable[str | os.PathLike[str]] = ()
) -> Iterator[HeatOptions]:
    """Make every world registry built inside the block use these Heat options."""
    options = HeatOptions(bool(force), tuple(os.fspath(p) for p in plugins))
    token = _HEAT_OPTIONS.set(options)
    try:
        yield options
    finally:
        _HEAT_OPTIONS.reset(token)
