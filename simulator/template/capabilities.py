"""The ``capabilities`` annotation of a template and how ``requires`` match it.

A template may declare what it provides in an optional top-level section::

    capabilities:
      deployment: puppet                  # tag-based: free key/value pairs
      resource_type: OS::TripleO::Controller   # type-based: one type name ...
      # resource_type: [OS::A, OS::B]          # ... or a list of them

Tag values are non-empty strings; extra keys are welcome (a template may say
more than any environment asks). ``resource_type`` names the registry types the
template can implement. Anything else (a list where a map belongs, a number,
``null``) is a :class:`sdk.exception.StackValidationFailed` naming the file and
the key.

:func:`resolve_choices` picks, among the candidate templates of a registry
entry such as ``OS::TripleO::Controller: [puppet/c.yaml, docker/c.yaml]``, the
one whose capabilities satisfy every ``requires`` entry of the environment and,
when it declares ``resource_type``, declares the type being resolved. The
:class:`Resolution` it returns explains each candidate's fate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk import exception

#: The key of type-based annotations.
RESOURCE_TYPE = "resource_type"


@dataclass(frozen=True)
class Capabilities:
    """A parsed ``capabilities`` section.

    ``tags`` holds the tag-based pairs (every key but ``resource_type``) in
    file order; ``resource_types`` the type names of a type-based annotation
    (empty when the template declares none).
    """

    tags: dict[str, str] = field(default_factory=dict)
    resource_types: tuple[str, ...] = ()

    @property
    def declares_types(self) -> bool:
        """True when the template has a type-based annotation."""
        return bool(self.resource_types)

    def values(self, key: str) -> tuple[str, ...]:
        """Return the declared values of *key* (several only for ``resource_type``)."""
        if key == RESOURCE_TYPE:
            return self.resource_types
        return (self.tags[key],) if key in self.tags else ()

    def mismatch(self, key: str, wanted: str) -> str | None:
        """Return why ``key=wanted`` is not satisfied, or None when it is."""
        have = self.values(key)
        if wanted in have:
            return None
        if not have:
            return f"declares no {key}"
        shown = have[0] if len(have) == 1 else f"[{', '.join(have)}]"
        return f"{key} is {shown}, not {wanted}"

    def matches(self, filters: Mapping[str, str]) -> bool:
        """True when every ``key=value`` of *filters* is declared (lists: contained)."""
        return all(self.mismatch(k, v) is None for k, v in filters.items())

    def to_dict(self) -> dict[str, Any]:
        """Return the annotation as template data (``resource_type`` last)."""
        out: dict[str, Any] = dict(self.tags)
        if len(self.resource_types) == 1:
            out[RESOURCE_TYPE] = self.resource_types[0]
        elif self.resource_types:
            out[RESOURCE_TYPE] = list(self.resource_types)
        return out


def parse_capabilities(raw: Any, *, source: str | None = None) -> Capabilities:
    """Check and parse the value of a ``capabilities`` section (None means none)."""
    if raw is None:
        return Capabilities()
    if not isinstance(raw, Mapping):
        raise exception.StackValidationFailed(
            f"The capabilities section must be a map of names to values "
            f"(e.g. deployment: puppet), not a {_kind(raw)}",
            path=["capabilities"],
            source=source,
        )
    tags: dict[str, str] = {}
    types: tuple[str, ...] = ()
    for key, value in raw.items():
        path = ["capabilities", key]
        if not isinstance(key, str) or not key:
            raise exception.StackValidationFailed(
                f"Capability names must be non-empty strings, not {key!r}",
                path=["capabilities"],
                source=source,
            )
        if key == RESOURCE_TYPE:
            types = _parse_types(value, path, source)
            continue
        if not isinstance(value, str) or not value:
            raise exception.StackValidationFailed(
                f"The capability {key} must be a non-empty string, not {_describe(value)}"
                + (' (quote it: "..." in YAML)' if _scalar(value) else ""),
                path=path,
                source=source,
            )
        tags[key] = value
    return Capabilities(tags, types)


def _parse_types(value: Any, path: list[Any], source: str | None) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise exception.StackValidationFailed(
            "resource_type must name at least one resource type", path=path, source=source
        )
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item:
            where = [*path, i] if isinstance(value, list) else path
            raise exception.StackValidationFailed(
                "resource_type must be a type name or a list of type names, not " + _describe(item),
                path=where,
                source=source,
            )
    return tuple(dict.fromkeys(items))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "list"
    if isinstance(value, Mapping):
        return "map"
    return "string" if isinstance(value, str) else type(value).__name__


def _describe(value: Any) -> str:
    return "null" if value is None else f"{_kind(value)} {value!r}"


def _scalar(value: Any) -> bool:
    return isinstance(value, bool | int | float)


def read_capabilities(path: str, files: Mapping[str, Any] | None = None) -> Capabilities:
    """Read the template at *path* (from *files* when it is there) and parse its capabilities.

    Raises StackValidationFailed naming the file when it does not exist, is
    not a map of sections or has a malformed annotation.
    """
    from simulator.template.text import parse_text

    if files and path in files:
        content = files[path]
        text = content.decode("utf-8") if isinstance(content, bytes) else str(content)
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise exception.StackValidationFailed(
                "the template file does not exist", source=path, path=[]
            ) from None
        except (OSError, UnicodeDecodeError) as ex:
            raise exception.StackValidationFailed(
                f"The template file cannot be read: {ex}", source=path, path=[]
            ) from None
    raw = parse_text(text, path, "template")
    if not isinstance(raw, Mapping):
        raise exception.StackValidationFailed(
            "The template must be a map of sections", source=path, path=[]
        )
    return parse_capabilities(raw.get("capabilities"), source=path)


# --- resolution ------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One implementation offered by a registry list, and what became of it.

    ``name`` is the path as the environment wrote it, ``path`` the file read.
    ``error`` is set when the file could not be used at all (missing,
    malformed); ``reasons`` lists each unmet requirement (empty: accepted).
    """

    name: str
    path: str
    capabilities: Capabilities | None
    reasons: tuple[str, ...] = ()
    error: str | None = None

    @property
    def accepted(self) -> bool:
        """True when the candidate satisfies everything."""
        return self.error is None and not self.reasons

    def verdict(self) -> str:
        """A short phrase: ``accepted`` or ``rejected (why)``."""
        if self.error is not None:
            return f"unusable ({self.error})"
        if self.reasons:
            return f"rejected ({'; '.join(self.reasons)})"
        return "accepted"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description."""
        return {
            "template": self.name,
            "path": self.path,
            "capabilities": self.capabilities.to_dict() if self.capabilities else None,
            "accepted": self.accepted,
            "reasons": [self.error] if self.error else list(self.reasons),
        }


@dataclass(frozen=True)
class Resolution:
    """The outcome of choosing one template for a registry list entry."""

    type_name: str
    requires: dict[str, str]
    candidates: tuple[Candidate, ...]
    resource_name: str | None = None
    source: str | None = None

    @property
    def accepted(self) -> list[Candidate]:
        """The candidates that satisfy everything."""
        return [c for c in self.candidates if c.accepted]

    @property
    def chosen(self) -> str | None:
        """The chosen template's path, or None when the choice failed."""
        ok = self.accepted
        if len(ok) != 1 or any(c.error for c in self.candidates):
            return None
        return ok[0].path

    @property
    def chosen_name(self) -> str | None:
        """The chosen template as the environment wrote it, or None."""
        chosen = self.chosen
        return next((c.name for c in self.candidates if c.path == chosen), None)

    @property
    def key_path(self) -> list[str]:
        """Where the entry lives in the environment (for messages)."""
        if self.resource_name is not None:
            return ["resource_registry", "resources", self.resource_name, self.type_name]
        return ["resource_registry", self.type_name]

    def problem(self) -> str | None:
        """Return why no single template could be chosen, or None when one was."""
        broken = [c for c in self.candidates if c.error]
        if broken:
            first = broken[0]
            return f"the candidate template {first.name} cannot be used: {first.error}"
        ok = self.accepted
        if len(ok) == 1:
            return None
        wanted = _show_requires(self.requires)
        listing = "; ".join(f"{c.name} {c.verdict()}" for c in self.candidates)
        if not ok:
            return f"no candidate template satisfies {wanted}: {listing}"
        differ = _differing_tags(ok)
        hint = (
            f"; add a requires entry for {' or '.join(differ)} to pick one"
            if differ
            else "; their capabilities do not tell them apart"
        )
        return f"{len(ok)} candidate templates satisfy {wanted}: {listing}{hint}"

    def error(self) -> exception.StackValidationFailed | None:
        """Return the problem as an exception naming the environment file and key."""
        problem = self.problem()
        if problem is None:
            return None
        return exception.StackValidationFailed(
            f"cannot choose an implementation of {self.type_name}: {problem}",
            path=self.key_path,
            source=self.source,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description (what ``template validate`` prints)."""
        return {
            "type": self.type_name,
            "resource": self.resource_name,
            "environment": self.source,
            "requires": dict(self.requires),
            "chosen": self.chosen_name,
            "chosen_path": self.chosen,
            "error": self.problem(),
            "candidates": [c.to_dict() for c in self.candidates],
        }


def _show_requires(requires: Mapping[str, str]) -> str:
    if not requires:
        return "an empty requires section"
    pairs = ", ".join(f"{k}: {v}" for k, v in sorted(requires.items()))
    return f"requires {{{pairs}}}"


def _differing_tags(candidates: Sequence[Candidate]) -> list[str]:
    keys: dict[str, set[str | None]] = {}
    for cand in candidates:
        caps = cand.capabilities or Capabilities()
        for key in caps.tags:
            keys.setdefault(key, set())
    for key, seen in keys.items():
        for cand in candidates:
            seen.add((cand.capabilities or Capabilities()).tags.get(key))
    return sorted(k for k, seen in keys.items() if len(seen) > 1)


def judge(
    capabilities: Capabilities, requires: Mapping[str, str], type_names: Iterable[str]
) -> tuple[str, ...]:
    """Return every reason *capabilities* fail *requires* for one of *type_names*."""
    reasons = [
        reason
        for key, wanted in sorted(requires.items())
        if (reason := capabilities.mismatch(key, wanted)) is not None
    ]
    names = list(type_names)
    if capabilities.declares_types and not set(names) & set(capabilities.resource_types):
        declared = ", ".join(capabilities.resource_types)
        reasons.append(f"it implements {declared}, not {names[0]}")
    return tuple(reasons)


def resolve_choices(
    type_name: str,
    candidates: Sequence[tuple[str, str]],
    requires: Mapping[str, str],
    *,
    read: Callable[[str], Capabilities],
    also_types: Iterable[str] = (),
    resource_name: str | None = None,
    source: str | None = None,
) -> Resolution:
    """Judge every ``(name as written, path)`` candidate for *type_name*.

    ``read(path)`` returns a candidate's capabilities (raising
    StackValidationFailed when it cannot). ``also_types`` are other names
    that led to this entry (aliases): a type-based annotation naming any of
    them is accepted too.
    """
    names = [type_name, *also_types]
    judged = []
    for name, path in candidates:
        try:
            caps = read(path)
        except exception.StackValidationFailed as ex:
            judged.append(Candidate(name, path, None, error=str(ex)))
            continue
        judged.append(Candidate(name, path, caps, judge(caps, requires, names)))
    return Resolution(
        type_name,
        dict(requires),
        tuple(judged),
        resource_name=resource_name,
        source=source,
    )
