"""Nova's ``os-volume_attachments`` on the wire: a server's attached volumes.

Attaching through nova is the block storage service's attach (the volume goes
``attaching`` -> ``in-use``), detaching its detach (``detaching`` ->
``available``); the attachment list is the server's
``os-extended-volumes:volumes_attached``. From microversion 2.79 the body
carries ``delete_on_termination``, which 2.85 lets a ``PUT`` change; a volume
attached with it is deleted with its server.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route

_A = "/v2.1/servers/<sid>/os-volume_attachments"
_SERVER = ("compute", "servers.get", "server")
_ATTACHED = "os-extended-volumes:volumes_attached"


class VolumeAttachmentRoutes:
    """The volume attachment routes of :class:`~fake_clouds.openstack.compute.ComputeAPI`."""

    compute: Any
    cloud: Any

    @property
    def storage(self) -> Any:
        """The block storage service (404 on the wire when the world has none)."""
        if "block_storage" not in self.cloud.service_names():
            raise ApiError(404, "This world has no block storage service.")
        return self.cloud.service("block_storage")

    @staticmethod
    def attachment_view(req: ApiRequest, sid: str, entry: dict[str, Any]) -> dict[str, Any]:
        """Return nova's volumeAttachment body for the request's microversion."""
        out: dict[str, Any] = {
            "id": entry["id"],
            "volumeId": entry["id"],
            "serverId": sid,
            "device": entry.get("device"),
        }
        version = req.version or (2, 1)
        if version >= (2, 70):
            out["tag"] = None
        if version >= (2, 79):
            out["delete_on_termination"] = bool(entry.get("delete_on_termination"))
        return out

    def _entry(self, sid: str, vid: str) -> dict[str, Any]:
        for entry in self.compute.get_server(sid)[_ATTACHED]:
            if entry["id"] == vid:
                return dict(entry)
        raise ApiError(404, f"Volume {vid} is not attached to server {sid}.")

    @route("GET", _A, op=_SERVER)
    def list_volume_attachments(self, req: ApiRequest, sid: str) -> Reply:
        """``GET /servers/{id}/os-volume_attachments``."""
        entries = self.compute.get_server(sid)[_ATTACHED]
        return Reply(
            200, {"volumeAttachments": [self.attachment_view(req, sid, e) for e in entries]}
        )

    @route("POST", _A, op=("block_storage", "volumes.attach", "volume"))
    def attach_volume(self, req: ApiRequest, sid: str) -> Reply:
        """``POST /servers/{id}/os-volume_attachments`` with ``{"volumeAttachment": ...}``."""
        spec = req.member("volumeAttachment")
        vid = spec.get("volumeId")
        if not isinstance(vid, str) or not vid:
            raise bad("Invalid input for field/attribute volumeId: a volume id is required")
        device = spec.get("device")
        if device is not None and not isinstance(device, str):
            raise bad("Invalid input for field/attribute device: expected a string")
        delete = spec.get("delete_on_termination", False)
        if not isinstance(delete, bool):
            raise bad("Invalid input for field/attribute delete_on_termination: a boolean")
        self.storage.attach_volume(vid, sid, device, delete_on_termination=delete)
        body = self.attachment_view(req, sid, self._entry(sid, vid))
        return Reply(200, {"volumeAttachment": body})

    @route("GET", f"{_A}/<vid>", op=_SERVER)
    def get_volume_attachment(self, req: ApiRequest, sid: str, vid: str) -> Reply:
        """``GET /servers/{id}/os-volume_attachments/{volume_id}``."""
        return Reply(
            200, {"volumeAttachment": self.attachment_view(req, sid, self._entry(sid, vid))}
        )

    @route("PUT", f"{_A}/<vid>", op=("block_storage", "volumes.update_attachment", "volume"))
    def update_volume_attachment(self, req: ApiRequest, sid: str, vid: str) -> Reply:
        """``PUT``: change ``delete_on_termination`` (2.85; swapping volumes is not served)."""
        spec = req.member("volumeAttachment")
        if spec.get("volumeId", vid) != vid:
            raise ApiError(
                400,
                "Swapping the volume of an attachment is not served by the fake.",
                unserved=True,
            )
        delete = spec.get("delete_on_termination")
        if not isinstance(delete, bool):
            raise bad("Invalid input for field/attribute delete_on_termination: a boolean")
        if (req.version or (2, 1)) < (2, 85):
            raise bad("delete_on_termination can be updated from microversion 2.85")
        self._entry(sid, vid)
        self.storage.update_attachment(vid, sid, delete)
        return Reply(202)

    @route("DELETE", f"{_A}/<vid>", op=("block_storage", "volumes.detach", "volume"))
    def detach_volume(self, req: ApiRequest, sid: str, vid: str) -> Reply:
        """``DELETE``: detach the volume."""
        self._entry(sid, vid)
        self.storage.detach_volume(vid, sid)
        return Reply(202)
