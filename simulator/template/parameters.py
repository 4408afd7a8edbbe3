"""Template parameters: schemas, type coercion, constraints and resolved values.

Types are Heat's ``string``, ``number``, ``json``, ``comma_delimited_list``
and ``boolean``. Values may come as strings (from the command line) and are
coerced to the type. Constraints use :mod:`sdk.constraints`.

Where a value comes from, strongest first: the user's parameters (``-P`` /
``--parameter``), the environment's ``parameters``, the environment's
``parameter_defaults``, the template's ``default``. Names the template does
not declare are errors for the first two and ignored for
``parameter_defaults`` (as in Heat, defaults are shared with nested stacks).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sdk import constraints as constr
from sdk import exception
from simulator import masking

TYPES = ("string", "number", "json", "comma_delimited_list", "boolean")
_SDK_TYPES = {
    "string": constr.Schema.STRING,
    "number": constr.Schema.NUMBER,
    "json": constr.Schema.MAP,
    "comma_delimited_list": constr.Schema.LIST,
    "boolean": constr.Schema.BOOLEAN,
}
_APPLIES = {
    "length": ("string", "comma_delimited_list", "json"),
    "range": ("number",),
    "modulo": ("number",),
    "allowed_values": ("string", "number", "comma_delimited_list", "boolean"),
    "allowed_pattern": ("string",),
    "custom_constraint": ("string", "number", "comma_delimited_list", "boolean"),
}
_TRUE = frozenset({"t", "true", "on", "y", "yes", "1"})
_FALSE = frozenset({"f", "false", "off", "n", "no", "0"})

#: Pseudo parameters every stack has.
PSEUDO_PARAMETERS = ("OS::stack_name", "OS::stack_id", "OS::project_id")
#: Pseudo parameters of a CloudFormation-format stack (instead of the ``OS::`` ones).
CFN_PSEUDO_PARAMETERS = ("AWS::StackId", "AWS::StackName", "AWS::Region")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def coerce(param_type: str, value: Any) -> Any:
    """Convert *value* to a parameter type; raise ValueError with a message."""
    if param_type == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (str, int, float)):
            return str(value)
        raise ValueError(f"expected a string, got {_kind(value)}")
    if param_type == "number":
        if isinstance(value, bool):
            raise ValueError(f"expected a number, got {value!r}")
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, str):
            text = value.strip()
            try:
                return int(text)
            except ValueError:
                pass
            try:
                return float(text)
            except ValueError:
                pass
        raise ValueError(f"expected a number, got {_kind(value)}")
    if param_type == "json":
        if isinstance(value, (dict, list)):
            return value
        if isinstance(value, str):
            if not value.strip():
                return {}
            try:
                loaded = json.loads(value)
            except ValueError as ex:
                raise ValueError(f"the value is not valid JSON: {ex}") from None
            if isinstance(loaded, (dict, list)):
                return loaded
        raise ValueError(f"expected a JSON map or list, got {_kind(value)}")
    if param_type == "comma_delimited_list":
        if isinstance(value, str):
            return value.split(",") if value else []
        if isinstance(value, list):
            out = []
            for item in value:
                if isinstance(item, (dict, list)):
                    raise ValueError(f"list items must be strings, got {_kind(item)}")
                out.append(coerce("string", item) if item is not None else "")
            return out
        raise ValueError(f"expected a comma-delimited list, got {_kind(value)}")
    if param_type == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
        raise ValueError(
            f"expected a boolean (true/false, yes/no, on/off, t/f, y/n, 1/0), got {_kind(value)}"
        )
    raise ValueError(f"unknown parameter type {param_type!r}")


@dataclass
class ParamSchema:
    """The declaration of one template parameter."""

    name: str
    type: str
    description: str | None = None
    label: str | None = None
    default: Any = None
    has_default: bool = False
    hidden: bool = False
    immutable: bool = False
    tags: list[str] = field(default_factory=list)
    constraints: list[constr.Constraint] = field(default_factory=list)

    @property
    def sdk_schema(self) -> constr.Schema:
        """The equivalent :class:`sdk.constraints.Schema` (for typed comparisons)."""
        return constr.Schema(_SDK_TYPES[self.type])

    def check(self, value: Any, context: Any = None) -> Any:
        """Coerce *value* and check every constraint; raise ValueError with a message."""
        typed = coerce(self.type, value)
        schema = self.sdk_schema
        for c in self.constraints:
            c.validate(typed, schema, context)
        return typed

    def to_dict(self) -> dict[str, Any]:
        """Return the schema as Heat's ``template validate`` shows it."""
        out: dict[str, Any] = {"Type": self.type, "NoEcho": "true" if self.hidden else "false"}
        if self.description is not None:
            out["Description"] = self.description
        if self.label is not None:
            out["Label"] = self.label
        if self.has_default:
            out["Default"] = masking.MASK if self.hidden else self.default
        if self.immutable:
            out["Immutable"] = True
        if self.tags:
            out["Tags"] = list(self.tags)
        if self.constraints:
            out["Constraints"] = [c.to_dict() for c in self.constraints]
        return out


