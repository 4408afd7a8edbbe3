"""The block storage service (cinder-like): volumes, snapshots and backups.

Volume statuses: ``creating`` -> ``available``; attach: ``attaching`` ->
``in-use``; detach: ``detaching`` -> ``available``; extend: ``extending`` ->
``available``; delete: ``deleting`` -> gone; restore target:
``restoring-backup`` -> ``available``. Errors: ``error`` (``error_deleting``
when a delete fails). Deleting a volume that is attached or has snapshots is a
Conflict (409). Snapshots and backups: ``creating`` -> ``available``,
``deleting`` -> gone; a backup being restored is ``restoring``.

Quotas (defaults): ``volumes`` 10, ``gigabytes`` 1000, ``snapshots`` 10,
``backups`` 10, ``backup_gigabytes`` 1000.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.clients.block_storage import BlockStorageClient
from fake_clouds.core.entities import Entity
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from fake_clouds.daemons import DAEMONS, DaemonOperations
from fake_clouds.project_quotas import ProjectQuotas
from fake_clouds.volume_transfers import VolumeTransferOperations
from sdk import exception

ATTACHED = "os-extended-volumes:volumes_attached"


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


def _conflict(message: str) -> exception.Conflict:
    return exception.Conflict(message, body={"conflict": {"code": 409, "message": message}})


def _size(value: Any, what: str = "size") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _bad(f"Invalid volume {what}: {value!r} (an integer number of GiB >= 1)")
    return value


@register_service
class BlockStorageService(VolumeTransferOperations, DaemonOperations, ProjectQuotas, Service):
    """Volumes, snapshots and backups with cinder-like statuses."""

    name = "block_storage"
    kinds = {"volume": "error", "snapshot": "error", "backup": "error", "transfer": "error"}
    transitional = {"backup": "creating", "snapshot": "creating", "volume": "creating"}
    default_quotas = {
        "volumes": 10,
        "gigabytes": 1000,
        "snapshots": 10,
        "backups": 10,
        "backup_gigabytes": 1000,
    }
    client_class = BlockStorageClient

    daemon_hosts = DAEMONS

    def __init__(self, world: Any) -> None:
        super().__init__(world)
        #: project id -> its default volume type's id (cinder's ``default-types``)
        self.default_types: dict[str, str] = {}

    def to_state(self) -> dict[str, Any]:
        """Return the service's state, the per-project default types included."""
        return {**super().to_state(), "default_types": dict(sorted(self.default_types.items()))}

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the service's state (the default types too) with *state*."""
        super().load_state(state)
        self.default_types = dict(state.get("default_types") or {})

    @operation("volumes.set_default_type", kind="volume")
    def set_default_type(self, project_id: str, type_id: str | None) -> None:
        """Make *type_id* the default volume type of *project_id* (None: back to cinder's)."""
        if not isinstance(project_id, str) or not project_id:
            raise _bad("A project id is required")
        if type_id is None:
            self.default_types.pop(project_id, None)
        else:
            self.default_types[project_id] = str(type_id)

    def _gigabytes(self) -> int:
        return sum(v.attrs["size"] for v in self._live("volume") if not v.preseeded)

    # --- volumes ---------------------------------------------------------------------

    @operation("volumes.create", kind="volume")
    def create_volume(
        self,
        size: int | None = None,
        name: str | None = None,
        description: str | None = None,
        snapshot_id: str | None = None,
        source_volid: str | None = None,
        imageRef: str | None = None,  # noqa: N803 - cinder's argument name
        volume_type: str | None = None,
        metadata: dict[str, str] | None = None,
        availability_zone: str | None = None,
    ) -> dict[str, Any]:
        """Create a volume (``creating`` -> ``available``), maybe from a snapshot or volume."""
        source_size = 0
        if snapshot_id is not None:
            snap = self._get("snapshot", snapshot_id, label="Snapshot")
            source_size = snap.attrs["size"]
        if source_volid is not None:
            source_size = self._get("volume", source_volid, label="Volume").attrs["size"]
        if imageRef is not None:
            self.world.service("compute")._by_id_or_name("image", imageRef, "image")  # type: ignore[attr-defined]
        if size is None and source_size:
            size = source_size
        size = _size(size)
        if size < source_size:
            raise _bad(f"Volume size {size} GiB is smaller than its source ({source_size} GiB)")
        if metadata is not None and not isinstance(metadata, dict):
            raise _bad("Volume metadata must be a mapping")
        self._check_quota("volumes", self._count("volume"))
        self._check_quota("gigabytes", self._gigabytes(), size)
        attrs = {
            "size": size,
            "description": description,
            "snapshot_id": snapshot_id,
            "source_volid": source_volid,
            "volume_image_metadata": {"image_id": imageRef} if imageRef else None,
            "bootable": "true" if imageRef else "false",
            "volume_type": volume_type or "__DEFAULT__",
            "metadata": dict(metadata or {}),
            "availability_zone": availability_zone or "nova",
            "attachments": [],
            "multiattach": False,
            "encrypted": False,
        }
        vol = self._create("volume", name or "", "creating", attrs)
        final = "available" if self.daemon_enabled("cinder-volume") else "error"
        self._start(vol, "create", "creating", final)
        return vol.view()

    @operation("volumes.get", kind="volume", id_arg="volume_id")
    def get_volume(self, volume_id: str) -> dict[str, Any]:
        """Return one volume."""
        return self._get("volume", volume_id, label="Volume").view()

    @operation("volumes.list", kind="volume")
    def list_volumes(self, **filters: Any) -> list[dict[str, Any]]:
        """Return volumes whose fields equal *filters*."""
        return [v.view() for v in self._list("volume", **filters)]

    @operation("volumes.update", kind="volume", id_arg="volume_id")
    def update_volume(
        self,
        volume_id: str,
        name: str | None = None,
        description: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Change a volume's name, description or metadata."""
        vol = self._get("volume", volume_id, label="Volume")
        if name is not None:
            vol.name = name
        if description is not None:
            self._set(vol, description=description)
        if metadata is not None:
            if not isinstance(metadata, dict):
                raise _bad("Volume metadata must be a mapping")
            self._set(vol, metadata=dict(metadata))
        vol.updated_at = self._now()
        return vol.view()

    @operation("volumes.delete", kind="volume", id_arg="volume_id")
    def delete_volume(self, volume_id: str) -> None:
        """Delete a volume; Conflict while attached, busy or with snapshots."""
        vol = self._get("volume", volume_id, label="Volume")
        if vol.status == "deleting":
            return
        deletable = ("available", "error", "error_restoring", "error_extending", "error_deleting")
        if vol.status not in deletable or vol.pending:
            raise _conflict(
                f"Invalid volume: Volume {vol.id} status must be available or error or "
                f"error_restoring or error_extending or error_managing and must not be "
                f"migrating, attached, belong to a group, have snapshots or be disassociated "
                f"from snapshots after volume transfer (status {vol.status})."
            )
        if any(s.attrs["volume_id"] == vol.id for s in self._live("snapshot")):
            raise _conflict(f"Invalid volume: Volume {vol.id} still has dependent snapshots.")
        self._start(vol, "delete", "deleting", None)

    @operation("volumes.extend", kind="volume", id_arg="volume_id")
    def extend_volume(self, volume_id: str, new_size: int) -> dict[str, Any]:
        """Grow an available volume: ``extending`` -> ``available`` with the new size."""
        vol = self._get("volume", volume_id, label="Volume")
        new_size = _size(new_size, "new_size")
        if new_size <= vol.attrs["size"]:
            raise _bad(
                f"New size for extend must be greater than current size. "
                f"(current: {vol.attrs['size']}, extended: {new_size})."
            )
        self._require_status(vol, ("available",), "extend")
        self._check_quota("gigabytes", self._gigabytes(), new_size - vol.attrs["size"])
        self._start(vol, "extend", "extending", "available", final_attrs={"size": new_size})
        return vol.view()

    @operation("volumes.attach", kind="volume", id_arg="volume_id")
    def attach_volume(
        self,
        volume_id: str,
        server_id: str,
        mountpoint: str | None = None,
        delete_on_termination: bool = False,
    ) -> dict[str, Any]:
        """Attach to a server: ``attaching`` -> ``in-use``; returns the volume.

        With *delete_on_termination* the volume is deleted with the server.
        """
        if not isinstance(delete_on_termination, bool):
            raise _bad("delete_on_termination must be a boolean")
        vol = self._get("volume", volume_id, label="Volume")
        compute = self.world.service("compute")
        server = compute._get("server", server_id, label="Instance")
        if server.status not in ("ACTIVE", "SHUTOFF") or server.pending:
            raise _conflict(
                f"Cannot attach volume {vol.id} to server {server.id} in status {server.status}"
            )
        self._require_status(vol, ("available",), "attach")
        used = [a["device"] for a in server.attrs[ATTACHED] if a.get("device")]
        device = mountpoint or f"/dev/vd{chr(ord('b') + len(used))}"
        attachment = {
            "attachment_id": self.world.new_id(),
            "server_id": server.id,
            "volume_id": vol.id,
            "device": device,
            "attached_at": self._now(),
        }
        self._set(vol, attachments=[attachment])
        entry = {"id": vol.id, "device": device, "delete_on_termination": delete_on_termination}
        compute._set(server, **{ATTACHED: [*server.attrs[ATTACHED], entry]})
        self._start(vol, "attach", "attaching", "in-use")
        return vol.view()

    @operation("volumes.update_attachment", kind="volume", id_arg="volume_id")
    def update_attachment(
        self, volume_id: str, server_id: str, delete_on_termination: bool
    ) -> dict[str, Any]:
        """Change whether an attached volume is deleted with its server; return the entry."""
        vol = self._get("volume", volume_id, label="Volume")
        if not isinstance(delete_on_termination, bool):
            raise _bad("delete_on_termination must be a boolean")
        compute = self.world.service("compute")
        server = compute._get("server", server_id, label="Instance")
        entries = [dict(e) for e in server.attrs[ATTACHED]]
        mine = [e for e in entries if e["id"] == vol.id]
        if not mine:
            raise exception.NotFound(f"Volume {vol.id} is not attached to server {server_id}.")
        mine[0]["delete_on_termination"] = delete_on_termination
        compute._set(server, **{ATTACHED: entries})
        return dict(mine[0])

    @operation("volumes.detach", kind="volume", id_arg="volume_id")
    def detach_volume(self, volume_id: str, server_id: str | None = None) -> dict[str, Any]:
        """Detach from its server: ``detaching`` -> ``available``."""
        vol = self._get("volume", volume_id, label="Volume")
        self._require_status(vol, ("in-use",), "detach")
        attached_to = [a["server_id"] for a in vol.attrs["attachments"]]
        if server_id is not None and server_id not in attached_to:
            raise exception.NotFound(f"Volume {vol.id} is not attached to server {server_id}.")
        self._release_from_servers(vol)
        self._start(vol, "detach", "detaching", "available", final_attrs={"attachments": []})
        return vol.view()

    def _release_from_servers(self, vol: Entity) -> None:
        compute = self.world.service("compute")
        for att in vol.attrs["attachments"]:
            server = compute._store["server"].get(att["server_id"])
            if server is not None:
                kept = [v for v in server.attrs[ATTACHED] if v["id"] != vol.id]
                compute._set(server, **{ATTACHED: kept})

    def _boot_volumes(self, server: Entity, mappings: Any) -> None:
        """Attach the existing volumes a booting server's block device mappings name (part of
        ``servers.create``: no latency, no trace); the boot volume is ``/dev/vda``."""
        if not isinstance(mappings, list) or not all(isinstance(m, dict) for m in mappings):
            raise _bad("block_device_mapping_v2 must be a list of objects")
        wanted = [
            m for m in mappings if m.get("source_type") == "volume" and m.get("uuid") is not None
        ]
        volumes = [self._get("volume", m["uuid"], label="Volume") for m in wanted]
        for vol in volumes:
            self._require_status(vol, ("available",), "attach")
        entries = []
        for number, (mapping, vol) in enumerate(zip(wanted, volumes, strict=True)):
            device = "/dev/vda" if mapping.get("boot_index") in (0, "0") else None
            device = device or f"/dev/vd{chr(ord('b') + number)}"
            delete = bool(mapping.get("delete_on_termination", False))
            attachment = {
                "attachment_id": self.world.new_id(),
                "server_id": server.id,
                "volume_id": vol.id,
                "device": device,
                "attached_at": self._now(),
            }
            self._set(vol, attachments=[attachment])
            vol.status = "in-use"
            entries.append({"id": vol.id, "device": device, "delete_on_termination": delete})
        server.attrs[ATTACHED] = [*server.attrs[ATTACHED], *entries]

    def _server_gone(self, server_id: str) -> None:
        """Detach every volume of a server being deleted (no latency, no trace); a volume
        attached with ``delete_on_termination`` starts deleting."""
        server = self.world.service("compute")._store["server"].get(server_id)
        doomed = {
            e["id"]
            for e in (server.attrs.get(ATTACHED, []) if server is not None else [])
            if e.get("delete_on_termination")
        }
        for vol in self._live("volume"):
            if any(a["server_id"] == server_id for a in vol.attrs["attachments"]):
                vol.pending.clear()
                vol.status = "available"
                self._set(vol, attachments=[])
                if vol.id in doomed:
                    self._start(vol, "delete", "deleting", None)

    # --- snapshots --------------------------------------------------------------------

    @operation("snapshots.create", kind="snapshot")
    def create_snapshot(
        self,
        volume_id: str,
        name: str | None = None,
        description: str | None = None,
        force: bool = False,
        metadata: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Snapshot a volume (``available``, or ``in-use`` with *force*)."""
        vol = self._get("volume", volume_id, label="Volume")
        allowed = ("available", "in-use") if force else ("available",)
        self._require_status(vol, allowed, "create snapshot of")
        self._check_quota("snapshots", self._count("snapshot"))
        attrs = {
            "volume_id": vol.id,
            "size": vol.attrs["size"],
            "description": description,
            "metadata": dict(metadata or {}),
        }
        snap = self._create("snapshot", name or "", "creating", attrs)
        self._start(snap, "create", "creating", "available")
        return snap.view()

    @operation("snapshots.get", kind="snapshot", id_arg="snapshot_id")
    def get_snapshot(self, snapshot_id: str) -> dict[str, Any]:
        """Return one snapshot."""
        return self._get("snapshot", snapshot_id, label="Snapshot").view()

    @operation("snapshots.list", kind="snapshot")
    def list_snapshots(self, **filters: Any) -> list[dict[str, Any]]:
        """Return snapshots whose fields equal *filters*."""
        return [s.view() for s in self._list("snapshot", **filters)]

    @operation("snapshots.delete", kind="snapshot", id_arg="snapshot_id")
    def delete_snapshot(self, snapshot_id: str) -> None:
        """Delete a snapshot (``deleting`` -> gone)."""
        snap = self._get("snapshot", snapshot_id, label="Snapshot")
        if snap.status == "deleting":
            return
        self._require_status(snap, ("available", "error"), "delete")
        self._start(snap, "delete", "deleting", None)

    # --- backups ----------------------------------------------------------------------

    @operation("backups.create", kind="backup")
    def create_backup(
        self,
        volume_id: str,
        name: str | None = None,
        description: str | None = None,
        incremental: bool = False,
        force: bool = False,
    ) -> dict[str, Any]:
        """Back a volume up (``creating`` -> ``available``)."""
        vol = self._get("volume", volume_id, label="Volume")
        allowed = ("available", "in-use") if force else ("available",)
        self._require_status(vol, allowed, "back up")
        self._check_quota("backups", self._count("backup"))
        used = sum(b.attrs["size"] for b in self._live("backup") if not b.preseeded)
        self._check_quota("backup_gigabytes", used, vol.attrs["size"])
        attrs = {
            "volume_id": vol.id,
            "size": vol.attrs["size"],
            "description": description,
            "is_incremental": bool(incremental),
        }
        backup = self._create("backup", name or "", "creating", attrs)
        final = "available" if self.daemon_enabled("cinder-backup") else "error"
        self._start(backup, "create", "creating", final)
        return backup.view()

    @operation("backups.get", kind="backup", id_arg="backup_id")
    def get_backup(self, backup_id: str) -> dict[str, Any]:
        """Return one backup."""
        return self._get("backup", backup_id, label="Backup").view()

    @operation("backups.list", kind="backup")
    def list_backups(self, **filters: Any) -> list[dict[str, Any]]:
        """Return backups whose fields equal *filters*."""
        return [b.view() for b in self._list("backup", **filters)]

    @operation("backups.delete", kind="backup", id_arg="backup_id")
    def delete_backup(self, backup_id: str) -> None:
        """Delete a backup (``deleting`` -> gone)."""
        backup = self._get("backup", backup_id, label="Backup")
        if backup.status == "deleting":
            return
        self._require_status(backup, ("available", "error"), "delete")
        self._start(backup, "delete", "deleting", None)

    @operation("backups.restore", kind="backup", id_arg="backup_id")
    def restore_backup(
        self, backup_id: str, volume_id: str | None = None, name: str | None = None
    ) -> dict[str, Any]:
        """Restore into *volume_id* or a new volume; returns ``{backup_id, volume_id}``."""
        backup = self._get("backup", backup_id, label="Backup")
        self._require_status(backup, ("available",), "restore")
        if volume_id is None:
            self._check_quota("volumes", self._count("volume"))
            self._check_quota("gigabytes", self._gigabytes(), backup.attrs["size"])
            attrs = {
                "size": backup.attrs["size"],
                "description": f"restored from backup {backup.id}",
                "snapshot_id": None,
                "source_volid": None,
                "volume_image_metadata": None,
                "bootable": "false",
                "volume_type": "__DEFAULT__",
                "metadata": {},
                "availability_zone": "nova",
                "attachments": [],
                "multiattach": False,
            }
            vol = self._create(
                "volume", name or f"restore_backup_{backup.id}", "restoring-backup", attrs
            )
        else:
            vol = self._get("volume", volume_id, label="Volume")
            self._require_status(vol, ("available",), "restore into")
            if vol.attrs["size"] < backup.attrs["size"]:
                raise _bad(f"Volume {vol.id} is smaller than backup {backup.id}")
        self._start(vol, "restore", "restoring-backup", "available")
        self._start(backup, "restore", "restoring", "available")
        return {"backup_id": backup.id, "volume_id": vol.id, "volume_name": vol.name}
