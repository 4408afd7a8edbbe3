"""What a lifecycle plug-in sees of a stack, and how a change to it is found.

:class:`LifecycleStack` is a snapshot made of plain data (strings, numbers,
lists, dicts) built from the engine's stack for one plug-in call. It has no
reference to the engine, so whatever a plug-in does to it cannot change the
stack; strict mode compares :meth:`LifecycleStack.fingerprint` before and
after the call and :func:`changed_field` names the first changed path
(``resources.web.properties.flavor``). ``status`` and ``status_reason`` may
be written (a plug-in's own error bookkeeping) and are never compared.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulator.stack import Stack

#: Fields of the view a plug-in may change without it counting as a modification.
ALLOWED_CHANGES = frozenset({"status", "status_reason"})


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, sort_keys=True))


class ResourceInfo:
    """One resource as a plug-in sees it.

    :ivar name: the resource name in the template.
    :ivar type: the resource type (``OS::Nova::Server`` ...).
    :ivar properties: property values, resolved where they can be resolved
        now; a value that depends on a resource not created yet is its
        template snippet (``{'get_resource': 'server'}``).
    :ivar metadata: the resource's template metadata.
    :ivar depends_on: the resources it requires (explicit and through functions), sorted.
    :ivar action: the resource's current action (``INIT`` before it exists).
    :ivar status: the resource's current status.
    :ivar physical_id: its physical resource id, or None.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.name: str = data["name"]
        self.type: str = data["type"]
        self.properties: dict[str, Any] = data["properties"]
        self.metadata: dict[str, Any] = data["metadata"]
        self.depends_on: list[str] = data["depends_on"]
        self.action: str = data["action"]
        self.status: str = data["status"]
        self.physical_id: str | None = data["physical_id"]

    def __repr__(self) -> str:
        return f"<ResourceInfo {self.name} {self.type}>"


class LifecycleStack:
    """A stack as lifecycle plug-ins see it: plain data, detached from the engine.

    :ivar name: the stack name.
    :ivar id: the stack id.
    :ivar action: the stack's action when the view was made.
    :ivar status: its status (may be written by a plug-in).
    :ivar status_reason: its status reason (may be written by a plug-in).
    :ivar parameters: the resolved parameter values.
    :ivar resources: :class:`ResourceInfo` by resource name, template order.
    :ivar template: the template as a plain map.
    :ivar tags: the stack's tags (``stack create --tag``).
    :ivar timeout_mins: the stack timeout, or None.
    :ivar disable_rollback: whether a failed create/update stays failed.
    :ivar parent_id: the parent stack's id for a nested stack, else None.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        data = copy.deepcopy(dict(data))
        resources = data.pop("resources")
        for key, value in data.items():
            setattr(self, key, value)
        self.resources: dict[str, ResourceInfo] = {
            name: ResourceInfo(body) for name, body in resources.items()
        }

    def resources_of_type(self, *types: str) -> list[ResourceInfo]:
        """The resources whose type is one of *types*, in template order."""
        return [r for r in self.resources.values() if r.type in types]

    def fingerprint(self) -> dict[str, str]:
        """Every compared leaf of the view as ``{dotted.path: canonical JSON}``."""
        out: dict[str, str] = {}
        for key, value in sorted(vars(self).items()):
            if key in ALLOWED_CHANGES:
                continue
            if key == "resources" and isinstance(value, dict):
                out["resources"] = _canon(sorted(value))
                for name, res in value.items():
                    base = f"resources.{name}"
                    if not isinstance(res, ResourceInfo):
                        out[base] = _canon(res)
                        continue
                    for field, inner in sorted(vars(res).items()):
                        _flatten(f"{base}.{field}", inner, out)
                continue
            _flatten(key, value, out)
        return out

    def __repr__(self) -> str:
        return f"<LifecycleStack {self.name} {self.action}_{self.status}>"


def _canon(value: Any) -> str:
    return json.dumps(value, default=repr, sort_keys=True, separators=(",", ":"))


def _flatten(path: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, dict) and value:
        out[path] = _canon(sorted(map(str, value)))
        for key in sorted(value, key=str):
            _flatten(f"{path}.{key}", value[key], out)
    elif isinstance(value, list) and value:
        out[path] = f"list:{len(value)}"
        for i, item in enumerate(value):
            _flatten(f"{path}[{i}]", item, out)
    else:
        out[path] = _canon(value)


def changed_field(before: dict[str, str], after: dict[str, str]) -> str | None:
    """Return the first (sorted) path whose value differs, was added or removed."""
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            return path
    return None


class _NoAttributes:
    """The stack's resolver view without ``get_attr``: reading attributes may call the cloud."""

    def __init__(self, view: Any) -> None:
        self._view = view

    def reference_id(self, name: str) -> Any:
        return self._view.reference_id(name)

    def attribute(self, name: str, attr: Any, path: Any = ()) -> Any:
        raise LookupError("attributes are not resolved for lifecycle plug-ins")

    def resource_facade(self, kind: str) -> Any:
        return self._view.resource_facade(kind)


def _resources(stack: Stack, definition: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    from simulator.template.functions import snippet

    defns = definition.resource_definitions()
    graph = stack.dependency_graph(definition)
    resolve = definition.resolver(_NoAttributes(stack.view))
    for name, defn in defns.items():
        props: dict[str, Any] = {}
        for key, value in defn.properties.items():
            try:
                props[key] = resolve(value)
            except Exception:  # not resolvable yet (a resource not created): the snippet
                props[key] = snippet(value)
        res = stack.resources.get(name)
        yield (
            name,
            {
                "name": name,
                "type": defn.resource_type,
                "properties": _plain(props),
                "metadata": _plain(defn.metadata),
                "depends_on": sorted(graph.requires(name)) if name in graph else [],
                "action": res.action if res is not None else "INIT",
                "status": res.status if res is not None else "COMPLETE",
                "physical_id": None
                if res is None or res.resource_id is None
                else str(res.resource_id),
            },
        )


def stack_data(stack: Stack, definition: Any = None) -> dict[str, Any]:
    """Build the plain data of a :class:`LifecycleStack` (of *definition*, default the stack's).

    *definition* may also be a ``(source, definition)`` pair, as update passes it.
    """
    source = stack.source
    if isinstance(definition, tuple):
        source, definition = definition
    if definition is None:
        definition = stack.definition
    return {
        "name": stack.name,
        "id": stack.id,
        "action": stack.action,
        "status": stack.status,
        "status_reason": stack.status_reason,
        "parameters": _plain(dict(definition.parameters)),
        "resources": dict(_resources(stack, definition)),
        "template": _plain(source.template),
        "tags": list(stack.record.doc.get("tags") or []),
        "timeout_mins": stack.timeout_mins,
        "disable_rollback": stack.disable_rollback,
        "parent_id": stack.parent_id,
    }
