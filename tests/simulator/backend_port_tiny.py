"""A second, minimal fake cloud backend: the smallest thing that fits :class:`CloudBackend`.

It is not a FakeCloud: one service, ``counter``, whose client counts calls.
``tests/simulator/test_backend_port.py`` registers it as entry points (a class
with ``from_state``, a plain factory function without one) and mypy checks it
and the default backend against the port (see the end of this module).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import responses

from sdk import exception
from sdk.clients import ClientPlugin
from simulator.backend import (
    CallRecord,
    CloudBackend,
    FaultRecord,
    InventoryEntry,
    JSONData,
    ServerRecord,
)
from simulator.clock import VirtualClock


@dataclass(frozen=True)
class Mark:
    """What was alive at one instant: the tiny backend holds no entities."""

    time: float
    keys: frozenset[tuple[str, str, str]] = frozenset()


@dataclass
class CounterClient:
    """The ``counter`` service's client."""

    backend: TinyBackend

    def bump(self) -> int:
        """Count one call; a ``refuse`` fault makes it a ServiceUnavailable."""
        if self.backend.faults == "refuse":
            raise exception.ServiceUnavailable("counter refuses")
        self.backend.count += 1
        return self.backend.count


@dataclass
class TinyBackend:
    """One counter in virtual time, restored from its own state."""

    seed: int
    clock: VirtualClock
    faults: object = None
    count: int = 0
    restored: bool = field(default=False, compare=False)

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the plug-in of the only service, ``counter``."""
        if name != "counter":
            raise exception.ConfigurationError(f"No fake cloud service '{name}' (known: counter)")
        return ClientPlugin(name, factory=lambda: CounterClient(self))

    def set_faults(self, faults: object) -> None:
        """Keep the fault setting (``refuse`` is the only one that does anything)."""
        self.faults = faults

    def to_state(self) -> JSONData:
        """Return the seed, the count and the fault setting."""
        return {"tiny": 1, "seed": self.seed, "count": self.count, "faults": self.faults}

    @classmethod
    def from_state(cls, state: JSONData, clock: VirtualClock | None = None) -> TinyBackend:
        """Rebuild the backend :meth:`to_state` described."""
        if state.get("tiny") != 1:
            raise exception.ConfigurationError(f"not a tiny backend's state: {dict(state)!r}")
        seed, count = state["seed"], state["count"]
        assert isinstance(seed, int) and isinstance(count, int)
        backend = cls(seed, clock or VirtualClock(), state.get("faults"), count)
        backend.restored = True
        return backend

    def inventory(self) -> Sequence[InventoryEntry]:
        """The counter holds no entities."""
        return []

    def snapshot_inventory(self) -> Mark:
        """Remember the (empty) inventory now."""
        return Mark(self.clock.now())

    def leaks(self, since: object) -> Sequence[InventoryEntry]:
        """Nothing ever leaks."""
        return []

    def injected_faults(self) -> Sequence[FaultRecord]:
        """No fault is ever recorded."""
        return []

    def trace(self) -> Sequence[CallRecord]:
        """Calls are counted, not traced."""
        return []

    def find_server(self, address: str) -> ServerRecord | None:
        """There are no servers."""
        return None

    def serve_rest(
        self,
        mock: responses.RequestsMock,
        *,
        tokens: Mapping[str, str] | None = None,
        base_urls: Mapping[str, str] | None = None,
    ) -> None:
        """No REST dialect is served."""
        return None


def tiny_factory(*, seed: int, clock: VirtualClock, faults: object = None) -> TinyBackend:
    """A plain factory function (no ``from_state``): restore goes through the class it builds."""
    return TinyBackend(seed, clock, faults)


if TYPE_CHECKING:
    from fake_clouds import FakeCloud

    _tiny: CloudBackend = TinyBackend(0, VirtualClock())
    _default: CloudBackend = FakeCloud()
