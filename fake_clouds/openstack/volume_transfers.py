"""Cinder volume transfers on the wire (``/volume-transfers`` from 3.55, ``/os-volume-transfer``
before): the block storage service's transfers (:mod:`fake_clouds.volume_transfers`).
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route
from fake_clouds.rest.common import iso

_P = "/v3/<project>"
_OP = "block_storage"


class VolumeTransferRoutes:
    """Transfer routes of :class:`~fake_clouds.openstack.block_storage.BlockStorageAPI`."""

    storage: Any
    url: Any

    def transfer_view(self, req: ApiRequest, item: dict[str, Any], base: str) -> dict[str, Any]:
        """Return cinder's transfer body."""
        out = {
            "id": item["id"],
            "name": item["name"] or None,
            "volume_id": item["volume_id"],
            "created_at": iso(item["created_at"], zulu=False) + ".000000",
            "links": [
                {"rel": "self", "href": self.url(f"/v3/{req.project_id}/{base}/{item['id']}")}
            ],
        }
        if "auth_key" in item:
            out["auth_key"] = item["auth_key"]
        return out

    @staticmethod
    def _base(req: ApiRequest) -> str:
        return "volume-transfers" if "/volume-transfers" in req.raw.path else "os-volume-transfer"

    @route("POST", f"{_P}/volume-transfers", op=(_OP, "transfers.create", "transfer"))
    @route("POST", f"{_P}/os-volume-transfer", op=(_OP, "transfers.create", "transfer"))
    def create_transfer(self, req: ApiRequest, project: str) -> Reply:
        """Offer a volume for transfer (the ``auth_key`` is shown once)."""
        spec = req.member("transfer")
        if not isinstance(spec.get("volume_id"), str):
            raise bad("Invalid input for field/attribute volume_id: a volume id is required")
        item = self.storage.create_transfer(spec["volume_id"], spec.get("name"))
        return Reply(202, {"transfer": self.transfer_view(req, item, self._base(req))})

    @route("GET", f"{_P}/volume-transfers", op=(_OP, "transfers.list", "transfer"))
    @route("GET", f"{_P}/volume-transfers/detail", op=(_OP, "transfers.list", "transfer"))
    @route("GET", f"{_P}/os-volume-transfer", op=(_OP, "transfers.list", "transfer"))
    @route("GET", f"{_P}/os-volume-transfer/detail", op=(_OP, "transfers.list", "transfer"))
    def list_transfers(self, req: ApiRequest, project: str) -> Reply:
        """The pending transfers."""
        base = self._base(req)
        items = [self.transfer_view(req, t, base) for t in self.storage.list_transfers()]
        return Reply(200, {"transfers": items})

    @route("GET", f"{_P}/volume-transfers/<tid>", op=(_OP, "transfers.get", "transfer"))
    @route("GET", f"{_P}/os-volume-transfer/<tid>", op=(_OP, "transfers.get", "transfer"))
    def get_transfer(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """One pending transfer."""
        item = self.storage.get_transfer(tid)
        return Reply(200, {"transfer": self.transfer_view(req, item, self._base(req))})

    @route("DELETE", f"{_P}/volume-transfers/<tid>", op=(_OP, "transfers.delete", "transfer"))
    @route("DELETE", f"{_P}/os-volume-transfer/<tid>", op=(_OP, "transfers.delete", "transfer"))
    def delete_transfer(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """Cancel a transfer."""
        self.storage.delete_transfer(tid)
        return Reply(202)

    @route("POST", f"{_P}/volume-transfers/<tid>/accept", op=(_OP, "transfers.accept", "transfer"))
    @route(
        "POST", f"{_P}/os-volume-transfer/<tid>/accept", op=(_OP, "transfers.accept", "transfer")
    )
    def accept_transfer(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """Accept a transfer with ``{"accept": {"auth_key"}}``: the volume joins the caller's
        project."""
        key = req.member("accept").get("auth_key")
        if not isinstance(key, str):
            raise bad("Invalid input for field/attribute auth_key: a string is required")
        item = self.storage.accept_transfer(tid, key, req.project_id)
        body = {"id": item["id"], "name": item["name"] or None, "volume_id": item["volume_id"]}
        return Reply(202, {"transfer": body})
