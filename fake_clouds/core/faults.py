"""Fault rules: what goes wrong, when, and how it is recorded.

A fault profile is an ordered list of rules; for each call the first rule that
matches decides the fault (first match wins). YAML schema of one rule::

    - name: boot-fails            # optional, used in reports and error messages
      service: compute            # optional; a service name of the world
      operation: servers.create   # optional; an operation name, glob patterns allowed
      kind: server                # optional; the entity type the operation acts on
      nth: 2                      # optional; only the Nth matching call (1-based)
      after: 3                    # optional; every matching call after the 3rd
      times: 1                    # optional; inject at most this many times
      window: {start: 0, end: 600}  # optional; virtual-time window [start, end)
      probability: 0.2            # optional; drawn from the world's "faults" stream
      effect: {type: error, status: 503, message: "nova is down", body: {...}}

``effect`` is a name or a mapping with ``type`` and its parameters:

========================  ==============================================================
``error``                 raise a typed error: ``error`` (class name in sdk.exception) or
                          ``status`` (HTTP code), ``message``, ``body``; default 503
``timeout``               charge ``after`` seconds (default 60) and raise ClientTimeout;
                          ``applied: true`` performs the operation first
``error_state``           the operation succeeds but the entity ends in its ERROR status
                          (``reason`` goes into its ``fault`` attribute)
``stuck``                 the entity stays in its transitional state forever
``over_limit``            raise OverLimit (413, quota exceeded); ``resource``, ``message``
``throttle``              token bucket of ``burst`` calls refilled at ``rate`` per second;
                          when empty raise OverLimit (429) with ``retry_after``
``eventual_consistency``  a created entity is missing from reads/lists for ``lag``; a
                          deleted one lingers in lists for ``linger`` (distributions)
``delay``                 multiply call latency and transition times by ``factor`` and
                          add ``seconds`` (a distribution) to the call
========================  ==============================================================

A throttle rule whose bucket still has a token does not match (its token is
spent and evaluation continues with the next rule). Call counts (``nth``,
``after``) count every call matching the rule's service/operation/kind, even
when an earlier rule won that call.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fake_clouds.core.latency import Distribution, parse_distribution
from sdk import exception
from sdk.exception import ConfigurationError

ERROR_CLASSES: dict[str, type[exception.ClientError]] = {
    cls.__name__: cls
    for cls in (
        exception.ClientError,
        exception.BadRequest,
        exception.Unauthorized,
        exception.NotFound,
        exception.Conflict,
        exception.OverLimit,
        exception.ServiceUnavailable,
        exception.ClientTimeout,
    )
}


def error_class_for_status(status: int) -> type[exception.ClientError]:
    """Map an HTTP status to the typed client error the SDK classifies."""
    table = {400: "BadRequest", 401: "Unauthorized", 404: "NotFound", 409: "Conflict"}
    if status in table:
        return ERROR_CLASSES[table[status]]
    if status in (413, 429):
        return exception.OverLimit
    if status == 504:
        return exception.ClientTimeout
    if status >= 500:
        return exception.ServiceUnavailable
    return exception.ClientError


_DEFAULT_WINDOW = {"dist": "uniform", "low": 1.0, "high": 5.0}

#: effect type -> {parameter: default}
EFFECTS: dict[str, dict[str, Any]] = {
    "error": {"status": None, "error": None, "message": None, "body": None, "retry_after": None},
    "timeout": {"after": 60.0, "applied": False},
    "error_state": {"reason": "Injected fault"},
    "stuck": {},
    "over_limit": {"resource": None, "message": None},
    "throttle": {"rate": 1.0, "burst": 5},
    "eventual_consistency": {"lag": _DEFAULT_WINDOW, "linger": _DEFAULT_WINDOW},
    "delay": {"seconds": 0, "factor": 1.0},
}

RULE_KEYS = (
    "name",
    "service",
    "operation",
    "kind",
    "nth",
    "after",
    "times",
    "window",
    "probability",
    "effect",
)


@dataclass(frozen=True)
class Effect:
    """A validated fault effect: its ``type`` and parameters (defaults filled in)."""

    type: str
    params: Mapping[str, Any]

    def dist(self, key: str) -> Distribution:
        """Return parameter *key* as a parsed distribution."""
        return parse_distribution(self.params[key], key)

    def make_error(self, operation: str, retry_after: float | None = None) -> exception.ClientError:
        """Build the typed error an ``error``/``over_limit``/``throttle`` effect raises."""
        p = self.params
        if self.type == "over_limit":
            what = p["resource"] or operation
            msg = p["message"] or f"Quota exceeded for {what}"
            return exception.OverLimit(msg, code=413, body={"message": msg})
        if self.type == "throttle":
            msg = f"Rate limit exceeded; retry after {retry_after:.3f} s"
            return exception.OverLimit(
                msg, code=429, retry_after=retry_after, body={"message": msg}
            )
        if p["error"] is not None:
            cls = ERROR_CLASSES[p["error"]]
            status = p["status"] if p["status"] is not None else cls.code
        else:
            status = p["status"] if p["status"] is not None else 503
            cls = error_class_for_status(status)
        msg = p["message"] or f"Injected {cls.__name__} ({status}) on {operation}"
        body = p["body"] if p["body"] is not None else {"message": msg, "code": status}
        if cls is exception.OverLimit:
            return exception.OverLimit(msg, code=status, body=body, retry_after=p["retry_after"])
        return cls(msg, code=status, body=body)


@dataclass(frozen=True)
class FaultRule:
    """One validated rule; build with :meth:`from_spec` (or :func:`load_profile`)."""

    effect: Effect
    name: str | None = None
    service: str | None = None
    operation: str | None = None
    kind: str | None = None
    nth: int | None = None
    after: int | None = None
    times: int | None = None
    window: tuple[float, float] | None = None
    probability: float | None = None
    spec: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_spec(cls, spec: Any, *, source: str = "<python>", index: int = 0) -> FaultRule:
        """Validate a rule mapping; errors name *source*, the rule index/name and key."""
        return _parse_rule(spec, source, index)

    def label(self, index: int) -> str:
        """Return ``rules[i] 'name'`` for messages and records."""
        return f"rules[{index}]" + (f" {self.name!r}" if self.name else "")

    def matches_call(self, service: str, operation: str, kind: str | None) -> bool:
        """True when service/operation/kind match (ignoring counts, window, chance)."""
        if self.service is not None and self.service != service:
            return False
        if self.operation is not None and not fnmatch.fnmatchcase(operation, self.operation):
            return False
        return self.kind is None or self.kind == kind


def _fail(source: str, index: int, name: Any, key: str, problem: str) -> ConfigurationError:
    label = f"rules[{index}]" + (f" {name!r}" if isinstance(name, str) and name else "")
    return ConfigurationError(f"{source}: {label}: key '{key}': {problem}")


def _int(value: Any, minimum: int, err: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise err(f"expected an integer, got {value!r}")
    if value < minimum:
        raise err(f"must be >= {minimum}, got {value}")
    return value


def _num(value: Any, err: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise err(f"expected a number, got {value!r}")
    return float(value)


def _parse_effect(raw: Any, fail: Any) -> Effect:
    if isinstance(raw, str):
        raw = {"type": raw}
    if not isinstance(raw, Mapping):
        raise fail("effect", f"expected an effect name or a mapping with 'type', got {raw!r}")
    etype = raw.get("type")
    if etype not in EFFECTS:
        known = ", ".join(sorted(EFFECTS))
        raise fail("effect.type", f"unknown effect {etype!r} (known: {known})")
    defaults = EFFECTS[etype]
    params = dict(defaults)
    for key in sorted(str(k) for k in raw):
        if key == "type":
            continue
        if key not in defaults:
            allowed = ", ".join(sorted(defaults)) or "none"
            raise fail(f"effect.{key}", f"unknown parameter for {etype} (allowed: {allowed})")
        params[key] = raw[key]

    def err(key: str):
        return lambda problem: fail(f"effect.{key}", problem)

    if etype == "error":
        if params["status"] is not None:
            params["status"] = _int(params["status"], 400, err("status"))
            if params["status"] > 599:
                raise fail("effect.status", f"must be an HTTP error status, got {params['status']}")
        if params["error"] is not None and params["error"] not in ERROR_CLASSES:
            known = ", ".join(sorted(ERROR_CLASSES))
            raise fail("effect.error", f"unknown error {params['error']!r} (known: {known})")
        if params["retry_after"] is not None:
            params["retry_after"] = _num(params["retry_after"], err("retry_after"))
    elif etype == "timeout":
        params["after"] = _num(params["after"], err("after"))
        if params["after"] < 0:
            raise fail("effect.after", "must be >= 0")
        if not isinstance(params["applied"], bool):
            raise fail("effect.applied", f"expected true or false, got {params['applied']!r}")
    elif etype == "throttle":
        params["rate"] = _num(params["rate"], err("rate"))
        if params["rate"] <= 0:
            raise fail("effect.rate", f"must be > 0, got {params['rate']}")
        params["burst"] = _int(params["burst"], 1, err("burst"))
    elif etype == "delay":
        params["factor"] = _num(params["factor"], err("factor"))
        if params["factor"] < 0:
            raise fail("effect.factor", "must be >= 0")
    for key in ("message", "reason", "resource"):
        if key in params and params[key] is not None and not isinstance(params[key], str):
            raise fail(f"effect.{key}", f"expected a string, got {params[key]!r}")
    for key in ("lag", "linger", "seconds"):
        if key in params:
            try:
                parse_distribution(params[key], key)
            except ConfigurationError as ex:
                raise fail(f"effect.{key}", str(ex)) from None
    return Effect(etype, params)


def _parse_rule(spec: Any, source: str, index: int) -> FaultRule:
    if isinstance(spec, FaultRule):
        return spec
    if not isinstance(spec, Mapping):
        raise ConfigurationError(
            f"{source}: rules[{index}]: expected a mapping, got {type(spec).__name__}"
        )
    name = spec.get("name")

    def fail(key: str, problem: str) -> ConfigurationError:
        return _fail(source, index, name, key, problem)

    for key in sorted(str(k) for k in spec):
        if key not in RULE_KEYS:
            raise fail(key, f"unknown key (allowed: {', '.join(RULE_KEYS)})")
    if "effect" not in spec:
        raise fail("effect", "required")
    for key in ("name", "service", "operation", "kind"):
        if key in spec and not isinstance(spec[key], str):
            raise fail(key, f"expected a string, got {spec[key]!r}")
    fields: dict[str, Any] = {k: spec.get(k) for k in ("name", "service", "operation", "kind")}
    for key, minimum in (("nth", 1), ("after", 0), ("times", 1)):
        if spec.get(key) is not None:
            fields[key] = _int(spec[key], minimum, lambda p, k=key: fail(k, p))
    if spec.get("probability") is not None:
        p = _num(spec["probability"], lambda m: fail("probability", m))
        if not 0.0 <= p <= 1.0:
            raise fail("probability", f"must be between 0 and 1, got {spec['probability']}")
        fields["probability"] = p
    if spec.get("window") is not None:
        fields["window"] = _parse_window(spec["window"], fail)
    fields["effect"] = _parse_effect(spec["effect"], fail)
    return FaultRule(spec=dict(spec), **fields)


def _parse_window(raw: Any, fail: Any) -> tuple[float, float]:
    if isinstance(raw, list | tuple) and len(raw) == 2:
        start, end = raw
    elif isinstance(raw, Mapping) and set(raw) <= {"start", "end"}:
        start, end = raw.get("start", 0.0), raw.get("end", math.inf)
    else:
        raise fail("window", f"expected {{start: s, end: e}} or [start, end], got {raw!r}")
    start = _num(start, lambda m: fail("window.start", m))
    end = _num(end, lambda m: fail("window.end", m))
    if end < start:
        raise fail("window", f"end ({end}) is before start ({start})")
    return (start, end)


@dataclass(frozen=True)
class FaultProfile:
    """An ordered list of rules and where they came from."""

    rules: tuple[FaultRule, ...] = ()
    source: str = "<none>"

    def to_spec(self) -> list[dict[str, Any]]:
        """Return the JSON-able rule specs (round-trips through :func:`load_profile`)."""
        return [dict(rule.spec) if rule.spec else _rule_to_spec(rule) for rule in self.rules]


def _rule_to_spec(rule: FaultRule) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for key in RULE_KEYS[:-1]:
        value = getattr(rule, key)
        if value is not None:
            spec[key] = list(value) if key == "window" else value
    spec["effect"] = {"type": rule.effect.type, **dict(rule.effect.params)}
    return spec


def parse_rules(data: Any, source: str = "<python>") -> FaultProfile:
    """Validate rule data (a list, or a mapping with ``rules``) into a profile."""
    if data is None:
        return FaultProfile((), source)
    if isinstance(data, Mapping):
        extra = sorted(str(k) for k in data if k not in ("rules", "name", "description"))
        if extra:
            raise ConfigurationError(
                f"{source}: key '{extra[0]}': unknown top-level key "
                "(allowed: name, description, rules)"
            )
        data = data.get("rules") or []
    if not isinstance(data, list | tuple):
        raise ConfigurationError(
            f"{source}: expected a list of rules or a mapping with 'rules', "
            f"got {type(data).__name__}"
        )
    return FaultProfile(tuple(_parse_rule(item, source, i) for i, item in enumerate(data)), source)


def parse_yaml(text: str, source: str = "<string>") -> FaultProfile:
    """Parse a YAML fault profile; bad YAML is a ConfigurationError naming *source*."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as ex:
        where = ""
        mark = getattr(ex, "problem_mark", None)
        if mark is not None:
            where = f" (line {mark.line + 1}, column {mark.column + 1})"
        problem = getattr(ex, "problem", None) or str(ex)
        raise ConfigurationError(f"{source}: invalid YAML{where}: {problem}") from None
    return parse_rules(data, source)


