"""``POST /validate`` in Heat's shape: parameters, groups, nested parameters, the environment.

Heat validates a template's structure (types, functions, sections) but not
the values of its parameters: a parameter with neither default nor value is
fine, and its view has no ``Default`` and no ``Value``. The world's
``validate_template`` (the one ``plugsim template validate`` runs) needs every
value, so the structure is checked here with a stand-in for each missing one
(a value its own constraints accept where one is obvious); nothing of the
stand-ins reaches the answer.

The answer is what Heat's API gives:

* ``Description`` (``No description`` for a HOT template without one);
* ``Parameters``: per parameter ``Type`` (``String``, ``Number``,
  ``CommaDelimitedList``, ``Json``, ``Boolean``), ``Description`` (``''``
  when absent), ``Label`` (the name when absent), ``NoEcho``, ``Default``
  (a ``parameter_defaults`` entry wins over the template's), ``Value`` (only
  a value the user gave), ``Tags`` and the constraints in CloudFormation's
  words (``AllowedValues``, ``MinLength`` ...; ``ConstraintDescription`` joins
  their descriptions);
* ``ParameterGroups`` when the template has some;
* ``NestedParameters`` with ``show_nested``: per resource implemented by a
  template, that template's ``Type``, ``Description`` and ``Parameters`` (a
  value the resource passes -- a literal or a parameter of the parent -- as
  ``Value``), recursively;
* ``Environment``: the user's environment as Heat keeps it (``parameters``,
  ``parameter_defaults``, ``event_sinks``, ``resource_registry`` with its
  ``resources`` map and an entry for each template file the template uses as
  a type).
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from simulator.orchestration_wire.errors import HeatError

_TYPES = {
    "string": "String",
    "number": "Number",
    "comma_delimited_list": "CommaDelimitedList",
    "json": "Json",
    "boolean": "Boolean",
}
_STAND_INS = {"string": "", "number": 0, "comma_delimited_list": "", "json": {}, "boolean": False}
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".template")


def heat_validate(world: Any, parsed: Any, *, show_nested: bool) -> dict[str, Any]:
    """Validate *parsed* (a :class:`~.stacks.StackBody`) and describe it as Heat does."""
    envs = list(parsed.environments)
    if parsed.parameters:
        envs.append({"parameters": dict(parsed.parameters)})
    try:
        source = world.source(parsed.template, envs, {}, files=parsed.files)
        tmpl = source.load_template()
        env = _user_environment(envs)
        schemas = tmpl.parameters_schema()
        stand_ins = {
            name: _stand_in(schema)
            for name, schema in schemas.items()
            if not schema.has_default
            and name not in env["parameters"]
            and name not in env["parameter_defaults"]
        }
        if stand_ins:  # Heat checks no value then: the structure only
            _check_structure(world, source, tmpl, stand_ins)
        else:
            world.validate_template(parsed.template, envs, {}, files=parsed.files)
    except exception.PlugsimError as ex:
        raise HeatError(400, "StackValidationFailed", str(ex)) from None
    answer: dict[str, Any] = {
        "Description": _description(tmpl),
        "Parameters": _parameters(schemas, env["parameters"], env["parameter_defaults"]),
    }
    if tmpl.parameter_groups:
        answer["ParameterGroups"] = tmpl.parameter_groups
    if show_nested:
        nested = _nested(tmpl, dict(parsed.files), source, answer["Parameters"])
        if nested:
            answer["NestedParameters"] = nested
    registry = env["resource_registry"]
    for body in tmpl.resources.values():
        rtype = body.get("type") if isinstance(body, dict) else None
        if isinstance(rtype, str) and rtype.endswith(_TEMPLATE_SUFFIXES):
            registry.setdefault(rtype, rtype)
    answer["Environment"] = env
    return answer


def _check_structure(world: Any, source: Any, tmpl: Any, stand_ins: dict[str, Any]) -> None:
    """Types, functions, sections and nesting of the template; no property value."""
    from simulator.nesting import check_nesting
    from simulator.template import StackDefinition

    definition = StackDefinition(
        tmpl,
        source.environment,
        stand_ins,
        stack_name="validate",
        stack_id="validate",
        project_id="validate",
    )
    check_nesting(source)
    definition.validate(world.registry.type_lookup(source))


def _stand_in(schema: Any) -> Any:
    """A value for a parameter without one, accepted by its constraints when one is obvious."""
    for c in schema.constraints:
        allowed = getattr(c, "allowed", None)
        if allowed:
            return list(allowed)[0]
    value = _STAND_INS.get(schema.type, "")
    for c in schema.constraints:
        low = getattr(c, "min", None)
        if schema.type == "number" and low is not None:
            value = max(value, low)
        if schema.type == "string" and low is not None:
            value = "x" * int(low)
    return value


def _description(tmpl: Any) -> str:
    if tmpl.description:
        return str(tmpl.description)
    return "" if tmpl.spec.is_cfn else "No description"


def _parameters(
    schemas: dict[str, Any], values: dict[str, Any], defaults: dict[str, Any]
) -> dict[str, Any]:
    return {
        name: _parameter(name, schema, values.get(name), defaults)
        for name, schema in schemas.items()
    }


def _parameter(name: str, schema: Any, value: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """One parameter as Heat's validate shows it."""
    view: dict[str, Any] = {
        "Type": _TYPES.get(schema.type, schema.type),
        "Description": schema.description or "",
        "NoEcho": "true" if schema.hidden else "false",
        "Label": schema.label or name,
    }
    if name in defaults:
        view["Default"] = defaults[name]
    elif schema.has_default:
        view["Default"] = schema.default
    if value:
        view["Value"] = value
    if schema.tags:
        view["Tags"] = list(schema.tags)
    notes = []
    for c in schema.constraints:
        kind = type(c).__name__
        low, high = getattr(c, "min", None), getattr(c, "max", None)
        if kind == "Length":
            _put(view, "MinLength", low)
            _put(view, "MaxLength", high)
        elif kind == "Range":
            _put(view, "MinValue", low)
            _put(view, "MaxValue", high)
        elif kind == "Modulo":
            _put(view, "Step", getattr(c, "step", None))
            _put(view, "Offset", getattr(c, "offset", None))
        elif kind == "AllowedValues":
            view["AllowedValues"] = list(c.allowed)
        elif kind == "AllowedPattern":
            view["AllowedPattern"] = c.pattern
        elif kind == "CustomConstraint":
            view["CustomConstraint"] = c.name
        if getattr(c, "description", None):
            notes.append(c.description)
    if notes:
        view["ConstraintDescription"] = " ".join(notes)
    return view