def _constraint(kind: str, spec: Any, desc: str | None) -> constr.Constraint:
    if kind in ("length", "range"):
        if not isinstance(spec, dict) or not set(spec) <= {"min", "max"}:
            raise exception.InvalidSchemaError(f"{kind} needs a map with min and/or max")
        cls = constr.Length if kind == "length" else constr.Range
        return cls(spec.get("min"), spec.get("max"), desc)
    if kind == "modulo":
        if not isinstance(spec, dict) or not set(spec) <= {"step", "offset"}:
            raise exception.InvalidSchemaError("modulo needs a map with step and offset")
        return constr.Modulo(spec.get("step"), spec.get("offset"), desc)
    if kind == "allowed_values":
        return constr.AllowedValues(spec, desc)
    if kind == "allowed_pattern":
        return constr.AllowedPattern(spec, desc)
    return constr.CustomConstraint(spec, desc)


def parse_schema(
    name: str, data: Any, spec: Any, fail: Any, *, check_default: bool = True
) -> ParamSchema:
    """Build a ParamSchema from a template's parameter map; ``fail(msg, path)`` for errors."""
    path = ["parameters", name]
    if not isinstance(data, dict):
        raise fail(f'Parameter "{name}" must be a map with at least a type', path)
    for key in data:
        if key not in spec.parameter_keys:
            hint = (
                " (tags needs heat_template_version 2018-03-02 or later)" if key == "tags" else ""
            )
            raise fail(
                f'"{key}" is not a valid keyword inside a parameter definition{hint}', [*path, key]
            )
    ptype = data.get("type")
    if ptype not in TYPES:
        raise fail(
            f'Parameter "{name}" has an invalid type {ptype!r}; valid types are: {", ".join(TYPES)}',
            [*path, "type"],
        )
    raw_constraints = data.get("constraints") or []
    if not isinstance(raw_constraints, list):
        raise fail(f'The constraints of parameter "{name}" must be a list', [*path, "constraints"])
    built: list[constr.Constraint] = []
    for i, item in enumerate(raw_constraints):
        where = [*path, "constraints", i]
        if not isinstance(item, dict):
            raise fail("A parameter constraint must be a map", where)
        unknown = [k for k in item if k not in spec.constraint_keys]
        if unknown:
            hint = (
                " (modulo needs heat_template_version 2017-02-24 or later)"
                if "modulo" in unknown
                else ""
            )
            raise fail(f'Unknown parameter constraint "{unknown[0]}"{hint}', where)
        kinds = [k for k in item if k != "description"]
        if len(kinds) != 1:
            raise fail("Each parameter constraint must have exactly one constraint type", where)
        kind = kinds[0]
        if ptype not in _APPLIES[kind]:
            raise fail(
                f"The {kind} constraint cannot be used on a parameter of type {ptype}", where
            )
        try:
            built.append(_constraint(kind, item[kind], item.get("description")))
        except exception.InvalidSchemaError as ex:
            raise fail(f"Invalid {kind} constraint: {ex}", where) from None
    for flag in ("hidden", "immutable"):
        if flag in data and not isinstance(data[flag], bool):
            try:
                data = {**data, flag: coerce("boolean", data[flag])}
            except ValueError:
                raise fail(f'"{flag}" must be true or false', [*path, flag]) from None
    tags = data.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise fail("tags must be a list of strings", [*path, "tags"])
    schema = ParamSchema(
        name=name,
        type=ptype,
        description=data.get("description"),
        label=data.get("label"),
        hidden=bool(data.get("hidden", False)),
        immutable=bool(data.get("immutable", False)),
        tags=list(tags),
        constraints=built,
    )
    if "default" in data and data["default"] is not None:
        schema.has_default = True
        try:
            schema.default = coerce(ptype, data["default"])
            if check_default:
                for c in built:
                    if not isinstance(c, constr.CustomConstraint):
                        c.validate(schema.default, schema.sdk_schema)
        except ValueError as ex:
            raise fail(
                f'The default of parameter "{name}" is invalid: {ex}', [*path, "default"]
            ) from None
    return schema


