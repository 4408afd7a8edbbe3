"""Rules on environment files and on the capabilities annotations (PS408-PS411).

A YAML file is an *environment* when it is a map without
``heat_template_version`` that has at least one section only environments
have (``parameter_defaults``, ``resource_registry``, ``event_sinks``,
``encrypted_param_names``, ``requires``). These rules belong to the
template family; the registry lists this module with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sdk import exception
from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.template_rules import TemplateFile, known_types

#: Sections only an environment has (``parameters`` is shared with templates).
ENVIRONMENT_ONLY = (
    "parameter_defaults",
    "resource_registry",
    "event_sinks",
    "encrypted_param_names",
    "requires",
)
#: Suffixes that make a registry target a template file rather than a type name.
TEMPLATE_TARGET_SUFFIXES = (".yaml", ".yml", ".template", ".json")
#: Keys of a ``resource_registry.resources.<name>`` entry that are not type mappings.
RESOURCE_ITEM_KEYS = ("hooks", "restricted_actions")


def is_environment(template: TemplateFile) -> bool:
    """Whether the YAML file is an environment (see the module docstring)."""
    raw = template.raw
    if not isinstance(raw, dict) or "heat_template_version" in raw:
        return False
    return any(key in raw for key in ENVIRONMENT_ONLY)


def _sections() -> tuple[str, ...]:
    from simulator.environment import SECTIONS

    return tuple(SECTIONS)


@rule(
    "PS408",
    "environment-unknown-section",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="environment section {section!r} is not one of {valid}",
    summary="An environment file has a section the engine does not know.",
    doc="""
        The engine refuses an environment with an unknown top-level section, so
        a misspelt ``parameter_default`` stops every stack that uses the file.
    """,
    bad="""
        parameter_default:
          flavor: m1.small
        resource_registry:
          My::Server: server.yaml
    """,
    good="""
        parameter_defaults:
          flavor: m1.small
        resource_registry:
          My::Server: server.yaml
    """,
)
def check_unknown_sections(template: TemplateFile) -> Iterator[Hit]:
    """Top-level keys of an environment that are not environment sections."""
    if not is_environment(template):
        return
    valid = _sections()
    for key in template.raw:
        if key not in valid:
            yield template.hit((key,), section=key, valid=", ".join(valid))


def _is_file_target(target: str) -> bool:
    return target.endswith(TEMPLATE_TARGET_SUFFIXES) or "/" in target


def _registry_targets(
    registry: dict[Any, Any],
) -> Iterator[tuple[str, str, tuple[Any, ...]]]:
    """``(type name, target, key path)`` of every mapping of a ``resource_registry``."""
    for key, value in registry.items():
        if key == "resources" and isinstance(value, dict):
            for name, entry in value.items():
                if not isinstance(entry, dict):
                    continue
                for type_name, target in entry.items():
                    if type_name in RESOURCE_ITEM_KEYS:
                        continue
                    path = ("resource_registry", "resources", name, type_name)
                    yield from _targets(str(type_name), target, path)
            continue
        yield from _targets(str(key), value, ("resource_registry", key))


def _targets(
    type_name: str, value: Any, path: tuple[Any, ...]
) -> Iterator[tuple[str, str, tuple[Any, ...]]]:
    if isinstance(value, str):
        yield type_name, value, path
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                yield type_name, item, (*path, index)


@rule(
    "PS409",
    "registry-target-missing",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="resource_registry maps {type_name} to {target!r}, {problem}",
    summary="A resource_registry entry points at a file or type that does not exist.",
    doc="""
        A registry entry maps a type to a template file (relative to the
        environment file) or to another type. A file that is not there, or a
        type that is neither built in, registered by a linted plug-in nor
        mapped elsewhere in the same registry, fails every stack using the
        type. Wildcard entries (``OS::*``) and URLs are not checked.
    """,
    bad="""
        resource_registry:
          My::Server: templates/no_such_server.yaml
          My::Volume: Example::Nowhere::Volume
    """,
    good="""
        resource_registry:
          My::Server: templates/server.yaml
          My::Volume: OS::Heat::None
    """,
)
def check_registry_targets(template: TemplateFile) -> Iterator[Hit]:
    """Registry targets naming missing files or unknown types."""
    if not is_environment(template):
        return
    registry = template.raw.get("resource_registry")
    if not isinstance(registry, dict):
        return
    types = set(known_types(template)) | {str(k) for k in registry if k != "resources"}
    base = template.path.parent
    for type_name, target, path in _registry_targets(registry):
        if "*" in type_name or "*" in target or "://" in target:
            continue
        if _is_file_target(target):
            if not (base / Path(target)).is_file():
                problem = f"which is not a file next to {template.path.name}"
                yield template.hit(path, type_name=type_name, target=target, problem=problem)
        elif target not in types:
            problem = "which is neither a known resource type nor mapped in this registry"
            yield template.hit(path, type_name=type_name, target=target, problem=problem)


def _first_error(check: Any) -> exception.StackValidationFailed | None:
    try:
        check()
    except exception.StackValidationFailed as exc:
        return exc
    return None


@rule(
    "PS410",
    "capabilities-malformed",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="A template's capabilities section is not a map of names to strings.",
    doc="""
        ``capabilities`` annotates what a template provides: tag names mapped
        to non-empty strings, and ``resource_type`` as a type name or a list
        of them. Anything else (a list, a number that should be quoted,
        ``null``) makes the template unusable as a registry candidate. Every
        malformed key is reported.
    """,
    bad="""
        heat_template_version: 2018-08-31
        capabilities:
          deployment: [puppet]
          version: 2
    """,
    good="""
        heat_template_version: 2018-08-31
        capabilities:
          deployment: puppet
          version: "2"
    """,
)
def check_capabilities(template: TemplateFile) -> Iterator[Hit]:
    """Malformed keys of a template's ``capabilities`` section."""
    from simulator.template.capabilities import parse_capabilities

    if not template.is_template or "capabilities" not in template.raw:
        return
    raw = template.raw["capabilities"]
    parts = [{k: v} for k, v in raw.items()] if isinstance(raw, dict) else [raw]
    for part in parts:
        error = _first_error(lambda part=part: parse_capabilities(part))
        if error is not None:
            yield template.hit(error.path, error=str(error))


@rule(
    "PS411",
    "requires-malformed",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="An environment's requires section is not a map of names to strings.",
    doc="""
        ``requires`` asks for capabilities the chosen templates must have:
        capability names mapped to non-empty strings. The engine refuses any
        other shape. Every malformed key is reported.
    """,
    bad="""
        requires:
          deployment: [docker]
          version:
    """,
    good="""
        requires:
          deployment: docker
          version: "2"
    """,
)
def check_requires(template: TemplateFile) -> Iterator[Hit]:
    """Malformed entries of an environment's ``requires`` section."""
    from simulator.environment import Environment

    if not is_environment(template) or "requires" not in template.raw:
        return
    raw = template.raw["requires"]
    parts = [{k: v} for k, v in raw.items()] if isinstance(raw, dict) else [raw]
    for part in parts:
        error = _first_error(lambda part=part: Environment.from_dict({"requires": part}))
        if error is not None:
            yield template.hit(error.path, error=str(error))