def _put(view: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        view[key] = value


def _user_environment(envs: list[Any]) -> dict[str, Any]:
    """The environments merged as Heat keeps the user's: later ones win, ``resources`` merged."""
    merged: dict[str, Any] = {
        "parameters": {},
        "parameter_defaults": {},
        "resource_registry": {"resources": {}},
        "event_sinks": [],
    }
    for env in envs:
        if not isinstance(env, dict):
            continue
        merged["parameters"].update(env.get("parameters") or {})
        merged["parameter_defaults"].update(env.get("parameter_defaults") or {})
        merged["event_sinks"].extend(env.get("event_sinks") or [])
        for key, value in (env.get("resource_registry") or {}).items():
            if key == "resources" and isinstance(value, dict):
                for rname, entries in value.items():
                    merged["resource_registry"]["resources"].setdefault(rname, {}).update(
                        entries or {}
                    )
            else:
                merged["resource_registry"][key] = value
    return merged


def _nested(
    tmpl: Any, files: dict[str, str], source: Any, parent: dict[str, Any]
) -> dict[str, Any]:
    """``NestedParameters``: the parameters of each template a resource is made from."""
    from simulator.template.loader import load_template
    from simulator.template.text import parse_text

    env = source.environment
    out: dict[str, Any] = {}
    for rname, body in tmpl.resources.items():
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            continue
        rtype = body["type"]
        try:
            entry = env.registry.resolve(rtype, rname)
        except exception.PlugsimError:
            continue
        if entry.kind != "template":
            continue
        text = files.get(rtype, files.get(str(entry.path)))
        if text is None:
            continue
        child = load_template(parse_text(text, rtype), files=files, source=rtype)
        given = {}
        for key, value in (body.get("properties") or {}).items():
            if isinstance(value, dict) and set(value) == {"get_param"}:
                ref = parent.get(str(value["get_param"]), {})
                value = ref.get("Value", ref.get("Default"))
            if value is not None and not isinstance(value, dict):
                given[key] = value
        view: dict[str, Any] = {
            "Type": rtype,
            "Description": _description(child),
            "Parameters": _parameters(child.parameters_schema(), given, {}),
        }
        if child.parameter_groups:
            view["ParameterGroups"] = child.parameter_groups
        deeper = _nested(child, files, source, view["Parameters"])
        if deeper:
            view["NestedParameters"] = deeper
        out[rname] = view
    return out