def load_profile(value: Any) -> FaultProfile:
    """Load faults from a preset name, a file path, YAML text, rule data or a profile."""
    from fake_clouds.core.presets import FAULT_PRESETS

    if value is None:
        return FaultProfile()
    if isinstance(value, FaultProfile):
        return value
    if isinstance(value, Path):
        return _load_file(value)
    if isinstance(value, str):
        if value in FAULT_PRESETS:
            return parse_rules(FAULT_PRESETS[value], f"preset '{value}'")
        if value.endswith((".yaml", ".yml")) or ("\n" not in value and Path(value).is_file()):
            return _load_file(Path(value))
        if (
            "\n" not in value
            and ":" not in value
            and not value.lstrip().startswith(("[", "{", "-"))
        ):
            known = ", ".join(sorted(FAULT_PRESETS))
            raise ConfigurationError(
                f"faults: {value!r} is not a preset ({known}), a readable file or YAML rules"
            )
        return parse_yaml(value)
    if isinstance(value, Mapping | list | tuple):
        return parse_rules(value)
    raise ConfigurationError(
        f"faults: expected a preset name, a file path, YAML text or rules, got {type(value).__name__}"
    )


def _load_file(path: Path) -> FaultProfile:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as ex:
        raise ConfigurationError(f"{path}: cannot read fault profile: {ex.strerror}") from None
    return parse_yaml(text, str(path))


