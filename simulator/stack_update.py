"""Stack update, its rollback, and restore from a snapshot.

An update walks the *new* template's dependency graph. For each resource:

* not in the old stack: created;
* in both: ``Resource.update(after, before)`` — in place when every changed
  property is ``update_allowed``; when the plug-in (or the SDK) raises
  :class:`sdk.exception.UpdateReplace` the engine creates a new resource
  first and keeps the old one for cleanup;
* a changed ``immutable`` property makes the resource (and so the update) fail.

Resources no longer in the template and replaced resources are deleted after
every other change succeeded (cleanup), dependants first — so a replacement
always creates the new physical resource before the old one is deleted.

On failure (or timeout, or a user ``stack cancel``) with rollback enabled the
stack is updated back to the previous template (action ``ROLLBACK``): a
replaced resource whose old version still exists is swapped back instead of
being rebuilt, resources the failed update created are deleted.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sdk import exception
from sdk.rsrc_defn import ResourceDefinition
from simulator import hooks
from simulator.lifecycle import guard, post_cancel
from simulator.scheduler import GraphFailed, fewer_full_collections, run_graph
from simulator.stack import COMPLETE, FAILED, IN_PROGRESS, Stack, UserCancelled
from simulator.stack_actions import describe_failure, outcome
from simulator.stack_source import StackSource

_SUCCESS = {
    "UPDATE": "Stack successfully updated",
    "ROLLBACK": "Stack rollback completed",
    "RESTORE": "Stack successfully restored",
}


async def _update_one(
    stack: Stack, name: str, after: ResourceDefinition, source: StackSource, rollback: bool
) -> None:
    existing = stack.resources.get(name)
    if rollback and existing is not None and stack.source_digest(existing) != source.digest:
        old = next(
            (
                r
                for r in reversed(stack.replaced)
                if r.name == name and stack.source_digest(r) == source.digest
            ),
            None,
        )
        if old is not None and old.status != FAILED and old.action != "DELETE":
            # swap the previous physical resource back in; the newer one is cleaned up
            stack.replaced.remove(old)
            stack.replaced.append(existing)
            stack.resources[name] = old
            stack.persist_resource(existing)
            stack.persist_resource(old)
            return
    if existing is None:
        res = stack.make_resource(after, source)
        stack.resources[name] = res
        stack.persist_resource(res)
        await res.create()
        return
    if existing.type() == after.resource_type and existing.action != "INIT":
        digest = stack.source_digest(existing)
        if not rollback:  # as in Heat, before it knows whether anything changes
            await hooks.breakpoint(stack, existing, "pre-update")
        stack.expect_update(existing, after, source.digest)
        try:
            await existing.update(after, stack.before_definition(existing))
        except exception.UpdateReplace:
            # the plug-in may have recorded UPDATE_COMPLETE before asking for a
            # replacement: the old resource still conforms to its old template
            stack.finish_update(existing, digest)
        else:
            stack.finish_update(existing, source.digest)
            return
    elif existing.action == "INIT":
        # never created (e.g. the create failed before reaching it): just create it now
        stack.forget_resource(existing)
        del stack.resources[name]
        res = stack.make_resource(after, source)
        stack.resources[name] = res
        stack.persist_resource(res)
        await res.create()
        return
    replacement = stack.make_resource(after, source)
    stack.resources[name] = replacement
    stack.replaced.append(existing)
    stack.persist_resource(existing)
    stack.persist_resource(replacement)
    await replacement.create()


async def _cleanup(stack: Stack) -> None:
    """Delete removed and replaced resources, dependants first."""
    doomed = list(stack.replaced)
    if not doomed:
        return
    rid_by_name: dict[str, list[int]] = {}
    for res in doomed:
        rid_by_name.setdefault(res.name, []).append(stack.rid(res))
    requires: dict[int, list[int]] = {}
    for res in doomed:
        needs: list[int] = []
        for dep in stack.previous_requires(res.name):
            needs.extend(rid_by_name.get(dep, []))
        requires[stack.rid(res)] = needs
    by_rid = {stack.rid(r): r for r in doomed}

    async def job(rid: int) -> None:
        res = by_rid[rid]
        await res.delete()
        stack.replaced.remove(res)
        stack.forget_resource(res)

    await run_graph([stack.rid(r) for r in doomed], requires, job, reverse=True)


async def update(
    stack: Stack,
    new_source: StackSource,
    *,
    action: str = "UPDATE",
    overrides: dict[str, ResourceDefinition] | None = None,
    disable_rollback: bool | None = None,
    timeout_mins: float | None = None,
) -> bool:
    """Update *stack* to *new_source*; roll back on failure when rollback is enabled.

    Returns True when the update (or restore) completed.
    """
    with fewer_full_collections():
        return await _update(stack, new_source, action, overrides, disable_rollback, timeout_mins)


async def _update(
    stack: Stack,
    new_source: StackSource,
    action: str,
    overrides: dict[str, ResourceDefinition] | None,
    disable_rollback: bool | None,
    timeout_mins: float | None,
) -> bool:
    rollback = action == "ROLLBACK"
    new_def = stack.definition_from(new_source)
    ended: list[tuple[str, str]] = []

    async def body() -> None:
        ended.append(
            await _apply(
                stack,
                new_source,
                new_def,
                action,
                overrides=overrides,
                disable_rollback=disable_rollback,
                timeout_mins=timeout_mins,
            )
        )

    ok = await guard(stack, action, body, current=(new_source, new_def))
    cancelled = bool(ended) and ended[0][1] == str(UserCancelled())
    post_cancel(stack, stack.take_cancel_plugins(), cancelled)
    if (
        ended
        and ended[0][0] == FAILED
        and not rollback
        and action == "UPDATE"
        and (not stack.disable_rollback or cancelled)
        and not (cancelled and not stack.cancel_rolls_back)
    ):
        await update(stack, stack.previous_source(), action="ROLLBACK")
    return bool(ok)


async def _apply(
    stack: Stack,
    new_source: StackSource,
    new_def: Any,
    action: str,
    *,
    overrides: dict[str, ResourceDefinition] | None,
    disable_rollback: bool | None,
    timeout_mins: float | None,
) -> tuple[str, str]:
    """Move the stack to *new_source*'s definition; return the final (status, reason)."""
    rollback = action == "ROLLBACK"
    stack.state_set(action, IN_PROGRESS, f"Stack {action} started")
    if not rollback:
        stack.remember_previous()
        if disable_rollback is not None:
            stack.record.doc["disable_rollback"] = disable_rollback
        if timeout_mins is not None:
            stack.record.doc["timeout_mins"] = timeout_mins
    stack.switch_source(new_source, new_def)
    stack.save()
    defns = dict(new_def.resource_definitions())
    defns.update(overrides or {})
    for name in list(stack.resources):
        if name not in defns:
            stack.replaced.append(stack.resources.pop(name))
            stack.persist_resource(stack.replaced[-1])
    graph = stack.dependency_graph(new_def)
    names = list(defns)
    requires = {
        n: [r for r in graph.requires(n) if r in defns] if n in graph else [] for n in names
    }

    async def job(name: str) -> None:
        await _update_one(stack, name, defns[name], new_source, rollback)

    async def body() -> None:
        await run_graph(names, requires, job)
        try:
            await _cleanup(stack)
        except GraphFailed as ex:
            raise _CleanupFailed(ex) from ex

    status, reason = await _outcome(stack, action, body)
    if status == COMPLETE:
        reason = _SUCCESS.get(action, reason)
    stack.state_set(action, status, reason)
    stack.save()
    return status, reason


