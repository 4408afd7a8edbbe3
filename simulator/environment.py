"""Environments: parameters, parameter defaults and the resource registry.

An environment file has the sections ``parameters``, ``parameter_defaults``,
``resource_registry``, ``event_sinks`` (accepted, ignored),
``encrypted_param_names`` (accepted) and ``requires`` (kept for the
capabilities feature as ``env.requires``). Any other section is an error
naming the file and the key.

Several files merge in order, like ``-e a.yaml -e b.yaml`` in Heat: later
parameter values win key by key; registry entries are applied in order, so a
later entry replaces an earlier one and a ``null`` value removes earlier
entries (``"OS::Foo::*": null`` removes every entry starting with
``OS::Foo::``), as Heat's registry does.

Registry entries, resolved by :meth:`ResourceRegistry.resolve`:

* ``My::Type: OS::Heat::None`` — an alias to another type name, followed to
  the end of the chain (kind ``'class_name'``);
* ``My::Type: path/thing.yaml`` — a template resource, the path taken
  relative to the environment file (kind ``'template'``);
* ``"OS::Old::*": "OS::New::*"`` — a wildcard mapping; ``"OS::*":
  "OS::Heat::None"`` maps many types to one;
* ``resources: {server: {"OS::Nova::Server": "My::Server"}}`` — an override
  for one resource name only (plus Heat's ``hooks``/``restricted_actions``,
  kept for later use);
* ``My::Type: [a.yaml, b.yaml]`` — several candidate templates (kind
  ``'choices'``). :meth:`ResourceRegistry.get_class` picks the one whose
  ``capabilities`` annotation satisfies every entry of the environment's
  ``requires`` section (and, if it declares ``resource_type``, names the type
  being resolved); none or several is an error listing each candidate and
  why it was accepted or rejected (see :mod:`simulator.template.capabilities`).
  :attr:`ResourceRegistry.resolutions` records what was chosen.

Relative template paths are taken relative to the environment file: the
``base_dir`` given to :meth:`Environment.from_dict`, else the directory of
``source`` when that names a file.

A type without any entry is ``'unmapped'``: the plug-in of that name is used.
More specific entries win: a per-resource override, then an exact type, then
wildcards (the longest prefix first).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.template.capabilities import Resolution, read_capabilities, resolve_choices
from simulator.template.files import inside
from simulator.template.text import read_source

SECTIONS = (
    "parameters",
    "parameter_defaults",
    "resource_registry",
    "event_sinks",
    "encrypted_param_names",
    "requires",
)
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".template", ".json")
_RESOURCE_ITEMS = ("hooks", "restricted_actions")
_MAX_CHAIN = 50


@dataclass(frozen=True)
class TemplateResourceSpec:
    """A resource type implemented by a template (a nested stack)."""

    path: str
    type_name: str


@dataclass(frozen=True)
class RegistryEntry:
    """The result of resolving a type name in the registry.

    ``kind`` is ``'class_name'`` (``type_name`` is the final plug-in type
    after following aliases), ``'template'`` (``path`` is the template),
    ``'choices'`` (``choices`` are candidate templates) or ``'unmapped'``.
    ``chain`` lists every name followed, starting with the requested one.
    For ``'choices'``, ``written`` holds the paths as the environment wrote
    them, ``source`` the environment file and ``resource`` the resource name
    when the entry is a per-resource override.
    """

    kind: str
    type_name: str
    path: str | None = None
    choices: tuple[str, ...] = ()
    chain: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
    source: str | None = None
    resource: str | None = None


@dataclass
class _Value:
    value: Any
    base_dir: Path | None
    source: str | None


def _is_template(value: str) -> bool:
    return value.endswith(_TEMPLATE_SUFFIXES)


class ResourceRegistry:
    """Type mappings of an environment (see the module docstring)."""

    def __init__(self) -> None:
        self._types: dict[str, _Value] = {}
        self._resources: dict[str, dict[str, Any]] = {}
        self._files: dict[str, Any] = {}
        self._snippets: list[tuple[Mapping[str, Any], Path | None, str | None]] = []
        #: The merged ``requires`` section that chooses between candidate templates.
        self.requires: dict[str, str] = {}
        self._chosen: dict[str, str] = {}
        self._choice_cache: dict[tuple[Any, ...], Resolution] = {}

    def load(
        self,
        data: Mapping[str, Any],
        *,
        base_dir: Path | None = None,
        source: str | None = None,
        files: Mapping[str, Any] | None = None,
    ) -> None:
        """Apply a ``resource_registry`` snippet on top of the current entries."""
        if files:
            self._files.update(files)
        self._snippets.append((data, base_dir, source))
        for key, value in data.items():
            path = ["resource_registry", key]
            if not isinstance(key, str) or not key:
                raise exception.StackValidationFailed(
                    f"Registry keys must be type names, not {key!r}", path=path, source=source
                )
            if key == "resources":
                self._load_resources(value, base_dir, source)
                continue
            if key == "base_url":
                continue
            self._set(self._types, key, value, path, base_dir, source)

    def _set(
        self,
        table: dict[str, Any],
        key: str,
        value: Any,
        path: list[Any],
        base_dir: Path | None,
        source: str | None,
    ) -> None:
        if value is None:
            if key.endswith("*"):
                prefix = key[:-1]
                for name in [n for n in table if n.startswith(prefix)]:
                    del table[name]
            else:
                table.pop(key, None)
            return
        if isinstance(value, list):
            if not value or not all(isinstance(v, str) and _is_template(v) for v in value):
                raise exception.StackValidationFailed(
                    "A list in the resource registry must list template files",
                    path=path,
                    source=source,
                )
        elif not isinstance(value, str) or not value:
            raise exception.StackValidationFailed(
                f"A registry entry maps to a type name or a template file, not {value!r}",
                path=path,
                source=source,
            )
        table[key] = _Value(value, base_dir, source)

    def _load_resources(self, data: Any, base_dir: Path | None, source: str | None) -> None:
        if not isinstance(data, dict):
            raise exception.StackValidationFailed(
                "resources must map resource names to registry entries",
                path=["resource_registry", "resources"],
                source=source,
            )
        for rname, entries in data.items():
            path = ["resource_registry", "resources", rname]
            if entries is None:
                self._resources.pop(rname, None)
                continue
            if not isinstance(entries, dict):
                raise exception.StackValidationFailed(
                    "A per-resource entry must be a map of type mappings", path=path, source=source
                )
            table = self._resources.setdefault(rname, {})
            for key, value in entries.items():
                if key in _RESOURCE_ITEMS:
                    table[key] = value
                elif isinstance(value, dict):
                    # a resource of the nested stack *rname* owns: its stack's environment
                    # gets it (:func:`simulator.stack_source.child_environment`)
                    continue
                else:
                    self._set(table, key, value, [*path, key], base_dir, source)

    def merged(self, other: ResourceRegistry) -> ResourceRegistry:
        """Return a new registry: this one with *other*'s entries applied on top."""
        new = ResourceRegistry()
        new._files = {**self._files, **other._files}
        for data, base_dir, source in [*self._snippets, *other._snippets]:
            new.load(data, base_dir=base_dir, source=source)
        return new

    # --- resolution ----------------------------------------------------------------

    def _lookup(self, type_name: str, resource_name: str | None) -> _Value | None:
        if resource_name is not None:
            per = self._resources.get(resource_name, {})
            if type_name in per and isinstance(per[type_name], _Value):
                return per[type_name]
        if type_name in self._types:
            return self._types[type_name]
        globs = sorted(
            (k for k in self._types if k.endswith("*") and type_name.startswith(k[:-1])),
            key=lambda k: (-len(k), k),
        )
        for pattern in globs:
            entry = self._types[pattern]
            target = entry.value
            if isinstance(target, str) and target.endswith("*"):
                target = target[:-1] + type_name[len(pattern) - 1 :]
            if target == type_name:
                continue
            return _Value(target, entry.base_dir, entry.source)
        return None

    def _template_path(self, value: str, entry: _Value) -> str:
        if value in self._files:
            return value
        if "://" in value:
            raise exception.StackValidationFailed(
                f'The template resource "{value}" is a URL; plugsim reads local files only',
                path=["resource_registry"],
                source=entry.source,
            )
        base = entry.base_dir or Path.cwd()
        return str((base / value).resolve())

    def resolve(self, type_name: str, resource_name: str | None = None) -> RegistryEntry:
        """Follow the registry for *type_name* (as used by resource *resource_name*)."""
        chain = [type_name]
        current = type_name
        if _is_template(type_name):
            return RegistryEntry("template", type_name, path=type_name, chain=(type_name,))
        for _ in range(_MAX_CHAIN):
            entry = self._lookup(current, resource_name)
            if entry is None:
                kind = "unmapped" if len(chain) == 1 else "class_name"
                return RegistryEntry(kind, current, chain=tuple(chain))
            value = entry.value
            if isinstance(value, list):
                paths = tuple(self._template_path(v, entry) for v in value)
                per = self._resources.get(resource_name or "", {})
                return RegistryEntry(
                    "choices",
                    current,
                    choices=paths,
                    chain=tuple(chain),
                    written=tuple(value),
                    source=entry.source,
                    resource=resource_name if per.get(current) is entry else None,
                )
            if _is_template(value):
                return RegistryEntry(
                    "template", current, path=self._template_path(value, entry), chain=tuple(chain)
                )
            if value in chain:
                loop = " -> ".join([*chain, value])
                raise exception.StackValidationFailed(
                    f"The resource registry maps types in a loop: {loop}",
                    path=["resource_registry", current],
                    source=entry.source,
                )
            chain.append(value)
            current = value
        raise exception.StackValidationFailed(
            f"The resource registry chain for {type_name} is longer than {_MAX_CHAIN} steps",
            path=["resource_registry", type_name],
        )

    def get_class(
        self,
        type_name: str,
        resource_name: str | None,
        plugins: Mapping[str, type],
        *,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> type | TemplateResourceSpec:
        """Return the plug-in class or a TemplateResourceSpec for *type_name*.

        ``base_dir`` anchors a relative template file used directly as a type
        (``type: thing.yaml`` in a template): pass the template's directory.
        Raises :class:`sdk.exception.ResourceTypeNotFound` for unknown types.
        """
        entry = self.resolve(type_name, resource_name)
        if entry.kind == "template":
            path = entry.path or type_name
            if entry.chain == (type_name,) and _is_template(type_name) and path not in self._files:
                where = base_dir or Path.cwd()
                path = str(inside(where, type_name, "The template resource"))
            return TemplateResourceSpec(path, type_name)
        if entry.kind == "choices":
            resolution = self._judge(entry)
            chosen = resolution.chosen
            if chosen is None:
                raise exception.ResourceTypeNotFound(str(resolution.error()), type_name=type_name)
            key = type_name if entry.resource is None else f"{type_name} ({entry.resource})"
            self._chosen[key] = chosen
            return TemplateResourceSpec(chosen, type_name)
        cls = plugins.get(entry.type_name)
        if cls is None:
            via = (
                f" (mapped to {entry.type_name} by the environment)"
                if entry.kind == "class_name"
                else ""
            )
            raise exception.ResourceTypeNotFound(
                f"The Resource Type ({type_name}) could not be found{via}", type_name=type_name
            )
        return cls

    # --- choices between candidate templates ------------------------------------------

    def _judge(self, entry: RegistryEntry) -> Resolution:
        key = (
            entry.type_name,
            entry.resource,
            entry.chain,
            entry.choices,
            tuple(sorted(self.requires.items())),
        )
        cached = self._choice_cache.get(key)
        if cached is None:
            cached = resolve_choices(
                entry.type_name,
                list(zip(entry.written, entry.choices, strict=True)),
                self.requires,
                read=lambda path: read_capabilities(path, self._files),
                also_types=entry.chain[:-1],
                resource_name=entry.resource,
                source=entry.source,
            )
            self._choice_cache[key] = cached
        return cached

    def choose(self, type_name: str, resource_name: str | None = None) -> Resolution | None:
        """Judge the candidates for *type_name*; None when it does not map to a list.

        Unlike :meth:`get_class` this never raises for a failed choice: the
        returned :class:`~simulator.template.capabilities.Resolution` says
        what was chosen (``chosen``) or why nothing was (``problem()``).
        """
        entry = self.resolve(type_name, resource_name)
        if entry.kind != "choices":
            return None
        return self._judge(entry)

    def choice_entries(self) -> list[tuple[str, str | None]]:
        """Return ``(type name, resource name or None)`` of every list entry, sorted."""
        out = [(k, None) for k, v in self._types.items() if isinstance(v.value, list)]
        for rname, table in self._resources.items():
            out.extend(
                (k, rname)
                for k, v in table.items()
                if isinstance(v, _Value) and isinstance(v.value, list)
            )
        return sorted(out, key=lambda item: (item[0], item[1] or ""))

    @property
    def resolutions(self) -> dict[str, str]:
        """``{type name: chosen template path}`` for every choice :meth:`get_class` made.

        A per-resource override is keyed ``"<type> (<resource name>)"``.
        """
        return dict(sorted(self._chosen.items()))

    def to_dict(self) -> dict[str, Any]:
        """Return the effective registry as environment-file data."""
        out: dict[str, Any] = {k: v.value for k, v in self._types.items()}
        if self._resources:
            out["resources"] = {
                r: {k: (v.value if isinstance(v, _Value) else v) for k, v in table.items()}
                for r, table in self._resources.items()
            }
        return out

    def hooks(self, resource_name: str) -> set[str]:
        """The breakpoints (``hooks``) set for a resource name, glob entries included."""
        import fnmatch

        out: set[str] = set()
        for pattern in sorted(self._resources):
            if pattern == resource_name or fnmatch.fnmatchcase(resource_name, pattern):
                value = self._resources[pattern].get("hooks")
                out.update([value] if isinstance(value, str) else list(value or []))
        return out

    def resource_items(self, resource_name: str) -> dict[str, Any]:
        """Return the ``hooks``/``restricted_actions`` set for a resource name."""
        table = self._resources.get(resource_name, {})
        return {k: v for k, v in table.items() if k in _RESOURCE_ITEMS}


@dataclass
class Environment:
    """A (merged) environment: parameters, defaults, registry and pass-through sections."""

    parameters: dict[str, Any] = field(default_factory=dict)
    parameter_defaults: dict[str, Any] = field(default_factory=dict)
    registry: ResourceRegistry = field(default_factory=ResourceRegistry)
    event_sinks: list[Any] = field(default_factory=list)
    encrypted_param_names: list[str] = field(default_factory=list)
    requires: dict[str, Any] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        """Share the ``requires`` section with the registry, which chooses with it."""
        self.registry.requires = self.requires

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any] | None,
        source: str | None = None,
        *,
        base_dir: str | os.PathLike[str] | None = None,
        files: Mapping[str, Any] | None = None,
    ) -> Environment:
        """Build an environment from its data; relative template paths use *base_dir*."""
        data = data or {}
        if not isinstance(data, Mapping):
            raise exception.StackValidationFailed(
                f"An environment must be a map of sections, not {type(data).__name__}",
                source=source,
                path=[],
            )
        for key in data:
            if key not in SECTIONS:
                raise exception.StackValidationFailed(
                    f'"{key}" is not a valid environment section; valid sections: '
                    f"{', '.join(SECTIONS)}",
                    path=[key],
                    source=source,
                )
        env = cls(sources=[source] if source else [])
        for key in ("parameters", "parameter_defaults", "resource_registry", "requires"):
            if data.get(key) is not None and not isinstance(data[key], Mapping):
                raise exception.StackValidationFailed(
                    f'The "{key}" section must be a map', path=[key], source=source
                )
        for key in ("event_sinks", "encrypted_param_names"):
            if data.get(key) is not None and not isinstance(data[key], list):
                raise exception.StackValidationFailed(
                    f'The "{key}" section must be a list', path=[key], source=source
                )
        env.parameters = dict(data.get("parameters") or {})
        env.parameter_defaults = dict(data.get("parameter_defaults") or {})
        env.event_sinks = list(data.get("event_sinks") or [])
        env.encrypted_param_names = list(data.get("encrypted_param_names") or [])
        env.requires = _check_requires(data.get("requires") or {}, source)
        env.registry.requires = env.requires
        if base_dir is None and source is not None and os.path.isfile(source):
            base_dir = Path(source).resolve().parent
        env.registry.load(
            data.get("resource_registry") or {},
            base_dir=Path(base_dir) if base_dir is not None else None,
            source=source,
            files=files,
        )
        return env

    @classmethod
    def load(cls, paths: list[Any], *, files: Mapping[str, Any] | None = None) -> Environment:
        """Load and merge environment files (or dicts/texts) in order; later ones win."""
        env = cls()
        for item in paths:
            raw, source, base_dir = read_source(item, None, "environment")
            env = env.merge(cls.from_dict(raw, source, base_dir=base_dir, files=files))
        return env

    def merge(self, other: Environment) -> Environment:
        """Return a new environment: this one with *other* applied on top."""
        return Environment(
            parameters={**self.parameters, **other.parameters},
            parameter_defaults={**self.parameter_defaults, **other.parameter_defaults},
            registry=self.registry.merged(other.registry),
            event_sinks=[*self.event_sinks, *other.event_sinks],
            encrypted_param_names=list(
                dict.fromkeys([*self.encrypted_param_names, *other.encrypted_param_names])
            ),
            requires={**self.requires, **other.requires},
            sources=[*self.sources, *other.sources],
        )

    @property
    def resolutions(self) -> dict[str, str]:
        """Shortcut for ``env.registry.resolutions``."""
        return self.registry.resolutions

    def get_class(
        self, type_name: str, resource_name: str | None, plugins: Mapping[str, type], **kw: Any
    ) -> type | TemplateResourceSpec:
        """Shortcut for ``env.registry.get_class(...)``."""
        return self.registry.get_class(type_name, resource_name, plugins, **kw)

    def to_dict(self) -> dict[str, Any]:
        """Return the merged environment as environment-file data."""
        out: dict[str, Any] = {
            "parameters": dict(self.parameters),
            "parameter_defaults": dict(self.parameter_defaults),
            "resource_registry": self.registry.to_dict(),
        }
        if self.event_sinks:
            out["event_sinks"] = list(self.event_sinks)
        if self.encrypted_param_names:
            out["encrypted_param_names"] = list(self.encrypted_param_names)
        if self.requires:
            out["requires"] = dict(self.requires)
        return out


def _check_requires(data: Mapping[Any, Any], source: str | None) -> dict[str, str]:
    """Check a ``requires`` section: capability names mapped to non-empty strings."""
    out: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not key:
            raise exception.StackValidationFailed(
                f"requires keys must be capability names, not {key!r}",
                path=["requires"],
                source=source,
            )
        if not isinstance(value, str) or not value:
            shown = "null" if value is None else f"{type(value).__name__} {value!r}"
            raise exception.StackValidationFailed(
                f"A required capability must be a non-empty string, not {shown}",
                path=["requires", key],
                source=source,
            )
        out[key] = value
    return out
