"""What a stack is made from: template, files, environments, parameters, plug-in dirs.

A :class:`StackSource` is plain, JSON-serialisable data, so the store can keep
it and a later process can rebuild the exact same stack definition. Its
:attr:`StackSource.digest` identifies the content (resources remember which
source their definition came from, for rollback and for reloading).

Template resources (a YAML file used as a resource type) are read when the
source is loaded and kept in :attr:`StackSource.files`, so a nested stack can
be rebuilt even if the file later changes.

**Project configuration.** When a template file has a ``plugsim.yaml`` next
to it, its ``plugin_dirs`` (paths relative to that file) are added to the
stack's plug-in directories and its ``lifecycle_plugins`` (``module:Class``
strings) run around that stack's actions; its ``handler_wall_limit`` (wall
seconds, see :mod:`simulator.watchdog`) is kept with the world. This is how
the bundled examples run with no extra flags.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from sdk import exception

if TYPE_CHECKING:
    from simulator.registry import TypeRegistry
    from simulator.stack import Stack

#: The project configuration file looked for next to a template.
CONFIG_NAME = "plugsim.yaml"


CONFIG_KEYS = ("lifecycle_plugins", "plugin_dirs", "handler_wall_limit")


def read_config(template_dir: Path) -> dict[str, Any]:
    """Read ``plugsim.yaml`` in *template_dir* (empty when there is none).

    Returns ``{"plugin_dirs": [absolute paths], "lifecycle_plugins": ["module:Class"]}``
    with the keys the file sets; anything else is a configuration error naming
    the file and the key.
    """
    path = Path(template_dir) / CONFIG_NAME
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as ex:
        raise exception.ConfigurationError(f"{path}: cannot read it: {ex}") from None
    if not isinstance(data, dict):
        raise exception.ConfigurationError(f"{path}: must be a map (e.g. plugin_dirs: [plugins])")
    unknown = sorted(str(k) for k in data if k not in CONFIG_KEYS)
    if unknown:
        raise exception.ConfigurationError(
            f"{path}: unknown key {unknown[0]!r} (known: {', '.join(CONFIG_KEYS)})"
        )
    out: dict[str, Any] = {}
    dirs = data.get("plugin_dirs") or []
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise exception.ConfigurationError(f"{path}: plugin_dirs must be a list of paths")
    if dirs:
        out["plugin_dirs"] = [str((Path(template_dir) / d).resolve()) for d in dirs]
    specs = data.get("lifecycle_plugins") or []
    if not isinstance(specs, list) or not all(isinstance(x, str) for x in specs):
        raise exception.ConfigurationError(
            f"{path}: lifecycle_plugins must be a list of 'module:Class' strings"
        )
    if specs:
        out["lifecycle_plugins"] = list(specs)
    if data.get("handler_wall_limit") is not None:
        from simulator.watchdog import check_limit

        out["handler_wall_limit"] = check_limit(data["handler_wall_limit"], str(path))
    return out


def _read_yaml_file(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise exception.StackValidationFailed(
            f"The {what} file does not exist", source=str(path)
        ) from None
    except (OSError, UnicodeDecodeError) as ex:
        raise exception.StackValidationFailed(
            f"The {what} file cannot be read: {ex}", source=str(path)
        ) from None
    from simulator.template.loader import parse_text

    return parse_text(text, str(path), what)


@dataclass
class StackSource:
    """Everything a stack definition is built from (JSON-serialisable)."""

    template: dict[str, Any]
    template_name: str | None = None
    base_dir: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    environments: list[dict[str, Any]] = field(default_factory=list)
    environment_names: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    plugin_dirs: list[str] = field(default_factory=list)

    # -- construction ------------------------------------------------------------

    @classmethod
    def load(
        cls,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        files: Mapping[str, str] | None = None,
        plugin_dirs: Iterable[str] = (),
    ) -> StackSource:
        """Read a template (path or dict) and environments (paths or dicts)."""
        dirs = [str(Path(d).resolve()) for d in plugin_dirs]
        if isinstance(template, Mapping):
            raw: Any = dict(template)
            name, base = None, None
        else:
            path = Path(os.fspath(template))
            raw = _read_yaml_file(path, "template")
            name, base = str(path), str(path.resolve().parent)
            dirs.extend(read_config(path.resolve().parent).get("plugin_dirs", []))
        if not isinstance(raw, dict):
            from simulator.template.loader import load_template

            load_template(Path(name) if name else raw)  # raises the loader's clear error
        envs: list[dict[str, Any]] = []
        env_names: list[str] = []
        for item in environment or ():
            if isinstance(item, Mapping):
                envs.append(dict(item))
                env_names.append("<environment>")
                continue
            epath = Path(os.fspath(item))
            data = _read_yaml_file(epath, "environment")
            if data is None:
                data = {}
            if not isinstance(data, dict):
                raise exception.StackValidationFailed(
                    "The environment must be a map of sections (parameters, "
                    "parameter_defaults, resource_registry ...)",
                    source=str(epath),
                )
            envs.append(_absolute_registry(data, epath.resolve().parent))
            env_names.append(str(epath))
        params = {str(k): v for k, v in dict(parameters or {}).items()}
        src = cls(
            template=raw,
            template_name=name,
            base_dir=base,
            files=dict(files or {}),
            environments=envs,
            environment_names=env_names,
            parameters=params,
            plugin_dirs=list(dict.fromkeys(dirs)),
        )
        src._collect_template_files()
        return src

    def _collect_template_files(self) -> None:
        """Read every template-resource file the environments and template refer to."""
        seen: set[str] = set(self.files)
        pending = [*self._registry_templates(), *self._template_types()]
        while pending:
            key = pending.pop()
            if key in seen:
                continue
            path = Path(key)
            if not path.is_file():
                continue
            seen.add(key)
            self.files[key] = path.read_text(encoding="utf-8")

    def _registry_templates(self) -> list[str]:
        out: list[str] = []
        for env in self.environments:
            reg = env.get("resource_registry") or {}
            if not isinstance(reg, dict):
                continue
            for key, value in reg.items():
                if isinstance(value, str) and value.endswith((".yaml", ".yml", ".template")):
                    out.append(value)
                if key == "resources" and isinstance(value, dict):
                    for per in value.values():
                        if isinstance(per, dict):
                            out.extend(
                                v
                                for v in per.values()
                                if isinstance(v, str) and v.endswith((".yaml", ".yml", ".template"))
                            )
        return out

    def _template_types(self) -> list[str]:
        out: list[str] = []
        resources = self.template.get("resources") if isinstance(self.template, dict) else None
        if isinstance(resources, dict) and self.base_dir:
            for body in resources.values():
                rtype = body.get("type") if isinstance(body, dict) else None
                if isinstance(rtype, str) and rtype.endswith((".yaml", ".yml", ".template")):
                    out.append(str((Path(self.base_dir) / rtype).resolve()))
        return out

    def with_changes(
        self,
        *,
        parameters: Mapping[str, Any] | None = None,
        environment: Iterable[Any] | None = None,
    ) -> StackSource:
        """Return a copy with new parameters and, if given, extra environments."""
        src = replace(
            self,
            parameters=dict(parameters or {}),
            environments=list(self.environments),
            environment_names=list(self.environment_names),
        )
        if environment:
            extra = StackSource.load(self.template, environment)
            src.environments.extend(extra.environments)
            src.environment_names.extend(extra.environment_names)
            src.files.update(extra.files)
        src.__dict__.pop("digest", None)
        src.__dict__.pop("environment", None)
        return src

    # -- persistence -----------------------------------------------------------------

    def to_doc(self) -> dict[str, Any]:
        """Return the JSON document the store keeps."""
        return {
            "template": self.template,
            "template_name": self.template_name,
            "base_dir": self.base_dir,
            "files": dict(sorted(self.files.items())),
            "environments": self.environments,
            "environment_names": self.environment_names,
            "parameters": self.parameters,
            "plugin_dirs": self.plugin_dirs,
        }

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> StackSource:
        """Rebuild a source from :meth:`to_doc` output."""
        return cls(
            **{k: doc.get(k) for k in ("template", "template_name", "base_dir")},
            files=dict(doc.get("files") or {}),
            environments=list(doc.get("environments") or []),
            environment_names=list(doc.get("environment_names") or []),
            parameters=dict(doc.get("parameters") or {}),
            plugin_dirs=list(doc.get("plugin_dirs") or []),
        )

    @cached_property
    def digest(self) -> str:
        """A short content hash of this source."""
        text = json.dumps(self.to_doc(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    # -- building --------------------------------------------------------------------

    def load_template(self) -> Any:
        """Return the checked :class:`simulator.template.loader.Template`."""
        from simulator.template.loader import load_template

        tmpl = load_template(self.template, files=self.files, source=self.template_name)
        if self.base_dir is not None:
            tmpl.base_dir = Path(self.base_dir)
        return tmpl

    @cached_property
    def environment(self) -> Any:
        """The merged :class:`simulator.environment.Environment` of this source."""
        from simulator.environment import Environment

        env = Environment()
        for data, name in zip(self.environments, self.environment_names, strict=False):
            env = env.merge(Environment.from_dict(data, name, files=self.files))
        return env

    def merged_environment(self) -> dict[str, Any]:
        """The environments merged into one document (for abandon data)."""
        return self.environment.to_dict()

    def build(self, stack: Stack) -> Any:
        """Build the :class:`simulator.template.StackDefinition` for *stack*."""
        from simulator.template import StackDefinition

        parent = stack.parent_resource
        return StackDefinition(
            self.load_template(),
            self.environment,
            dict(self.parameters),
            stack_name=stack.name,
            stack_id=stack.id,
            project_id=stack.world.project_id,
            parent_resource=_parent_info(parent) if parent is not None else None,
        )

    def validate(self, definition: Any, type_lookup: Any) -> None:
        """Validate *definition* before anything runs: types, functions, parameters,
        then every resource's properties.

        When *type_lookup* knows its stack (:class:`simulator.registry.TypeLookup`),
        custom constraints check values against that world's fake cloud.
        """
        from simulator.property_validation import stack_info, validate_resource_properties

        definition.validate(type_lookup)
        stack = getattr(type_lookup, "stack", None)
        if stack is None:
            validate_resource_properties(definition, type_lookup)
            return
        validate_resource_properties(
            definition,
            type_lookup,
            clients=stack.world.client_plugin,
            stack=stack_info(stack.name, stack.id, definition.parameters),
            clock=stack.world.clock,
            parent_view=stack.view if stack.parent_resource is not None else None,
            nested=lambda template, name: self._validate_nested(template, name, definition, stack),
        )

    def _validate_nested(
        self, template: Mapping[str, Any], name: str, definition: Any, stack: Any
    ) -> None:
        """Validate *template* as nested stack *name* with this source's environment and files."""
        from simulator.template import StackDefinition

        child = StackSource(
            template=dict(template),
            template_name=f"{self.template_name or '<template>'} ({name}, nested)",
            base_dir=self.base_dir,
            files=dict(self.files),
            environments=list(self.environments),
            environment_names=list(self.environment_names),
            plugin_dirs=list(self.plugin_dirs),
        )
        nested = StackDefinition(
            child.load_template(),
            child.environment,
            {},
            stack_name=f"{definition.stack_name}-{name}",
            stack_id=definition.stack_id,
            project_id=stack.world.project_id,
        )
        child.validate(nested, stack.world.registry.type_lookup(child, stack))

    def describe(self, registry: TypeRegistry, clients: Any = None) -> dict[str, Any]:
        """Validate without a stack and return Heat's ``template validate`` shape.

        *clients* (``clients(name)`` → client plug-in, e.g. a world's
        ``client_plugin``) lets custom constraints check values against a fake
        cloud; without it those checks are skipped.
        """
        from simulator.property_validation import validate_resource_properties
        from simulator.template import StackDefinition

        tmpl = self.load_template()
        definition = StackDefinition(
            tmpl,
            self.environment,
            dict(self.parameters),
            stack_name="validate",
            stack_id="validate",
            project_id="validate",
        )
        lookup = registry.type_lookup(self)
        definition.validate(lookup)
        validate_resource_properties(definition, lookup, clients=clients)
        params: dict[str, Any] = {}
        for pname, schema in tmpl.parameters_schema().items():
            params[pname] = schema.to_dict() if hasattr(schema, "to_dict") else str(schema)
        return {
            "Description": tmpl.description,
            "Parameters": params,
            "Resources": list(definition.resource_definitions()),
        }


def _absolute_registry(env: dict[str, Any], base: Path) -> dict[str, Any]:
    """Make template-resource paths in a registry absolute (relative to the env file)."""
    reg = env.get("resource_registry")
    if not isinstance(reg, dict):
        return env

    def fix(value: Any) -> Any:
        if (
            isinstance(value, str)
            and value.endswith((".yaml", ".yml", ".template"))
            and ("://" not in value)
            and not os.path.isabs(value)
        ):
            return str((base / value).resolve())
        return value

    new_reg: dict[str, Any] = {}
    for key, value in reg.items():
        if key == "resources" and isinstance(value, dict):
            new_reg[key] = {
                rn: ({k: fix(v) for k, v in per.items()} if isinstance(per, dict) else per)
                for rn, per in value.items()
            }
        else:
            new_reg[key] = fix(value)
    return {**env, "resource_registry": new_reg}


def _parent_info(resource: Any) -> Any:
    from simulator.template import ParentInfo

    defn = resource.definition
    return ParentInfo(
        name=resource.name,
        type_name=defn.resource_type,
        metadata=defn.metadata,
        deletion_policy=defn.deletion_policy,
        update_policy=defn.update_policy,
        stack_name=resource.context.engine_stack.name,
    )
