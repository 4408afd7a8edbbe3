"""Resources and events on the Orchestration API.

Resources: list (``nested_depth``, ``with_detail`` and Heat's filters), show
(attributes, metadata), metadata, signal and mark unhealthy. Events: the
stack's or one resource's, with Heat's filters, sort and marker/limit paging,
and one event. A stack-level event names the stack as its resource and the
stack id as its physical id, as Heat's does: that is how ``--wait`` sees the
end of an action.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, route
from simulator.orchestration_wire import views
from simulator.orchestration_wire.errors import HeatError, not_found

_STACK = "/v1/<tenant>/stacks/<name>/<sid>"
_FILTERS = ("type", "status", "name", "action", "id", "physical_resource_id")


class ResourceRoutes:
    """Mixin of :class:`~simulator.orchestration_wire.api.OrchestrationAPI`: resources, events."""

    world: Any
    engine: Any

    # --- resources ----------------------------------------------------------------

    def _resource_rows(
        self, stack: Any, endpoint: str, depth: int, *, detail: bool, parent: str | None = None
    ) -> list[dict[str, Any]]:
        store = self.world.store
        times: dict[str, tuple[float, float]] = {}
        for ev in store.events(stack.id):
            if ev.resource_name in stack.resources:
                first = times.get(ev.resource_name, (ev.time, ev.time))[0]
                times[ev.resource_name] = (first, ev.time)
        children = {c.id: c for c in store.list_stacks(parent_id=stack.id)}
        required_by: dict[str, list[str]] = {}
        for res_name, needs in stack.requires().items():
            for need in needs:
                required_by.setdefault(need, []).append(res_name)
        rows = []
        for res in stack.resources.values():
            row = views.resource_view(
                stack,
                res,
                endpoint,
                times=times,
                required_by=sorted(required_by.get(res.name, [])),
                nested=children,
                detail=detail,
            )
            if parent is not None:
                row["parent_resource"] = parent
            rows.append(row)
            child = children.get(str(res.resource_id)) if res.resource_id is not None else None
            if depth > 0 and child is not None and not child.deleted:
                nested = self.world.get_stack(child.id)
                rows += self._resource_rows(
                    nested, endpoint, depth - 1, detail=detail, parent=res.name
                )
        return rows

    @route("GET", _STACK + "/resources")
    def list_resources(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../resources``: the stack's resources (and nested ones to ``nested_depth``)."""

        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        try:
            depth = int(req.args.get("nested_depth") or 0)
        except ValueError:
            raise HeatError(400, "HTTPBadRequest", "nested_depth must be an integer") from None
        detail = (req.args.get("with_detail") or "").lower() in ("1", "true", "yes")
        rows = self._resource_rows(stack, api.endpoint(tenant), depth, detail=detail)
        for key in _FILTERS:
            wanted = req.args.getlist(key)
            if wanted:
                rows = [r for r in rows if _resource_field(r, key) in wanted]
        return Reply(200, {"resources": rows})

    def _resource(self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str) -> Any:

        api: Any = self
        stack = api.stack(req, tenant, name, sid)
        res = stack.resources.get(rname)
        if res is None:
            raise not_found("Resource", rname)
        return stack, res

    @route("GET", _STACK + "/resources/<rname>")
    def show_resource(self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str) -> Reply:
        """``GET .../resources/{name}``: one resource with attributes and metadata."""
        api: Any = self
        stack, res = self._resource(req, tenant, name, sid, rname)
        rows = self._resource_rows(stack, api.endpoint(tenant), 0, detail=True)
        row = next(r for r in rows if r["resource_name"] == rname)
        return Reply(200, {"resource": row})

    @route("GET", _STACK + "/resources/<rname>/metadata")
    def resource_metadata(
        self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str
    ) -> Reply:
        """``GET .../resources/{name}/metadata``."""
        _, res = self._resource(req, tenant, name, sid, rname)
        return Reply(200, {"metadata": res.metadata_get()})

    @route("POST", _STACK + "/resources/<rname>/signal")
    def signal_resource(
        self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str
    ) -> Reply:
        """``POST .../resources/{name}/signal``: the body is the signal's data."""
        stack, _ = self._resource(req, tenant, name, sid, rname)
        data = req.json() if req.raw.get_data() else None
        self.engine.run_now(
            lambda: self.world.asignal_resource(stack.id, rname, data), action="SIGNAL"
        )
        return Reply(200, None)

    @route("PATCH", _STACK + "/resources/<rname>")
    def mark_unhealthy(
        self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str
    ) -> Reply:
        """``PATCH .../resources/{name}`` with ``mark_unhealthy`` (and a reason)."""

        stack, _ = self._resource(req, tenant, name, sid, rname)
        body = req.json()
        flag = body.get("mark_unhealthy")
        if not isinstance(flag, bool):
            raise HeatError(400, "HTTPBadRequest", "mark_unhealthy must be given, as true or false")
        unknown = sorted(set(body) - {"mark_unhealthy", "resource_status_reason"})
        if unknown:
            raise HeatError(400, "HTTPBadRequest", f"Invalid keys in body: {', '.join(unknown)}")
        reason = body.get("resource_status_reason") or ""
        self.world.mark_unhealthy(stack.id, rname, flag, str(reason))
        self.world.commit()
        return Reply(200, None)

    # --- events -------------------------------------------------------------------

    def _stack_events(self, stack: Any, depth: int) -> list[Any]:
        ids = [stack.id]
        frontier = [(stack.id, 0)]
        store = self.world.store
        while frontier:
            sid, level = frontier.pop()
            if level >= depth:
                continue
            for child in store.list_stacks(parent_id=sid, include_deleted=True):
                ids.append(child.id)
                frontier.append((child.id, level + 1))
        wanted = set(ids)
        return [ev for ev in store.events() if ev.stack_id in wanted]

    @route("GET", _STACK + "/events")
    def list_events(self, req: ApiRequest, tenant: str, name: str, sid: str) -> Reply:
        """``GET .../events``: filters, ``sort_dir``, ``marker``/``limit``, ``nested_depth``."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid, deleted_ok=True)
        depth = int(req.args.get("nested_depth") or 0)
        events = self._stack_events(stack, depth)
        return self._event_page(req, events, api.endpoint(tenant), stack, depth > 0)

    @route("GET", _STACK + "/resources/<rname>/events")
    def resource_events(
        self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str
    ) -> Reply:
        """``GET .../resources/{name}/events``."""
        api: Any = self
        stack = api.stack(req, tenant, name, sid, deleted_ok=True)
        events = [e for e in self.world.store.events(stack.id) if e.resource_name == rname]
        return self._event_page(req, events, api.endpoint(tenant), stack, False)

    def _event_page(
        self, req: ApiRequest, events: list[Any], endpoint: str, stack: Any, root: bool
    ) -> Reply:

        args = req.args
        for key, get in (
            ("resource_action", lambda e: e.action),
            ("resource_status", lambda e: e.status),
            ("resource_name", lambda e: e.resource_name),
            ("resource_type", lambda e: e.resource_type),
        ):
            wanted = args.getlist(key)
            if wanted:
                events = [e for e in events if get(e) in wanted]
        if (args.get("sort_dir") or "asc").lower() == "desc":
            events = list(reversed(events))
        marker = args.get("marker")
        if marker:
            ids = [str(e.id) for e in events]
            if marker not in ids:
                raise not_found("Event", marker)
            events = events[ids.index(marker) + 1 :]
        limit = args.get("limit")
        if limit:
            events = events[: max(0, int(limit))]
        rows = [views.event_view(e, endpoint, stack.name) for e in events]
        if root:
            link = {"href": endpoint + views.stack_path(stack.name, stack.id), "rel": "root_stack"}
            for row in rows:
                row["links"].append(link)
        return Reply(200, {"events": rows})

    @route("GET", _STACK + "/resources/<rname>/events/<eid>")
    def show_event(
        self, req: ApiRequest, tenant: str, name: str, sid: str, rname: str, eid: str
    ) -> Reply:
        """``GET .../resources/{name}/events/{id}``: one event."""

        api: Any = self
        stack = api.stack(req, tenant, name, sid, deleted_ok=True)
        for ev in self._stack_events(stack, 1 << 10):
            if str(ev.id) == eid and ev.resource_name == rname:
                view = views.event_view(ev, api.endpoint(tenant), stack.name, detail=True)
                return Reply(200, {"event": view})
        raise not_found("Event", eid)


def _resource_field(row: dict[str, Any], key: str) -> Any:
    status = row["resource_status"]
    return {
        "type": row["resource_type"],
        "status": status.rsplit("_", 1)[-1],
        "action": status.rsplit("_", 1)[0],
        "name": row["resource_name"],
        "id": row["physical_resource_id"],
        "physical_resource_id": row["physical_resource_id"],
    }[key]
