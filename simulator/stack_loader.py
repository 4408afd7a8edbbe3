"""Rebuilding a stack from the store (a new CLI invocation continues the same world).

The stack row keeps the source the stack was made from (template, files,
environments, parameters, plug-in directories) and the previous source of an
update; every resource row keeps its state, physical id, data and the digest
of the source its definition came from. Loading instantiates each plug-in
class again and puts that state back.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.rsrc_defn import ResourceDefinition
from simulator.stack import Stack, StackHost
from simulator.stack_source import StackSource
from simulator.store import ResourceRecord, StackRecord


def restore_resource_state(res: Any, row: ResourceRecord) -> None:
    """Put a stored row's state back into a freshly built resource object."""
    data = row.doc.get("data")
    res.restore_state(
        row.action,
        row.status,
        row.reason,
        row.physical_id,
        data if isinstance(data, dict) else {},
    )


def load_stack(world: StackHost, rec: StackRecord) -> Stack:
    """Build the :class:`Stack` of a stored row, its resources in their stored states."""
    source = StackSource.from_doc(rec.doc["source"])
    parent_resource = None
    if rec.parent_id is not None:
        parent_resource = _parent_resource(world, rec)
    stack = Stack(world, rec, source, parent_resource=parent_resource)
    sources = {source.digest: (source, stack.definition)}
    previous_doc = rec.doc.get("previous")
    if previous_doc:
        prev = StackSource.from_doc(previous_doc)
        if prev.digest not in sources:
            try:
                sources[prev.digest] = (prev, stack.build(prev))
            except exception.PlugsimError:
                pass
    defn_cache: dict[str, dict[str, ResourceDefinition]] = {}
    for row in world.store.resources(rec.id):
        digest = row.doc.get("tmpl") or source.digest
        src, definition = sources.get(digest, (source, stack.definition))
        if digest not in defn_cache:
            defn_cache[digest] = dict(definition.resource_definitions())
        defn = defn_cache[digest].get(row.name)
        if defn is None or defn.resource_type != row.type:
            defn = ResourceDefinition(row.name, row.type)
        res = stack.make_resource(defn, src)
        stack.adopt_rid(res, row.rid, digest)
        try:
            restore_resource_state(res, row)
        except ValueError as ex:
            raise exception.ConfigurationError(
                f"{world.store.path}: resource {row.name} of stack {rec.name} has a stored "
                f"state that cannot be restored ({ex})"
            ) from None
        stack.set_applied(res, row.doc.get("props"))
        if row.current:
            stack.resources[row.name] = res
        else:
            stack.replaced.append(res)
    order = {name: i for i, name in enumerate(stack.definition.resource_definitions())}
    stack.resources = dict(
        sorted(stack.resources.items(), key=lambda kv: order.get(kv[0], len(order)))
    )
    return stack


def _parent_resource(world: StackHost, rec: StackRecord) -> Any:
    parent_rec = world.store.get_stack(rec.parent_id or "")
    if parent_rec is None:
        return None
    parent = world.get_stack(parent_rec.id, deleted_ok=True)
    for res in parent.all_resources():
        if res.resource_id == rec.id:
            return res
    return None
