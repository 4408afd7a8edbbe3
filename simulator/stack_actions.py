"""Stack actions that walk the dependency graph once: create, delete, suspend,
resume, check, adopt and abandon.

Every action follows the same shape (:func:`stack_task`): the stack goes
``<ACTION>_IN_PROGRESS`` ("Stack CREATE started"), each resource runs its
action as its own task as soon as the resources it depends on are done (in
reverse order for delete and suspend), and the stack ends
``<ACTION>_COMPLETE`` ("Stack CREATE completed successfully") or
``<ACTION>_FAILED`` with the first failure as reason ("Resource CREATE
failed: ValueError: resources.web: ...") or "Create timed out". Status
reasons follow Heat's wording.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sdk import exception
from simulator import hooks
from simulator.lifecycle import guard, guard_sync
from simulator.scheduler import GraphFailed, fewer_full_collections, run_graph
from simulator.stack import COMPLETE, FAILED, IN_PROGRESS, Stack, StackTimeout, UserCancelled

if TYPE_CHECKING:
    from sdk.resource import Resource


def describe_failure(exc: BaseException) -> str:
    """Render a resource failure the way Heat does: ``Error: resources.name: message``."""
    name = None
    inner = exc
    while isinstance(inner, exception.ResourceFailure):
        res = inner.resource
        name = name or (getattr(res, "name", None) or (res if isinstance(res, str) else None))
        if inner.exc is None:
            return f"resources.{name}: {inner}" if name else str(inner)
        inner = inner.exc
    if isinstance(inner, asyncio.CancelledError):
        return f"resources.{name}: cancelled" if name else "cancelled"
    text = str(inner)
    if name and text.startswith(f"{name}."):
        text = text.split(": ", 1)[-1]
    where = f"resources.{name}: " if name else ""
    return f"{type(inner).__name__}: {where}{text}"


def _named(node: Any, stack: Stack, exc: BaseException) -> BaseException:
    if isinstance(exc, exception.ResourceFailure) and exc.resource is not None:
        return exc
    res = stack.resource_by_rid(node) if isinstance(node, int) else None
    name = res.name if res is not None else node
    return exception.ResourceFailure(exc, name, None) if name is not None else exc


def graph_of(stack: Stack, resources: list[Resource]) -> tuple[list[int], dict[int, list[int]]]:
    """Return (row ids in template order, requirements by row id) for *resources*."""
    requires_by_name = stack.requires()
    current = stack.resources
    nodes = [stack.rid(r) for r in resources]
    rid_of_name: dict[str, int] = {}
    for res, rid in zip(resources, nodes, strict=True):
        if current.get(res.name) is res:
            rid_of_name[res.name] = rid
    requires: dict[int, list[int]] = {}
    for res, rid in zip(resources, nodes, strict=True):
        names = requires_by_name.get(res.name)
        requires[rid] = [rid_of_name[n] for n in names if n in rid_of_name] if names else []
    return nodes, requires


async def stack_task(
    stack: Stack,
    action: str,
    job: Callable[[Resource], Awaitable[Any]],
    *,
    resources: list[Resource] | None = None,
    reverse: bool = False,
    success: str | None = None,
) -> bool:
    """Run *job* on every resource in dependency order as the stack's *action*.

    Returns True when the stack ended ``<ACTION>_COMPLETE``.
    """
    with fewer_full_collections():
        return await _stack_task(stack, action, job, resources, reverse, success)


async def _stack_task(
    stack: Stack,
    action: str,
    job: Callable[[Resource], Awaitable[Any]],
    resources: list[Resource] | None,
    reverse: bool,
    success: str | None,
) -> bool:
    stack.state_set(action, IN_PROGRESS, f"Stack {action} started")
    members = stack.all_resources() if resources is None else resources
    nodes, requires = graph_of(stack, members)
    by_rid = {stack.rid(r): r for r in members}

    def run_one(rid: int) -> Awaitable[Any]:
        return job(by_rid[rid])  # the job's own coroutine becomes the node's task

    async def body() -> None:
        await run_graph(nodes, requires, run_one, reverse=reverse)

    status, reason = await outcome(stack, action, body)
    if status == COMPLETE and success is not None:
        reason = success
    stack.state_set(action, status, reason)
    return status == COMPLETE


async def outcome(
    stack: Stack, action: str, body: Callable[[], Awaitable[None]]
) -> tuple[str, str]:
    """Run *body* under the stack's timeout; map its end to (status, reason)."""
    try:
        await stack.run_action(action, body)
    except StackTimeout as ex:
        return FAILED, str(ex)
    except UserCancelled as ex:
        return FAILED, str(ex)
    except asyncio.CancelledError:
        # cancelled from outside (e.g. the parent of a nested stack timed out)
        stack.state_set(action, FAILED, f"{action.title()} cancelled")
        raise
    except GraphFailed as ex:
        node, exc = ex.failures[0]
        return FAILED, f"Resource {action} failed: {describe_failure(_named(node, stack, exc))}"
    except exception.PlugsimError as ex:
        return FAILED, f"Resource {action} failed: {ex}"
    return COMPLETE, f"Stack {action} completed successfully"


# -- create / rollback --------------------------------------------------------


def instantiate(stack: Stack) -> None:
    """Create the INIT resources of a new stack from its definition and persist them."""
    with fewer_full_collections(), stack.world.store.transaction():
        for name, defn in stack.definition.resource_definitions().items():
            res = stack.make_resource(defn)
            stack.resources[name] = res
            stack.persist_resource(res)


