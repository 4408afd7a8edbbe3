"""Stack snapshots on the Orchestration API: create, list, show, delete, restore.

A snapshot runs to its end inside the request (other actions move along in
virtual time with it), so ``POST .../snapshots`` answers with the finished
snapshot; a restore is an update and runs in the background like one.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, route
from simulator.orchestration_wire import views

_STACK = "/v1/<tenant>/stacks/<name>/<sid>"


class SnapshotRoutes:
    """Mixin of :class:`~simulator.orchestration_wire.api.OrchestrationAPI`: snapshots."""

    world: Any
    engine: Any

    @route("POST", _STACK + "/snapshots")
    def create_snapshot(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``POST .../snapshots`` (``{"name": ...}``): the snapshot."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        body = req.json() if req.raw.get_data() else {}
        snap_name = body.get("name") or None
        rec = self.engine.run_now(
            lambda: self.world.asnapshot_stack(stack.id, snap_name), action="SNAPSHOT"
        )
        return Reply(200, views.snapshot_view(rec))

    @route("GET", _STACK + "/snapshots")
    def list_snapshots(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../snapshots``: the stack's snapshots, oldest first."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        rows = [views.snapshot_view(r) for r in self.world.list_snapshots(stack.id)]
        return Reply(200, {"snapshots": rows})

    @route("GET", _STACK + "/snapshots/<snap>")
    def show_snapshot(self, req: ApiRequest, tenant: str, name: str, sid: str, snap: str) -> Reply:
        """``GET .../snapshots/{id}``."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        return Reply(
            200, {"snapshot": views.snapshot_view(self.world.find_snapshot(stack.id, snap))}
        )

    @route("DELETE", _STACK + "/snapshots/<snap>")
    def delete_snapshot(
        self, req: ApiRequest, tenant: str, name: str, sid: str, snap: str
    ) -> Reply:
        """``DELETE .../snapshots/{id}``: every resource's snapshot data goes too."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        rec = self.world.find_snapshot(stack.id, snap)
        self.engine.run_now(
            lambda: self.world.adelete_snapshot(stack.id, rec.id), action="DELETE_SNAPSHOT"
        )
        return Reply(204, None)

    @route("POST", _STACK + "/snapshots/<snap>/restore")
    def restore_snapshot(
        self, req: ApiRequest, tenant: str, name: str, sid: str, snap: str
    ) -> Reply:
        """``POST .../snapshots/{id}/restore``: 202; the restore goes on in virtual time."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        rec = self.world.find_snapshot(stack.id, snap)
        self.engine.start(
            lambda: self.world.arestore_stack(stack.id, rec.id),
            action="RESTORE",
            stack_id=stack.id,
        )
        return Reply(202, None)
