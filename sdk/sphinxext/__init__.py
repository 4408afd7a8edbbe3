"""Sphinx extension: a resource-type reference generated from plug-in schemas.

Add ``"sdk.sphinxext"`` to ``extensions`` in ``conf.py``, then write::

    .. plugsim:resource:: Vendor::Service::Thing
       :module: my_plugins.thing

    .. plugsim:resource:: Vendor::Service::Thing
       :class: my_plugins.thing.Thing

    .. plugsim:resources:: my_plugins.thing

The first form looks the type up in the module's ``available_resource_mapping()``
(or ``resource_mapping()``); the second documents the class directly; the third
documents every type of the module's mapping, sorted by name. Each reference
shows the class docstring, the properties (type, required, default, constraints,
update behaviour, version notes from the support-status chain, nested members),
the attributes (``show`` included) and a HOT example using the required
properties. Anything whose current support status is HIDDEN is left out. A
module or type that cannot be found is a Sphinx warning at the directive's
location, never a crash.

The rendering functions (:func:`resource_reference`, :func:`hot_example`,
:func:`example_value`, :func:`format_constraint`) do not need Sphinx to run a
build; they produce reStructuredText and YAML text.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import re
from collections.abc import Callable, Iterator, Mapping
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any, ClassVar

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.domains import Domain
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

import sdk
from sdk import attributes, exception, support
from sdk import constraints as constr
from sdk import properties as props_mod
from sdk.resource import Resource

LOG = logging.getLogger(__name__)

_INDENT = "   "


# --- looking plug-ins up ------------------------------------------------------


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except Exception as ex:
        raise exception.ConfigurationError(
            f"cannot import module '{module}': {type(ex).__name__}: {ex}"
        ) from None


def module_resource_types(module: str) -> dict[str, type[Resource]]:
    """Return ``{type name: class}`` of *module*'s resource mapping, sorted by name.

    ``available_resource_mapping()`` wins over ``resource_mapping()`` when a
    module defines both, as in the plug-in loader. Raises
    :class:`sdk.exception.ConfigurationError` naming the module when it cannot
    be imported, has no mapping function, or the mapping is not a map of
    resource classes.
    """
    mod = _import(module)
    func_name = "available_resource_mapping"
    func = getattr(mod, func_name, None)
    if not callable(func):
        func_name, func = "resource_mapping", getattr(mod, "resource_mapping", None)
    if not callable(func):
        raise exception.ConfigurationError(
            f"module '{module}' defines neither resource_mapping() nor available_resource_mapping()"
        )
    try:
        mapping = func()
    except Exception as ex:
        raise exception.ConfigurationError(
            f"{module}.{func_name}() raised {type(ex).__name__}: {ex}"
        ) from None
    if not isinstance(mapping, Mapping):
        raise exception.ConfigurationError(
            f"{module}.{func_name}() must return a map of type names to classes, "
            f"got {type(mapping).__name__}"
        )
    for name, cls in mapping.items():
        if not (isinstance(cls, type) and issubclass(cls, Resource)):
            raise exception.ConfigurationError(
                f"{module}.{func_name}(): '{name}' maps to {cls!r}, not a Resource subclass"
            )
    return {str(name): mapping[name] for name in sorted(mapping, key=str)}


def find_resource_class(
    type_name: str, module: str | None = None, class_path: str | None = None
) -> type[Resource]:
    """Return the class documenting *type_name*, from a module mapping or a class path.

    Exactly one of *module* and *class_path* (``'package.module.ClassName'``) is
    given. Raises :class:`sdk.exception.ConfigurationError` with a message
    naming what was not found.
    """
    if (module is None) == (class_path is None):
        raise exception.ConfigurationError(
            f"resource type '{type_name}': give exactly one of :module: and :class:"
        )
    if module is not None:
        types = module_resource_types(module)
        if type_name not in types:
            known = ", ".join(types) or "none"
            raise exception.ConfigurationError(
                f"module '{module}' has no resource type '{type_name}' (known: {known})"
            )
        return types[type_name]
    assert class_path is not None
    mod_name, _, attr = class_path.rpartition(".")
    if not mod_name:
        raise exception.ConfigurationError(
            f"class '{class_path}' must be a dotted path such as 'package.module.ClassName'"
        )
    cls = getattr(_import(mod_name), attr, None)
    if cls is None:
        raise exception.ConfigurationError(f"module '{mod_name}' has no attribute '{attr}'")
    if not (isinstance(cls, type) and issubclass(cls, Resource)):
        raise exception.ConfigurationError(f"'{class_path}' is not a Resource subclass")
    return cls


# --- formatting pieces ----------------------------------------------------------


def is_hidden(status: support.SupportStatus | None) -> bool:
    """Return True when the *current* support status is HIDDEN (never documented)."""
    return status is not None and status.status == support.HIDDEN


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


def _visible(schema_map: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for name, s in schema_map.items():
        if not is_hidden(getattr(s, "support_status", None)):
            yield str(name), s


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
    for name, s in _visible(schema_map):
        lines += [_literal(name), *_indent(_property_body(s, False, False)), ""]
    return lines


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


# --- example values ---------------------------------------------------------------

_CATEGORY_CHARS = {
    sre.CATEGORY_DIGIT: "0",
    sre.CATEGORY_NOT_DIGIT: "a",
    sre.CATEGORY_SPACE: " ",
    sre.CATEGORY_NOT_SPACE: "a",
    sre.CATEGORY_WORD: "a",
    sre.CATEGORY_NOT_WORD: "-",
}


def _emit(tree: Any, reps: int) -> str:
    out: list[str] = []
    for op, av in tree:
        if op == sre.LITERAL:
            out.append(chr(av))
        elif op == sre.NOT_LITERAL:
            out.append("a" if av != ord("a") else "b")
        elif op == sre.ANY:
            out.append("a")
        elif op == sre.IN:
            out.append(_emit(av[:1], reps))
        elif op == sre.RANGE:
            out.append(chr(av[0]))
        elif op == sre.CATEGORY:
            out.append(_CATEGORY_CHARS.get(av, "a"))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, sub = av
            count = max(low, min(reps, high))
            out.append(_emit(sub, reps) * count)
        elif op == sre.SUBPATTERN:
            out.append(_emit(av[-1], reps))
        elif op == sre.ATOMIC_GROUP:
            out.append(_emit(av, reps))
        elif op == sre.BRANCH:
            out.append(_emit(av[1][0], reps))
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue
        else:
            raise ValueError(f"no example for {op}")
    return "".join(out)


def _pattern_examples(pattern: str) -> Iterator[str]:
    try:
        tree = sre_parse.parse(pattern)
    except Exception:
        return
    for reps in (1, 2, 4, 8, 16, 0):
        try:
            text = _emit(tree, reps)
        except ValueError:
            return
        if re.fullmatch(pattern, text):
            yield text


def _bounds(schema: props_mod.Schema, kind: type) -> tuple[Any, Any]:
    low = high = None
    for c in schema.constraints:
        if isinstance(c, kind):
            low = c.min if low is None or (c.min is not None and c.min > low) else low
            high = c.max if high is None or (c.max is not None and c.max < high) else high
    return low, high


def _number_candidates(schema: props_mod.Schema) -> Iterator[Any]:
    low, high = _bounds(schema, constr.Range)
    bases = [b for b in (low, high) if b is not None] or [1, 0]
    steps = [c for c in schema.constraints if isinstance(c, constr.Modulo)]
    for base in bases:
        start = int(base) if float(base).is_integer() else int(base) + 1
        yield start
        if schema.type == schema.NUMBER:
            yield base
        for m in steps:
            aligned = start + ((m.offset - start) % m.step)
            yield aligned
            yield aligned - m.step
    if low is not None and high is not None:
        yield (low + high) // 2 if schema.type == schema.INTEGER else (low + high) / 2


def _string_candidates(schema: props_mod.Schema) -> Iterator[Any]:
    yield "example"
    for c in schema.constraints:
        if isinstance(c, constr.AllowedPattern):
            yield from _pattern_examples(c.pattern)
    low, high = _bounds(schema, constr.Length)
    if low is not None:
        yield ("example" * (low // 7 + 1))[:low]
    if high is not None:
        yield "example"[:high]


def _candidates(schema: props_mod.Schema) -> Iterator[Any]:
    if schema.default is not None:
        yield schema.default
    for c in schema.constraints:
        if isinstance(c, constr.AllowedValues):
            yield from c.allowed
    t = schema.type
    if t in (schema.INTEGER, schema.NUMBER):
        yield from _number_candidates(schema)
    elif t == schema.BOOLEAN:
        yield from (True, False)
    elif t in (schema.STRING, schema.ANY):
        yield from _string_candidates(schema)
    elif t == schema.MAP:
        if isinstance(schema.schema, dict):
            yield _required_members(schema.schema)
        else:
            yield {"key": "value"}
            yield {}
    elif t == schema.LIST:
        item = example_value(schema.schema) if isinstance(schema.schema, props_mod.Schema) else "a"
        low, high = _bounds(schema, constr.Length)
        yield [item] * max(low or 0, 1 if high is None or high >= 1 else 0)
        yield []


def _required_members(schema_map: Mapping[str, props_mod.Schema]) -> dict[str, Any]:
    return {
        name: example_value(s)
        for name, s in _visible(schema_map)
        if s.required and s.default is None
    }


def _fits(schema: props_mod.Schema, value: Any) -> bool:
    try:
        props_mod.Property(schema).get_value(value, validate=True)
    except (exception.PlugsimError, ValueError, TypeError, KeyError):
        return False
    return True


def example_value(schema: props_mod.Schema) -> Any:
    """Return a value for *schema* that its own validation accepts.

    The default when there is one, else an allowed value, a number inside the
    range (and step), a string matching the pattern and length, a map of its
    required members or a one-item list. A value checked by a custom
    constraint cannot be known here: it is the placeholder ``<name>`` of the
    constraint. When nothing fits, a placeholder ``<Type>`` is returned.
    """
    custom = [c for c in schema.constraints if isinstance(c, constr.CustomConstraint)]
    if custom and schema.default is None:
        return f"<{custom[0].name}>"
    check = props_mod.Schema(
        schema.type,
        schema=schema.schema,
        constraints=[c for c in schema.constraints if not isinstance(c, constr.CustomConstraint)],
    )
    for candidate in _candidates(schema):
        if _fits(check, candidate):
            return candidate
    return f"<{schema.type}>"


def _example_name(type_name: str) -> str:
    last = type_name.split("::")[-1] or "resource"
    name = re.sub(r"[^a-z0-9]+", "_", re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", last).lower())
    return name.strip("_") or "resource"


def hot_example(type_name: str, cls: type[Resource]) -> str:
    """Return a minimal HOT ``resources:`` section (YAML) using *cls*'s required properties."""
    schema = props_mod.schemata(cls.properties_schema)
    entry: dict[str, Any] = {"type": type_name}
    values = _required_members(schema)
    if values:
        entry["properties"] = values
    doc = {"resources": {_example_name(type_name): entry}}
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, allow_unicode=True)


