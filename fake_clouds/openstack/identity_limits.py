"""Keystone's unified limits on the wire: registered (default) limits and project limits.

``POST /v3/registered_limits`` and ``POST /v3/limits`` take a list
(``{"registered_limits": [...]}``) and answer the created list, as keystone
does; showing, listing, updating (``PATCH``) and deleting one go through the
generic collection routes of :class:`~fake_clouds.openstack.identity.IdentityAPI`.
The limits are identity entities (:mod:`fake_clouds.identity`): one
registered limit per service, region and resource, and a project limit only
where a registered limit exists.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route

_KIND = {"registered_limits": "registered_limit", "limits": "limit"}


class LimitRoutes:
    """The batch create routes of unified limits (a mixin of the identity API)."""

    service: Any
    _builtin: Any
    _entity: Any

    def _known_service(self, service_id: Any) -> bool:
        known = {s["id"] for s in self._builtin("services")}
        known |= {s["id"] for s in self.service.list_services()}
        return service_id in known

    def _create_limits(self, req: ApiRequest, collection: str) -> Reply:
        specs = req.json().get(collection)
        if not isinstance(specs, list) or not specs or not all(isinstance(s, dict) for s in specs):
            raise bad(f"Invalid input for field '{collection}': a non-empty list of objects")
        for spec in specs:
            if not self._known_service(spec.get("service_id")):
                raise bad(f"Could not find service: {spec.get('service_id')}.")
            region = spec.get("region_id")
            if region is not None:
                self.service.get_region(region)
        create = getattr(self.service, f"create_{_KIND[collection]}")
        made = [self._entity(collection, create(dict(spec))) for spec in specs]
        return Reply(201, {collection: made})

    @route(
        "POST",
        "/v3/registered_limits",
        op=("identity", "registered_limits.create", "registered_limit"),
    )
    def create_registered_limits(self, req: ApiRequest) -> Reply:
        """``POST /v3/registered_limits``: create the listed default limits."""
        return self._create_limits(req, "registered_limits")

    @route("POST", "/v3/limits", op=("identity", "limits.create", "limit"))
    def create_limits(self, req: ApiRequest) -> Reply:
        """``POST /v3/limits``: create the listed project limits."""
        return self._create_limits(req, "limits")
