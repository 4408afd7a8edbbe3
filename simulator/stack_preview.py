"""Previews: what a stack create or update would do, computed without touching anything.

:func:`preview_create` validates a would-be stack exactly as a create does
(template, parameters, every resource's ``validate()``) and lists the
resources it would make; :func:`preview_update` compares a stack's current
definitions with those of the new template and sorts each resource into
Heat's ``added``, ``deleted``, ``replaced``, ``updated`` and ``unchanged``
lists (a changed property that does not allow updates means a replacement,
as in Heat). Nothing is stored and no random stream moves: the stack built
here has the placeholder id ``None`` that Heat's preview shows.
"""

from __future__ import annotations

from typing import Any

from simulator.records import StackRecord
from simulator.stack import Stack
from simulator.stack_source import StackSource

PREVIEW_ID = "None"


def _entry(stack_name: str, stack_id: str, name: str, defn: Any, **state: str) -> dict[str, Any]:
    return {
        "resource_name": name,
        "resource_type": defn.resource_type,
        "resource_action": state.get("action", "INIT"),
        "resource_status": state.get("status", "COMPLETE"),
        "resource_status_reason": "",
        "resource_identity": {
            "stack_name": stack_name,
            "stack_id": stack_id,
            "tenant": "",
            "path": f"/resources/{name}",
        },
        "stack_identity": {
            "stack_name": stack_name,
            "stack_id": stack_id,
            "tenant": "",
            "path": "",
        },
        "stack_name": stack_name,
        "properties": _plain(defn.properties),
        "metadata": _plain(dict(defn.metadata)),
        "description": "",
        "required_by": [],
    }


def preview_create(
    world: Any, name: str, source: StackSource, project_id: str = "", **doc: Any
) -> dict[str, Any]:
    """Validate *source* as stack *name* would be and describe it (Heat's preview document).

    As in Heat, each resource shows its properties resolved as far as they
    are known before anything exists, the names of its attributes, and the
    stack's ``tenant`` (*project_id*); a resource implemented by a template
    appears as the list of that template's resources (its stack named
    ``<stack>-<resource>``, each entry naming its ``parent_resource``), and a
    ``ResourceGroup`` as the list of its members, each a template's list in turn
    when the members are template resources.
    """
    rec = StackRecord(
        id=PREVIEW_ID,
        name=name,
        action="INIT",
        status="COMPLETE",
        reason="",
        created=world.clock.now(),
        doc={k: v for k, v in doc.items() if v is not None},
    )
    stack = Stack(world, rec, source)
    stack.validate()
    resources = _preview_resources(world, stack, name, source, project_id, None)
    template = source.template
    return {
        "id": PREVIEW_ID,
        "stack_name": name,
        "parent": None,
        "description": template.get("description", "No description"),
        "template_description": template.get("description", "No description"),
        "parameters": {k: str(v) for k, v in stack.definition.parameters.items()},
        "timeout_mins": doc.get("timeout_mins"),
        "disable_rollback": doc.get("disable_rollback", True),
        "resources": resources,
        "stack_status": None,
        "stack_status_reason": None,
        "creation_time": None,
        "updated_time": None,
        "deletion_time": None,
        "capabilities": [],
        "notification_topics": [],
        "links": [],
    }


def _preview_resources(
    world: Any, stack: Stack, name: str, source: StackSource, project: str, parent: str | None
) -> list[Any]:
    """The preview entries of *stack*'s resources (a list of them for a template resource)."""
    from simulator.property_validation import preview_views

    defs = stack.definition.resource_definitions()
    graph = stack.dependency_graph()
    required_by: dict[str, list[str]] = {}
    for res_name in defs:
        for need in graph.requires(res_name) if res_name in graph else ():
            required_by.setdefault(need, []).append(res_name)
    lookup = world.registry.type_lookup(source)
    views = preview_views(stack.definition, lookup)
    out: list[Any] = []
    for res_name, defn in defs.items():
        found = lookup(defn.resource_type, res_name)
        props, attributes = views[res_name]
        child = _template_child(found, source) or _group_child(found, props, source)
        if child is not None:
            out.append(
                _preview_nested(world, child, f"{name}-{res_name}", props, project, res_name)
            )
            continue
        entry = _entry(name, PREVIEW_ID, res_name, defn)
        entry["required_by"] = sorted(required_by.get(res_name, []))
        entry["properties"] = _plain(props)
        entry["attributes"] = {a: None for a in attributes}
        entry["physical_resource_id"] = ""
        entry["creation_time"] = entry["updated_time"] = None
        entry["resource_identity"]["tenant"] = entry["stack_identity"]["tenant"] = project
        if parent is not None:
            entry["parent_resource"] = parent
        out.append(entry)
    return out