async def create(stack: Stack) -> bool:
    """Create every resource; roll back (delete) on failure unless rollback is disabled.

    Lifecycle plug-ins run around the create and, separately, around the
    rollback; a create vetoed by a pre-op touched nothing, so nothing rolls back.
    """

    async def job(res: Resource) -> Any:
        await hooks.breakpoint(stack, res, "pre-create")
        return await res.create()

    ok = await guard(stack, "CREATE", lambda: stack_task(stack, "CREATE", job))
    if ok is False and not stack.disable_rollback:
        await guard(
            stack,
            "ROLLBACK",
            lambda: stack_task(stack, "ROLLBACK", lambda r: r.delete(), reverse=True),
        )
    return bool(ok)


async def delete(stack: Stack, *, action: str = "DELETE") -> bool:
    """Delete every resource, dependants first; purge the rows on success."""
    return bool(await guard(stack, action, lambda: delete_resources(stack, action=action)))


async def delete_resources(stack: Stack, *, action: str = "DELETE") -> bool:
    """:func:`delete` without the lifecycle plug-ins (the caller runs them)."""

    async def job(res: Resource) -> Any:
        if action == "DELETE":
            await hooks.breakpoint(stack, res, "pre-delete")
        return await res.delete()

    ok = await stack_task(stack, action, job, reverse=True)
    if ok:
        with stack.world.store.transaction():
            for res in stack.all_resources():
                stack.forget_resource(res)
        stack.replaced.clear()
        stack.record.deleted = True
        stack.save()
    return ok


async def suspend(stack: Stack) -> bool:
    """Suspend every resource, dependants first."""
    return bool(
        await guard(
            stack,
            "SUSPEND",
            lambda: stack_task(stack, "SUSPEND", lambda r: r.suspend(), reverse=True),
        )
    )


async def resume(stack: Stack) -> bool:
    """Resume every resource, requirements first."""
    return bool(
        await guard(stack, "RESUME", lambda: stack_task(stack, "RESUME", lambda r: r.resume()))
    )


async def check(stack: Stack) -> bool:
    """Run every resource's check."""
    return bool(
        await guard(stack, "CHECK", lambda: stack_task(stack, "CHECK", lambda r: r.check()))
    )


# -- abandon / adopt ------------------------------------------------------------


def abandon_data(stack: Stack) -> dict[str, Any]:
    """Return the stack's abandon document (what ``stack adopt`` takes back)."""
    resources: dict[str, Any] = {}
    for res in stack.resources.values():
        resources[res.name] = {
            "name": res.name,
            "type": res.type(),
            "action": res.action,
            "status": res.status,
            "resource_id": res.resource_id,
            "metadata": stack.definition.resource_definitions()[res.name].metadata
            if res.name in stack.definition.resource_definitions()
            else {},
            "resource_data": dict(res.data()),
        }
    src = stack.source
    return {
        "name": stack.name,
        "id": stack.id,
        "action": stack.action,
        "status": stack.status,
        "template": src.template,
        "files": dict(src.files),
        "environment": src.merged_environment(),
        "parameters": dict(src.parameters),
        "resources": resources,
        "project_id": stack.world.project_id,
        "stack_user_project_id": stack.world.project_id,
        **_project_of(src),
    }


def _project_of(source: Any) -> dict[str, str]:
    """The project whose ``plugsim.yaml`` gave the stack plug-ins, for ``stack adopt`` to find.

    Heat's abandon document has no such key; plugsim adds ``plugsim_project``
    only when the template's directory holds a ``plugsim.yaml``.
    """
    from simulator.project_trust import CONFIG_NAME

    if source.base_dir and (Path(source.base_dir) / CONFIG_NAME).is_file():
        return {"plugsim_project": str(source.base_dir)}
    return {}


def abandon(stack: Stack) -> dict[str, Any]:
    """Forget the stack without deleting its physical resources; return its data.

    A lifecycle pre-op that vetoes the abandon leaves the stack ``ABANDON_FAILED``
    and raises :class:`sdk.exception.PlugsimError` with the plug-in's message.
    """

    def body() -> dict[str, Any]:
        data = abandon_data(stack)
        for res in stack.all_resources():
            stack.forget_resource(res)
        stack.state_set("ABANDON", COMPLETE, "Stack abandoned; physical resources left in place")
        stack.record.deleted = True
        stack.save()
        return data

    ok, data = guard_sync(stack, "ABANDON", body)
    if ok is None:
        raise exception.PlugsimError(f"Stack ABANDON failed: {stack.status_reason}")
    return data


async def adopt(stack: Stack, adopt_data: dict[str, Any]) -> bool:
    """Adopt existing physical resources described by *adopt_data* (``handle_adopt``)."""
    entries = adopt_data.get("resources") or {}
    if not isinstance(entries, dict):
        raise exception.StackValidationFailed(
            "adopt data: 'resources' must be a map", path=["resources"]
        )

    async def job(res: Resource) -> Any:
        entry = entries.get(res.name)
        if not isinstance(entry, dict):
            raise exception.ResourceFailure(
                exception.EntityNotFound(entity="Resource in adopt data", name=res.name),
                res,
                "ADOPT",
            )
        await res.adopt(entry)

    ok = await guard(stack, "ADOPT", lambda: stack_task(stack, "ADOPT", job))
    if ok is False and not stack.disable_rollback:

        async def rollback() -> None:
            # leave the adopted physical resources alone, as Heat does
            for res in stack.all_resources():
                stack.forget_resource(res)
            stack.state_set("ROLLBACK", COMPLETE, "Stack ROLLBACK completed successfully")

        await guard(stack, "ROLLBACK", rollback)
    return bool(ok)
