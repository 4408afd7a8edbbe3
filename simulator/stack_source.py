"""What a stack is made from: template, files, environments, parameters, plug-in dirs.

A :class:`StackSource` is plain, JSON-serialisable data, so the store can keep
it and a later process can rebuild the exact same stack definition. Its
:attr:`StackSource.digest` identifies the content (resources remember which
source their definition came from, for rollback and for reloading).

Template resources (a YAML file used as a resource type) are read when the
source is loaded and kept in :attr:`StackSource.files`, so a nested stack can
be rebuilt even if the file later changes.

When a template file has a ``plugsim.yaml`` next to it
(:mod:`simulator.project_config`), its ``plugin_dirs`` are added to the
stack's plug-in directories.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from sdk import exception
from simulator.implicit_deps import check as check_implicit
from simulator.limits import CONFIG_KEY as LIMITS_KEY
from simulator.limits import DEFAULTS, Limits
from simulator.project_config import CONFIG_NAME, PLUGIN_DIRS, read_config
from simulator.project_trust import announce, may_run, untrusted_hint


class SourcePlans(Protocol):
    """Where a nested stack's source takes its checked template and merged environment from
    (:data:`simulator.plan.NESTED`: made once per content and shared)."""

    def template(self, source: StackSource) -> Any:
        """Return *source*'s checked template."""

    def environment(self, source: StackSource) -> Any:
        """Return *source*'s merged environment."""


class TypeLookups(Protocol):
    """What :meth:`StackSource.describe` needs of a type registry."""

    def type_lookup(self, source: StackSource) -> Callable[..., type]:
        """Return ``lookup(type_name, resource_name)`` for *source*."""


def _check_path(path: Path, what: str) -> None:
    from simulator.template.files import check_name

    check_name(path, f"The {what} file", str(path).replace("\0", "\\0"), [])


