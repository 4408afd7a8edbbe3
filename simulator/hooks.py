"""Breakpoints (Heat's hooks): a resource's action waits until the user clears its hook.

An environment sets them per resource name (globs allowed)::

    resource_registry:
      resources:
        server: {hooks: [pre-create, pre-update]}

Before a resource with a ``pre-create`` (``pre-update``, ``pre-delete``) hook
starts that action, :func:`breakpoint` marks the hook pending in the store,
records Heat's event ("CREATE paused until Hook pre-create is cleared", with
the resource's state at that moment) and waits; :func:`clear` (``plugsim
stack hook clear``, or a signal ``{"unset_hook": "pre-create"}`` on the
Orchestration API) clears it as a store message, so another process may clear
it, and records "Hook pre-create is cleared". The action then goes on.

How the engine waits is the world's ``hook_wait``: under ``plugsim serve``
virtual time goes on meanwhile (the stack's timeout counts, as in Heat); on
the command line, with nothing else to run, the simulation stands still at the
breakpoint and the process polls the store in wall time (a debugger's
breakpoint), until another ``plugsim`` process clears it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from simulator.events import Event

HOOK_TYPES = ("pre-create", "pre-update", "pre-delete")
#: wall seconds between two looks at the store while the simulation stands still
WALL_POLL = 0.2


def _key(stack_id: str, resource: str, hook: str) -> str:
    return f"hook:{stack_id}:{resource}:{hook}"


def hooks_of(stack: Any, resource: str) -> set[str]:
    """The hooks the stack's environment sets on *resource*."""
    return stack.source.environment.registry.hooks(resource)


def _event(stack: Any, res: Any, reason: str) -> None:
    world = stack.world
    ev = Event(
        0,
        stack.id,
        stack.name,
        res.name,
        res.type(),
        None if res.resource_id is None else str(res.resource_id),
        res.action,
        res.status,
        reason,
        world.clock.now(),
    )
    world.emit(world.store.add_event(ev))


def pending(stack: Any) -> list[tuple[str, str]]:
    """The (resource, hook) pairs of *stack* waiting to be cleared, in resource order."""
    store = stack.world.store
    return [
        (name, hook)
        for name in stack.resources
        for hook in HOOK_TYPES
        if store.get_meta(_key(stack.id, name, hook))
    ]


async def breakpoint(stack: Any, res: Any, hook: str) -> None:
    """Stop before *res*'s action while its *hook* is set (no-op without one)."""
    if hook not in hooks_of(stack, res.name):
        return
    world, store = stack.world, stack.world.store
    key = _key(stack.id, res.name, hook)
    action = hook.split("-", 1)[1].upper()
    store.set_meta(key, True)
    _event(stack, res, f"{action} paused until Hook {hook} is cleared")
    world.commit()
    wait = getattr(world, "hook_wait", None)
    while store.get_meta(key):
        if wait is not None:
            await wait()
        else:
            world.commit()
            time.sleep(WALL_POLL)  # the simulation stands still at the breakpoint
            await asyncio.sleep(0)


def clear(stack: Any, resource: str, hook: str) -> None:
    """Clear *hook* of *resource* (another process may be waiting on it)."""
    from sdk import exception

    if hook not in HOOK_TYPES:
        raise exception.StackValidationFailed(
            f"Invalid hook type {hook!r}: one of {', '.join(HOOK_TYPES)}"
        )
    res = stack.resources.get(resource)
    if res is None:
        raise exception.EntityNotFound(entity="Resource", name=resource)
    store = stack.world.store
    key = _key(stack.id, resource, hook)
    if not store.get_meta(key):
        raise exception.NotSupportedAction(
            f"The {hook} hook of resource {resource} of stack {stack.name} is not active"
        )
    with store.message():  # the stack's engine may be another process
        store.set_meta(key, False)
        _event(stack, res, f"Hook {hook} is cleared")
