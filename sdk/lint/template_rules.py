"""Rules on HOT templates (PS4xx), using the engine's template layer.

A YAML file is treated as a template when it is a map with a
``heat_template_version`` key; other YAML files are left alone. Resource types
are looked up among plugsim's built-in types and the plug-ins being linted.
Line numbers come from the YAML node positions of the offending key.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sdk import exception
from sdk.lint.registry import Hit, Severity, rule

_PLACEHOLDERS = {
    "string": "lint",
    "number": 0,
    "json": {},
    "comma_delimited_list": "",
    "boolean": False,
}


@dataclass
class TemplateFile:
    """One YAML file under lint."""

    path: Path
    display: str
    text: str
    raw: Any = None
    positions: dict[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict)
    plugin_types: dict[str, type] = field(default_factory=dict)
    #: Results computed once per file and shared between rules (the engine's validation).
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def is_template(self) -> bool:
        """Whether the file is a HOT template (a map with ``heat_template_version``)."""
        return isinstance(self.raw, dict) and "heat_template_version" in self.raw

    def position(self, path: list[Any] | tuple[Any, ...]) -> tuple[int, int]:
        """Line and column of the deepest known key on *path*."""
        parts = tuple(path)
        while parts:
            if parts in self.positions:
                return self.positions[parts]
            parts = parts[:-1]
        return 1, 1

    def hit(self, path: list[Any] | tuple[Any, ...], **args: Any) -> Hit:
        """A hit at the key *path* of the template."""
        line, col = self.position(path)
        return Hit(self.display, line, col, args)


def _walk(node: Any, prefix: tuple[Any, ...], out: dict[tuple[Any, ...], tuple[int, int]]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = (*prefix, key.value)
            out.setdefault(path, (key.start_mark.line + 1, key.start_mark.column + 1))
            _walk(value, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            path = (*prefix, index)
            out.setdefault(path, (item.start_mark.line + 1, item.start_mark.column + 1))
            _walk(item, path, out)


def read_template(path: Path, display: str) -> TemplateFile:
    """Read and parse a YAML file; unreadable files raise, unparsable ones are not templates."""
    text = path.read_text(encoding="utf-8")
    template = TemplateFile(path, display, text)
    try:
        template.raw = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return template
    if node is not None:
        _walk(node, (), template.positions)
    return template


def _params(tmpl: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, schema in tmpl.parameters_schema().items():
        if getattr(schema, "default", None) is None:
            values[name] = _PLACEHOLDERS.get(str(getattr(schema, "type", "string")), "lint")
    return values


def known_types(template: TemplateFile) -> dict[str, type]:
    """plugsim's built-in resource types and those of the plug-ins being linted."""
    from simulator.type_sources import builtin_mapping

    return {**builtin_mapping(), **template.plugin_types}


def validate(template: TemplateFile) -> exception.StackValidationFailed | None:
    """Load and validate the template with the engine; the first error, if any (cached)."""
    if "validation" not in template.cache:
        template.cache["validation"] = _validate(template)
    return template.cache["validation"]


def _validate(template: TemplateFile) -> exception.StackValidationFailed | None:
    from simulator.template import StackDefinition, load_template
    from simulator.type_sources import builtin_mapping

    types = {**builtin_mapping(), **template.plugin_types}

    def lookup(type_name: str, resource_name: str | None = None) -> type:
        try:
            return types[type_name]
        except KeyError:
            raise exception.ResourceTypeNotFound(type_name=type_name) from None

    try:
        tmpl = load_template(template.path, source=template.display)
        try:
            definition = StackDefinition(
                tmpl,
                None,
                _params(tmpl),
                stack_name="lint",
                stack_id="00000000-0000-4000-8000-000000000000",
            )
        except exception.StackValidationFailed as exc:
            if exc.path and exc.path[0] == "parameters":
                return None  # about the placeholder values, not the template
            raise
        definition.validate(lookup)
    except exception.StackValidationFailed as exc:
        return exc
    return None


#: The kinds of validation error that have a rule of their own (PS404, PS406, PS407, PS410).
ERROR_KINDS = ("unknown-type", "cycle", "function-version", "capabilities", "other")


def error_kind(error: exception.StackValidationFailed) -> str:
    """Which rule reports *error*: one of :data:`ERROR_KINDS`."""
    causes: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in causes:
        causes.append(current)
        current = current.__cause__ or current.__context__
    if any(isinstance(c, exception.ResourceTypeNotFound) for c in causes):
        return "unknown-type"
    text = error.error_message or str(error)
    if text.startswith("Circular dependency found"):
        return "cycle"
    if "is not supported in heat_template_version" in text:
        return "function-version"
    if error.path and error.path[0] == "capabilities":
        return "capabilities"
    return "other"


