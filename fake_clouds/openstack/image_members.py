"""Image members on the wire (glance): sharing a ``shared`` image with other projects.

``POST /v2/images/{id}/members`` with ``{"member": project_id}`` adds a member
``pending``; the member project accepts or rejects it with ``PUT
.../members/{project_id}``; ``DELETE`` stops sharing. The members are kept on
the compute service's image entity (:mod:`fake_clouds.image_ops`), so they are
part of the world's state.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route
from fake_clouds.rest.common import iso

_M = "/v2/images/<iid>/members"


def member_view(member: dict[str, Any]) -> dict[str, Any]:
    """Return glance's member body."""
    return {
        "image_id": member["image_id"],
        "member_id": member["member_id"],
        "status": member["status"],
        "created_at": iso(member["created_at"]),
        "updated_at": iso(member["updated_at"]),
        "schema": "/v2/schemas/member",
    }


class ImageMemberRoutes:
    """The member routes of :class:`~fake_clouds.openstack.image.ImageAPI` (a mixin)."""

    compute: Any

    @route("GET", _M, op=("compute", "images.list_members", "image"))
    def list_members(self, req: ApiRequest, iid: str) -> Reply:
        """``GET /v2/images/{id}/members``."""
        members = [member_view(m) for m in self.compute.list_image_members(iid)]
        return Reply(200, {"members": members, "schema": "/v2/schemas/members"})

    @route("POST", _M, op=("compute", "images.add_member", "image"))
    def add_member(self, req: ApiRequest, iid: str) -> Reply:
        """``POST /v2/images/{id}/members`` with ``{"member": project_id}``."""
        member = req.json().get("member")
        if not isinstance(member, str) or not member:
            raise bad("Invalid input for field 'member': a project id string is required")
        return Reply(200, member_view(self.compute.add_image_member(iid, member)))

    @route("GET", f"{_M}/<mid>", op=("compute", "images.get_member", "image"))
    def get_member(self, req: ApiRequest, iid: str, mid: str) -> Reply:
        """``GET /v2/images/{id}/members/{project_id}``."""
        return Reply(200, member_view(self.compute.get_image_member(iid, mid)))

    @route("PUT", f"{_M}/<mid>", op=("compute", "images.update_member", "image"))
    def update_member(self, req: ApiRequest, iid: str, mid: str) -> Reply:
        """``PUT /v2/images/{id}/members/{project_id}`` with ``{"status": ...}``."""
        status = req.json().get("status")
        if not isinstance(status, str):
            raise bad("Invalid input for field 'status': a string is required")
        return Reply(200, member_view(self.compute.update_image_member(iid, mid, status)))

    @route("DELETE", f"{_M}/<mid>", op=("compute", "images.remove_member", "image"))
    def remove_member(self, req: ApiRequest, iid: str, mid: str) -> Reply:
        """``DELETE /v2/images/{id}/members/{project_id}``."""
        self.compute.remove_image_member(iid, mid)
        return Reply(204)
