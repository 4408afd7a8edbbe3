"""The stack verbs of a :class:`simulator.world.World` (what the CLI and tests call).

Each verb exists as a coroutine (``acreate_stack`` ...) to compose inside the
virtual-time loop, and as a blocking method (``create_stack`` ...) that runs
it with :meth:`World.run`. Validation happens before any resource is touched;
failures of the action itself end in a FAILED stack with a reason, not an
exception.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

from sdk import exception
from simulator import hooks, stack_actions, stack_update
from simulator.events import Event
from simulator.lifecycle import cancel_update, guard
from simulator.project_config import adopted_plugin_dirs
from simulator.rng import SeededRNG
from simulator.scheduler import run_graph
from simulator.stack import COMPLETE, FAILED, IN_PROGRESS, Stack, StackHost
from simulator.stack_actions import stack_task
from simulator.stack_source import StackSource
from simulator.store import SnapshotRecord

PathLike = str | os.PathLike[str]
T = TypeVar("T")


class APIHost(StackHost, Protocol):
    """What the stack verbs need of the world besides :class:`~simulator.stack.StackHost`."""

    rng: SeededRNG

    def source(
        self,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        files: Mapping[str, str] | None = None,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    ) -> StackSource:
        """A stack source from a template and environments."""

    def run(
        self,
        coro_factory: Callable[[], Awaitable[T]],
        *,
        stack_id: str | None = None,
        action: str = "RUN",
    ) -> T:
        """Run a coroutine on the world's virtual-time loop."""