def validate_against(profile: FaultProfile, catalog: Mapping[str, Mapping[str, Iterable[str]]]):
    """Check services, operations and kinds of *profile* against a world's *catalog*.

    *catalog* maps a service name to ``{'operations': [...], 'kinds': [...]}``.
    """
    for index, rule in enumerate(profile.rules):

        def fail(key: str, problem: str, rule=rule, index=index) -> ConfigurationError:
            return _fail(profile.source, index, rule.name, key, problem)

        services = [rule.service] if rule.service is not None else sorted(catalog)
        if rule.service is not None and rule.service not in catalog:
            known = ", ".join(sorted(catalog))
            raise fail("service", f"unknown service {rule.service!r} (known: {known})")
        if rule.operation is not None:
            ops = sorted({op for s in services for op in catalog[s]["operations"]})
            if not any(fnmatch.fnmatchcase(op, rule.operation) for op in ops):
                where = f"service {rule.service!r}" if rule.service else "any service"
                raise fail(
                    "operation",
                    f"{rule.operation!r} matches no operation of {where} "
                    f"(e.g. {', '.join(ops[:6])})",
                )
        if rule.kind is not None:
            kinds = sorted({k for s in services for k in catalog[s]["kinds"]})
            if rule.kind not in kinds and "*" not in kinds:
                raise fail("kind", f"unknown entity kind {rule.kind!r} (known: {', '.join(kinds)})")
