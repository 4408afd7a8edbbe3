"""Keystone's endpoint groups (``OS-EP-FILTER``) on the wire.

An endpoint group is an identity entity whose ``filters`` (``interface``,
``service_id``, ``region_id``) select endpoints from the catalog, the fake's
own and the registered ones; projects may be associated with it.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route

_G = "/v3/OS-EP-FILTER/endpoint_groups"
_OP = "identity", "endpoint_groups", "endpoint_group"


def _op(verb: str) -> tuple[str, str, str]:
    return (_OP[0], f"{_OP[1]}.{verb}", _OP[2])


class EndpointGroupRoutes:
    """Endpoint group routes of :class:`~fake_clouds.openstack.identity.IdentityAPI`."""

    service: Any
    url: Any
    _builtin: Any
    _entity: Any

    def _group_view(self, item: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in item.items() if k != "projects"}
        out["links"] = {"self": self.url(f"{_G}/{item['id']}")}
        return out

    @route("GET", _G, op=_op("list"))
    def list_endpoint_groups(self, req: ApiRequest) -> Reply:
        """``GET /v3/OS-EP-FILTER/endpoint_groups`` (filter ``name``)."""
        items = self.service.list_endpoint_groups()
        if "name" in req.args:
            items = [i for i in items if i["name"] == req.args["name"]]
        return Reply(200, {"endpoint_groups": [self._group_view(i) for i in items]})

    @route("POST", _G, op=_op("create"))
    def create_endpoint_group(self, req: ApiRequest) -> Reply:
        """Create an endpoint group (``name`` and ``filters`` required)."""
        spec = dict(req.member("endpoint_group"))
        spec.pop("projects", None)
        return Reply(
            201, {"endpoint_group": self._group_view(self.service.create_endpoint_group(spec))}
        )

    @route("GET", f"{_G}/<gid>", op=_op("get"))
    def get_endpoint_group(self, req: ApiRequest, gid: str) -> Reply:
        """Show an endpoint group."""
        return Reply(
            200, {"endpoint_group": self._group_view(self.service.get_endpoint_group(gid))}
        )

    @route("PATCH", f"{_G}/<gid>", op=_op("update"))
    def update_endpoint_group(self, req: ApiRequest, gid: str) -> Reply:
        """Change an endpoint group's name, description or filters."""
        spec = dict(req.member("endpoint_group"))
        unknown = sorted(set(spec) - {"name", "description", "filters"})
        if unknown:
            raise bad(f"Invalid input for field '{unknown[0]}'")
        if "filters" in spec:
            self.service._check_endpoint_group({"filters": spec["filters"]})
        item = self.service.update_endpoint_group(gid, spec)
        return Reply(200, {"endpoint_group": self._group_view(item)})

    @route("DELETE", f"{_G}/<gid>", op=_op("delete"))
    def delete_endpoint_group(self, req: ApiRequest, gid: str) -> Reply:
        """Delete an endpoint group."""
        self.service.delete_endpoint_group(gid)
        return Reply(204)

    @route("GET", f"{_G}/<gid>/endpoints", op=_op("get"))
    def endpoint_group_endpoints(self, req: ApiRequest, gid: str) -> Reply:
        """The endpoints the group's filters select."""
        filters = self.service.get_endpoint_group(gid)["filters"]
        registered = [self._entity("endpoints", e) for e in self.service.list_endpoints()]
        items = [
            e
            for e in self._builtin("endpoints") + registered
            if all(e.get(k) == v for k, v in filters.items())
        ]
        return Reply(200, {"endpoints": items})

    # --- projects -----------------------------------------------------------------------------

    def _set_projects(self, gid: str, projects: list[str]) -> None:
        self.service.update_endpoint_group(gid, {"projects": sorted(set(projects))})

    @route("PUT", f"{_G}/<gid>/projects/<pid>", op=_op("update"))
    def associate_project(self, req: ApiRequest, gid: str, pid: str) -> Reply:
        """Associate a project with the group."""
        group = self.service.get_endpoint_group(gid)
        self.service.get_project(pid)
        self._set_projects(gid, [*group["projects"], pid])
        return Reply(204)

    @route("GET", f"{_G}/<gid>/projects/<pid>", op=_op("get"))
    def check_project(self, req: ApiRequest, gid: str, pid: str) -> Reply:
        """The project, if associated with the group (404 otherwise)."""
        if pid not in self.service.get_endpoint_group(gid)["projects"]:
            raise ApiError(404, f"Project {pid} is not associated with endpoint group {gid}.")
        return Reply(200, {"project": self._entity("projects", self.service.get_project(pid))})

    @route("DELETE", f"{_G}/<gid>/projects/<pid>", op=_op("update"))
    def disassociate_project(self, req: ApiRequest, gid: str, pid: str) -> Reply:
        """Remove a project's association (404 when it has none)."""
        group = self.service.get_endpoint_group(gid)
        if pid not in group["projects"]:
            raise ApiError(404, f"Project {pid} is not associated with endpoint group {gid}.")
        self._set_projects(gid, [p for p in group["projects"] if p != pid])
        return Reply(204)

    @route("GET", f"{_G}/<gid>/projects", op=_op("get"))
    def group_projects(self, req: ApiRequest, gid: str) -> Reply:
        """The projects associated with the group."""
        ids = self.service.get_endpoint_group(gid)["projects"]
        projects = [self._entity("projects", self.service.get_project(p)) for p in ids]
        return Reply(200, {"projects": projects})

    @route("GET", "/v3/OS-EP-FILTER/projects/<pid>/endpoint_groups", op=_op("list"))
    def project_endpoint_groups(self, req: ApiRequest, pid: str) -> Reply:
        """The endpoint groups a project is associated with."""
        self.service.get_project(pid)
        items = [g for g in self.service.list_endpoint_groups() if pid in g["projects"]]
        return Reply(200, {"endpoint_groups": [self._group_view(g) for g in items]})