def _template_child(found: Any, source: StackSource) -> StackSource | None:
    """The source of the template a template resource is made from (None: not one)."""
    from simulator.nested import TemplateResource
    from simulator.stack_source import child_environment

    if not (isinstance(found, type) and issubclass(found, TemplateResource)):
        return None
    return StackSource(
        template=dict(found.template_raw),
        template_name=found.template_path,
        base_dir=source.base_dir,
        files=dict(source.files),
        environments=[child_environment(e) for e in source.environments],
        environment_names=list(source.environment_names),
        plugin_dirs=list(source.plugin_dirs),
        limits=dict(source.limits),
    )


def _group_child(found: Any, props: dict[str, Any], source: StackSource) -> StackSource | None:
    """The members of a group type (one with ``preview_template``), as a nested stack's source."""
    make = getattr(found, "preview_template", None)
    template = make(props) if callable(make) else None
    if template is None:
        return None
    return StackSource(
        template=template,
        template_name=None,
        base_dir=source.base_dir,
        files=dict(source.files),
        environments=list(source.environments),
        environment_names=list(source.environment_names),
        plugin_dirs=list(source.plugin_dirs),
        limits=dict(source.limits),
    )


def _preview_nested(
    world: Any, child: StackSource, name: str, props: dict[str, Any], project: str, parent: str
) -> list[Any]:
    schemas = child.load_template().parameters_schema()
    given = {k: v for k, v in props.items() if k in schemas and v is not None}
    nested = child.with_changes(parameters=given)
    rec = StackRecord(
        id=PREVIEW_ID,
        name=name,
        action="INIT",
        status="COMPLETE",
        reason="",
        created=world.clock.now(),
        doc={},
    )
    return _preview_resources(world, Stack(world, rec, nested), name, nested, project, parent)


def preview_update(stack: Stack, source: StackSource) -> dict[str, list[dict[str, Any]]]:
    """Sort the resources of *stack* by what updating it to *source* would do to them."""
    new_def = stack.definition_from(source)  # validates, as the update would
    old = stack.definition.resource_definitions()
    new = new_def.resource_definitions()
    out: dict[str, list[dict[str, Any]]] = {
        k: [] for k in ("added", "deleted", "replaced", "unchanged", "updated")
    }
    for name, defn in new.items():
        before = old.get(name)
        res = stack.resources.get(name)
        state = {"action": res.action, "status": res.status} if res is not None else {}
        entry = _entry(stack.name, stack.id, name, defn, **state)
        if before is None or res is None:
            out["added"].append(entry)
        elif before.resource_type != defn.resource_type:
            out["replaced"].append(entry)
        elif _plain(before.to_dict()) == _plain(defn.to_dict()):
            out["unchanged"].append(entry)
        elif _needs_replacement(res, before, defn):
            out["replaced"].append(entry)
        else:
            out["updated"].append(entry)
    for name, defn in old.items():
        if name not in new:
            res = stack.resources.get(name)
            state = {"action": res.action, "status": res.status} if res is not None else {}
            out["deleted"].append(_entry(stack.name, stack.id, name, defn, **state))
    return out


def _plain(value: Any) -> Any:
    """Template data with its functions written back as the template had them."""
    import json

    from simulator.template.functions import snippet

    return json.loads(json.dumps(snippet(value), default=str, sort_keys=True))


def _needs_replacement(res: Any, before: Any, after: Any) -> bool:
    """A changed property whose schema does not allow updates means a new resource."""
    schema = getattr(type(res), "properties_schema", {}) or {}
    old, new = _plain(before.properties), _plain(after.properties)
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            prop = schema.get(key)
            if prop is None or not getattr(prop, "update_allowed", False):
                return True
    return False
