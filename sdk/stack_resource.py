"""The base of resources that own one nested stack (groups, template resources).

A :class:`StackResource` builds a template (and its parameters) and calls
:meth:`StackResource.create_nested` from ``handle_create`` and
:meth:`StackResource.update_nested` from ``handle_update``; delete, suspend,
resume, check and snapshot act on the nested stack. Everything goes through
the context's ``nested_stacks()`` facet (:class:`sdk.context.NestedStacks`),
so the nested stack's resources have their own events in the same world and
the class needs nothing of the engine. The nested stack's id is the
``resource_id`` and what ``get_resource`` gives.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.context import NestedStack, NestedStacks
from sdk.resource import Resource


class StackResource(Resource):
    """A resource that owns one nested stack built from a template dict."""

    #: directory relative ``get_file`` / template paths of the nested stack resolve
    #: from (None: the owner's stack's)
    nested_base: str | None = None
    #: the name the nested template is known by in errors and ``stack show``
    nested_template_name: str | None = None

    def _nested_stacks(self) -> NestedStacks:
        return self.context.nested_stacks()

    def nested(self) -> NestedStack | None:
        """Return the nested stack (None before it exists)."""
        if self.resource_id is None:
            return None
        return self._nested_stacks().get(self)

    def _check(self, ok: bool) -> None:
        if not ok:
            child = self.nested()
            name = child.name if child is not None else f"of {self.name}"
            reason = child.status_reason if child is not None else "not found"
            raise exception.PlugsimError(f"Nested stack {name}: {reason}")

    async def create_nested(
        self, template: dict[str, Any], parameters: dict[str, Any] | None = None
    ) -> NestedStack:
        """Create the nested stack from *template*; raise when it does not complete."""
        ok = await self._nested_stacks().create(
            self,
            template,
            dict(parameters or {}),
            template_name=self.nested_template_name or f"{self.name} (nested)",
            base_dir=self.nested_base,
        )
        self._check(ok)
        return self._existing()

    def _existing(self) -> NestedStack:
        child = self.nested()
        if child is None:
            raise exception.UpdateReplace(self.name)
        return child

    async def update_nested(
        self, template: dict[str, Any] | None, parameters: dict[str, Any] | None = None
    ) -> NestedStack:
        """Update the nested stack to *template* (None: keep it); none yet means replacement."""
        self._existing()
        self._check(await self._nested_stacks().update(self, template, dict(parameters or {})))
        return self._existing()

    async def _child_action(self, action: str) -> None:
        if self.nested() is not None:
            self._check(await self._nested_stacks().act(self, action))

    async def handle_delete(self) -> None:
        """Delete the nested stack (nothing to do when it was never created)."""
        await self._child_action("DELETE")

    async def handle_suspend(self) -> None:
        """Suspend the nested stack."""
        await self._child_action("SUSPEND")

    async def handle_resume(self) -> None:
        """Resume the nested stack."""
        await self._child_action("RESUME")

    async def handle_check(self) -> None:
        """Check the nested stack."""
        await self._child_action("CHECK")

    async def handle_snapshot(self) -> None:
        """Snapshot every resource of the nested stack into this resource's data."""
        if self.nested() is None:
            return
        ok, entries = await self._nested_stacks().snapshot(self)
        self._check(ok)
        self.data_set("nested_snapshot", {k: entries[k] for k in sorted(entries)})

    async def handle_delete_snapshot(self, snapshot: Any) -> None:
        """Delete what the nested resources made for a stack snapshot (their images, backups)."""
        data = (snapshot or {}).get("resource_data", snapshot) or {}
        entries = data.get("nested_snapshot") if isinstance(data, dict) else None
        if self.nested() is not None and isinstance(entries, dict):
            await self._nested_stacks().delete_snapshot(self, entries)

    def get_reference_id(self) -> str:
        """``get_resource`` gives the nested stack's id."""
        return str(self.resource_id) if self.resource_id is not None else self.name
