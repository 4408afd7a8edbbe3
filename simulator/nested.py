"""Template resources: a YAML template used as a resource type is a nested stack.

:func:`template_resource_class` builds, for one template file, a
:class:`sdk.resource.Resource` subclass whose properties are the nested
template's parameters and whose attributes are its outputs. Creating the
resource creates a real nested stack in the same world (same clock, same
store, its own events); update, delete, suspend, resume, check and snapshot
act on that nested stack. ``get_resource`` on a template resource gives the
nested stack's id, as in Heat.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sdk import attributes, exception, properties
from sdk.resource import Resource
from simulator.stack_source import StackSource

if TYPE_CHECKING:
    from simulator.registry import TypeRegistry
    from simulator.stack import Stack

_PARAM_TYPES = {
    "string": properties.Schema.STRING,
    "number": properties.Schema.NUMBER,
    "boolean": properties.Schema.BOOLEAN,
    "comma_delimited_list": properties.Schema.LIST,
    "json": properties.Schema.ANY,
}

_CLASS_CACHE: dict[tuple[str, str], type] = {}


def _spec_path(spec: Any) -> str:
    return str(getattr(spec, "path", spec))


def _child_template(path: str, source: StackSource) -> tuple[dict[str, Any], str | None]:
    from simulator.template.loader import parse_text

    if path in source.files:
        text = source.files[path]
        base = str(Path(path).parent) if Path(path).is_absolute() else source.base_dir
    else:
        target = Path(path)
        if not target.is_absolute() and source.base_dir:
            target = Path(source.base_dir) / target
        try:
            text = target.read_text(encoding="utf-8")
        except OSError as ex:
            raise exception.StackValidationFailed(
                f"Could not fetch the template resource {path}: {ex.strerror or ex}"
            ) from None
        base = str(target.resolve().parent)
    raw = parse_text(text, path, "template")
    if not isinstance(raw, dict):
        raise exception.StackValidationFailed(
            "The template resource's template must be a map of sections", source=path
        )
    return raw, base


def template_resource_class(spec: Any, source: StackSource, registry: TypeRegistry) -> type:
    """Return the Resource class implementing template resource *spec*."""
    from simulator.template.loader import load_template

    path = _spec_path(spec)
    raw, base = _child_template(path, source)
    key = (path, StackSource(template=raw).digest)
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
            "template_raw": raw,
            "type_name": type_name,
        },
    )
    _CLASS_CACHE[key] = cls
    return cls


def child_environment(env: dict[str, Any]) -> dict[str, Any]:
    """The part of a parent's environment a nested stack inherits: all but ``parameters``.

    As in Heat, ``parameters`` are the top-level stack's own (a nested template
    need not declare them); ``parameter_defaults`` and the registry are inherited.
    """
    return {k: v for k, v in env.items() if k != "parameters"} if isinstance(env, dict) else env


class NestedStackResource(Resource):
    """Base of resources that own one nested stack built from a template dict.

    A subclass builds the nested template (and its parameters) and calls
    :meth:`create_nested` from ``handle_create`` and :meth:`update_nested`
    from ``handle_update``; delete, suspend, resume, check and snapshot act on
    the nested stack through the engine, so its resources have their own
    events in the same world. The nested stack's id is the ``resource_id``
    and what ``get_resource`` gives.
    """

    #: directory relative ``get_file`` / template paths of the nested stack resolve from
    nested_base: str | None = None
    #: the name the nested template is known by in errors and ``stack show``
    nested_template_name: str | None = None

    def _stack(self) -> Stack:
        return self.context.engine_stack

    def nested_source(
        self, template: dict[str, Any], parameters: dict[str, Any] | None = None
    ) -> StackSource:
        """Return the source of a nested stack: *template* with the parent's files and env."""
        parent = self._stack().source
        return StackSource(
            template=template,
            template_name=self.nested_template_name or f"{self.name} (nested)",
            base_dir=self.nested_base if self.nested_base is not None else parent.base_dir,
            files=dict(parent.files),
            environments=[child_environment(e) for e in parent.environments],
            environment_names=list(parent.environment_names),
            parameters=dict(parameters or {}),
            plugin_dirs=list(parent.plugin_dirs),
        )

    def nested(self) -> Stack | None:
        """Return the nested stack (None before it exists)."""
        if self.resource_id is None:
            return None
        world = self._stack().world
        try:
            return world.get_stack(str(self.resource_id))
        except exception.EntityNotFound:
            return None

    @staticmethod
    def _check(child: Stack, ok: bool) -> None:
        if not ok:
            raise exception.PlugsimError(f"Nested stack {child.name}: {child.status_reason}")

    async def create_nested(
        self, template: dict[str, Any], parameters: dict[str, Any] | None = None
    ) -> Stack:
        """Create the nested stack from *template*; raise when it does not complete."""
        from simulator import stack_actions

        parent = self._stack()
        child = parent.world.new_stack(
            f"{parent.name}-{self.name}",
            self.nested_source(template, parameters),
            parent=parent,
            parent_resource=self,
        )
        self.resource_id_set(child.id)
        stack_actions.instantiate(child)
        self._check(child, await stack_actions.create(child))
        return child

    async def update_nested(
        self, template: dict[str, Any], parameters: dict[str, Any] | None = None
    ) -> Stack:
        """Update the nested stack to *template*; no nested stack yet means replacement."""
        from simulator import stack_update

        child = self.nested()
        if child is None:
            raise exception.UpdateReplace(self.name)
        new_source = dataclasses.replace(
            child.source.with_changes(parameters=dict(parameters or {})), template=template
        )
        self._check(child, await stack_update.update(child, new_source))
        return child

    async def handle_delete(self) -> None:
        """Delete the nested stack (nothing to do when it was never created)."""
        from simulator import stack_actions

        child = self.nested()
        if child is None:
            return
        self._check(child, await stack_actions.delete(child))

    async def _child_action(self, name: str) -> None:
        from simulator import stack_actions

        child = self.nested()
        if child is not None:
            self._check(child, await getattr(stack_actions, name)(child))

    async def handle_suspend(self) -> None:
        """Suspend the nested stack."""
        await self._child_action("suspend")

    async def handle_resume(self) -> None:
        """Resume the nested stack."""
        await self._child_action("resume")

    async def handle_check(self) -> None:
        """Check the nested stack."""
        await self._child_action("check")

    async def handle_snapshot(self) -> None:
        """Snapshot every resource of the nested stack into this resource's data."""
        child = self.nested()
        if child is None:
            return
        entries: dict[str, Any] = {}

        async def job(res: Any) -> None:
            entries[res.name] = {
                "resource_id": res.resource_id,
                "resource_data": dict(await res.snapshot() or {}),
            }

        from simulator import stack_actions

        ok = await stack_actions.stack_task(
            child, "SNAPSHOT", job, resources=list(child.resources.values())
        )
        self._check(child, ok)
        self.data_set("nested_snapshot", {k: entries[k] for k in sorted(entries)})

    async def handle_delete_snapshot(self, snapshot: Any) -> None:
        """Delete what the nested resources made for a stack snapshot (their images, backups)."""
        data = (snapshot or {}).get("resource_data", snapshot) or {}
        entries = data.get("nested_snapshot") if isinstance(data, dict) else None
        child = self.nested()
        if child is None or not isinstance(entries, dict):
            return
        for name in sorted(entries):
            res = child.resources.get(name)
            if res is not None:
                await res.delete_snapshot(entries[name])

    def get_reference_id(self) -> str:
        """``get_resource`` gives the nested stack's id."""
        return str(self.resource_id) if self.resource_id is not None else self.name