# --- the whole reference ----------------------------------------------------------


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
    visible = list(_visible(prop_schema))
    if visible:
        lines += _heading("Properties", "-")
        for title, required in (("Required", True), ("Optional", False)):
            group = [(n, s) for n, s in visible if s.required == required]
            if not group:
                continue
            lines += _heading(title, "~")
            for name, s in group:
                updatable = s.update_allowed or name in extra_updatable
                lines += [_literal(name), *_indent(_property_body(s, updatable, True)), ""]
    lines += _heading("Attributes", "-")
    for name, a in _visible(attr_schema):
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


# --- Sphinx glue ------------------------------------------------------------------------


class _ReferenceDirective(SphinxDirective):
    """Shared machinery: warn instead of failing, parse generated reST into nodes."""

    directive_name: ClassVar[str] = ""

    def _warn(self, message: str) -> list[nodes.Node]:
        LOG.warning("%s: %s", self.directive_name, message, location=self.get_location())
        return []

    def _render(self, items: list[tuple[str, type[Resource]]]) -> list[nodes.Node]:
        lines: list[str] = []
        for type_name, cls in items:
            try:
                lines += resource_reference(type_name, cls)
            except exception.PlugsimError as ex:
                self._warn(str(ex))
                continue
            with contextlib.suppress(TypeError):  # rebuild the page when the plug-in changes
                source = inspect.getsourcefile(cls)
                if source:
                    self.env.note_dependency(source)
        if not lines:
            return []
        source = f"<{self.directive_name} {' '.join(self.arguments)}>"
        content = StringList(lines, source=source)
        holder = nodes.section()
        holder.document = self.state.document
        nested_parse_with_titles(self.state, content, holder)
        return holder.children


