"""A stack's definition: a template bound to an environment and parameter values.

:class:`StackDefinition` resolves the parameters, evaluates the conditions,
parses resources and outputs (choosing ``if`` branches), and offers what the
engine needs: validation before anything is touched, resource definitions of
the enabled resources, the dependency graph, a resolver for property values
and the outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from sdk import exception
from sdk.properties import ValueNotYetKnown
from simulator.dependencies import Graph
from simulator.template import functions_cfn as cfn
from simulator.template import functions_core as core
from simulator.template.conditions import Conditions
from simulator.template.functions import (
    OMIT,
    Function,
    ResourceView,
    StaticView,
    dependencies,
    functions_in,
    resolve,
)
from simulator.template.model import Template
from simulator.template.parameters import ParameterValues
from simulator.template.parser import Parser
from simulator.template.scope import ParentInfo, Scope

#: Function classes that name another resource, and the kind of edge they make.
_REFERENCE_KINDS = {
    "GetResource": "get_resource",
    "Ref": "get_resource",
    "GetAttr": "get_attr",
    "GetAttrAll": "get_attr",
}

_PARSED_KEYS = ("properties", "metadata", "update_policy", "deletion_policy", "external_id")


class _Resource:
    __slots__ = ("name", "raw", "enabled", "fields", "depends_on")

    def __init__(self, name: str, raw: dict[str, Any]) -> None:
        self.name = name
        self.raw = raw
        self.enabled = True
        self.fields: dict[str, Any] = {}
        deps = raw.get("depends_on") or []
        self.depends_on: list[str] = [deps] if isinstance(deps, str) else list(deps)


class StackDefinition:
    """A template with its environment, parameters and conditions resolved.

    :param tmpl: a :class:`~simulator.template.model.Template`.
    :param env: a :class:`simulator.environment.Environment` or None; its
        ``parameters`` and ``parameter_defaults`` feed the parameters.
    :param params: the user's parameter values (strings are coerced).
    :param stack_name, stack_id, project_id: the pseudo parameters.
    :param parent_resource: set for nested stacks (enables ``resource_facade``).

    Raises :class:`sdk.exception.StackValidationFailed` for parameter and
    condition errors.
    """

    def __init__(
        self,
        tmpl: Template,
        env: Any,
        params: dict[str, Any] | None,
        *,
        stack_name: str,
        stack_id: str,
        project_id: str = "plugsim",
        parent_resource: ParentInfo | None = None,
    ) -> None:
        self.template = tmpl
        self.env = env
        self.stack_name = stack_name
        self.stack_id = stack_id
        self.parent_resource = parent_resource
        try:
            self._values = ParameterValues(
                tmpl.parameters_schema(),
                params,
                getattr(env, "parameters", None),
                getattr(env, "parameter_defaults", None),
                pseudo=tmpl.pseudo_parameters(stack_name, stack_id, project_id),
                source=tmpl.source,
            )
        except exception.StackValidationFailed as ex:
            if not tmpl.spec.is_cfn or type(ex) is not exception.StackValidationFailed:
                raise
            # a CFN template's user reads "Parameters.<name>", as the template spells it
            raise exception.StackValidationFailed(
                ex.error_message, error=ex.error, path=tmpl.display_path(ex.path), source=ex.source
            ) from ex
        self._scope = Scope(
            tmpl,
            parameters=dict(self._values),
            parent=parent_resource,
            param_names=tmpl.param_names(),
        )
        parser = Parser(self._scope)
        self._conditions = Conditions(parser, tmpl.conditions)
        self._scope.conditions = self._conditions
        self._resources: dict[str, _Resource] = {}
        for name, raw in tmpl.resources.items():
            res = _Resource(name, raw)
            path = ["resources", name]
            if raw.get("condition") is not None:
                cond = parser.parse_condition(raw["condition"], [*path, "condition"])
                res.enabled = self._conditions.truth(cond, [*path, "condition"])
            if res.enabled:
                for key in _PARSED_KEYS:
                    if raw.get(key) is not None:
                        value = parser.parse(raw[key], [*path, key])
                        if value is not OMIT:
                            res.fields[key] = value
            self._resources[name] = res
        self._outputs: dict[str, tuple[bool, Any]] = {}
        for name, raw in tmpl.outputs.items():
            path = ["outputs", name]
            enabled = True
            if raw.get("condition") is not None:
                cond = parser.parse_condition(raw["condition"], [*path, "condition"])
                enabled = self._conditions.truth(cond, [*path, "condition"])
            value = parser.parse(raw.get("value"), [*path, "value"]) if enabled else None
            self._outputs[name] = (enabled, None if value is OMIT else value)
        self._definitions: dict[str, Any] | None = None

    # --- parameters and conditions -------------------------------------------------

    @property
    def parameters(self) -> dict[str, Any]:
        """The resolved parameter values (pseudo parameters included)."""
        return dict(self._values)

    @property
    def hidden_parameters(self) -> set[str]:
        """The names of parameters declared ``hidden``."""
        return set(self._values.hidden)

    @property
    def parameter_values(self) -> ParameterValues:
        """The resolved parameters with their schemas."""
        return self._values

    def conditions(self) -> dict[str, bool]:
        """Evaluate every condition: ``{name: bool}`` in template order."""
        return self._conditions.values()

    @property
    def enabled_resources(self) -> list[str]:
        """Names of the resources whose condition holds, in template order."""
        return [n for n, r in self._resources.items() if r.enabled]

    # --- validation ----------------------------------------------------------------

    def validate(self, type_lookup: Callable[[str, str], Any]) -> None:
        """Check types, references, attributes, cycles and conditions; raise on the first error.

        ``type_lookup(type_name, resource_name)`` returns the resource class (or a
        template-resource spec) and raises ResourceTypeNotFound for unknown types.
        """
        fail = self.template.fail
        classes: dict[str, Any] = {}
        unknown: list[tuple[str, Exception]] = []
        for name, res in self._resources.items():
            if not res.enabled:
                continue
            rtype = res.raw["type"]
            try:
                classes[name] = type_lookup(rtype, name)
            except (exception.ResourceTypeNotFound, exception.ResourceTypeUnavailable) as ex:
                unknown.append((name, ex))
        if unknown:
            first_name, first = unknown[0]
            raise fail(
                _unknown_types_message(unknown), ["resources", first_name, "type"]
            ) from first
        for res in self._resources.values():
            if res.enabled:
                for value in res.fields.values():
                    self._check_refs(value, classes)
        for enabled, value in self._outputs.values():
            if enabled:
                # Heat: an output whose get_resource/Ref names a disabled resource fails on its
                # own when read, but a get_attr of one is refused when the template is validated
                self._check_refs(value, classes, disabled_ref_ok=True)
        self.dependencies().check_acyclic(source=self.template.source)
        self._conditions.values()

    def _check_refs(
        self, value: Any, classes: Mapping[str, Any], *, disabled_ref_ok: bool = False
    ) -> None:
        for fn in functions_in(value):
            if isinstance(fn, (core.GetResource, core.GetAttr)) or (
                isinstance(fn, cfn.Ref) and isinstance(fn.args, str)
            ):
                if isinstance(fn, cfn.Ref) and fn.args in self._scope.param_names:
                    continue
                target = fn.target() if not isinstance(fn, cfn.Ref) else fn.args
                if target is None:
                    continue
                where = [*fn.path, fn.fn_name]
                res = self._resources.get(target)
                if res is None:
                    raise self.template.fail(
                        f'The resource "{target}" does not exist in the template', where
                    )
                if not res.enabled:
                    if disabled_ref_ok and not isinstance(fn, core.GetAttr):
                        continue
                    raise self.template.fail(
                        f'"{fn.fn_name}" refers to resource "{target}", which is disabled by '
                        f"its condition",
                        where,
                    )
                if isinstance(fn, core.GetAttr):
                    attr = fn.attribute_name()
                    if attr is not None:
                        _check_attribute(
                            classes.get(target), target, res.raw["type"], attr, where, self.template
                        )

    # --- what the engine uses ------------------------------------------------------

    def resource_properties(self) -> dict[str, Any]:
        """Return ``{name: parsed properties}`` of the enabled resources (functions unresolved)."""
        return {
            n: r.fields.get("properties") or {} for n, r in self._resources.items() if r.enabled
        }

    def resource_definitions(self) -> dict[str, Any]:
        """Return ``{name: sdk.rsrc_defn.ResourceDefinition}`` for enabled resources, in order."""
        if self._definitions is None:
            from sdk.rsrc_defn import ResourceDefinition

            out = {}
            for name, res in self._resources.items():
                if not res.enabled:
                    continue
                f = res.fields
                cond = res.raw.get("condition")
                out[name] = ResourceDefinition(
                    name,
                    res.raw["type"],
                    properties=f.get("properties") or {},
                    metadata=f.get("metadata"),
                    depends_on=tuple(d for d in res.depends_on if self._resources[d].enabled),
                    deletion_policy=self._static(f.get("deletion_policy"), name, "deletion_policy")
                    or "Delete",
                    update_policy=f.get("update_policy"),
                    condition=cond if isinstance(cond, str) else None,
                    external_id=self._static(f.get("external_id"), name, "external_id"),
                    description=res.raw.get("description") or "",
                )
            self._definitions = out
        return dict(self._definitions)

    def _static(self, value: Any, name: str, key: str) -> Any:
        if not isinstance(value, Function):
            return value
        path = ["resources", name, key]
        view = StaticView(key, lambda msg: self.template.fail(msg, path))
        result = resolve(value, view)
        if result is not None and not isinstance(result, str):
            raise self.template.fail(f"{key} must be a string, got {result!r}", path)
        return result

    def resolutions(self) -> dict[str, str]:
        """Return ``{type name: template path}`` for every type chosen from a registry list.

        Only enabled resources count; a per-resource override is keyed
        ``"<type> (<resource name>)"``. A type whose choice fails raises the
        same StackValidationFailed that validation reports.
        """
        registry = getattr(self.env, "registry", None)
        if registry is None:
            return {}
        out: dict[str, str] = {}
        for name, res in self._resources.items():
            if not res.enabled:
                continue
            rtype = res.raw["type"]
            resolution = registry.choose(rtype, name)
            if resolution is None:
                continue
            problem = resolution.error()
            if problem is not None:
                raise problem
            key = rtype if resolution.resource_name is None else f"{rtype} ({name})"
            out[key] = resolution.chosen
        return dict(sorted(out.items()))

    def dependencies(self) -> Graph:
        """Return the dependency graph of the enabled resources."""
        graph = Graph()
        enabled = {n for n, r in self._resources.items() if r.enabled}
        for name, res in self._resources.items():
            if not res.enabled:
                continue
            reqs = [d for d in res.depends_on if d in enabled]
            for key in ("properties", "metadata", "update_policy"):
                if key in res.fields:
                    reqs.extend(d for d in dependencies(res.fields[key]) if d in enabled)
            graph.add(name, reqs)
        return graph

    def references(self) -> list[tuple[str, str, str]]:
        """Every ``(resource, requirement, kind)`` edge between enabled resources, in template order.

        *kind* says how the template made the requirement: ``depends_on``, ``get_resource`` (also
        ``Ref``) or ``get_attr`` (also ``Fn::GetAtt``). One pair may appear under several kinds.
        """
        enabled = {n for n, r in self._resources.items() if r.enabled}
        edges: dict[tuple[str, str, str], None] = {}
        for name, res in self._resources.items():
            if not res.enabled:
                continue
            for dep in res.depends_on:
                if dep in enabled:
                    edges[(name, dep, "depends_on")] = None
            for key in ("properties", "metadata", "update_policy"):
                for fn in functions_in(res.fields.get(key)):
                    kind = _REFERENCE_KINDS.get(type(fn).__name__)
                    if kind is None:
                        continue
                    for dep in fn.dependencies() if kind == "get_resource" else [fn.target()]:
                        if dep in enabled:
                            edges[(name, dep, kind)] = None
        return list(edges)

    def resolver(self, view: ResourceView) -> Callable[[Any], Any]:
        """Return a callable that resolves the functions in a parsed value against *view*."""

        def resolve_value(value: Any) -> Any:
            return resolve(value, view)

        return resolve_value

    def outputs(self, view: ResourceView) -> list[dict[str, Any]]:
        """Return the outputs in template order; errors are captured per output."""
        out = []
        for name, (enabled, value) in self._outputs.items():
            item: dict[str, Any] = {
                "output_key": name,
                "output_value": None,
                "description": self.template.outputs[name].get("description")
                or "No description given",
            }
            if enabled:
                try:
                    item["output_value"] = resolve(value, view)
                except ValueNotYetKnown:
                    item["output_value"] = None
                except exception.PlugsimError as ex:
                    item["output_error"] = str(ex)
                except (ValueError, TypeError, KeyError, AttributeError) as ex:
                    item["output_error"] = f"{type(ex).__name__}: {ex}"
            out.append(item)
        return out

    def output_definitions(self) -> Iterator[tuple[str, bool, Any]]:
        """Yield ``(name, enabled, parsed value)`` for every output."""
        for name, (enabled, value) in self._outputs.items():
            yield name, enabled, value


#: How a user provides a resource type plugsim does not bundle.
TYPE_HINT = (
    "To provide a type: --plugin-dir DIR with its plug-in, --heat-plugin TARGET for a Heat "
    "plug-in, or a resource_registry mapping in an environment (-e FILE)"
)


def _unknown_types_message(unknown: list[tuple[str, Exception]]) -> str:
    """One line naming every unknown type of a template and how to provide one."""
    first = str(unknown[0][1]).rstrip(".")
    others = [f"resources.{name}.type ({ex})" for name, ex in unknown[1:]]
    text = first + (f"; also {'; '.join(o.rstrip('.') for o in others)}" if others else "")
    hint = TYPE_HINT
    if any(isinstance(ex, exception.ResourceTypeUnavailable) for _, ex in unknown):
        hint += ", or a world whose fake cloud has the service (--world, a backend)"
    return f"{text}. {hint}."


def _check_attribute(
    cls: Any, target: str, type_name: str, attr: str, path: list[Any], tmpl: Template
) -> None:
    """Check *attr* against the class's attributes_schema (+ show) when it is static."""
    if not isinstance(cls, type) or getattr(cls, "dynamic_attributes", False):
        return
    owner = next((k for k in cls.__mro__ if "FnGetAtt" in vars(k)), None)
    if owner is not None and owner.__module__ != "sdk.resource":
        return
    schema = getattr(cls, "attributes_schema", None) or {}
    if attr in schema or attr == "show":
        return
    valid = ", ".join(sorted([*schema, "show"]))
    raise tmpl.fail(
        f'The attribute "{attr}" of resource "{target}" ({type_name}) does not exist; '
        f"valid attributes: {valid}",
        path,
    )
