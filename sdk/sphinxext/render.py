"""The reStructuredText reference of one resource type, and the pieces it is made of.

Nothing here needs Sphinx: the functions return text lines.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any

from sdk import attributes, exception, support
from sdk import constraints as constr
from sdk import properties as props_mod
from sdk.resource import Resource
from sdk.sphinxext.examples import hot_example
from sdk.sphinxext.lookup import visible

_INDENT = "   "


def format_value(value: Any) -> str:
    """Return *value* as a template author would write it (JSON, keys sorted)."""
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _literal(text: str) -> str:
    """Inline literal markup for *text* that survives any content."""
    if not text or "`" in text or "\\" in text or text != text.strip():
        return ":code:`" + text.replace("\\", "\\\\").replace("`", "\\`") + "`"
    return f"``{text}``"


def _span(low: Any, high: Any, what: str) -> str:
    if low is not None and high is not None:
        return f"{what} from {low} to {high}".strip()
    return f"{what} at least {low}".strip() if low is not None else f"{what} at most {high}".strip()


def _constraint_rule(c: constr.Constraint) -> str:
    if isinstance(c, constr.Range):
        return _span(c.min, c.max, "")
    if isinstance(c, constr.Length):
        return _span(c.min, c.max, "length")
    if isinstance(c, constr.Modulo):
        return f"{c.offset} plus a multiple of {c.step}" if c.offset else f"a multiple of {c.step}"
    if isinstance(c, constr.AllowedValues):
        return "one of " + ", ".join(_literal(format_value(v)) for v in c.allowed)
    if isinstance(c, constr.AllowedPattern):
        return "matches the regular expression " + _literal(c.pattern)
    if isinstance(c, constr.CustomConstraint):
        return f"valid as {_literal(c.name)} (custom constraint)"
    return type(c).__name__


def format_constraint(c: constr.Constraint) -> str:
    """Return one constraint in plain words (reStructuredText inline markup).

    The rule comes first (``from 1 to 10``, ``length at most 64``,
    ``one of "a", "b"``...); the constraint's own description, if any, follows.
    """
    rule = _constraint_rule(c)
    return f"{rule} — {c.description}" if c.description else rule


_STATUS_WORDS = dict(
    zip(
        support.SUPPORT_STATUSES,
        ("Status unknown", "Supported", "Deprecated", "Unsupported", "Hidden"),
        strict=True,
    )
)


def _version_notes(status: support.SupportStatus) -> list[str]:
    """The support-status chain as Sphinx version notes, oldest first."""
    lines: list[str] = []
    chain = list(reversed(status.chain()))
    for index, item in enumerate(chain):
        text = item.message or ""
        if item.substitute_class is not None:
            sub = f"{item.substitute_class.__module__}.{item.substitute_class.__qualname__}"
            text = f"{text} Use {_literal(sub)} instead.".strip()
        if item.version is None:
            if item.status == support.SUPPORTED and not text:
                continue
            word = _STATUS_WORDS[item.status]
            lines += [f"*{word}.* {text}".rstrip(), ""]
            continue
        directive = "versionadded" if index == 0 else "versionchanged"
        if item.status == support.DEPRECATED:
            directive = "deprecated"
        elif item.status != support.SUPPORTED or index:
            text = f"{_STATUS_WORDS[item.status]}. {text}".strip()
        lines.append(f".. {directive}:: {item.version}")
        if text:
            lines += ["", _INDENT + text]
        lines.append("")
    return lines


def _type_label(schema: props_mod.Schema) -> str:
    if schema.type == schema.LIST and isinstance(schema.schema, props_mod.Schema):
        return f"List of {schema.schema.type}"
    return schema.type


def _update_note(schema: props_mod.Schema, update_allowed: bool) -> str:
    if schema.immutable:
        return "Immutable: an update that changes it fails."
    if update_allowed:
        return "Can be updated without replacing the resource."
    return "Changing it replaces the resource."


def _indent(lines: list[str], depth: int = 1) -> list[str]:
    pad = _INDENT * depth
    return [pad + line if line else "" for line in lines]


def _property_body(schema: props_mod.Schema, update_allowed: bool, top: bool) -> list[str]:
    needed = "required" if schema.required else "optional"
    head = f"*{_type_label(schema)}*, {needed}."
    if schema.default is not None:
        head += f" Default: {_literal(format_value(schema.default))}."
    if top:
        head += " " + _update_note(schema, update_allowed)
    body = [head, ""]
    if schema.description:
        body += [*inspect.cleandoc(schema.description).splitlines(), ""]
    if schema.constraints:
        body += ["Constraints:", ""]
        body += [f"* {format_constraint(c)}" for c in schema.constraints]
        body.append("")
    body += _version_notes(schema.support_status)
    return body + _nested(schema)


def _nested(schema: props_mod.Schema) -> list[str]:
    nested = schema.schema
    if isinstance(nested, props_mod.Schema):
        if isinstance(nested.schema, dict):
            return ["Each item is a map with these members:", "", *_members(nested.schema)]
        if nested.constraints or nested.description:
            return ["Each item:", "", *_property_body(nested, False, False)]
        return []
    return ["Members:", "", *_members(nested)] if isinstance(nested, dict) else []


def _members(schema_map: Mapping[str, props_mod.Schema]) -> list[str]:
    lines: list[str] = []
    for name, s in visible(schema_map):
        lines += [_literal(name), *_indent(_property_body(s, False, False)), ""]
    return lines


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


# --- example values ---------------------------------------------------------------


def resource_reference(type_name: str, cls: type[Resource]) -> list[str]:
    """Return the reStructuredText reference of one resource type, as lines.

    Raises :class:`sdk.exception.InvalidSchemaError` naming the plug-in when
    its schemas are broken. The caller skips types that are HIDDEN.
    """
    try:
        prop_schema = props_mod.schemata(cls.properties_schema)
        attr_schema = attributes.schemata(
            {**attributes.base_attributes_schema(), **dict(cls.attributes_schema)}
        )
    except exception.InvalidSchemaError as ex:
        raise exception.InvalidSchemaError(
            f"resource plug-in {cls.__module__}.{cls.__qualname__} ({type_name}): {ex}"
        ) from None
    lines = _heading(type_name, "=")
    lines += _version_notes(cls.support_status)
    doc = inspect.getdoc(cls) if cls.__doc__ else None
    if doc:
        lines += [*doc.splitlines(), ""]
    extra_updatable = set(cls.update_allowed_properties)
    shown = list(visible(prop_schema))
    if shown:
        lines += _heading("Properties", "-")
        for title, required in (("Required", True), ("Optional", False)):
            group = [(n, s) for n, s in shown if s.required == required]
            if not group:
                continue
            lines += _heading(title, "~")
            for name, s in group:
                updatable = s.update_allowed or name in extra_updatable
                lines += [_literal(name), *_indent(_property_body(s, updatable, True)), ""]
    lines += _heading("Attributes", "-")
    for name, a in visible(attr_schema):
        head = f"*{a.type}*." if a.type else ""
        body = [head, ""] if head else []
        if a.description:
            body += [*inspect.cleandoc(a.description).splitlines(), ""]
        body += _version_notes(a.support_status)
        lines += [_literal(name), *_indent(body or ["(no description)"]), ""]
    lines += _heading("HOT example", "-")
    lines += [".. code-block:: yaml", ""]
    lines += _indent(hot_example(type_name, cls).splitlines())
    lines.append("")
    return lines
