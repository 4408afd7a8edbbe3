"""Static models of property schemas, attribute schemas and support statuses.

The functions here read ``properties.Schema(...)``, ``attributes.Schema(...)``
and ``support.SupportStatus(...)`` calls from the AST of a resource class,
following the SDK's positional argument order, and resolve property names
given as class constants (``NAME = 'name'``). Nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from sdk.lint.source import UNKNOWN, ClassInfo, last_name, literal

#: The property types and the literal each symbolic name stands for (case-insensitive match).
PROPERTY_TYPES = ("INTEGER", "STRING", "NUMBER", "BOOLEAN", "MAP", "LIST", "ANY")
ATTRIBUTE_TYPES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "MAP", "LIST")

PROPERTY_ARGS = (
    "data_type",
    "description",
    "default",
    "schema",
    "required",
    "constraints",
    "update_allowed",
    "immutable",
    "support_status",
)
ATTRIBUTE_ARGS = ("description", "type", "support_status", "cache_mode")
SUPPORT_ARGS = ("status", "version", "message", "previous_status", "substitute_class")
STATUSES = ("UNKNOWN", "SUPPORTED", "DEPRECATED", "UNSUPPORTED", "HIDDEN")

#: Constraint class → the property types it applies to (the SDK's ``valid_types``).
CONSTRAINT_TYPES: dict[str, tuple[str, ...] | None] = {
    "AllowedPattern": ("STRING",),
    "AllowedValues": ("INTEGER", "STRING", "NUMBER", "BOOLEAN", "LIST", "ANY"),
    "Length": ("STRING", "LIST", "MAP"),
    "Range": ("INTEGER", "NUMBER"),
    "Modulo": ("INTEGER", "NUMBER"),
    "CustomConstraint": ("INTEGER", "STRING", "NUMBER", "BOOLEAN", "LIST", "ANY"),
}
CONSTRAINT_ARGS: dict[str, tuple[str, ...]] = {
    "AllowedPattern": ("pattern", "description"),
    "AllowedValues": ("allowed", "description"),
    "Length": ("min", "max", "description"),
    "Range": ("min", "max", "description"),
    "Modulo": ("step", "offset", "description"),
    "CustomConstraint": ("name", "description", "environment"),
}


def call_args(call: ast.Call, names: tuple[str, ...]) -> dict[str, ast.expr]:
    """Map a call's positional and keyword arguments onto parameter *names*."""
    out: dict[str, ast.expr] = {}
    for name, arg in zip(names, call.args, strict=False):
        if isinstance(arg, ast.Starred):
            break
        out[name] = arg
    for kw in call.keywords:
        if kw.arg is not None:
            out[kw.arg] = kw.value
    return out


def type_from_literal(value: str, valid: tuple[str, ...]) -> str | None:
    """The type name a string literal stands for (``'String'`` → STRING), or None."""
    upper = value.strip().upper()
    return upper if upper in valid else None


@dataclass
class SupportSpec:
    """A ``SupportStatus(...)`` call."""

    node: ast.Call
    status: str | None
    version: str | None
    previous: SupportSpec | None


def parse_support(node: ast.expr | None) -> SupportSpec | None:
    """Read a support status call, or None when *node* is not one."""
    if not isinstance(node, ast.Call):
        return None
    if not (last_name(node.func) or "").endswith("Status"):
        return None
    args = call_args(node, SUPPORT_ARGS)
    status: str | None = "SUPPORTED"
    if "status" in args:
        status_node = args["status"]
        value = literal(status_node)
        status = value if isinstance(value, str) else last_name(status_node)
    version = literal(args.get("version"))
    return SupportSpec(
        node=node,
        status=status,
        version=version if isinstance(version, str) else None,
        previous=parse_support(args.get("previous_status")),
    )


#: The first year of OpenStack's series names (``2013.1`` was Heat's first release).
_FIRST_SERIES_YEAR = 2013


def version_key(version: str) -> tuple[int, ...] | None:
    """Order key of a release string such as ``'2014.2'``, ``'5.0.0'`` or ``'2023.2'``; None if
    not numeric.

    Heat's releases were named by series (``2013.1`` to ``2015.1``), then numbered from ``5.0.0``
    (the series after ``2015.1``), and OpenStack names its series by year again since ``2023.1``
    (Heat 20). A series name ``YEAR.N`` therefore sorts as the major release of that series:
    two series a year, counted from 2013.1 as 0.
    """
    numbers = [int(n) for n in re.findall(r"\d+", version)]
    if not numbers:
        return None
    if numbers[0] >= _FIRST_SERIES_YEAR and len(numbers) >= 2:
        major = (numbers[0] - _FIRST_SERIES_YEAR) * 2 + numbers[1] - 1
        return (major, 0, 0, *numbers[2:])
    return tuple(numbers)


