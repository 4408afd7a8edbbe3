"""The rule catalogue: what a rule is, what a finding is, and the registry of rules.

A rule has a stable id (``PS101``), a kebab-case name, a default severity, the
family it belongs to, a one-line message template, documentation with a bad
and a good example, and a check function. Rule families live in their own
modules (``resource_rules``, ``schema_rules`` ...) and register their rules
here when imported. :data:`FAMILIES` lists every module of every family (a
family may span several modules); :func:`all_rules` imports them all first,
so the catalogue is always complete and always in id order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    """How bad a finding is. Only errors make the linter exit with status 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @classmethod
    def parse(cls, text: str) -> Severity:
        """Return the severity called *text* (case-insensitive) or raise ValueError."""
        try:
            return cls(str(text).strip().lower())
        except ValueError:
            valid = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown severity {text!r} (valid: {valid})") from None


#: Where a check function looks. The runner calls each rule with the matching input.
SCOPES = ("module", "project", "package", "template", "upgrade")

#: The rule families, in catalogue order, with the modules that define their rules. A rule
#: module registers its rules when imported; it never imports another family module just to
#: have it register.
FAMILIES: dict[str, tuple[str, ...]] = {
    "general": ("sdk.lint.general_rules",),
    "resource": ("sdk.lint.resource_rules",),
    "schema": ("sdk.lint.schema_rules",),
    "mapping": ("sdk.lint.mapping_rules",),
    "template": ("sdk.lint.template_rules", "sdk.lint.environment_rules"),
    "inclusion": ("sdk.lint.inclusion",),
    "dynamic": ("sdk.lint.dynamic_rules", "sdk.lint.crash_rules"),
    "driver": ("sdk.lint.driver_rules", "sdk.lint.driver_dynamic"),
    "lifecycle": ("sdk.lint.lifecycle_rules",),
    "upgrade": ("sdk.lint.upgrade_rules",),
}


@dataclass(frozen=True)
class Hit:
    """What a check function reports: a location and the values for the message."""

    path: str
    line: int
    col: int
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found: where, which rule, how bad and what to say.

    Two findings are the same (and collapse into one when the runner removes
    duplicates) only when location, rule and message all agree: two problems
    reported at one spot by one rule stay two. Sorting is by path, line,
    column, rule id, then message.
    """

    path: str
    line: int
    col: int
    rule_id: str
    severity: Severity = field(compare=False)
    message: str = field(compare=True)

    def to_dict(self) -> dict[str, Any]:
        """Return the finding as a plain dict (the JSON output's shape)."""
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "rule": self.rule_id,
            "severity": self.severity.value,
            "message": self.message,
        }


CheckFunction = Callable[[Any], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    """One entry of the catalogue."""

    id: str
    name: str
    severity: Severity
    family: str
    scope: str
    message: str
    summary: str
    doc: str
    bad: str
    good: str
    check: CheckFunction = field(compare=False, repr=False)

    def finding(self, hit: Hit, severity: Severity | None = None) -> Finding:
        """Turn *hit* into a :class:`Finding` with this rule's message."""
        try:
            message = self.message.format(**hit.args)
        except (KeyError, IndexError, ValueError):
            message = f"{self.message} {hit.args}"
        return Finding(
            hit.path,
            hit.line,
            hit.col,
            self.id,
            severity or self.severity,
            message,
        )


_RULES: dict[str, Rule] = {}


def rule(
    id: str,
    name: str,
    *,
    severity: Severity,
    family: str,
    scope: str,
    message: str,
    summary: str,
    doc: str,
    bad: str,
    good: str,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register the decorated check function as rule *id*.

    Ids are unique; registering one twice (an import executed again) keeps the
    first registration so that the catalogue is stable.
    """
    if scope not in SCOPES:
        raise ValueError(f"rule {id}: unknown scope {scope!r} (valid: {', '.join(SCOPES)})")
    if family not in FAMILIES:
        raise ValueError(f"rule {id}: unknown family {family!r}")

    def decorate(check: CheckFunction) -> CheckFunction:
        if id not in _RULES:
            _RULES[id] = Rule(
                id=id,
                name=name,
                severity=severity,
                family=family,
                scope=scope,
                message=message,
                summary=summary,
                doc=_dedent(doc),
                bad=_dedent(bad),
                good=_dedent(good),
                check=check,
            )
        return check

    return decorate


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")


def _load_families() -> None:
    for modules in FAMILIES.values():
        for module in modules:
            importlib.import_module(module)


def all_rules() -> list[Rule]:
    """Return every rule of the catalogue, sorted by id."""
    _load_families()
    return [_RULES[key] for key in sorted(_RULES)]


def get_rule(rule_id: str) -> Rule:
    """Return the rule with id *rule_id* (case-insensitive) or raise KeyError."""
    _load_families()
    key = rule_id.strip().upper()
    try:
        return _RULES[key]
    except KeyError:
        raise KeyError(f"unknown rule id {rule_id!r}; run with --list-rules to see them") from None


def rules_matching(prefix: str) -> list[Rule]:
    """Return the rules whose id starts with *prefix* (``PS1`` → every PS1xx rule)."""
    key = prefix.strip().upper()
    return [r for r in all_rules() if r.id.startswith(key)]


def iter_family(family: str) -> Iterator[Rule]:
    """Yield the rules of *family* in id order."""
    for r in all_rules():
        if r.family == family:
            yield r
