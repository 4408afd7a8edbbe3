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


def validate(template: TemplateFile) -> exception.StackValidationFailed | None:
    """Load and validate the template with the engine; the first error, if any."""
    from simulator.registry import builtin_mapping
    from simulator.template import StackDefinition, load_template

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


@rule(
    "PS401",
    "template-invalid",
    severity=Severity.ERROR,
    family="template",
    scope="template",
    message="{error}",
    summary="The engine rejects the template.",
    doc="""
        The template is loaded and validated by the engine's own template layer,
        with the resource types of plugsim and of the plug-ins being linted. This
        reports an unknown resource type, a ``get_attr`` of an attribute the type
        does not have, a reference to a missing resource, a dependency cycle, a
        function that the template's ``heat_template_version`` does not have, and
        malformed sections. Validation stops at the first error.
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
def check_template(template: TemplateFile) -> Iterator[Hit]:
    """The first error the engine finds in the template."""
    if not template.is_template:
        return
    error = validate(template)
    if error is not None:
        message = str(error)
        prefix = f"{template.display}: "
        yield template.hit(error.path, error=message.removeprefix(prefix))


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