class StackAPI(APIHost):
    """Mixin of :class:`simulator.world.World` with every stack action (the world is its host)."""

    # -- create ------------------------------------------------------------------

    async def acreate_stack(
        self,
        name: str,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        files: Mapping[str, str] | None = None,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        plugin_dirs: Iterable[PathLike] = (),
        tags: Iterable[str] = (),
        project_id: str | None = None,
    ) -> Stack:
        """Create a stack from a template (path or dict) and environments.

        *tags* are the stack's tags (lifecycle plug-ins read them); *project_id*
        the project owning it on the Orchestration API (None: the bootstrap one).
        """
        source = self.source(
            template, environment, parameters, files=files, plugin_dirs=plugin_dirs
        )
        stack = self.new_stack(
            name,
            source,
            timeout_mins=timeout_mins,
            disable_rollback=disable_rollback,
            tags=tags,
            project_id=project_id,
        )
        stack_actions.instantiate(stack)
        await stack_actions.create(stack)
        return stack

    def create_stack(
        self,
        name: str,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Stack:
        """Blocking :meth:`acreate_stack`."""
        return self.run(
            lambda: self.acreate_stack(name, template, environment, parameters, **kwargs),
            action="CREATE",
        )

    # -- update / cancel / rollback ------------------------------------------------

    async def aupdate_stack(
        self,
        name: str,
        template: Any = None,
        environment: Iterable[Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        files: Mapping[str, str] | None = None,
        timeout_mins: float | None = None,
        disable_rollback: bool | None = None,
        plugin_dirs: Iterable[PathLike] = (),
        tags: Iterable[str] | None = None,
    ) -> Stack:
        """Update a stack; ``template=None`` keeps the current template (``--existing``).

        *tags* replace the stack's tags (``[]`` clears them; None keeps them).
        """
        stack = self.get_stack(name)
        _not_busy(stack)
        source = self._update_source(stack, template, environment, parameters, files, plugin_dirs)
        if tags is not None:
            stack.record.doc["tags"] = list(tags)
        await stack_update.update(
            stack, source, disable_rollback=disable_rollback, timeout_mins=timeout_mins
        )
        return stack

    def _update_source(
        self,
        stack: Stack,
        template: Any,
        environment: Iterable[Any] | None,
        parameters: Mapping[str, Any] | None,
        files: Mapping[str, str] | None,
        plugin_dirs: Iterable[PathLike],
    ) -> StackSource:
        """The source an update to *template* (None: keep the current one) would use."""
        current = stack.source
        if template is None:
            params = {**current.parameters, **dict(parameters or {})}
            return current.with_changes(parameters=params, environment=environment)
        return self.source(
            template,
            environment if environment is not None else (),
            parameters,
            files=files,
            plugin_dirs=[*current.plugin_dirs, *plugin_dirs],
        )

    def preview_update_stack(
        self,
        name: str,
        template: Any = None,
        environment: Iterable[Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        files: Mapping[str, str] | None = None,
        plugin_dirs: Iterable[PathLike] = (),
    ) -> dict[str, list[dict[str, Any]]]:
        """What :meth:`aupdate_stack` would do to each resource, changing nothing.

        Heat's ``added``/``deleted``/``replaced``/``updated``/``unchanged`` lists
        (:mod:`simulator.stack_preview`).
        """
        from simulator.stack_preview import preview_update

        stack = self.get_stack(name)
        source = self._update_source(stack, template, environment, parameters, files, plugin_dirs)
        return preview_update(stack, source)

    def preview_stack(
        self,
        name: str,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        files: Mapping[str, str] | None = None,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        project_id: str = "",
    ) -> dict[str, Any]:
        """Validate a stack as :meth:`acreate_stack` would and describe it, storing nothing."""
        from simulator.stack_preview import preview_create

        source = self.source(template, environment, parameters, files=files)
        return preview_create(
            self,
            name,
            source,
            project_id,
            timeout_mins=timeout_mins,
            disable_rollback=disable_rollback,
        )

    def update_stack(
        self,
        name: str,
        template: Any = None,
        environment: Any = None,
        parameters: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Stack:
        """Blocking :meth:`aupdate_stack`."""
        return self.run(
            lambda: self.aupdate_stack(name, template, environment, parameters, **kwargs),
            action="UPDATE",
        )

    def cancel_update(self, name: str, *, rollback: bool = True) -> Stack:
        """Cancel a stack's in-progress update (it then rolls back unless *rollback* is False)."""
        stack = self.get_stack(name)
        if stack.busy:
            cancel_update(stack, rollback)
            return stack
        rec = self.store.get_stack(stack.id)
        assert rec is not None
        if (rec.action, rec.status) != ("UPDATE", IN_PROGRESS):
            raise exception.NotSupportedAction(
                f"Cancelling update when stack is {rec.action}_{rec.status} is not supported"
            )
        with self.store.message():  # the stack's engine may be another process
            self.store.set_meta(f"cancel:{stack.id}", True if rollback else "no-rollback")
        return stack

    # -- delete / suspend / resume / check -------------------------------------------

    async def adelete_stack(self, name: str) -> Stack:
        """Delete a stack (dependants first); a failed delete leaves DELETE_FAILED."""
        stack = self.get_stack(name)
        _not_busy(stack)

        async def body() -> None:
            for snap in self.store.snapshots(stack.id):  # as Heat does, snapshots go first
                try:
                    await self.adelete_snapshot(name, snap.id)
                except Exception as ex:  # the stack delete reports the resource failure
                    reason = f"Deleting snapshot {snap.name} failed: {ex}"
                    stack.state_set("DELETE", "FAILED", reason)
                    return
            await stack_actions.delete_resources(stack)

        await guard(stack, "DELETE", body)
        return stack

    def delete_stack(self, name: str) -> Stack:
        """Blocking :meth:`adelete_stack`."""
        return self.run(lambda: self.adelete_stack(name), action="DELETE")

    async def asuspend_stack(self, name: str) -> Stack:
        """Suspend every resource, dependants first."""
        stack = self.get_stack(name)
        _not_busy(stack)
        await stack_actions.suspend(stack)
        return stack

    def suspend_stack(self, name: str) -> Stack:
        """Blocking :meth:`asuspend_stack`."""
        return self.run(lambda: self.asuspend_stack(name), action="SUSPEND")

    async def aresume_stack(self, name: str) -> Stack:
        """Resume every resource."""
        stack = self.get_stack(name)
        _not_busy(stack)
        await stack_actions.resume(stack)
        return stack

    def resume_stack(self, name: str) -> Stack:
        """Blocking :meth:`aresume_stack`."""
        return self.run(lambda: self.aresume_stack(name), action="RESUME")

    async def acheck_stack(self, name: str) -> Stack:
        """Check every resource."""
        stack = self.get_stack(name)
        _not_busy(stack)
        await stack_actions.check(stack)
        return stack

    def check_stack(self, name: str) -> Stack:
        """Blocking :meth:`acheck_stack`."""
        return self.run(lambda: self.acheck_stack(name), action="CHECK")

    # -- snapshots -------------------------------------------------------------------

    async def asnapshot_stack(self, name: str, snapshot_name: str | None = None) -> SnapshotRecord:
        """Snapshot every resource; returns the snapshot record (COMPLETE or FAILED)."""
        stack = self.get_stack(name)
        _not_busy(stack)
        snap_id = self.rng.uuid("snapshot-ids")
        entries: dict[str, Any] = {}

        async def job(res: Any) -> None:
            data = await res.snapshot()
            entries[res.name] = {
                "name": res.name,
                "type": res.type(),
                "resource_id": res.resource_id,
                "resource_data": dict(data or {}),
            }

        ok = await guard(
            stack,
            "SNAPSHOT",
            lambda: stack_task(stack, "SNAPSHOT", job, resources=list(stack.resources.values())),
        )
        rec = SnapshotRecord(
            id=snap_id,
            stack_id=stack.id,
            name=snapshot_name or snap_id,
            status=COMPLETE if ok else FAILED,
            reason=stack.status_reason,
            created=self.clock.now(),
            doc={
                "source": stack.source.to_doc(),
                "resources": {k: entries[k] for k in sorted(entries)},
            },
        )
        self.store.save_snapshot(rec)
        return rec

    def snapshot_stack(self, name: str, snapshot_name: str | None = None) -> SnapshotRecord:
        """Blocking :meth:`asnapshot_stack`."""
        return self.run(lambda: self.asnapshot_stack(name, snapshot_name), action="SNAPSHOT")

    def list_snapshots(self, name: str) -> list[SnapshotRecord]:
        """Return the stack's snapshots, oldest first."""
        return self.store.snapshots(self.get_stack(name).id)

    def find_snapshot(self, name: str, snapshot: str) -> SnapshotRecord:
        """Return a snapshot of stack *name* by id or name."""
        for rec in self.list_snapshots(name):
            if snapshot in (rec.id, rec.name):
                return rec
        raise exception.EntityNotFound(entity="Snapshot", name=snapshot)

    async def arestore_stack(self, name: str, snapshot: str) -> Stack:
        """Restore a stack from one of its snapshots (action RESTORE)."""
        stack = self.get_stack(name)
        _not_busy(stack)
        rec = self.find_snapshot(name, snapshot)
        if rec.status != COMPLETE:
            raise exception.NotSupportedAction(
                f"Snapshot {rec.name} is {rec.status}; only a COMPLETE snapshot can be restored"
            )
        await stack_update.restore(stack, rec.doc)
        return stack

    def restore_stack(self, name: str, snapshot: str) -> Stack:
        """Blocking :meth:`arestore_stack`."""
        return self.run(lambda: self.arestore_stack(name, snapshot), action="RESTORE")

    async def adelete_snapshot(self, name: str, snapshot: str) -> None:
        """Delete a snapshot: every resource's ``handle_delete_snapshot``, then the record."""
        stack = self.get_stack(name)
        rec = self.find_snapshot(name, snapshot)
        entries = rec.doc.get("resources", {})
        targets = [r for r in stack.resources.values() if r.name in entries]

        async def job(res_name: str) -> None:
            res = stack.resources[res_name]
            await res.delete_snapshot(entries[res_name])

        await run_graph([r.name for r in targets], {}, job)
        self.store.delete_snapshot(rec.id)

    def delete_snapshot(self, name: str, snapshot: str) -> None:
        """Blocking :meth:`adelete_snapshot`; a failing plug-in raises ResourceFailure."""
        from simulator.scheduler import GraphFailed

        try:
            self.run(lambda: self.adelete_snapshot(name, snapshot), action="DELETE_SNAPSHOT")
        except GraphFailed as ex:
            raise exception.PlugsimError(
                f"Deleting snapshot {snapshot} failed: {stack_actions.describe_failure(ex.first)}"
            ) from ex

    # -- abandon / adopt ---------------------------------------------------------------

    def abandon_stack(self, name: str) -> dict[str, Any]:
        """Forget a stack but leave its physical resources; return the abandon data."""
        stack = self.get_stack(name)
        _not_busy(stack)
        return stack_actions.abandon(stack)

    def export_stack(self, name: str) -> dict[str, Any]:
        """Return the stack's abandon data without abandoning it (``stack export``)."""
        return stack_actions.abandon_data(self.get_stack(name))

    async def aadopt_stack(
        self,
        name: str,
        adopt_data: Mapping[str, Any],
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        plugin_dirs: Iterable[PathLike] = (),
        project_id: str | None = None,
    ) -> Stack:
        """Create a stack that adopts the physical resources in *adopt_data*."""
        if not isinstance(adopt_data, Mapping) or not isinstance(
            adopt_data.get("template"), Mapping
        ):
            raise exception.StackValidationFailed(
                "adopt data must be a map with a 'template' (as `stack abandon` prints it)"
            )
        params = {**dict(adopt_data.get("parameters") or {}), **dict(parameters or {})}
        envs = [
            *([adopt_data["environment"]] if adopt_data.get("environment") else []),
            *environment,
        ]
        source = self.source(
            dict(adopt_data["template"]),
            envs,
            params,
            files=adopt_data.get("files") or None,
            plugin_dirs=[*plugin_dirs, *adopted_plugin_dirs(adopt_data)],
        )
        stack = self.new_stack(
            name,
            source,
            timeout_mins=timeout_mins,
            disable_rollback=disable_rollback,
            project_id=project_id,
        )
        stack_actions.instantiate(stack)
        await stack_actions.adopt(stack, dict(adopt_data))
        return stack

    def adopt_stack(self, name: str, adopt_data: Mapping[str, Any], **kwargs: Any) -> Stack:
        """Blocking :meth:`aadopt_stack`."""
        return self.run(lambda: self.aadopt_stack(name, adopt_data, **kwargs), action="ADOPT")

    # -- signals -----------------------------------------------------------------------

    def _signal_target(self, stack: str, resource: str) -> tuple[Stack, Any]:
        st = self.get_stack(stack)
        res = st.resources.get(resource)
        if res is None:
            raise exception.EntityNotFound(entity="Resource", name=resource)
        if getattr(res, "handle_signal", None) is None:
            raise exception.NotSupportedAction(
                f"Resource {resource} ({res.type()}) of stack {st.name} does not take signals"
            )
        if res.action == "INIT" or (res.action == "DELETE" and res.status == COMPLETE):
            raise exception.NotSupportedAction(
                f"Signal resource during {res.action} is not supported"
            )
        return st, res

    def _record_signal(self, st: Stack, res: Any, record: Any) -> Any:
        with self.store.message():  # the stack's engine may be another process
            return self._record_signal_now(st, res, record)

    def _record_signal_now(self, st: Stack, res: Any, record: Any) -> Any:
        if isinstance(record, Mapping):
            self.store.add_signal(st.id, res.name, dict(record))
            parts = [str(record[k]) for k in ("status", "reason") if record.get(k)]
            reason = " ".join(["Signal:", *parts])
        else:
            reason = "Signal received"
        ev = Event(
            0,
            st.id,
            st.name,
            res.name,
            res.type(),
            None if res.resource_id is None else str(res.resource_id),
            "SIGNAL",
            COMPLETE,
            reason,
            self.clock.now(),
        )
        self.emit(self.store.add_event(ev))
        return record

    def clear_hook(self, stack: str, resource: str, hook: str) -> None:
        """Clear a breakpoint a resource waits at (:mod:`simulator.hooks`)."""
        hooks.clear(self.get_stack(stack), resource, hook)

    def pending_hooks(self, stack: str) -> list[tuple[str, str]]:
        """The (resource, hook) breakpoints of a stack waiting to be cleared."""
        return hooks.pending(self.get_stack(stack))

    async def asignal_resource(self, stack: str, resource: str, data: Any = None) -> Any:
        """Send a signal to a resource (inside the world's loop); see :meth:`signal_resource`."""
        if isinstance(data, Mapping) and "unset_hook" in data:
            self.clear_hook(stack, resource, str(data["unset_hook"]))
            return None
        st, res = self._signal_target(stack, resource)
        handler = res.handle_signal
        record = await handler(data) if inspect.iscoroutinefunction(handler) else handler(data)
        return self._record_signal(st, res, record)

    def signal_resource(self, stack: str, resource: str, data: Any = None) -> Any:
        """Send *data* as a signal to resource *resource* of stack *stack*.

        The resource's ``handle_signal(data)`` checks it; what it returns (a
        wait-condition handle's normalised signal) is kept in the resource's
        mailbox in the store, so an engine running in another process sees it,
        and a ``SIGNAL_COMPLETE`` event is recorded. A resource without
        ``handle_signal`` or not created yet is :class:`NotSupportedAction`.
        Callable while another action of the world runs in this process (from
        a listener); a coroutine ``handle_signal`` (a scaling policy) runs on
        the world's loop. ``{"unset_hook": HOOK}`` clears a breakpoint instead,
        as in Heat (any resource takes it).
        """
        if isinstance(data, Mapping) and "unset_hook" in data:
            self.clear_hook(stack, resource, str(data["unset_hook"]))
            return None
        st, res = self._signal_target(stack, resource)
        handler = res.handle_signal
        if inspect.iscoroutinefunction(handler):
            record = self.run(lambda: handler(data), action="SIGNAL")
        else:
            record = handler(data)
        return self._record_signal(st, res, record)

    def mark_unhealthy(
        self, stack: str, resource: str, unhealthy: bool = True, reason: str = ""
    ) -> Any:
        """Mark a resource unhealthy (``CHECK_FAILED``) or, with *unhealthy* false, healthy.

        As Heat does: the next update replaces or repairs a resource marked
        unhealthy; marking a resource that is in progress is ActionInProgress.
        Returns the resource.
        """
        st = self.get_stack(stack)
        res = st.resources.get(resource)
        if res is None:
            raise exception.EntityNotFound(entity="Resource", name=resource)
        if res.status == IN_PROGRESS or st.status == IN_PROGRESS:
            raise exception.ActionInProgress(stack_name=st.name, action=st.action)
        if unhealthy:
            if res.action == "INIT":
                raise exception.NotSupportedAction(
                    f"Resource {resource} of stack {st.name} was never created: "
                    "there is nothing to mark unhealthy"
                )
            res.state_set("CHECK", FAILED, reason or "Marked unhealthy by the user")
        elif (res.action, res.status) == ("CHECK", FAILED):
            res.state_set("CHECK", COMPLETE, reason or "Marked healthy by the user")
        return res

    # -- reading -----------------------------------------------------------------------

    def stack_events(self, name: str, *, nested: bool = True) -> list[Any]:
        """Return a stack's events (and its nested stacks' when *nested*), in order."""
        stack = self.get_stack(name, deleted_ok=True)
        ids = {stack.id}
        if nested:
            frontier = [stack.id]
            while frontier:
                children = self.store.list_stacks(parent_id=frontier.pop(), include_deleted=True)
                for child in children:
                    ids.add(child.id)
                    frontier.append(child.id)
        return [ev for ev in self.store.events() if ev.stack_id in ids]

    def validate_template(
        self,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        files: Mapping[str, str] | None = None,
        plugin_dirs: Iterable[PathLike] = (),
        trust_project: bool = False,
    ) -> dict[str, Any]:
        """Validate a template without creating anything; return its description.

        The plug-in directories of the template's ``plugsim.yaml`` are loaded
        only with *trust_project* (see :mod:`simulator.project_trust`).
        """
        from simulator.capabilities import describe_resolution

        source = self.source(
            template,
            environment,
            parameters,
            files=files,
            plugin_dirs=plugin_dirs,
            project_plugins=trust_project,
        )
        description = source.describe(self.registry, clients=self.client_plugin)
        resolution = describe_resolution(source.environment)
        if resolution["types"]:
            description["Resolutions"] = resolution
        return description


def _not_busy(stack: Stack) -> None:
    if stack.status == IN_PROGRESS:
        raise exception.ActionInProgress(stack_name=stack.name, action=stack.action)