def _validation_hits(template: TemplateFile, kind: str) -> Iterator[Hit]:
    if not template.is_template:
        return
    error = validate(template)
    if error is not None and error_kind(error) == kind:
        message = str(error)
        prefix = f"{template.display}: "
        yield template.hit(error.path, error=message.removeprefix(prefix))


@rule(
    "PS401",
    "template-invalid",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="The engine rejects the template (for a reason without a rule of its own).",
    doc="""
        The template is loaded and validated by the engine's own template layer,
        with the resource types of plugsim and of the plug-ins being linted.
        Validation stops at the first error. An unknown resource type (PS404),
        a dependency cycle (PS406), a function the template's version lacks
        (PS407) and a malformed ``capabilities`` section (PS410) have rules of
        their own; this one reports the rest: a reference to a missing
        resource, a malformed section, a bad parameter definition ...
    """,
    bad="""
        heat_template_version: 2018-08-31
        resources:
          a:
            type: OS::Heat::None
            properties:
              value: {get_resource: nowhere}
    """,
    good="""
        heat_template_version: 2018-08-31
        resources:
          a:
            type: OS::Heat::None
          b:
            type: OS::Heat::None
            properties:
              value: {get_resource: a}
    """,
)
def check_template(template: TemplateFile) -> Iterator[Hit]:
    """The engine's first error, unless another rule reports its kind."""
    yield from _validation_hits(template, "other")


@rule(
    "PS404",
    "unknown-resource-type",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="A resource's type is neither built in nor registered by a linted plug-in.",
    doc="""
        Types are looked up among plugsim's built-in types and the types the
        linted plug-ins register. Lint the plug-in together with the template
        (``plugsim lint plugins/ templates/``) so that its types are known.
    """,
    bad="""
        heat_template_version: 2018-08-31
        resources:
          a:
            type: Example::Nowhere::Thing
    """,
    good="""
        heat_template_version: 2018-08-31
        resources:
          a:
            type: OS::Heat::None
    """,
)
def check_unknown_type(template: TemplateFile) -> Iterator[Hit]:
    """The engine's error when it is an unknown resource type."""
    yield from _validation_hits(template, "unknown-type")


@rule(
    "PS406",
    "dependency-cycle",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="Resources depend on each other in a circle.",
    doc="""
        ``get_resource``, ``get_attr`` and ``depends_on`` make a resource wait
        for another. A circle of them can never start; the message names the
        resources on it.
    """,
    bad="""
        heat_template_version: 2018-08-31
        resources:
          a:
            type: OS::Heat::None
            properties: {value: {get_resource: b}}
          b:
            type: OS::Heat::None
            properties: {value: {get_resource: a}}
    """,
    good="""
        heat_template_version: 2018-08-31
        resources:
          a:
            type: OS::Heat::None
          b:
            type: OS::Heat::None
            properties: {value: {get_resource: a}}
    """,
)
def check_cycle(template: TemplateFile) -> Iterator[Hit]:
    """The engine's error when it is a dependency cycle."""
    yield from _validation_hits(template, "cycle")


@rule(
    "PS407",
    "function-not-in-version",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="A function that the template's heat_template_version does not have.",
    doc="""
        Each ``heat_template_version`` has its own set of functions; using a
        newer one makes the template fail on every engine that honours the
        version. Raise the version or use a function the version has.
    """,
    bad="""
        heat_template_version: 2015-04-30
        resources:
          a:
            type: OS::Heat::None
            properties:
              value: {map_merge: [{a: 1}, {b: 2}]}
    """,
    good="""
        heat_template_version: 2016-10-14
        resources:
          a:
            type: OS::Heat::None
            properties:
              value: {map_merge: [{a: 1}, {b: 2}]}
    """,
)
def check_function_version(template: TemplateFile) -> Iterator[Hit]:
    """The engine's error when it is a function missing from the version."""
    yield from _validation_hits(template, "function-version")


