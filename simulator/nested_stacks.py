"""The engine side of the ``nested_stacks()`` facet: nested stacks owned by resources.

:class:`EngineNestedStacks` is what ``context.nested_stacks()`` returns to a
resource of one stack (:class:`sdk.stack_resource.StackResource` and the
template resources of :mod:`simulator.nested`). It creates the owner's nested
stack in the same world (same clock, same store, its own events) with the
parent's files, environments and plug-in directories, and runs the stack
actions of :mod:`simulator.stack_actions` and :mod:`simulator.stack_update`
on it. The resource sees a :class:`NestedStackView`, never the engine's
:class:`~simulator.stack.Stack`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sdk import exception
from sdk.context import Member, NestedOwner
from simulator import plan, stack_actions, stack_update
from simulator.stack import Stack
from simulator.stack_source import StackSource, child_environment


class NestedStackView:
    """A nested stack as its owner sees it (:class:`sdk.context.NestedStack`)."""

    def __init__(self, stack: Stack) -> None:
        self._stack = stack

    @property
    def id(self) -> str:
        """The nested stack's id."""
        return self._stack.id

    @property
    def name(self) -> str:
        """The nested stack's name."""
        return self._stack.name

    @property
    def status_reason(self) -> str:
        """Why the nested stack is in its current state."""
        return self._stack.status_reason

    @property
    def resources(self) -> Mapping[str, Member]:
        """The nested stack's current resources by name."""
        return self._stack.resources

    @property
    def template(self) -> dict[str, Any]:
        """The nested stack's current template."""
        return self._stack.source.template

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters the nested stack was last given."""
        return self._stack.source.parameters

    def output(self, key: str) -> Any:
        """Return the value of output *key*."""
        return self._stack.output(key)


class EngineNestedStacks:
    """The nested stacks of the resources of one stack (:class:`sdk.context.NestedStacks`)."""

    def __init__(self, stack: Stack) -> None:
        self._parent = stack

    def _child(self, owner: NestedOwner) -> Stack | None:
        if owner.resource_id is None:
            return None
        try:
            return self._parent.world.get_stack(str(owner.resource_id))
        except exception.EntityNotFound:
            return None

    def limits(self) -> Any:
        """The :class:`simulator.limits.Limits` the nested stacks are built under (the parent's)."""
        return self._parent.source.limit_values()

    def get(self, owner: NestedOwner) -> NestedStackView | None:
        """Return *owner*'s nested stack (None before it exists)."""
        child = self._child(owner)
        return NestedStackView(child) if child is not None else None

    def source(
        self,
        template: dict[str, Any],
        parameters: Mapping[str, Any],
        template_name: str,
        base_dir: str | None,
        owner: str | None = None,
    ) -> StackSource:
        """Return the source of a nested stack: *template* with the parent's files and env.

        *owner* names the resource making it (its nested per-resource registry entries pass on).
        """
        parent = self._parent.source
        return StackSource(
            template=template,
            template_name=template_name,
            base_dir=base_dir if base_dir is not None else parent.base_dir,
            files=dict(parent.files),
            environments=[child_environment(e, owner) for e in parent.environments],
            environment_names=list(parent.environment_names),
            parameters=dict(parameters),
            plugin_dirs=list(parent.plugin_dirs),
            limits=dict(parent.limits),
        ).share_plans(plan.NESTED)  # the same template in every seed: checked once

    async def create(
        self,
        owner: NestedOwner,
        template: dict[str, Any],
        parameters: dict[str, Any],
        *,
        template_name: str,
        base_dir: str | None = None,
    ) -> bool:
        """Create *owner*'s nested stack and every resource in it."""
        from simulator.limits import check_nested_depth

        parent = self._parent
        check_nested_depth(parent, owner.name)
        child = parent.world.new_stack(
            f"{parent.name}-{owner.name}",
            self.source(template, parameters, template_name, base_dir, owner.name),
            parent=parent,
            parent_resource=owner,
        )
        owner.resource_id_set(child.id)
        stack_actions.instantiate(child)
        return await stack_actions.create(child)

    async def update(
        self, owner: NestedOwner, template: dict[str, Any] | None, parameters: dict[str, Any]
    ) -> bool:
        """Update *owner*'s nested stack to *template* (None: keep it) and *parameters*."""
        child = self._child(owner)
        if child is None:
            raise exception.UpdateReplace(owner.name)
        new_source = child.source.with_changes(parameters=parameters)
        if template is not None:
            new_source = dataclasses.replace(new_source, template=template).share_plans(plan.NESTED)
        return await stack_update.update(child, new_source)

    async def act(self, owner: NestedOwner, action: str) -> bool:
        """Run DELETE, SUSPEND, RESUME or CHECK on *owner*'s nested stack (none: True)."""
        child = self._child(owner)
        if child is None:
            return True
        run = {
            "DELETE": stack_actions.delete,
            "SUSPEND": stack_actions.suspend,
            "RESUME": stack_actions.resume,
            "CHECK": stack_actions.check,
        }.get(action)
        if run is None:
            raise exception.NotSupportedAction(f"Nested stack action {action} is not supported")
        return await run(child)

    async def snapshot(self, owner: NestedOwner) -> tuple[bool, dict[str, Any]]:
        """Snapshot every resource of *owner*'s nested stack."""
        child = self._child(owner)
        if child is None:
            return True, {}
        entries: dict[str, Any] = {}

        async def job(res: Any) -> None:
            entries[res.name] = {
                "resource_id": res.resource_id,
                "resource_data": dict(await res.snapshot() or {}),
            }

        ok = await stack_actions.stack_task(
            child, "SNAPSHOT", job, resources=list(child.resources.values())
        )
        return ok, entries

    async def delete_snapshot(self, owner: NestedOwner, entries: Mapping[str, Any]) -> None:
        """Delete what *owner*'s nested resources made for a stack snapshot (images, backups)."""
        child = self._child(owner)
        if child is None:
            return
        for name in sorted(entries):
            res = child.resources.get(name)
            if res is not None:
                await res.delete_snapshot(entries[name])