class TemplateResource(NestedStackResource):
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

    def _child_source(self) -> StackSource:
        return self.nested_source(self.template_raw, self._params())

    def nested_source(
        self, template: dict[str, Any], parameters: dict[str, Any] | None = None
    ) -> StackSource:
        """The template resource's file, with the parent's files and environments."""
        parent = self._stack().source
        return StackSource(
            template=template,
            template_name=self.template_path,
            base_dir=self.template_base,
            files=dict(parent.files),
            environments=[child_environment(e) for e in parent.environments],
            environment_names=list(parent.environment_names),
            parameters=dict(parameters or {}),
            plugin_dirs=list(parent.plugin_dirs),
        )

    async def handle_create(self) -> None:
        """Create the nested stack from the template file."""
        await self.create_nested(self.template_raw, self._params())

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update the nested stack's parameters in place."""
        from simulator import stack_update

        child = self.nested()
        if child is None:
            raise exception.UpdateReplace(self.name)
        params = dict(child.source.parameters)
        params.update({k: v for k, v in (prop_diff or {}).items() if v is not None})
        for key, value in (prop_diff or {}).items():
            if value is None:
                params.pop(key, None)
        new_source = child.source.with_changes(parameters=params)
        self._check(child, await stack_update.update(child, new_source))

    def _resolve_attribute(self, name: str) -> Any:
        child = self.nested()
        if child is None:
            return None
        if name == "OS::stack_id":
            return child.id
        return child.output(name)
