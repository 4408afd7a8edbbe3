"""Rules on property and attribute schemas (PS2xx), read statically from the class body.

Nested property schemas (``schema=`` of MAP and LIST properties) are checked
too; their names read ``outer.inner`` (``outer.*`` for a LIST's item schema).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.schema_model import (
    CONSTRAINT_TYPES,
    PROPERTY_TYPES,
    AttributeSpec,
    ConstraintSpec,
    PropertySpec,
    SupportSpec,
    class_attributes,
    class_properties,
    parse_support,
    version_key,
    walk_properties,
)
from sdk.lint.source import UNKNOWN, ClassInfo, PluginModule


def _own_properties(cls: ClassInfo) -> list[PropertySpec]:
    # Only the class that writes the schema is blamed, so inherited schemas are not repeated.
    if "properties_schema" not in cls.own_attributes():
        return []
    return walk_properties(class_properties(cls) or [])


def _own_attributes(cls: ClassInfo) -> list[AttributeSpec]:
    if "attributes_schema" not in cls.own_attributes():
        return []
    return class_attributes(cls) or []


def _properties(module: PluginModule) -> Iterator[tuple[ClassInfo, PropertySpec]]:
    for cls in module.resource_classes:
        for prop in _own_properties(cls):
            yield cls, prop


@rule(
    "PS201",
    "property-description-missing",
    severity=Severity.WARNING,
    family="schema",
    scope="module",
    message="{cls}: property {prop} has no description",
    summary="Every property needs a description.",
    doc="""
        The description is what template authors read in the generated resource
        reference. ``None`` or an empty string counts as missing.
    """,
    bad="""
        properties_schema = {
            "size": properties.Schema(properties.Schema.INTEGER),
        }
    """,
    good="""
        properties_schema = {
            "size": properties.Schema(properties.Schema.INTEGER, _("Size in GB.")),
        }
    """,
)
def check_property_description(module: PluginModule) -> Iterator[Hit]:
    """Properties without a description (also those only the imported class has)."""
    for cls, prop in _properties(module):
        if not prop.has_description:
            yield module.hit(prop.key_node, cls=cls.name, prop=prop.path)
    for cls, name, schema in _runtime_only_properties(module):
        if not getattr(schema, "description", None):
            yield module.hit(cls.node, cls=cls.name, prop=name)


def _runtime_only_properties(module: PluginModule) -> Iterator[tuple[ClassInfo, str, Any]]:
    """Top-level properties the imported class has that its source does not show (added in a loop,
    by a helper ...), for the classes whose schema is a dict literal; nothing when the module
    cannot be imported."""
    from sdk.lint.mapping_rules import loaded

    for cls in module.resource_classes:
        if "properties_schema" not in cls.own_attributes():
            continue
        static = class_properties(cls)
        if static is None:
            continue
        result = loaded(module)
        imported = getattr(result, "module", None)
        runtime = getattr(getattr(imported, cls.name, None), "properties_schema", None)
        if not isinstance(runtime, dict):
            continue
        known = {p.path for p in static}
        for name in sorted(k for k in runtime if isinstance(k, str) and k not in known):
            yield cls, name, runtime[name]


@rule(
    "PS202",
    "attribute-description-missing",
    severity=Severity.WARNING,
    family="schema",
    scope="module",
    message="{cls}: attribute {attr} has no description",
    summary="Every attribute needs a description.",
    doc="""
        Attribute descriptions end up in the generated resource reference next to
        the properties. ``None`` or an empty string counts as missing.
    """,
    bad="""
        attributes_schema = {
            "size": attributes.Schema(type=attributes.Schema.INTEGER),
        }
    """,
    good="""
        attributes_schema = {
            "size": attributes.Schema(_("Size in GB."), type=attributes.Schema.INTEGER),
        }
    """,
)
def check_attribute_description(module: PluginModule) -> Iterator[Hit]:
    """Attributes without a description."""
    for cls in module.resource_classes:
        for attr in _own_attributes(cls):
            if not attr.has_description:
                yield module.hit(attr.node, cls=cls.name, attr=attr.name)


@rule(
    "PS203",
    "type-as-string-literal",
    severity=Severity.WARNING,
    family="schema",
    scope="module",
    message="{cls}: {kind} {name} gives its type as the literal {literal!r}; "
    "use the symbolic name Schema.{symbol}",
    summary="Types are given by symbolic name, not by the string they stand for.",
    doc="""
        The plug-in guide asks for ``properties.Schema.STRING`` rather than
        ``'String'``: the symbolic names are checked when the module is imported and
        survive a change of the literal.
    """,
    bad="""
        "name": properties.Schema("String", _("Name.")),
    """,
    good="""
        "name": properties.Schema(properties.Schema.STRING, _("Name.")),
    """,
)
def check_type_literal(module: PluginModule) -> Iterator[Hit]:
    """Schema types written as string literals that name a valid type."""
    for cls, prop in _properties(module):
        if prop.type_literal is not None and prop.data_type is not None:
            yield module.hit(
                prop.type_node,
                cls=cls.name,
                kind="property",
                name=prop.path,
                literal=prop.type_literal,
                symbol=prop.data_type,
            )
    for cls in module.resource_classes:
        for attr in _own_attributes(cls):
            if attr.type_literal is not None and attr.data_type is not None:
                yield module.hit(
                    attr.type_node,
                    cls=cls.name,
                    kind="attribute",
                    name=attr.name,
                    literal=attr.type_literal,
                    symbol=attr.data_type,
                )


@rule(
    "PS204",
    "unknown-type",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: {kind} {name} has unknown type {type}",
    summary="A schema type must be one of the SDK's types.",
    doc="""
        Property types are INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST and ANY;
        attribute types STRING, NUMBER, INTEGER, BOOLEAN, MAP and LIST. Anything
        else makes the module fail to import.
    """,
    bad="""
        "size": properties.Schema("Float", _("Size in GB.")),
    """,
    good="""
        "size": properties.Schema(properties.Schema.NUMBER, _("Size in GB.")),
    """,
)
def check_unknown_type(module: PluginModule) -> Iterator[Hit]:
    """String-literal or symbolic schema types the SDK does not have."""
    for cls, prop in _properties(module):
        if prop.data_type is None and _looks_like_type(prop.type_literal, prop.type_node):
            yield module.hit(
                prop.type_node or prop.node,
                cls=cls.name,
                kind="property",
                name=prop.path,
                type=_type_text(prop.type_literal, prop.type_node),
            )
    for cls in module.resource_classes:
        for attr in _own_attributes(cls):
            if attr.type_node is not None and attr.data_type is None:
                if _looks_like_type(attr.type_literal, attr.type_node):
                    yield module.hit(
                        attr.type_node,
                        cls=cls.name,
                        kind="attribute",
                        name=attr.name,
                        type=_type_text(attr.type_literal, attr.type_node),
                    )


def _looks_like_type(literal: str | None, node: Any) -> bool:
    import ast

    if literal is not None:
        return True
    # A symbolic name spelled like a type constant (Schema.FLOAT), not an arbitrary expression.
    if isinstance(node, ast.Attribute) and node.attr.isupper():
        return True
    return False


def _type_text(literal: str | None, node: Any) -> str:
    import ast

    if literal is not None:
        return repr(literal)
    return ast.unparse(node) if node is not None else "None"


@rule(
    "PS205",
    "constraint-not-applicable",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: property {prop} of type {type} has the constraint {constraint}, "
    "which applies only to {applies}",
    summary="A constraint is used on a type it does not apply to.",
    doc="""
        AllowedPattern applies to STRING; AllowedValues and CustomConstraint to
        every type but MAP; Length to STRING, LIST and MAP; Range and Modulo to
        INTEGER and NUMBER.
        The SDK rejects the others when the schema is built.
    """,
    bad="""
        "name": properties.Schema(properties.Schema.STRING, _("Name."),
                                  constraints=[constraints.Range(1, 10)]),
    """,
    good="""
        "name": properties.Schema(properties.Schema.STRING, _("Name."),
                                  constraints=[constraints.Length(1, 10)]),
    """,
)
def check_constraint_applicable(module: PluginModule) -> Iterator[Hit]:
    """Constraints on property types they do not apply to."""
    for cls, prop in _properties(module):
        if prop.data_type is None or prop.data_type == "ANY":
            continue
        for constraint in prop.constraints:
            applies = CONSTRAINT_TYPES.get(constraint.kind)
            if applies is not None and prop.data_type not in applies:
                yield module.hit(
                    constraint.node,
                    cls=cls.name,
                    prop=prop.path,
                    type=prop.data_type,
                    constraint=constraint.kind,
                    applies=", ".join(t for t in applies if t != "ANY"),
                )


def default_type_problem(data_type: str, value: Any) -> bool:
    """Whether *value* cannot be a value of *data_type* (after the SDK's coercions)."""
    if data_type == "STRING":
        return isinstance(value, list | dict | tuple | set)
    if data_type == "INTEGER":
        if isinstance(value, bool):
            return True
        if isinstance(value, int):
            return False
        if isinstance(value, str):
            return re.fullmatch(r"\s*[-+]?\d+\s*", value) is None
        return True
    if data_type == "NUMBER":
        if isinstance(value, bool):
            return True
        if isinstance(value, int | float):
            return False
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return True
            return False
        return True
    if data_type == "BOOLEAN":
        if isinstance(value, bool):
            return False
        return not (isinstance(value, str) and value.strip().lower() in ("true", "false"))
    if data_type == "LIST":
        return not isinstance(value, list | tuple)
    if data_type == "MAP":
        return not isinstance(value, dict)
    return False


@rule(
    "PS206",
    "default-wrong-type",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: property {prop} of type {type} has default {default!r} of the wrong type",
    summary="A property's default is not a value of the property's type.",
    doc="""
        The default is used when the template leaves the property out, so it must
        be a value of the property's type (coercions allowed: ``'5'`` is a valid
        INTEGER, ``'true'`` a valid BOOLEAN).
    """,
    bad="""
        "size": properties.Schema(properties.Schema.INTEGER, _("Size."), default="large"),
    """,
    good="""
        "size": properties.Schema(properties.Schema.INTEGER, _("Size."), default=10),
    """,
)
def check_default_type(module: PluginModule) -> Iterator[Hit]:
    """Literal defaults that are not values of the property's type."""
    for cls, prop in _properties(module):
        if not prop.has_default or prop.default is UNKNOWN or prop.data_type is None:
            continue
        if default_type_problem(prop.data_type, prop.default):
            yield module.hit(
                prop.node, cls=cls.name, prop=prop.path, type=prop.data_type, default=prop.default
            )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


def constraint_violation(constraint: ConstraintSpec, value: Any) -> str | None:
    """Why *value* breaks *constraint* (literal arguments only), or None."""
    args = constraint.args
    kind = constraint.kind
    if kind == "AllowedValues":
        allowed = args.get("allowed", UNKNOWN)
        if isinstance(allowed, str):
            allowed = [allowed]
        if isinstance(allowed, list | tuple):
            items = value if isinstance(value, list) else [value]
            for item in items:
                if not any(_same(item, a) for a in allowed):
                    return f"is not one of {list(allowed)!r}"
    elif kind == "AllowedPattern":
        pattern = args.get("pattern", UNKNOWN)
        if isinstance(pattern, str) and isinstance(value, str):
            try:
                if re.fullmatch(pattern, value) is None:
                    return f"does not match the pattern {pattern!r}"
            except re.error:
                return None
    elif kind in ("Length", "Range"):
        low, high = args.get("min"), args.get("max")
        if kind == "Length":
            if not isinstance(value, str | list | tuple | dict):
                return None
            measured: Any = len(value)
            what = "length"
        else:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return None
            measured = value
            what = "value"
        if isinstance(low, int | float) and measured < low:
            return f"has {what} {measured}, below the minimum {low}"
        if isinstance(high, int | float) and measured > high:
            return f"has {what} {measured}, above the maximum {high}"
    elif kind == "Modulo":
        step, offset = args.get("step"), args.get("offset", 0)
        if offset is None:
            offset = 0
        if isinstance(step, int) and step and isinstance(offset, int):
            if isinstance(value, int) and not isinstance(value, bool):
                if value % step != offset:
                    return f"is not {offset} plus a multiple of {step}"
    return None


@rule(
    "PS207",
    "default-violates-constraint",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: default {default!r} of property {prop} {problem} ({constraint})",
    summary="A property's default breaks the property's own constraints.",
    doc="""
        A default that its own constraints reject makes every template that relies
        on it invalid. Only literal defaults and literal constraint arguments are
        checked.
    """,
    bad="""
        "size": properties.Schema(properties.Schema.INTEGER, _("Size."), default=0,
                                  constraints=[constraints.Range(min=1)]),
    """,
    good="""
        "size": properties.Schema(properties.Schema.INTEGER, _("Size."), default=1,
                                  constraints=[constraints.Range(min=1)]),
    """,
)
def check_default_constraints(module: PluginModule) -> Iterator[Hit]:
    """Literal defaults that their own constraints reject."""
    for cls, prop in _properties(module):
        if not prop.has_default or prop.default is UNKNOWN:
            continue
        if prop.data_type is not None and default_type_problem(prop.data_type, prop.default):
            continue
        for constraint in prop.constraints:
            problem = constraint_violation(constraint, prop.default)
            if problem is not None:
                yield module.hit(
                    constraint.node,
                    cls=cls.name,
                    prop=prop.path,
                    default=prop.default,
                    problem=problem,
                    constraint=constraint.kind,
                )


@rule(
    "PS208",
    "required-with-default",
    severity=Severity.WARNING,
    family="schema",
    scope="module",
    message="{cls}: property {prop} is required but has a default, which is never used",
    summary="required=True together with a default.",
    doc="""
        A required property must be given by the template, so its default is never
        used; the pair usually means the property should be optional.
    """,
    bad="""
        "size": properties.Schema(properties.Schema.INTEGER, _("Size."),
                                  required=True, default=10),
    """,
    good="""
        "size": properties.Schema(properties.Schema.INTEGER, _("Size."), default=10),
    """,
)
def check_required_default(module: PluginModule) -> Iterator[Hit]:
    """Required properties with a default."""
    for cls, prop in _properties(module):
        if prop.required and prop.has_default:
            yield module.hit(prop.node, cls=cls.name, prop=prop.path)


@rule(
    "PS209",
    "update-allowed-and-immutable",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: property {prop} is both update_allowed and immutable",
    summary="update_allowed contradicts immutable.",
    doc="""
        ``immutable=True`` makes every change of the property fail, while
        ``update_allowed=True`` promises an in-place update. The SDK rejects the
        pair when the schema is built.
    """,
    bad="""
        "name": properties.Schema(properties.Schema.STRING, _("Name."),
                                  update_allowed=True, immutable=True),
    """,
    good="""
        "name": properties.Schema(properties.Schema.STRING, _("Name."), immutable=True),
    """,
)
def check_update_immutable(module: PluginModule) -> Iterator[Hit]:
    """Properties that are both ``update_allowed`` and ``immutable``."""
    for cls, prop in _properties(module):
        if prop.update_allowed and prop.immutable:
            yield module.hit(prop.node, cls=cls.name, prop=prop.path)


@rule(
    "PS210",
    "hidden-property-required",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: property {prop} is HIDDEN but required, so no template can be valid",
    summary="A HIDDEN property cannot be required.",
    doc="""
        HIDDEN properties are left out of the documentation and of new templates.
        If one is required, templates written from the documentation fail.
    """,
    bad="""
        "flavor": properties.Schema(
            properties.Schema.STRING, _("Old flavor name."), required=True,
            support_status=support.SupportStatus(support.HIDDEN, version="2.0.0")),
    """,
    good="""
        "flavor": properties.Schema(
            properties.Schema.STRING, _("Old flavor name."),
            support_status=support.SupportStatus(support.HIDDEN, version="2.0.0")),
    """,
)
def check_hidden_required(module: PluginModule) -> Iterator[Hit]:
    """Required properties whose support status is HIDDEN."""
    for cls, prop in _properties(module):
        if prop.required and prop.support is not None and prop.support.status == "HIDDEN":
            yield module.hit(prop.node, cls=cls.name, prop=prop.path)


def chain_problem(spec: SupportSpec) -> tuple[SupportSpec, str, str] | None:
    """The first link whose previous status is not older than itself, if any."""
    current: SupportSpec | None = spec
    while current is not None and current.previous is not None:
        previous = current.previous
        if current.version is not None and previous.version is not None:
            newer, older = version_key(current.version), version_key(previous.version)
            if newer is not None and older is not None and older >= newer:
                return current, current.version, previous.version
        current = previous
    return None


@rule(
    "PS211",
    "support-status-chain-order",
    severity=Severity.ERROR,
    family="schema",
    scope="module",
    message="{cls}: support_status of {what} lists version {version} after previous_status "
    "version {previous}; each previous_status must be older",
    summary="A previous_status chain whose versions are out of order.",
    doc="""
        ``previous_status`` records what a status replaced, so going down the chain
        the versions must get older. A chain out of order produces a wrong history
        in the documentation.
    """,
    bad="""
        support_status = support.SupportStatus(
            support.DEPRECATED, version="1.0.0",
            previous_status=support.SupportStatus(version="2.0.0"))
    """,
    good="""
        support_status = support.SupportStatus(
            support.DEPRECATED, version="2.0.0",
            previous_status=support.SupportStatus(version="1.0.0"))
    """,
)
def check_support_chain(module: PluginModule) -> Iterator[Hit]:
    """Support status chains (class, properties, attributes) with versions out of order."""
    for cls in module.resource_classes:
        targets: list[tuple[str, SupportSpec | None]] = []
        own = cls.own_attributes().get("support_status")
        if own is not None:
            targets.append((f"class {cls.name}", parse_support(own[1])))
        targets.extend((f"property {p.path}", p.support) for p in _own_properties(cls))
        targets.extend((f"attribute {a.name}", a.support) for a in _own_attributes(cls))
        for what, spec in targets:
            if spec is None:
                continue
            found = chain_problem(spec)
            if found is not None:
                link, version, previous = found
                yield module.hit(
                    link.node, cls=cls.name, what=what, version=version, previous=previous
                )


__all__ = ["PROPERTY_TYPES", "constraint_violation", "default_type_problem"]