class ResourceDirective(_ReferenceDirective):
    """``.. plugsim:resource:: Type::Name`` with ``:module:`` or ``:class:``."""

    directive_name = "plugsim:resource"
    required_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "module": directives.unchanged_required,
        "class": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        """Render the reference of one resource type, or warn."""
        type_name = self.arguments[0]
        try:
            cls = find_resource_class(
                type_name, self.options.get("module"), self.options.get("class")
            )
        except exception.PlugsimError as ex:
            return self._warn(str(ex))
        if is_hidden(cls.support_status):
            return self._warn(f"resource type '{type_name}' is HIDDEN and is not documented")
        return self._render([(type_name, cls)])


class ResourcesDirective(_ReferenceDirective):
    """``.. plugsim:resources:: dotted.module``: every visible type of the module's mapping."""

    directive_name = "plugsim:resources"
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        """Render the reference of every type the module maps, sorted by name."""
        try:
            types = module_resource_types(self.arguments[0])
        except exception.PlugsimError as ex:
            return self._warn(str(ex))
        items = [(n, c) for n, c in types.items() if not is_hidden(c.support_status)]
        return self._render(items)


class PlugsimDomain(Domain):
    """The ``plugsim`` domain: it only holds the reference directives (no objects)."""

    name = "plugsim"
    label = "plugsim"
    directives: ClassVar[dict[str, Any]] = {
        "resource": ResourceDirective,
        "resources": ResourcesDirective,
    }

    def clear_doc(self, docname: str) -> None:
        """Nothing is recorded per document."""

    def merge_domaindata(self, docnames: Any, otherdata: dict[str, Any]) -> None:
        """Nothing is recorded per document, so parallel reads have nothing to merge."""


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``plugsim`` domain with its ``resource`` and ``resources`` directives."""
    app.add_domain(PlugsimDomain)
    return {
        "version": sdk.__version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