class _CleanupFailed(Exception):
    def __init__(self, failed: GraphFailed) -> None:
        super().__init__(str(failed))
        self.failed = failed


async def _outcome(stack: Stack, action: str, body: Any) -> tuple[str, str]:
    try:
        return await outcome(stack, action, body)
    except _CleanupFailed as ex:
        node, exc = ex.failed.failures[0]
        res = stack.resource_by_rid(node) if isinstance(node, int) else None
        if res is not None and not isinstance(exc, exception.ResourceFailure):
            exc = exception.ResourceFailure(exc, res, "DELETE")
        return FAILED, f"Resource DELETE failed: {describe_failure(exc)}"
    except asyncio.CancelledError:  # pragma: no cover - outcome() handles it
        raise


async def restore(stack: Stack, snapshot_doc: dict[str, Any]) -> bool:
    """Update the stack back to a snapshot's template, letting each resource adapt it.

    Every resource's ``handle_restore(defn, restore_data)`` may return a new
    definition (e.g. a server booting from its snapshot image). As in Heat,
    *restore_data* is the resource's whole snapshot entry (``name``, ``type``,
    ``resource_id``), what its snapshot stored being its ``resource_data``.
    """
    source = StackSource.from_doc(snapshot_doc["source"])
    definition = stack.definition_from(source)
    overrides: dict[str, ResourceDefinition] = {}
    entries = snapshot_doc.get("resources", {})
    for name, defn in definition.resource_definitions().items():
        res = stack.resources.get(name)
        entry = entries.get(name)
        if res is None or entry is None:
            continue
        handler = getattr(res, "handle_restore", None)
        if callable(handler):
            new_defn = handler(defn, {"resource_data": {}, **entry})
            if isinstance(new_defn, ResourceDefinition):
                overrides[name] = new_defn
    return await update(stack, source, action="RESTORE", overrides=overrides)
