"""Volume transfers of the block storage service (cinder's ``volume-transfers``), a mixin of
:class:`fake_clouds.block_storage.BlockStorageService`.

Offering an ``available`` volume for transfer makes it ``awaiting-transfer``
and returns a one-time ``auth_key`` (from the ``ids`` stream; only its digest
is kept). Accepting the transfer with that key moves the volume to the
accepting project and makes it ``available`` again; deleting the transfer
cancels it, likewise. A wrong key is a 400, as cinder answers.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fake_clouds.core.service import operation
from sdk import exception


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class VolumeTransferOperations:
    """Offering, listing, accepting and cancelling volume transfers."""

    @staticmethod
    def _transfer_view(ent: Any) -> dict[str, Any]:
        view = ent.view()
        view.pop("auth_digest", None)
        return view

    @operation("transfers.create", kind="transfer")
    def create_transfer(self: Any, volume_id: str, name: str | None = None) -> dict[str, Any]:
        """Offer a volume for transfer; the returned view carries the ``auth_key`` once."""
        vol = self._get("volume", volume_id, label="Volume")
        if vol.status != "available" or vol.pending:
            raise _bad(f"Invalid volume: status must be available to transfer (is {vol.status})")
        key = self.world.rng.hex_id(16)
        attrs = {"volume_id": vol.id, "auth_digest": _digest(key), "accepted": False}
        ent = self._create("transfer", name or "", "available", attrs)
        vol.status = "awaiting-transfer"
        vol.updated_at = self._now()
        return {**self._transfer_view(ent), "auth_key": key}

    @operation("transfers.get", kind="transfer", id_arg="transfer_id")
    def get_transfer(self: Any, transfer_id: str) -> dict[str, Any]:
        """Return one pending transfer."""
        return self._transfer_view(self._get("transfer", transfer_id, label="Transfer"))

    @operation("transfers.list", kind="transfer")
    def list_transfers(self: Any) -> list[dict[str, Any]]:
        """Return the pending transfers."""
        return [self._transfer_view(e) for e in self._list("transfer") if not e.deleted]

    def _finish(self: Any, ent: Any, project_id: str | None) -> dict[str, Any]:
        vol = self._store["volume"].get(ent.attrs["volume_id"])
        if vol is not None and not vol.deleted:
            vol.status = "available"
            vol.updated_at = self._now()
            if project_id is not None:
                vol.attrs["project_id"] = project_id
        view = self._transfer_view(ent)
        self._start(ent, "delete", None, None)
        return view

    @operation("transfers.accept", kind="transfer", id_arg="transfer_id")
    def accept_transfer(
        self: Any, transfer_id: str, auth_key: str, project_id: str = "plugsim"
    ) -> dict[str, Any]:
        """Accept a transfer with its key: the volume moves to *project_id*."""
        ent = self._get("transfer", transfer_id, label="Transfer")
        if not isinstance(auth_key, str) or _digest(auth_key) != ent.attrs["auth_digest"]:
            raise _bad(f"Invalid auth key: attempt to accept transfer {transfer_id} failed")
        return self._finish(ent, project_id)

    @operation("transfers.delete", kind="transfer", id_arg="transfer_id")
    def delete_transfer(self: Any, transfer_id: str) -> None:
        """Cancel a transfer: the volume is ``available`` to its owner again."""
        self._finish(self._get("transfer", transfer_id, label="Transfer"), None)