def _read_yaml_file(path: Path, what: str, limits: Limits = DEFAULTS) -> Any:
    from simulator.template.files import read_text
    from simulator.template.text import parse_text

    text = read_text(path, f"The {what} file", limits=limits)
    return parse_text(text, str(path), what, limits=limits)


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
    #: the :class:`simulator.limits.Limits` values that differ from the defaults
    limits: dict[str, int] = field(default_factory=dict)
    #: project plug-in directories left out (``template validate`` without trust)
    untrusted_plugin_dirs: list[str] = field(default_factory=list, compare=False, repr=False)

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
        limits: Limits | None = None,
        project_plugins: bool = True,
    ) -> StackSource:
        """Read a template (path or dict) and environments (paths or dicts).

        *limits* (default :data:`simulator.limits.DEFAULTS`) are updated by the
        ``limits`` of the template's ``plugsim.yaml``. With *project_plugins*
        false, that file's ``plugin_dirs`` are left out (see
        :mod:`simulator.project_trust`).
        """
        from simulator.template.plain import plain_data

        dirs = [str(Path(d).resolve()) for d in plugin_dirs]
        limit_values, untrusted = limits or DEFAULTS, []
        if isinstance(template, Mapping):
            raw: Any = plain_data(dict(template), None, convert_keys=False)
            name, base = None, None
        elif isinstance(template, str | os.PathLike):
            path = Path(os.fspath(template))
            _check_path(path, "template")
            config = read_config(path.resolve().parent)
            limit_values = limit_values.updated(config.get(LIMITS_KEY, {}))
            raw = _read_yaml_file(path, "template", limit_values)
            name, base = str(path), str(path.resolve().parent)
            project_dirs = config.get(PLUGIN_DIRS, [])
            config_path = path.resolve().parent / CONFIG_NAME
            if project_dirs and may_run(config_path, project_plugins):
                announce(project_dirs, config_path)
                dirs.extend(project_dirs)
            elif project_dirs:
                untrusted = [untrusted_hint(project_dirs, config_path)]
        else:
            raise exception.StackValidationFailed(
                "A template must be a map or a file path, not "
                f"{type(template).__name__} {template!r}"[:200]
            )
        if not isinstance(raw, dict):
            from simulator.template.loader import load_template

            load_template(Path(name) if name else raw)  # raises the loader's clear error
        envs: list[dict[str, Any]] = []
        env_names: list[str] = []
        if isinstance(environment, str | os.PathLike | Mapping):
            environment = [environment]
        for item in environment or ():
            if isinstance(item, Mapping):
                envs.append(plain_data(dict(item), "<environment>", convert_keys=False))
                env_names.append("<environment>")
                continue
            if not isinstance(item, str | os.PathLike):
                raise exception.StackValidationFailed(
                    "An environment must be a map or a file path, not "
                    f"{type(item).__name__} {item!r}"[:200]
                )
            epath = Path(os.fspath(item))
            _check_path(epath, "environment")
            data = _read_yaml_file(epath, "environment", limit_values)
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
        if parameters is not None and not isinstance(parameters, Mapping):
            raise exception.StackValidationFailed(
                f"parameters must be a map of names to values, not {type(parameters).__name__}"
            )
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
            limits=limit_values.overrides(),
            untrusted_plugin_dirs=untrusted,
        )
        src._collect_template_files()
        return src

    def limit_values(self) -> Limits:
        """The :class:`simulator.limits.Limits` this source's stacks are built under."""
        return DEFAULTS.updated(self.limits) if self.limits else DEFAULTS

    def _collect_template_files(self) -> None:
        """Read every template-resource file the environments and template refer to.

        Names that are not files (yet) are left for validation to report.
        """
        from simulator.template.files import read_text

        seen: set[str] = set(self.files)
        pending = [*self._registry_templates(), *self._template_types()]
        limits = self.limit_values()
        while pending:
            key = pending.pop()
            if key in seen:
                continue
            path = Path(key)
            if "\0" in key or not path.is_file():
                continue
            seen.add(key)
            self.files[key] = read_text(path, "The template resource file", limits=limits)

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
            from simulator.template.files import inside

            for rname, body in resources.items():
                rtype = body.get("type") if isinstance(body, dict) else None
                if isinstance(rtype, str) and rtype.endswith((".yaml", ".yml", ".template")):
                    if rtype in self.files:
                        continue
                    where = ["resources", rname, "type"]
                    target = inside(
                        self.base_dir,
                        rtype,
                        "The template resource",
                        source=self.template_name,
                        path=where,
                    )
                    out.append(str(target))
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
            extra = StackSource.load(self.template, environment, limits=self.limit_values())
            src.environments.extend(extra.environments)
            src.environment_names.extend(extra.environment_names)
            src.files.update(extra.files)
        src.__dict__.pop("digest", None)
        src.__dict__.pop("environment", None)
        src.__dict__.pop("_template", None)
        return src.share_plans(self.__dict__.get("_plans"))

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
            **({"limits": dict(self.limits)} if self.limits else {}),
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
            limits=dict(doc.get("limits") or {}),
        )

    @cached_property
    def digest(self) -> str:
        """A short content hash of this source."""
        text = json.dumps(self.to_doc(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    # -- building --------------------------------------------------------------------

    def load_template(self) -> Any:
        """Return the checked :class:`simulator.template.model.Template` (made once per source:
        a source and its template never change, and every stack of a plan shares them).

        A nested stack's source takes it from its plans (:meth:`share_plans`).
        """
        made = self.__dict__.get("_template")
        if made is not None:
            return made
        plans = self.__dict__.get("_plans")
        made = plans.template(self) if plans is not None else self.check_template()
        self.__dict__["_template"] = made
        return made

    def share_plans(self, plans: SourcePlans | None) -> StackSource:
        """Let this source take its checked template and merged environment from *plans*
        (:data:`simulator.plan.NESTED` for a nested stack's, built again in every seed)."""
        if plans is not None:
            self.__dict__["_plans"] = plans
        return self

    def check_template(self) -> Any:
        """Load and check this source's template (a new :class:`~simulator.template.model.Template`)."""
        from simulator.template.loader import load_template

        tmpl = load_template(
            self.template,
            files=self.files,
            source=self.template_name,
            base_dir=self.base_dir,
            limits=self.limit_values(),
        )
        if self.base_dir is not None:
            tmpl.base_dir = Path(self.base_dir)
        return tmpl

    @cached_property
    def environment(self) -> Any:
        """The merged :class:`simulator.environment.Environment` of this source (a nested
        stack's from the plans of this process, see :meth:`share_plans`)."""
        plans = self.__dict__.get("_plans")
        return plans.environment(self) if plans is not None else self.merge_environments()

    def merge_environments(self) -> Any:
        """Merge this source's environments (a new :class:`~simulator.environment.Environment`)."""
        from simulator.environment import Environment

        # an empty environment still carries the files template resources are read from
        env = Environment.from_dict({}, None, files=self.files) if self.files else Environment()
        for data, name in zip(self.environments, self.environment_names, strict=False):
            env = env.merge(Environment.from_dict(data, name, files=self.files))
        return env

    def merged_environment(self) -> dict[str, Any]:
        """The environments merged into one document (for abandon data)."""
        return self.environment.to_dict()

    def build(
        self, stack_name: str, stack_id: str, project_id: str, parent_resource: Any = None
    ) -> Any:
        """Build the :class:`simulator.template.StackDefinition` of a stack.

        *parent_resource* is the resource a nested stack implements (None at
        top level); ``resource_facade`` reads its definition.
        """
        from simulator.template import StackDefinition

        parent = parent_resource
        return StackDefinition(
            self.load_template(),
            self.environment,
            dict(self.parameters),
            stack_name=stack_name,
            stack_id=stack_id,
            project_id=project_id,
            parent_resource=_parent_info(parent) if parent is not None else None,
        )

    def validate(self, definition: Any, type_lookup: Any) -> None:
        """Validate *definition* before anything runs: types, functions, parameters,
        then every resource's properties.

        When *type_lookup* knows its stack (:class:`simulator.registry.TypeLookup`),
        custom constraints check values against that world's fake cloud.
        """
        from simulator.nesting import check_nesting
        from simulator.property_validation import stack_info, validate_resource_properties

        check_nesting(self)
        definition.validate(type_lookup)
        check_implicit(definition, type_lookup)
        stack = getattr(type_lookup, "stack", None)
        if stack is None:
            validate_resource_properties(definition, type_lookup)
            return
        clock = getattr(type_lookup, "clock", None) or stack.world.clock
        validate_resource_properties(
            definition,
            type_lookup,
            clients=stack.world.client_plugin,
            stack=stack_info(stack.name, stack.id, definition.parameters),
            clock=clock,
            parent_view=stack.view if stack.parent_resource is not None else None,
            nested=lambda template, name: self._validate_nested(
                template, name, definition, stack, clock
            ),
        )

    def _validate_nested(
        self,
        template: Mapping[str, Any],
        name: str,
        definition: Any,
        stack: Any,
        clock: Any = None,
    ) -> None:
        """Validate *template* as nested stack *name* with this source's environment and files."""
        from simulator.template import StackDefinition

        child = StackSource(
            template=dict(template),
            template_name=f"{self.template_name or '<template>'} ({name}, nested)",
            base_dir=self.base_dir,
            files=dict(self.files),
            environments=[child_environment(e, name) for e in self.environments],
            environment_names=list(self.environment_names),
            plugin_dirs=list(self.plugin_dirs),
            limits=dict(self.limits),
        ).share_plans(self.__dict__.get("_plans"))  # a nested stack's: its plans too
        nested = StackDefinition(
            child.load_template(),
            child.environment,
            {},
            stack_name=f"{definition.stack_name}-{name}",
            stack_id=definition.stack_id,
            project_id=stack.world.project_id,
        )
        lookup = stack.world.registry.type_lookup(child, stack)
        lookup.clock = clock
        child.validate(nested, lookup)

    def describe(self, registry: TypeLookups, clients: Any = None) -> dict[str, Any]:
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
        from simulator.nesting import check_nesting

        check_nesting(self)
        lookup = registry.type_lookup(self)
        try:
            definition.validate(lookup)
            check_implicit(definition, lookup)
            validate_resource_properties(definition, lookup, clients=clients)
        except exception.StackValidationFailed as ex:
            if not self.untrusted_plugin_dirs or "could not be found" not in str(ex):
                raise
            raise exception.StackValidationFailed(f"{ex} {self.untrusted_plugin_dirs[0]}") from None
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
        stack_name=resource.stack.name,
    )


def child_environment(env: Any, owner: str | None = None) -> Any:
    """The part of a parent's environment a nested stack inherits: all but ``parameters``.

    As in Heat, ``parameters`` are the top-level stack's own (a nested template need not declare
    them); ``parameter_defaults`` and the registry are inherited. The registry's per-resource
    entries are the parent's own; those written under the resource *owner* that made the
    nested stack (``resources: {owner: {inner: {hooks: pre-create}}}``) become the child's.
    """
    if not isinstance(env, dict):
        return env
    child = {k: v for k, v in env.items() if k != "parameters"}
    registry = child.get("resource_registry")
    if isinstance(registry, dict) and isinstance(registry.get("resources"), dict):
        inner: dict[str, Any] = {}
        for pattern, below in registry["resources"].items():  # globs, as Heat matches them
            if owner is not None and isinstance(below, dict) and fnmatchcase(owner, pattern):
                inner.update({k: v for k, v in below.items() if isinstance(v, dict)})
        child["resource_registry"] = {**registry, "resources": inner}
    return child
