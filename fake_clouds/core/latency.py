"""Latency models: how long a call takes and how long a state transition lasts.

A *distribution spec* is a number (fixed seconds) or a mapping with ``dist``:

* ``{dist: fixed, value: 2}``
* ``{dist: uniform, low: 1, high: 3}``
* ``{dist: normal, mean: 30, sd: 8, min: 10, max: 90}``
* ``{dist: lognormal, median: 0.2, sigma: 0.5, min: 0.05, max: 3}``

``min`` / ``max`` bound any distribution; a sample is never negative.

A :class:`LatencyModel` maps *keys* to distributions. Call keys are
``<service>.<operation>`` (``compute.servers.create``); transition keys are
``<service>.<kind>.<phase>`` (``compute.server.build``). A key falls back from
the most specific pattern to the least: ``compute.servers.create``, then
``compute.servers.*``, ``compute.*``, ``*``. Samples come from the world's
``latency`` RNG stream and are applied in virtual time only.

The default model (:data:`DEFAULT_LATENCY`) aims at realistic values: API calls
take a fraction of a second (lognormal, median 0.2 s), a server boots in about
30 s (normal, 10-90 s), a volume is created in 5-15 s, a reboot takes ~20 s,
an image snapshot about a minute, and network objects are ready at once.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sdk.exception import ConfigurationError

_DIST_KEYS = {
    "fixed": ({"value"}, set()),
    "uniform": ({"low", "high"}, set()),
    "normal": ({"mean", "sd"}, set()),
    "lognormal": ({"median", "sigma"}, set()),
}


@dataclass(frozen=True)
class Distribution:
    """A bounded distribution of non-negative seconds."""

    kind: str
    params: tuple[tuple[str, float], ...]
    low: float = 0.0
    high: float = math.inf

    def __post_init__(self) -> None:
        # the parameters by name, made once: every fake-cloud call samples one distribution
        object.__setattr__(self, "_named", dict(self.params))

    def sample(self, rnd: random.Random) -> float:
        """Draw one value from *rnd* (the ``fixed`` kind draws nothing)."""
        p: dict[str, float] = self._named  # type: ignore[attr-defined]
        if self.kind == "fixed":
            value = p["value"]
        elif self.kind == "uniform":
            value = rnd.uniform(p["low"], p["high"])
        elif self.kind == "normal":
            value = rnd.normalvariate(p["mean"], p["sd"])
        else:
            value = p["median"] * math.exp(p["sigma"] * rnd.normalvariate(0.0, 1.0))
        return min(max(value, self.low, 0.0), self.high)

    def to_spec(self) -> Any:
        """Return the JSON-able spec this distribution was parsed from."""
        if self.kind == "fixed" and self.low == 0.0 and self.high == math.inf:
            return dict(self.params)["value"]
        spec: dict[str, Any] = {"dist": self.kind, **dict(self.params)}
        if self.low != 0.0:
            spec["min"] = self.low
        if self.high != math.inf:
            spec["max"] = self.high
        return spec


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigurationError(f"{where}: expected a number, got {value!r}")
    if math.isnan(value):
        raise ConfigurationError(f"{where}: expected a number, got NaN")
    return float(value)


def parse_distribution(spec: Any, where: str = "latency") -> Distribution:
    """Parse a distribution *spec*; errors name *where* (file/rule/key)."""
    if isinstance(spec, int | float) and not isinstance(spec, bool):
        value = _number(spec, where)
        if value < 0:
            raise ConfigurationError(f"{where}: seconds must be >= 0, got {spec!r}")
        return Distribution("fixed", (("value", value),))
    if not isinstance(spec, Mapping):
        raise ConfigurationError(
            f"{where}: expected seconds or a mapping with 'dist', got {type(spec).__name__}"
        )
    kind = spec.get("dist")
    if kind not in _DIST_KEYS:
        known = ", ".join(sorted(_DIST_KEYS))
        raise ConfigurationError(f"{where}.dist: unknown distribution {kind!r} (known: {known})")
    required, _ = _DIST_KEYS[kind]
    allowed = required | {"dist", "min", "max"}
    for key in sorted(str(k) for k in spec):
        if key not in allowed:
            raise ConfigurationError(f"{where}.{key}: unknown key for a {kind} distribution")
    for key in sorted(required):
        if key not in spec:
            raise ConfigurationError(f"{where}.{key}: required for a {kind} distribution")
    params = {key: _number(spec[key], f"{where}.{key}") for key in sorted(required)}
    low = _number(spec.get("min", 0.0), f"{where}.min")
    high = _number(spec.get("max", math.inf), f"{where}.max")
    if low < 0 or high < low:
        raise ConfigurationError(f"{where}: need 0 <= min <= max, got min={low} max={high}")
    if kind == "uniform" and params["high"] < params["low"]:
        raise ConfigurationError(f"{where}: uniform needs low <= high")
    if kind in ("normal", "lognormal"):
        spread = "sd" if kind == "normal" else "sigma"
        if params[spread] < 0:
            raise ConfigurationError(f"{where}.{spread}: must be >= 0")
    if kind == "fixed" and params["value"] < 0:
        raise ConfigurationError(f"{where}.value: seconds must be >= 0")
    return Distribution(kind, tuple(sorted(params.items())), low, high)


def _fallbacks(key: str) -> list[str]:
    parts = key.split(".")
    out = [key]
    for i in range(len(parts) - 1, 0, -1):
        out.append(".".join(parts[:i]) + ".*")
    out.append("*")
    return out


DEFAULT_LATENCY: dict[str, dict[str, Any]] = {
    "calls": {
        "*": {"dist": "lognormal", "median": 0.2, "sigma": 0.5, "min": 0.02, "max": 3.0},
        "compute.servers.create": {"dist": "lognormal", "median": 0.8, "sigma": 0.4, "max": 5},
        "object_storage.objects.*": {"dist": "lognormal", "median": 0.1, "sigma": 0.5, "max": 2},
    },
    "transitions": {
        "*": {"dist": "uniform", "low": 1.0, "high": 3.0},
        "compute.server.build": {"dist": "normal", "mean": 30, "sd": 8, "min": 10, "max": 90},
        "compute.server.delete": {"dist": "uniform", "low": 2, "high": 6},
        "compute.server.reboot": {"dist": "normal", "mean": 20, "sd": 5, "min": 5, "max": 60},
        "compute.server.suspend": {"dist": "uniform", "low": 3, "high": 8},
        "compute.server.resume": {"dist": "uniform", "low": 3, "high": 8},
        "compute.server.resize": {"dist": "normal", "mean": 40, "sd": 10, "min": 15, "max": 120},
        "compute.server.rebuild": {"dist": "normal", "mean": 30, "sd": 8, "min": 10, "max": 90},
        "compute.image.snapshot": {"dist": "normal", "mean": 60, "sd": 15, "min": 20, "max": 180},
        "block_storage.volume.create": {"dist": "uniform", "low": 5, "high": 15},
        "block_storage.volume.extend": {"dist": "uniform", "low": 5, "high": 20},
        "block_storage.backup.create": {"dist": "normal", "mean": 45, "sd": 10, "min": 15},
        "block_storage.backup.restore": {"dist": "normal", "mean": 45, "sd": 10, "min": 15},
        "block_storage.volume.restore": {"dist": "normal", "mean": 45, "sd": 10, "min": 15},
        "network.*": 0,
        "object_storage.*": 0,
        "entity.*": {"dist": "uniform", "low": 1.0, "high": 3.0},
    },
}


#: The entries of :data:`DEFAULT_LATENCY` parsed once (every world builds a model from them):
#: (section, key) -> (the spec object, a copy of it as parsed, its distribution).
_PARSED_DEFAULTS: dict[tuple[str, str], tuple[Any, Any, Distribution]] = {}


def _parse_entry(section: str, key: str, value: Any, where: str) -> Distribution:
    """Parse one entry of a model; a default entry, unchanged since it was parsed, once."""
    if value is not DEFAULT_LATENCY[section].get(key):
        return parse_distribution(value, where)
    known = _PARSED_DEFAULTS.get((section, key))
    if known is not None and known[0] is value and known[1] == value:
        return known[2]
    found = parse_distribution(value, where)
    _PARSED_DEFAULTS[(section, key)] = (value, copy.deepcopy(value), found)
    return found


class LatencyModel:
    """Call latencies and transition durations, looked up by key with fallbacks."""

    def __init__(self, spec: Mapping[str, Any] | None = None, *, source: str = "latency") -> None:
        """Build from ``{'calls': {pattern: dist}, 'transitions': {pattern: dist}}``.

        Entries of *spec* override :data:`DEFAULT_LATENCY` pattern by pattern.
        """
        merged: dict[str, dict[str, Any]] = {
            "calls": dict(DEFAULT_LATENCY["calls"]),
            "transitions": dict(DEFAULT_LATENCY["transitions"]),
        }
        if spec is not None:
            if not isinstance(spec, Mapping):
                raise ConfigurationError(f"{source}: expected a mapping with 'calls'/'transitions'")
            for section in sorted(str(k) for k in spec):
                if section not in merged:
                    raise ConfigurationError(
                        f"{source}.{section}: unknown section (expected 'calls' or 'transitions')"
                    )
                entries = spec[section]
                if not isinstance(entries, Mapping):
                    raise ConfigurationError(f"{source}.{section}: expected a mapping")
                merged[section].update({str(k): v for k, v in entries.items()})
        self._spec = merged
        self._tables = {
            section: {
                key: _parse_entry(section, key, value, f"{source}.{section}.{key}")
                for key, value in entries.items()
            }
            for section, entries in merged.items()
        }
        #: what :meth:`lookup` found per (section, key): the tables never change
        self._found: dict[tuple[str, str], Distribution] = {}
        #: the same per (service, operation) of a call, without building the key's text
        self._calls: dict[tuple[str, str], Distribution] = {}

    def lookup(self, section: str, key: str) -> Distribution:
        """Return the distribution for *key* in *section* (``calls``/``transitions``)."""
        found = self._found.get((section, key))
        if found is None:
            found = self._found[(section, key)] = self._match(section, key)
        return found

    def _match(self, section: str, key: str) -> Distribution:
        table = self._tables[section]
        for candidate in _fallbacks(key):
            if candidate in table:
                return table[candidate]
        return Distribution("fixed", (("value", 0.0),))

    def call(self, service: str, operation: str, rnd: random.Random) -> float:
        """Sample the latency of one call of *service*.*operation*."""
        found = self._calls.get((service, operation))
        if found is None:
            found = self._calls[(service, operation)] = self.lookup(
                "calls", f"{service}.{operation}"
            )
        return found.sample(rnd)

    def transition(self, service: str, kind: str, phase: str, rnd: random.Random) -> float:
        """Sample how long *kind* stays in the transitional state of *phase*."""
        return self.lookup("transitions", f"{service}.{kind}.{phase}").sample(rnd)

    def to_spec(self) -> dict[str, dict[str, Any]]:
        """Return the full (merged) JSON-able spec of this model."""
        return {section: dict(sorted(entries.items())) for section, entries in self._spec.items()}
