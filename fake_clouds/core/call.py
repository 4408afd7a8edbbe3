"""The call a service operation runs in: the fault effect that won it and how time behaves.

:meth:`fake_clouds.core.world.FakeCloud.dispatch` builds one :class:`Call`
per operation; a service reads it through ``world.call`` while it changes
state (outside any operation ``world.call`` is an idle call: no effect, time
at its normal pace). It answers the questions a lifecycle asks: which fault
effect applies (``error_state``, ``stuck`` ...), the reason to show, how much
a ``delay`` stretches transitions, how long a transition takes and the lag of
an ``eventual_consistency`` fault. Once the call is over, a :class:`TraceEntry` records
it in the world's trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fake_clouds.core.injector import Injection
from fake_clouds.core.latency import LatencyModel, parse_distribution
from simulator.rng import SeededRNG


@dataclass(frozen=True)
class Call:
    """One operation in progress (or none: ``injection`` None, ``time_factor`` 1)."""

    rng: SeededRNG
    latency: LatencyModel
    injection: Injection | None = None
    #: how much a ``delay`` fault stretches this call's transitions
    time_factor: float = 1.0

    @property
    def effect(self) -> str | None:
        """The type of the fault effect applied to this call, if any."""
        return self.injection.effect_type if self.injection else None

    @property
    def reason(self) -> str:
        """The fault message an entity shows when this call breaks it."""
        if self.injection is None:
            return ""
        return str(self.injection.rule.effect.params.get("reason") or "Injected fault")

    def transition_time(self, service: str, kind: str, phase: str) -> float:
        """Sample how long a *phase* transition of a *kind* entity takes (``latency`` stream)."""
        duration = self.latency.transition(service, kind, phase, self.rng.stream("latency"))
        return duration * self.time_factor

    def consistency_lag(self, which: str) -> float | None:
        """Sample the ``lag`` or ``linger`` of an eventual-consistency fault (None without one)."""
        if self.injection is None or self.injection.effect_type != "eventual_consistency":
            return None
        spec = self.injection.rule.effect.params[which]
        return parse_distribution(spec, which).sample(self.rng.stream("faults"))


@dataclass(frozen=True, init=False)
class TraceEntry:
    """One call as the world saw it."""

    time: float
    service: str
    operation: str
    entity_id: str | None
    outcome: str
    latency: float

    def __init__(
        self,
        time: float,
        service: str,
        operation: str,
        entity_id: str | None,
        outcome: str,
        latency: float,
    ) -> None:
        # the fields at once (a frozen dataclass's own __init__ sets them one object.__setattr__
        # at a time, and every fake-cloud call makes an entry); the entry stays frozen after
        self.__dict__.update(
            time=time,
            service=service,
            operation=operation,
            entity_id=entity_id,
            outcome=outcome,
            latency=latency,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict (every field is a scalar: a flat copy, no ``asdict`` recursion)."""
        return {
            "time": self.time,
            "service": self.service,
            "operation": self.operation,
            "entity_id": self.entity_id,
            "outcome": self.outcome,
            "latency": self.latency,
        }