@dataclass
class ConstraintSpec:
    """A constraint call inside a property schema."""

    node: ast.Call
    kind: str
    args: dict[str, Any]


@dataclass
class PropertySpec:
    """A ``properties.Schema(...)`` call for one property."""

    path: str
    node: ast.Call
    key_node: ast.AST
    data_type: str | None
    type_node: ast.expr | None
    type_literal: str | None
    has_description: bool
    default: Any
    has_default: bool
    required: bool
    update_allowed: bool
    immutable: bool
    constraints: list[ConstraintSpec] = field(default_factory=list)
    support: SupportSpec | None = None
    children: list[PropertySpec] = field(default_factory=list)


@dataclass
class AttributeSpec:
    """An ``attributes.Schema(...)`` call for one attribute."""

    name: str
    node: ast.Call
    has_description: bool
    type_node: ast.expr | None
    type_literal: str | None
    data_type: str | None
    support: SupportSpec | None


def resolve_key(cls: ClassInfo, node: ast.AST) -> str:
    """The name of a schema key: a string literal or a class constant holding one."""
    value = literal(node)
    if isinstance(value, str):
        return value
    if isinstance(node, ast.Name):
        constant = cls.constant(node.id)
        if isinstance(constant, str):
            return constant
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        constant = cls.constant(node.attr)
        if isinstance(constant, str):
            return constant
    return ast.unparse(node)


def _is_schema_call(node: ast.AST | None) -> TypeGuard[ast.Call]:
    return isinstance(node, ast.Call) and last_name(node.func) == "Schema"


def _truthy(node: ast.expr | None) -> bool:
    return literal(node) is True


def _constraint(node: ast.AST) -> ConstraintSpec | None:
    if not isinstance(node, ast.Call):
        return None
    kind = last_name(node.func)
    if kind not in CONSTRAINT_ARGS:
        return None
    raw = call_args(node, CONSTRAINT_ARGS[kind])
    return ConstraintSpec(node, kind, {k: literal(v) for k, v in raw.items()})


def parse_property(cls: ClassInfo, path: str, key_node: ast.AST, call: ast.Call) -> PropertySpec:
    """Read one property schema call (and its nested schemas)."""
    args = call_args(call, PROPERTY_ARGS)
    type_node = args.get("data_type")
    type_value = literal(type_node)
    type_lit = type_value if isinstance(type_value, str) else None
    if type_lit is not None:
        data_type = type_from_literal(type_lit, PROPERTY_TYPES)
    else:
        symbol = last_name(type_node) if type_node is not None else None
        data_type = symbol if symbol in PROPERTY_TYPES else None
    description = literal(args.get("description"))
    has_description = "description" in args and not (
        description is None or (isinstance(description, str) and not description.strip())
    )
    has_default = "default" in args and literal(args["default"]) is not None
    constraints: list[ConstraintSpec] = []
    constraints_node = args.get("constraints")
    if isinstance(constraints_node, ast.List | ast.Tuple):
        for element in constraints_node.elts:
            spec = _constraint(element)
            if spec is not None:
                constraints.append(spec)
    prop = PropertySpec(
        path=path,
        node=call,
        key_node=key_node,
        data_type=data_type,
        type_node=type_node,
        type_literal=type_lit,
        has_description=has_description,
        default=literal(args["default"]) if "default" in args else None,
        has_default=has_default,
        required=_truthy(args.get("required")),
        update_allowed=_truthy(args.get("update_allowed")),
        immutable=_truthy(args.get("immutable")),
        constraints=constraints,
        support=parse_support(args.get("support_status")),
    )
    nested = args.get("schema")
    if isinstance(nested, ast.Dict):
        prop.children = parse_property_dict(cls, nested, prefix=f"{path}.")
    elif _is_schema_call(nested):
        prop.children = [parse_property(cls, f"{path}.*", nested, nested)]
    return prop


