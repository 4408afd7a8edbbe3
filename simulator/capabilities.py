"""Template capabilities: the Python API behind ``plugsim capabilities`` and UIs.

Templates annotate what they provide with a ``capabilities`` section
(:mod:`simulator.template.capabilities` parses it); environments choose
between candidate templates with ``requires`` (the registry resolves it, see
:mod:`simulator.environment`). This module answers the questions a UI asks
before a stack exists:

* :func:`find_templates` — which templates under these paths match these
  ``key=value`` filters (``resource_type=X`` matches type-based annotations,
  lists included)?
* :func:`summarize` — what choices do these templates offer
  (``{"deployment": ["puppet", "docker"]}``, ``{"OS::TripleO::Controller":
  [...templates]}``), and which are still open once these environments'
  ``requires`` apply?
* :func:`describe_resolution` — for an environment, which template each
  list-mapped type resolves to and why each candidate was accepted or
  rejected (what ``plugsim template validate`` reports).

Every answer is plain JSON-ready data in a deterministic order: templates in
the order given (directories walked in sorted order), values in the order
first seen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.environment import Environment
from simulator.template.capabilities import (
    RESOURCE_TYPE,
    Candidate,
    Capabilities,
    Resolution,
    judge,
    parse_capabilities,
    read_capabilities,
    resolve_choices,
)
from simulator.template.text import parse_text

__all__ = [
    "RESOURCE_TYPE",
    "Candidate",
    "Capabilities",
    "Resolution",
    "describe_resolution",
    "find_templates",
    "parse_capabilities",
    "parse_filters",
    "read_capabilities",
    "resolve_choices",
    "summarize",
    "template_capabilities",
]

#: File name endings considered when walking a directory.
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template", ".hot")

PathLike = str | os.PathLike[str]


def _display(path: PathLike) -> str:
    return os.path.normpath(os.fspath(path)).replace(os.sep, "/")


def _read_raw(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise exception.StackValidationFailed(
            "no such file or directory", source=_display(path), path=[]
        ) from None
    except (OSError, UnicodeDecodeError) as ex:
        raise exception.StackValidationFailed(
            f"cannot be read: {ex}", source=_display(path), path=[]
        ) from None
    return parse_text(text, _display(path), "template")


def _is_template(raw: Any) -> bool:
    return isinstance(raw, Mapping) and "heat_template_version" in raw


def template_capabilities(path: PathLike) -> Capabilities:
    """Return the capabilities of the HOT template at *path*.

    Raises StackValidationFailed naming the file when it is missing, is not a
    HOT template or has a malformed annotation.
    """
    raw = _read_raw(Path(path))
    if not _is_template(raw):
        raise exception.StackValidationFailed(
            "is not a HOT template (it has no heat_template_version)",
            source=_display(path),
            path=[],
        )
    return parse_capabilities(raw.get("capabilities"), source=_display(path))


def _walk(root: Path, recursive: bool) -> list[Path]:
    if not recursive:
        return sorted(p for p in root.iterdir() if p.is_file())
    out: list[Path] = []
    for dirpath, _dirnames, filenames in os.walk(root):
        out.extend(Path(dirpath) / name for name in filenames)
    return sorted(out)


def _scan(paths: Sequence[PathLike], recursive: bool) -> list[tuple[str, Capabilities]]:
    """Return ``(display path, capabilities)`` of every template found, in order."""
    found: dict[str, Capabilities] = {}
    for item in paths:
        root = Path(os.fspath(item))
        if root.is_dir():
            for path in _walk(root, recursive):
                key = _display(path)
                if key in found or not path.name.endswith(TEMPLATE_SUFFIXES):
                    continue
                try:
                    raw = _read_raw(path)
                except exception.StackValidationFailed:
                    continue  # not YAML: not a template, so nothing to report
                if _is_template(raw):
                    found[key] = parse_capabilities(raw.get("capabilities"), source=key)
        else:
            key = _display(root)
            if key not in found:
                found[key] = template_capabilities(root)
    return list(found.items())


def parse_filters(items: Iterable[str]) -> dict[str, str]:
    """Turn ``key=value`` strings into filters; a later value for a key replaces an earlier one."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise exception.PlugsimError(
                f"capability filter {item!r} is not KEY=VALUE (e.g. deployment=puppet or "
                f"resource_type=OS::TripleO::Controller)"
            )
        out[key] = value
    return out


