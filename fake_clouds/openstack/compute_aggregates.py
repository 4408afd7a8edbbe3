"""Nova's ``os-aggregates`` on the wire, a mixin of :class:`~fake_clouds.openstack.compute.ComputeAPI`.

The compute service's host aggregates (:mod:`fake_clouds.aggregate_ops`):
list, create, show, update, delete, and the ``action`` calls ``add_host``,
``remove_host`` and ``set_metadata``. Bodies are nova's (``aggregate`` /
``aggregates``, ISO timestamps); a delete answers 200 with no body, as nova's.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route
from fake_clouds.rest.common import iso

_A = "/v2.1/os-aggregates/<aid>"


def _view(aggregate: dict[str, Any]) -> dict[str, Any]:
    out = dict(aggregate)
    out["created_at"] = iso(aggregate["created_at"])
    out["updated_at"] = iso(aggregate["updated_at"])
    out["deleted_at"] = None
    return out


class AggregateRoutes:
    """``/os-aggregates`` routes (admin calls in nova; plugsim lets any token in)."""

    compute: Any

    @route("GET", "/v2.1/os-aggregates", op=("compute", "aggregates.list", "aggregate"))
    def list_aggregates(self, req: ApiRequest) -> Reply:
        """``GET /os-aggregates``."""
        return Reply(200, {"aggregates": [_view(a) for a in self.compute.list_aggregates()]})

    @route("POST", "/v2.1/os-aggregates", op=("compute", "aggregates.create", "aggregate"))
    def create_aggregate(self, req: ApiRequest) -> Reply:
        """``POST /os-aggregates`` with ``{"aggregate": {"name", "availability_zone"}}``."""
        spec = req.member("aggregate")
        if "name" not in spec:
            raise bad("Invalid input for field/attribute aggregate: 'name' is a required property")
        made = self.compute.create_aggregate(spec["name"], spec.get("availability_zone"))
        return Reply(200, {"aggregate": _view(made)})

    @route("GET", _A, op=("compute", "aggregates.get", "aggregate"))
    def get_aggregate(self, req: ApiRequest, aid: str) -> Reply:
        """``GET /os-aggregates/{id}``."""
        return Reply(200, {"aggregate": _view(self.compute.get_aggregate(aid))})

    @route("PUT", _A, op=("compute", "aggregates.update", "aggregate"))
    def update_aggregate(self, req: ApiRequest, aid: str) -> Reply:
        """``PUT /os-aggregates/{id}``: name and availability zone."""
        changed = self.compute.update_aggregate(aid, dict(req.member("aggregate")))
        return Reply(200, {"aggregate": _view(changed)})

    @route("DELETE", _A, op=("compute", "aggregates.delete", "aggregate"))
    def delete_aggregate(self, req: ApiRequest, aid: str) -> Reply:
        """``DELETE /os-aggregates/{id}`` (400 while it has hosts)."""
        self.compute.delete_aggregate(aid)
        return Reply(200, None)

    @route("POST", f"{_A}/action", op=("compute", "aggregates.action", "aggregate"))
    def aggregate_action(self, req: ApiRequest, aid: str) -> Reply:
        """``add_host``, ``remove_host`` or ``set_metadata``."""
        body = req.json()
        if not isinstance(body, dict) or len(body) != 1:
            raise bad("An aggregate action is one of add_host, remove_host, set_metadata")
        ((action, args),) = body.items()
        if not isinstance(args, dict):
            raise bad(f"Invalid input for field/attribute {action}: an object is required")
        if action in ("add_host", "remove_host") and isinstance(args.get("host"), str):
            method = getattr(self.compute, f"{action.split('_')[0]}_aggregate_host")
            return Reply(200, {"aggregate": _view(method(aid, args["host"]))})
        if action == "set_metadata" and "metadata" in args:
            changed = self.compute.set_aggregate_metadata(aid, args["metadata"])
            return Reply(200, {"aggregate": _view(changed)})
        raise bad(f"Invalid aggregate action {action!r} or arguments")
