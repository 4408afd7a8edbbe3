"""The fault engine: evaluates a profile's rules call by call and keeps their bookkeeping."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any

from fake_clouds.core.faults import FaultProfile, FaultRule, load_profile


@dataclass(frozen=True)
class Injection:
    """The rule that won a call, with what the engine computed for it."""

    index: int
    rule: FaultRule
    retry_after: float | None = None

    @property
    def effect_type(self) -> str:
        """The effect's type name (``error``, ``timeout`` ...)."""
        return self.rule.effect.type


@dataclass(frozen=True)
class InjectedFault:
    """The record of one injected fault (what a report shows)."""

    time: float
    service: str
    operation: str
    rule_index: int
    rule_name: str | None
    effect: str
    entity_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict."""
        return asdict(self)


class FaultEngine:
    """Ordered rules (first match wins) plus per-rule counters and token buckets."""

    def __init__(self, profile: Any = None) -> None:
        self.profile: FaultProfile = load_profile(profile)
        n = len(self.profile.rules)
        self._seen = [0] * n
        self._hits = [0] * n
        self._buckets: dict[int, list[float]] = {}
        self.injected: list[InjectedFault] = []

    def evaluate(
        self, service: str, operation: str, kind: str | None, now: float, rnd: random.Random
    ) -> Injection | None:
        """Return the first rule matching this call, or None (no fault)."""
        rules = self.profile.rules
        candidates = []
        for i, rule in enumerate(rules):
            if rule.matches_call(service, operation, kind):
                self._seen[i] += 1
                candidates.append(i)
        for i in candidates:
            rule = rules[i]
            count = self._seen[i]
            if rule.nth is not None and count != rule.nth:
                continue
            if rule.after is not None and count <= rule.after:
                continue
            if rule.times is not None and self._hits[i] >= rule.times:
                continue
            if rule.window is not None and not rule.window[0] <= now < rule.window[1]:
                continue
            if rule.probability is not None and rnd.random() >= rule.probability:
                continue
            retry_after = None
            if rule.effect.type == "throttle":
                retry_after = self._take_token(i, rule, now)
                if retry_after is None:
                    continue
            self._hits[i] += 1
            return Injection(i, rule, retry_after)
        return None

    def _take_token(self, index: int, rule: FaultRule, now: float) -> float | None:
        """Spend a token; return None on success or the seconds until the next token."""
        rate = rule.effect.params["rate"]
        burst = rule.effect.params["burst"]
        tokens, last = self._buckets.get(index, [float(burst), now])
        tokens = min(float(burst), tokens + (now - last) * rate)
        if tokens >= 1.0:
            self._buckets[index] = [tokens - 1.0, now]
            return None
        self._buckets[index] = [tokens, now]
        return (1.0 - tokens) / rate

    def record(self, fault: InjectedFault) -> None:
        """Append an injected-fault record."""
        self.injected.append(fault)

    def to_state(self) -> dict[str, Any]:
        """Return rules and bookkeeping as JSON-able data."""
        return {
            "source": self.profile.source,
            "rules": self.profile.to_spec(),
            "seen": list(self._seen),
            "hits": list(self._hits),
            "buckets": {str(k): list(v) for k, v in sorted(self._buckets.items())},
            "injected": [f.to_dict() for f in self.injected],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> FaultEngine:
        """Rebuild an engine saved by :meth:`to_state`."""
        from fake_clouds.core.faults import parse_rules

        engine = cls(parse_rules(state["rules"], state["source"]))
        engine._seen = list(state["seen"])
        engine._hits = list(state["hits"])
        engine._buckets = {int(k): list(v) for k, v in state["buckets"].items()}
        engine.injected = [InjectedFault(**f) for f in state["injected"]]
        return engine