def find_templates(
    paths: Sequence[PathLike],
    filters: Mapping[str, str],
    *,
    recursive: bool = False,
) -> list[str]:
    """Return the templates among *paths* whose capabilities match every filter.

    A file path is checked as is (it must be a HOT template); a directory
    contributes the templates directly in it, or its whole tree when
    *recursive*. Files in a directory that are not YAML maps with a
    ``heat_template_version`` are skipped. ``resource_type=X`` matches a
    type-based annotation naming X, alone or in a list. Paths come back as
    given (normalised), in order, without duplicates.
    """
    return [path for path, caps in _scan(paths, recursive) if caps.matches(filters)]


def _add(table: dict[str, list[str]], key: str, value: str) -> None:
    values = table.setdefault(key, [])
    if value not in values:
        values.append(value)


def summarize(
    templates: Sequence[PathLike], environments: Sequence[PathLike] = ()
) -> dict[str, Any]:
    """Summarise the choices *templates* offer, and what *environments* leave open.

    Returns ``{"capabilities": {tag: [values]}, "resource_types": {type:
    [templates]}}``. With environments it adds ``"requires"`` (merged, a later
    file winning key by key), ``"open"`` (the tags ``requires`` does not fix
    that still have several values), ``"choices"`` (for every type offered by
    the templates' type-based annotations or by a registry list: the
    candidates, those still ``remaining`` after ``requires``, and the
    ``chosen`` one when exactly one remains) and ``"registry"`` (the
    resolution of each registry list, as :func:`describe_resolution`).
    """
    scanned = _scan(list(templates), recursive=False)
    tags: dict[str, list[str]] = {}
    types: dict[str, list[str]] = {}
    for path, caps in scanned:
        for key, value in caps.tags.items():
            _add(tags, key, value)
        for type_name in caps.resource_types:
            _add(types, type_name, path)
    out: dict[str, Any] = {"capabilities": tags, "resource_types": types}
    if not environments:
        return out
    env = Environment.load(list(environments))
    requires = dict(env.requires)
    by_path = dict(scanned)
    choices: dict[str, dict[str, Any]] = {}
    for type_name, paths in types.items():
        remaining = [p for p in paths if not judge(by_path[p], requires, [type_name])]
        choices[type_name] = _choice(paths, remaining)
    registry = describe_resolution(env)["types"]
    for key, described in registry.items():
        candidates = [c["template"] for c in described["candidates"]]
        remaining = [c["template"] for c in described["candidates"] if c["accepted"]]
        choices[key] = _choice(candidates, remaining)
    out["requires"] = requires
    out["open"] = {k: v for k, v in tags.items() if k not in requires and len(v) > 1}
    out["choices"] = dict(sorted(choices.items()))
    out["registry"] = registry
    return out


def _choice(candidates: list[str], remaining: list[str]) -> dict[str, Any]:
    return {
        "candidates": candidates,
        "remaining": remaining,
        "chosen": remaining[0] if len(remaining) == 1 else None,
    }


def describe_resolution(
    env: Environment, resource_types: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Describe how *env* resolves its registry lists (never raises for a failed choice).

    Without *resource_types* every list entry of the registry is described;
    with ``{resource name: type}`` (a template's resources) only the types
    those resources use, honouring per-resource overrides. Returns
    ``{"requires": {...}, "types": {key: resolution}}`` where *key* is the
    type name (``"<type> (<resource>)"`` for a per-resource override) and each
    resolution is :meth:`Resolution.to_dict` (``chosen``, ``error`` and every
    candidate with its capabilities and reasons).
    """
    resolutions: dict[str, Resolution] = {}
    if resource_types is None:
        for type_name, resource in env.registry.choice_entries():
            found = env.registry.choose(type_name, resource)
            if found is not None:
                resolutions[_key(type_name, found)] = found
    else:
        for resource, type_name in resource_types.items():
            found = env.registry.choose(type_name, resource)
            if found is not None:
                resolutions[_key(type_name, found)] = found
    return {
        "requires": dict(env.requires),
        "types": {k: resolutions[k].to_dict() for k in sorted(resolutions)},
    }


def _key(type_name: str, resolution: Resolution) -> str:
    if resolution.resource_name is None:
        return type_name
    return f"{type_name} ({resolution.resource_name})"