def parse_property_dict(cls: ClassInfo, node: ast.Dict, prefix: str = "") -> list[PropertySpec]:
    """Read a ``{name: properties.Schema(...)}`` dict literal."""
    out: list[PropertySpec] = []
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None or not _is_schema_call(value):
            continue
        assert isinstance(value, ast.Call)
        out.append(parse_property(cls, prefix + resolve_key(cls, key), key, value))
    return out


def class_properties(cls: ClassInfo) -> list[PropertySpec] | None:
    """The class's top-level properties, or None when the schema is not a dict literal."""
    found = cls.attribute("properties_schema")
    if found is None:
        return []
    owner = _owner(cls, "properties_schema")
    if not isinstance(found[1], ast.Dict):
        return None
    specs = {p.path: p for p in parse_property_dict(owner, found[1])}
    for added in added_properties(owner):
        specs[added.path] = added  # the later binding is the one the class has
    return list(specs.values())


def _schema_ref(node: ast.AST, owner: ClassInfo, module_level: bool) -> bool:
    """True for ``properties_schema`` (in the class body) or ``Cls.properties_schema`` (at module
    level, Cls the class that owns the schema)."""
    if not module_level:
        return isinstance(node, ast.Name) and node.id == "properties_schema"
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "properties_schema"
        and isinstance(node.value, ast.Name)
        and node.value.id == owner.name
    )


def added_properties(owner: ClassInfo) -> list[PropertySpec]:
    """Properties put into the schema after its dict literal, in source order.

    ``properties_schema["tier"] = properties.Schema(...)`` and
    ``properties_schema.update({...})`` in the class body, and the same on
    ``Cls.properties_schema`` at module level: the class has them at import
    time, so every schema rule (PS201 ...) and the inclusion checklist see them.
    """
    out: list[PropertySpec] = []
    statements = [(s, False) for s in owner.node.body]
    statements += [(s, True) for s in owner.module.tree.body]
    for stmt, module_level in statements:
        if isinstance(stmt, ast.Assign) and _is_schema_call(stmt.value):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript) and _schema_ref(
                    target.value, owner, module_level
                ):
                    name = resolve_key(owner, target.slice)
                    out.append(parse_property(owner, name, target.slice, stmt.value))
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            args = stmt.value.args
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "update"
                and _schema_ref(func.value, owner, module_level)
                and len(args) == 1
                and isinstance(args[0], ast.Dict)
            ):
                out.extend(parse_property_dict(owner, args[0]))
    return out


def class_attributes(cls: ClassInfo) -> list[AttributeSpec] | None:
    """The class's attributes, or None when the schema is not a dict literal."""
    found = cls.attribute("attributes_schema")
    if found is None:
        return []
    if not isinstance(found[1], ast.Dict):
        return None
    owner = _owner(cls, "attributes_schema")
    out: list[AttributeSpec] = []
    for key, value in zip(found[1].keys, found[1].values, strict=True):
        if key is None or not _is_schema_call(value):
            continue
        assert isinstance(value, ast.Call)
        args = call_args(value, ATTRIBUTE_ARGS)
        description = literal(args.get("description"))
        type_node = args.get("type")
        type_value = literal(type_node)
        type_lit = type_value if isinstance(type_value, str) else None
        if type_lit is not None:
            data_type = type_from_literal(type_lit, ATTRIBUTE_TYPES)
        else:
            symbol = last_name(type_node) if type_node is not None else None
            data_type = symbol if symbol in ATTRIBUTE_TYPES else None
        out.append(
            AttributeSpec(
                name=resolve_key(owner, key),
                node=value,
                has_description="description" in args
                and not (
                    description is None
                    or (isinstance(description, str) and not description.strip())
                ),
                type_node=type_node,
                type_literal=type_lit,
                data_type=data_type,
                support=parse_support(args.get("support_status")),
            )
        )
    return out


def _owner(cls: ClassInfo, name: str) -> ClassInfo:
    for info in cls.lineage():
        if name in info.own_attributes():
            return info
    return cls


def walk_properties(props: list[PropertySpec]) -> list[PropertySpec]:
    """Every property and nested property, depth first, in source order."""
    out: list[PropertySpec] = []
    for prop in props:
        out.append(prop)
        out.extend(walk_properties(prop.children))
    return out


__all__ = [
    "UNKNOWN",
    "AttributeSpec",
    "ConstraintSpec",
    "PropertySpec",
    "SupportSpec",
    "class_attributes",
    "class_properties",
    "parse_support",
    "version_key",
    "walk_properties",
]
