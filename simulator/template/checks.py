"""Structural checks of a loaded template (sections, keys, shapes) and the check parse."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simulator.template import versions
from simulator.template.capabilities import parse_capabilities
from simulator.template.conditions import Conditions
from simulator.template.functions import Function
from simulator.template.parser import Parser, check_depth
from simulator.template.scope import Scope

if TYPE_CHECKING:
    from simulator.template.model import Template

_MAPS = ("parameters", "resources", "outputs", "conditions", "capabilities")


def _version_hint(key: str, spec: versions.VersionSpec, table: str) -> str:
    if spec.is_cfn:
        return ""
    having = [v for v, s in versions.VERSIONS.items() if key in getattr(s, table)]
    if having and having[0] > spec.name:
        return f" (it needs heat_template_version {having[0]} or later)"
    return ""


def check_sections(tmpl: Template) -> None:
    """Check section names and the shape of each section."""
    spec, raw, fail = tmpl.spec, tmpl.raw, tmpl.fail
    for key in raw:
        if key not in spec.sections:
            hint = _version_hint(key, spec, "sections")
            valid = ", ".join(sorted(spec.sections))
            err = fail(
                f'"{key}" is not a valid template section in {spec.label}{hint}; '
                f"valid sections: {valid}",
                [key],
            )
            err.wire_message = f"The template section is invalid: {key}"  # type: ignore[attr-defined]
            raise err
    for key in _MAPS:
        if raw.get(key) is not None and not isinstance(raw[key], dict):
            raise fail(f'The "{key}" section must be a map, not {type(raw[key]).__name__}', [key])
    if raw.get("description") is not None and not isinstance(raw["description"], str):
        raise fail("The description must be a string", ["description"])
    groups = raw.get("parameter_groups")
    if groups is not None and not isinstance(groups, list):
        raise fail("The parameter_groups section must be a list", ["parameter_groups"])


def check_resources(tmpl: Template) -> None:
    """Check every resource's keys and the literal shapes Heat requires."""
    spec, fail = tmpl.spec, tmpl.fail
    for name, res in tmpl.resources.items():
        path = ["resources", name]
        if not isinstance(name, str) or not name:
            raise fail(f"Resource names must be non-empty strings, not {name!r}", ["resources"])
        if "/" in name:
            raise fail('Resource names may not contain "/"', path)
        if not isinstance(res, dict):
            raise fail(f'Resource "{name}" must be a map with a "type" key', path)
        for key in res:
            if key not in spec.resource_keys:
                hint = _version_hint(key, spec, "resource_keys")
                raise fail(
                    f'"{key}" is not a valid keyword inside a resource definition{hint}',
                    [*path, key],
                )
        rtype = res.get("type")
        if not isinstance(rtype, str) or not rtype:
            raise fail(
                f'Resource "{name}" needs a "type" that is a non-empty string', [*path, "type"]
            )
        deps = res.get("depends_on")
        if deps is not None:
            deps_list = [deps] if isinstance(deps, str) else deps
            if not isinstance(deps_list, list):
                raise fail(
                    "depends_on must be a resource name or a list of names", [*path, "depends_on"]
                )
            for i, dep in enumerate(deps_list):
                where = [*path, "depends_on"] + ([i] if isinstance(deps, list) else [])
                if not isinstance(dep, str):
                    raise fail(f"depends_on entries must be resource names, not {dep!r}", where)
                if dep not in tmpl.resources:
                    raise fail(
                        f'depends_on refers to "{dep}", which is not a resource of the template',
                        where,
                    )
        policy = res.get("deletion_policy")
        if isinstance(policy, str) and policy not in spec.deletion_policies:
            raise fail(
                f'Invalid deletion policy "{policy}"; valid: {", ".join(sorted(spec.deletion_policies))}',
                [*path, "deletion_policy"],
            )
        for key in ("properties", "metadata", "update_policy"):
            # present but null (``properties:`` left empty) is refused as Heat 27 refuses it
            if key in res and not isinstance(res[key], dict):
                raise fail(f"Resource {name} {key} type must be object", [*path, key])


