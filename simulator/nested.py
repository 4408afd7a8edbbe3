"""Template resources: a YAML template used as a resource type is a nested stack.

:func:`template_resource_class` builds, for one template file, a
:class:`sdk.resource.Resource` subclass whose properties are the nested
template's parameters and whose attributes are its outputs. Creating the
resource creates a real nested stack in the same world (same clock, same
store, its own events) through the context's ``nested_stacks()`` facet, like
any :class:`sdk.stack_resource.StackResource`; update, delete, suspend,
resume, check and snapshot act on that nested stack. ``get_resource`` on a
template resource gives the nested stack's id, as in Heat.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sdk import attributes, exception, properties
from sdk.stack_resource import StackResource
from simulator.stack_source import StackSource

_PARAM_TYPES = {
    "string": properties.Schema.STRING,
    "number": properties.Schema.NUMBER,
    "boolean": properties.Schema.BOOLEAN,
    "comma_delimited_list": properties.Schema.LIST,
    "json": properties.Schema.ANY,
}

_CLASS_CACHE: dict[tuple[str, str], type] = {}
#: (path, its text, limits) -> the digest of the template parsed from that text
_TEXT_DIGESTS: dict[tuple[Any, ...], str] = {}


def _spec_path(spec: Any) -> str:
    return str(getattr(spec, "path", spec))


def _child_text(path: str, source: StackSource) -> tuple[str, str | None]:
    """The text of template resource *path* (the source's files first) and its directory."""
    from simulator.template.files import read_text

    if path in source.files:
        text = source.files[path]
        base = str(Path(path).parent) if Path(path).is_absolute() else source.base_dir
    else:
        target = Path(path)
        if not target.is_absolute() and source.base_dir:
            target = Path(source.base_dir) / target
        limits = source.limit_values()
        text = read_text(target, f"The template resource {path}", limits=limits, source=None)
        base = str(target.resolve().parent)
    return text, base


def _child_template(path: str, source: StackSource) -> tuple[dict[str, Any], str | None]:
    from simulator.template.text import parse_text

    text, base = _child_text(path, source)
    raw = parse_text(text, path, "template", limits=source.limit_values())
    if not isinstance(raw, dict):
        raise exception.StackValidationFailed(
            "The template resource's template must be a map of sections", source=path
        )
    return raw, base


def template_resource_class(spec: Any, source: StackSource) -> type:
    """Return the Resource class implementing template resource *spec*.

    The class of one template (its file is read again every time, so an edit is seen) is made
    once per process; a text met before is not parsed again.
    """
    from simulator.template.loader import load_template

    path = _spec_path(spec)
    text, _ = _child_text(path, source)
    text_key = (path, text, source.limit_values())
    digest = _TEXT_DIGESTS.get(text_key)
    if digest is not None and (path, digest) in _CLASS_CACHE:
        return _CLASS_CACHE[(path, digest)]
    raw, base = _child_template(path, source)
    key = (path, StackSource(template=raw).digest)
    _TEXT_DIGESTS[text_key] = key[1]
    cached = _CLASS_CACHE.get(key)
    if cached is not None:
        return cached
    tmpl = load_template(raw, source=path)
    props: dict[str, Any] = {}
    for pname, pschema in tmpl.parameters_schema().items():
        ptype = getattr(pschema, "type", "string")
        default = getattr(pschema, "default", None)
        props[pname] = properties.Schema(
            _PARAM_TYPES.get(str(ptype), properties.Schema.ANY),
            getattr(pschema, "description", None) or f"Parameter {pname} of {path}",
            required=default is None,
            update_allowed=True,
        )
    attrs = {
        name: attributes.Schema((body or {}).get("description") or f"Output {name}")
        for name, body in (tmpl.outputs or {}).items()
    }
    attrs.setdefault("OS::stack_id", attributes.Schema("The nested stack's id."))
    type_name = str(getattr(spec, "type_name", path))
    cls = type(
        f"TemplateResource[{Path(path).name}]",
        (TemplateResource,),
        {
            "properties_schema": props,
            "attributes_schema": attrs,
            "template_path": path,
            "template_base": base,
            "nested_template_name": path,
            "nested_base": base,
            "template_raw": raw,
            "type_name": type_name,
        },
    )
    _CLASS_CACHE[key] = cls
    return cls


class TemplateResource(StackResource):
    """Base of the classes :func:`template_resource_class` builds."""

    template_path: str = ""
    template_base: str | None = None
    template_raw: dict[str, Any] = {}
    type_name: str = ""

    def _params(self) -> dict[str, Any]:
        params = {}
        for key in self.properties_schema:
            if key in self.properties.data:
                params[key] = self.properties[key]
        return params

    async def handle_create(self) -> None:
        """Create the nested stack from the template file."""
        await self.create_nested(self.template_raw, self._params())

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update the nested stack's parameters in place."""
        child = self.nested()
        if child is None:
            raise exception.UpdateReplace(self.name)
        params = dict(child.parameters)
        params.update({k: v for k, v in (prop_diff or {}).items() if v is not None})
        for key, value in (prop_diff or {}).items():
            if value is None:
                params.pop(key, None)
        await self.update_nested(None, params)

    def _resolve_attribute(self, name: str) -> Any:
        child = self.nested()
        if child is None:
            return None
        if name == "OS::stack_id":
            return child.id
        return child.output(name)
