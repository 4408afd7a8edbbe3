"""Backends: whole fake clouds built by name through the ``plugsim.fake_clouds`` entry points.

A *backend* is what the engine builds its fake cloud from. The built-in one,
``default`` (:data:`default_backend`), is every built-in service plus the
default world (:mod:`fake_clouds.default_world`). A package adds its own
through the entry-point group ``plugsim.fake_clouds``: the entry point names
a factory that takes keyword arguments (``seed``, ``clock``, ``faults``,
``latency`` ...) and returns a configured :class:`FakeCloud` or an iterable
of service classes (then a world is built from them with the same keyword
arguments). A factory may offer ``from_state(state, clock=None)``; without
one the engine restores a saved world through the class of the world the
factory builds (see :mod:`simulator.backend`, the engine's side of this seam).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import metadata
from typing import Any

from fake_clouds.core.world import FakeCloud
from sdk import exception
from simulator.clock import VirtualClock

ENTRY_POINT_GROUP = "plugsim.fake_clouds"


class DefaultBackend:
    """The ``default`` backend's factory: build a new world, or restore a saved one."""

    def __call__(self, *, world: Any = None, **kwargs: Any) -> FakeCloud:
        """Return a world of every built-in service (or ``services=``) holding the default world,
        or *world* (a world file, a preset name or world data, see :mod:`fake_clouds.worldfile`)."""
        if world is not None:
            from fake_clouds import worldfile

            return worldfile.build(world, **kwargs)  # type: ignore[no-any-return]
        return FakeCloud(**kwargs)

    def from_state(self, state: Mapping[str, Any], clock: VirtualClock | None = None) -> FakeCloud:
        """Rebuild a world saved by :meth:`FakeCloud.to_state`."""
        return FakeCloud.from_state(state, clock=clock)


#: The built-in backend (the ``default`` entry point).
default_backend = DefaultBackend()


def _entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def available_backends() -> list[str]:
    """Return the names of installed backends (``default`` always included)."""
    return sorted({ep.name for ep in _entry_points()} | {"default"})


def load_backend(name: str = "default", **kwargs: Any) -> FakeCloud:
    """Build the backend *name* from the entry-point group (built-in fallback for ``default``)."""
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