def check_outputs(tmpl: Template) -> None:
    """Check every output's keys; each needs a value."""
    spec, fail = tmpl.spec, tmpl.fail
    for name, out in tmpl.outputs.items():
        path = ["outputs", name]
        if not isinstance(out, dict) or "value" not in out:
            raise fail(f'Output "{name}" must be a map with a "value" key', path)
        for key in out:
            if key not in spec.output_keys:
                hint = _version_hint(key, spec, "output_keys")
                raise fail(
                    f'"{key}" is not a valid keyword inside an output definition{hint}',
                    [*path, key],
                )


def _kind(value: Any) -> str:
    names = {list: "a list", dict: "a map", bool: "a boolean", type(None): "null"}
    return names.get(type(value), f"a {type(value).__name__}")


def check_parameter_groups(tmpl: Template) -> None:
    """Each grouped parameter exists and is in one group only."""
    fail, names = tmpl.fail, tmpl.parameters_schema()
    seen: set[str] = set()
    if not isinstance(tmpl.parameter_groups, list):
        raise fail("parameter_groups must be a list of groups", ["parameter_groups"])
    for i, group in enumerate(tmpl.parameter_groups):
        path = ["parameter_groups", i]
        if not isinstance(group, dict) or not isinstance(group.get("parameters", []), list):
            raise fail("Each parameter group must be a map with a list of parameters", path)
        for j, pname in enumerate(group.get("parameters") or []):
            if not isinstance(pname, str):
                raise fail(
                    f"A parameter group lists parameter names, not {_kind(pname)}",
                    [*path, "parameters", j],
                )
            if pname not in names:
                raise fail(
                    f'The grouped parameter "{pname}" is not a parameter of the template',
                    [*path, "parameters", j],
                )
            if pname in seen:
                raise fail(
                    f'The parameter "{pname}" must be in one parameter group only',
                    [*path, "parameters", j],
                )
            seen.add(pname)


def parse_resource_fields(parser: Parser, name: str, res: dict[str, Any]) -> dict[str, Any]:
    """Parse the function-bearing fields of one resource; returns ``{key: parsed}``."""
    path = ["resources", name]
    out: dict[str, Any] = {}
    for key in ("properties", "metadata", "update_policy", "deletion_policy", "external_id"):
        if key in res and res[key] is not None:
            check_depth(res[key], [*path, key], parser.scope.fail)
            out[key] = parser.parse(res[key], [*path, key])
    if res.get("condition") is not None:
        check_depth(res["condition"], [*path, "condition"], parser.scope.fail)
        out["condition"] = parser.parse_condition(res["condition"], [*path, "condition"])
    return out


def check_capabilities(tmpl: Template) -> None:
    """Check the optional ``capabilities`` annotation (string values; resource_type lists)."""
    parse_capabilities(tmpl.raw.get("capabilities"), source=tmpl.source)


def check_template(tmpl: Template) -> None:
    """Run every load-time check; raise StackValidationFailed on the first problem."""
    check_sections(tmpl)
    check_capabilities(tmpl)
    check_resources(tmpl)
    check_outputs(tmpl)
    tmpl.parameters_schema()
    check_parameter_groups(tmpl)
    scope = Scope(tmpl, parameters=None, param_names=tmpl.param_names())
    parser = Parser(scope)
    conditions = Conditions(parser, tmpl.conditions)
    scope.conditions = conditions
    for name, definition in tmpl.conditions.items():
        check_depth(definition, ["conditions", name], scope.fail)
    conditions.check_all()
    for name, res in tmpl.resources.items():
        fields = parse_resource_fields(parser, name, res)
        if "condition" in fields:
            conditions.check_ref(fields["condition"], ["resources", name, "condition"])
        for key in ("deletion_policy", "external_id"):
            value = fields.get(key)
            if value is not None and not isinstance(value, (str, Function)):
                raise tmpl.fail(f"{key} must be a string", ["resources", name, key])
    for name, out in tmpl.outputs.items():
        path = ["outputs", name]
        check_depth(out.get("value"), [*path, "value"], scope.fail)
        parser.parse(out.get("value"), [*path, "value"])
        if out.get("condition") is not None:
            cond = parser.parse_condition(out["condition"], [*path, "condition"])
            conditions.check_ref(cond, [*path, "condition"])