def _get_attrs(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[list[Any], tuple[Any, ...]]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "get_attr" and isinstance(item, list):
                yield item, (*path, key)
            yield from _get_attrs(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _get_attrs(item, (*path, index))


def declared_attributes(cls: type) -> set[str] | None:
    """The attribute names *cls* declares, or None when it answers any name itself."""
    from sdk.resource import Resource

    if not isinstance(cls, type) or not issubclass(cls, Resource):
        return None
    if cls.FnGetAtt is not Resource.FnGetAtt or cls.get_attribute is not Resource.get_attribute:
        return None
    return {*getattr(cls, "attributes_schema", {}), *getattr(cls, "BASE_ATTRIBUTES", ())}


@rule(
    "PS405",
    "unknown-attribute",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="get_attr of attribute {attr!r} of resource {resource} ({type_name}), which "
    "declares only {known}",
    summary="get_attr names an attribute the resource's type does not declare.",
    doc="""
        ``{get_attr: [server, first_address]}`` needs ``first_address`` in the
        type's ``attributes_schema`` (or ``show``, which every type has). An
        undeclared name has no value at run time. Types whose class answers
        every name itself (its own ``FnGetAtt``) and template resources are
        not checked.
    """,
    bad="""
        heat_template_version: 2018-08-31
        resources:
          a: {type: Plugsim::Test::Trivial}
        outputs:
          out: {value: {get_attr: [a, colour]}}
    """,
    good="""
        heat_template_version: 2018-08-31
        resources:
          a: {type: Plugsim::Test::Trivial}
        outputs:
          out: {value: {get_attr: [a, value]}}
    """,
)
def check_unknown_attribute(template: TemplateFile) -> Iterator[Hit]:
    """``get_attr`` of attributes the referenced resource's type does not declare."""
    if not template.is_template:
        return
    resources = template.raw.get("resources")
    if not isinstance(resources, dict):
        return
    types = known_types(template)
    for args, path in _get_attrs(template.raw, ()):
        if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
            continue
        body = resources.get(args[0])
        type_name = body.get("type") if isinstance(body, dict) else None
        if not isinstance(type_name, str) or type_name not in types:
            continue
        known = declared_attributes(types[type_name])
        if known is None or args[1] in known:
            continue
        yield template.hit(
            path,
            attr=args[1],
            resource=args[0],
            type_name=type_name,
            known=", ".join(sorted(known)),
        )


def _get_params(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[str, tuple[Any, ...]]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "get_param":
                target = item[0] if isinstance(item, list) and item else item
                if isinstance(target, str):
                    yield target, (*path, key)
            yield from _get_params(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _get_params(item, (*path, index))


@rule(
    "PS402",
    "unused-parameter",
    severity=Severity.WARNING,
    family="template",
    scope="template",
    message="parameter {param} is declared but never used",
    summary="A template parameter that nothing reads.",
    doc="""
        A parameter no ``get_param`` reads only confuses users of the template;
        remove it or use it.
    """,
    bad="""
        parameters:
          flavor: {type: string}
        resources:
          a: {type: OS::Heat::None}
    """,
    good="""
        parameters:
          flavor: {type: string}
        resources:
          a:
            type: OS::Heat::None
            properties: {value: {get_param: flavor}}
    """,
)
def check_unused_parameters(template: TemplateFile) -> Iterator[Hit]:
    """Declared parameters that no ``get_param`` reads."""
    if not template.is_template:
        return
    declared = template.raw.get("parameters") or {}
    if not isinstance(declared, dict):
        return
    used = {name for name, _ in _get_params(template.raw, ())}
    for name in declared:
        if name not in used:
            yield template.hit(("parameters", name), param=name)


@rule(
    "PS403",
    "hidden-parameter-in-output",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="output {output} exposes hidden parameter {param}",
    summary="An output shows the value of a hidden parameter.",
    doc="""
        ``hidden: true`` keeps a parameter (a password, a key) out of the stack's
        displays. An output that returns it shows it to everyone who can read the
        stack.
    """,
    bad="""
        parameters:
          password: {type: string, hidden: true}
        outputs:
          pw: {value: {get_param: password}}
    """,
    good="""
        parameters:
          password: {type: string, hidden: true}
        outputs:
          pw_set: {value: true}
    """,
)
def check_hidden_outputs(template: TemplateFile) -> Iterator[Hit]:
    """Outputs whose value reads a hidden parameter."""
    if not template.is_template:
        return
    declared = template.raw.get("parameters") or {}
    outputs = template.raw.get("outputs") or {}
    if not isinstance(declared, dict) or not isinstance(outputs, dict):
        return
    hidden = {n for n, s in declared.items() if isinstance(s, dict) and s.get("hidden") is True}
    for output, body in outputs.items():
        for name, path in _get_params(body, ("outputs", output)):
            if name in hidden:
                yield template.hit(path, output=output, param=name)