def _shown(schema: ParamSchema, raw: Any, ex: Exception) -> str:
    """The message of a failed check, with a hidden parameter's value masked.

    The value is masked wherever it is quoted, whatever its length, and by
    value (:func:`simulator.masking.scrub`) when it is long enough.
    """
    text = str(ex)
    if not schema.hidden:
        return text
    if isinstance(raw, str) and raw:
        for quoted in (repr(raw), f'"{raw}"', f"'{raw}'"):
            text = text.replace(quoted, f'"{masking.MASK}"')
    return masking.scrub(text)


class ParameterValues(Mapping[str, Any]):
    """The resolved values of a stack's parameters (pseudo parameters included)."""

    def __init__(
        self,
        schemas: Mapping[str, ParamSchema],
        user_params: Mapping[str, Any] | None = None,
        env_params: Mapping[str, Any] | None = None,
        env_defaults: Mapping[str, Any] | None = None,
        *,
        pseudo: Mapping[str, Any] | None = None,
        source: str | None = None,
        context: Any = None,
    ) -> None:
        self.schemas = dict(schemas)
        self.source = source
        user = dict(user_params or {})
        env = dict(env_params or {})
        defaults = dict(env_defaults or {})
        unknown = [n for n in [*user, *env] if n not in self.schemas and n not in (pseudo or {})]
        if unknown:
            names = ", ".join(sorted(set(unknown)))
            raise exception.StackValidationFailed(
                f"The parameter(s) ({names}) are not defined in the template",
                path=["parameters"],
                source=source,
            )
        values: dict[str, Any] = {}
        missing: list[str] = []
        for name, schema in self.schemas.items():
            if name in user:
                raw, where = user[name], "given"
            elif name in env:
                raw, where = env[name], "given in the environment"
            elif name in defaults:
                raw, where = defaults[name], "from parameter_defaults"
            elif schema.has_default:
                raw, where = schema.default, "default"
            else:
                missing.append(name)
                continue
            if schema.hidden:
                masking.remember(raw)
            try:
                values[name] = schema.check(raw, context)
            except ValueError as ex:
                raise exception.StackValidationFailed(
                    f'Parameter "{name}" is invalid (value {where}): {_shown(schema, raw, ex)}',
                    path=["parameters", name],
                    source=source,
                ) from None
        if missing:
            raise exception.StackValidationFailed(
                f"The parameter(s) ({', '.join(missing)}) need a value: the template gives "
                f"no default",
                path=["parameters"],
                source=source,
            )
        values.update(pseudo or {})
        self._values = values
        self.hidden = frozenset(n for n, s in self.schemas.items() if s.hidden)

    def __getitem__(self, name: str) -> Any:
        """Return the value of parameter *name*."""
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        """Iterate over parameter names (template order, then pseudo parameters)."""
        return iter(self._values)

    def __len__(self) -> int:
        """Return the number of parameters."""
        return len(self._values)

    def to_dict(self, *, mask_hidden: bool = False) -> dict[str, Any]:
        """Return the values; hidden ones as ``'******'`` when *mask_hidden*."""
        return {
            n: ("******" if mask_hidden and n in self.hidden else v)
            for n, v in self._values.items()
        }
