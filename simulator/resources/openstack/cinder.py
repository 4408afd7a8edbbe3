"""``OS::Cinder::Volume`` and ``OS::Cinder::VolumeAttachment`` on the fake block storage."""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource
from simulator.resources.openstack._base import (
    SINCE,
    Translated,
    compute_id,
    find_in,
    gone,
    hidden,
    status_done,
)

__all__ = ["Volume", "VolumeAttachment"]


#: Volume statuses cinder refuses a delete in; a delete waits for them to pass.
BUSY = ("creating", "downloading", "extending", "backing-up", "restoring-backup")


class Volume(Translated):  # plugsim: ignore[PS301] - see the package
    """``OS::Cinder::Volume``: a block storage volume.

    Made empty, from an image, a snapshot, another volume or a backup
    (restored). Growing ``size`` extends the volume in place (it must not be
    attached); shrinking is refused. Name, description and metadata change in
    place. The ``Snapshot`` deletion policy (and a stack snapshot) backs the
    volume up first; a stack restore restores that backup into the volume.
    """

    #: The property map ``plugsim lint`` creates this type with (default-world entities).
    lint_properties: ClassVar[dict[str, Any]] = {"size": 1}
    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "block_storage"
    entity = "volumes"
    translations: ClassVar[dict[str, str]] = {"imageRef": "image"}
    #: Hidden in Heat 27 and dropped: whether a volume attaches twice is its volume type's say.
    ignored: ClassVar[tuple[str, ...]] = ("multiattach",)

    properties_schema = {
        "size": properties.Schema(
            properties.Schema.INTEGER,
            "Size in GiB (default: the size of the source); growing it extends the volume.",
            update_allowed=True,
            constraints=[constraints.Range(min=1)],
        ),
        "name": properties.Schema(properties.Schema.STRING, "Volume name.", update_allowed=True),
        "description": properties.Schema(
            properties.Schema.STRING, "Description.", update_allowed=True
        ),
        "image": properties.Schema(
            properties.Schema.STRING,
            "Name or id of an image to copy into the volume (makes it bootable).",
            constraints=[constraints.CustomConstraint("glance.image")],
        ),
        "snapshot_id": properties.Schema(
            properties.Schema.STRING,
            "Snapshot to make the volume from.",
            constraints=[constraints.CustomConstraint("cinder.snapshot")],
        ),
        "source_volid": properties.Schema(
            properties.Schema.STRING,
            "Volume to clone.",
            constraints=[constraints.CustomConstraint("cinder.volume")],
        ),
        "backup_id": properties.Schema(
            properties.Schema.STRING,
            "Backup to restore into the new volume; changing it restores that backup into the "
            "volume in place (what a stack restore does).",
            update_allowed=True,
            constraints=[constraints.CustomConstraint("cinder.backup")],
        ),
        "volume_type": properties.Schema(properties.Schema.STRING, "Volume type."),
        "imageRef": hidden(properties.Schema(properties.Schema.STRING), "image"),
        "multiattach": hidden(properties.Schema(properties.Schema.BOOLEAN), "a volume type"),
        "metadata": properties.Schema(
            properties.Schema.MAP, "Key/value metadata.", default={}, update_allowed=True
        ),
        "availability_zone": properties.Schema(properties.Schema.STRING, "Availability zone."),
    }
    attributes_schema = {
        "size": attributes.Schema(
            "Size in GiB, as text (Heat 27 gives it as a string).", type=attributes.Schema.STRING
        ),
        "status": attributes.Schema("Volume status.", type=attributes.Schema.STRING),
        "display_name": attributes.Schema("Volume name.", type=attributes.Schema.STRING),
        "bootable": attributes.Schema("Whether it is bootable.", type=attributes.Schema.BOOLEAN),
        "attachments": attributes.Schema("Attachments.", type=attributes.Schema.LIST),
        "metadata": attributes.Schema("Metadata.", type=attributes.Schema.MAP),
        "created_at": attributes.Schema(
            "Creation time (virtual seconds).", type=attributes.Schema.NUMBER
        ),
        "availability_zone": attributes.Schema("Availability zone.", type=attributes.Schema.STRING),
        "snapshot_id": attributes.Schema(  # plugsim: ignore[PS151] - None unless from one
            "The snapshot it was made from.", type=attributes.Schema.STRING
        ),
        "source_volid": attributes.Schema(  # plugsim: ignore[PS151] - None unless a clone
            "The volume it cloned.", type=attributes.Schema.STRING
        ),
        "volume_type": attributes.Schema(  # plugsim: ignore[PS151] - None unless given
            "Volume type.", type=attributes.Schema.STRING
        ),
        "multiattach": attributes.Schema(
            "Whether it attaches more than once.", type=attributes.Schema.BOOLEAN
        ),
        "display_description": attributes.Schema(  # plugsim: ignore[PS151] - None unless given
            "Description.", type=attributes.Schema.STRING
        ),
        "metadata_values": attributes.Schema("Metadata as a map.", type=attributes.Schema.MAP),
        "attachments_list": attributes.Schema(
            "Attachments as a list.", type=attributes.Schema.LIST
        ),
    }

    def validate(self) -> None:
        """Check the properties; without a source a size is required."""
        super().validate()
        sources = ("image", "snapshot_id", "source_volid", "backup_id")
        if not self.properties["size"] and not any(self.properties[s] for s in sources):
            raise exception.StackValidationFailed(
                error_message="size is required for a volume without a source",
                path=["resources", self.name, "properties", "size"],
            )

    def _name(self) -> str:
        return self.properties["name"] or self.physical_resource_name()

    def handle_create(self) -> str:
        """Create (or restore) the volume."""
        self.validate()
        cinder = self.client()
        if self.properties["backup_id"]:
            backup = find_in(cinder.backups.list(), self.properties["backup_id"], "Backup")
            restored = cinder.restores.restore(backup.id, None, self._name())
            # as Heat, the restored volume takes the resource's name and description
            cinder.volumes.update(
                restored.volume_id, name=self._name(), description=self.properties["description"]
            )
            self.resource_id_set(restored.volume_id)
            return restored.volume_id
        kwargs: dict[str, Any] = {"name": self._name()}
        for key in ("description", "volume_type", "availability_zone", "source_volid"):
            if self.properties[key]:
                kwargs[key] = self.properties[key]
        if self.properties["snapshot_id"]:
            snaps = cinder.volume_snapshots.list()
            kwargs["snapshot_id"] = find_in(snaps, self.properties["snapshot_id"], "Snapshot").id
        if self.properties["image"]:
            compute = self.client("compute")
            kwargs["imageRef"] = compute_id(compute, "images", self.properties["image"], "Image")
        if self.properties["metadata"]:
            kwargs["metadata"] = {str(k): str(v) for k, v in self.properties["metadata"].items()}
        volume = cinder.volumes.create(size=self.properties["size"], **kwargs)
        self.resource_id_set(volume.id)
        return volume.id

    def check_create_complete(self, volume_id: str) -> bool:
        """Done when the volume is available."""
        status = self.client().volumes.get(volume_id).status
        return status_done(
            f"Volume {volume_id}",
            status,
            ["available"],
            errors=["error", "error_restoring"],
            pending=["creating", "restoring-backup", "downloading"],
        )

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> dict[str, Any]:
        """Rename/describe/tag in place; restore a new ``backup_id`` into the volume; extend.

        A restore runs first and the extend (if any) once the volume is available again, as in
        Heat; a shrink is refused before anything is changed.
        """
        diff = dict(prop_diff or {})
        cinder = self.client()
        volume = cinder.volumes.get(self.resource_id) if diff.get("size") else None
        if volume is not None and diff["size"] < volume.size:
            raise exception.NotSupported(
                f"Shrinking volume {self.name} from {volume.size} to {diff['size']} GiB "
                "is not supported"
            )
        changes: dict[str, Any] = {}
        if "name" in diff:
            changes["name"] = diff["name"] or self.physical_resource_name()
        if "description" in diff:
            changes["description"] = diff["description"] or ""
        if "metadata" in diff:
            changes["metadata"] = {str(k): str(v) for k, v in (diff["metadata"] or {}).items()}
        if changes:
            cinder.volumes.update(self.resource_id, **changes)
        token: dict[str, Any] = {"restoring": False, "extend": None, "extending": False}
        if diff.get("backup_id"):
            backup = find_in(cinder.backups.list(), diff["backup_id"], "Backup")
            cinder.restores.restore(backup.id, self.resource_id)
            token["restoring"] = True
        if volume is not None and diff["size"] > volume.size:
            if volume.status != "available":
                raise exception.NotSupported(
                    f"Volume {self.name} must be detached (available) to be extended; "
                    f"it is {volume.status}"
                )
            token["extend"] = diff["size"]
        return token

    def check_update_complete(self, token: dict[str, Any] | None) -> bool:
        """Done when a restore, then an extend, have finished."""
        if not token:
            return True
        cinder = self.client()
        if token["restoring"] or token["extending"]:
            status = cinder.volumes.get(self.resource_id).status
            what = "Volume restore" if token["restoring"] else "Volume extend"
            if not status_done(
                what,
                status,
                ["available"],
                errors=["error", "error_restoring", "error_extending"],
                pending=["restoring-backup", "extending"],
            ):
                return False
            token["restoring"] = token["extending"] = False
        if token["extend"]:
            cinder.volumes.extend(self.resource_id, token["extend"])
            token["extend"], token["extending"] = None, True
            return False
        return True

    def handle_restore(self, defn: Any, restore_data: Any) -> Any:
        """Restore from a stack snapshot: the snapshot's definition with the backup it made.

        As in Heat, the backup the snapshot kept (``backup_id``) is restored into the volume
        (an update of ``backup_id``); the sources a volume is made from once (image, another
        volume) are left out. A snapshot entry without a backup restores the definition.
        """
        data = (restore_data or {}).get("resource_data") or {}
        backup_id = data.get("backup_id") if isinstance(data, dict) else None
        if not backup_id:
            return defn
        props = {
            k: v
            for k, v in defn.properties.items()
            if k not in ("image", "imageRef", "source_volid") and v is not None
        }
        props["backup_id"] = backup_id
        return defn.freeze(properties=props)

    def _backup(self, force: bool = False) -> str:
        backup = self.client().backups.create(
            self.resource_id, name=f"{self._name()}-backup", force=force
        )
        self.data_set("backup_id", backup.id)
        return backup.id

    def handle_snapshot(self) -> str:
        """Stack snapshot: back the volume up (``force``: an attached volume too, as Heat does)."""
        return self._backup(force=True)

    def check_snapshot_complete(self, backup_id: str) -> bool:
        """Done when the backup is available."""
        status = self.client().backups.get(backup_id).status
        return status_done("Volume backup", status, ["available"], pending=["creating"])

    def handle_delete_snapshot(self, snapshot: Any) -> None:
        """Delete the backup a stack snapshot made."""
        data = (snapshot or {}).get("resource_data", snapshot) or {}
        backup_id = data.get("backup_id") if isinstance(data, dict) else None
        if backup_id:
            try:
                self.client().backups.delete(backup_id)
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)

    def handle_delete(self) -> dict[str, Any] | None:
        """Delete the volume."""
        if self.resource_id is None:
            return None
        # Deleted from check_delete_complete once the volume is settled: cinder
        # refuses to delete one still being created (e.g. after a failed create).
        return {"volume": self.resource_id, "backup": None, "deleting": None}

    def handle_snapshot_delete(self, state: Any = None) -> dict[str, Any] | None:
        """Deletion policy Snapshot: back the volume up, then delete it."""
        if self.resource_id is None:
            return None
        if not str(state).endswith("COMPLETE"):
            return self.handle_delete()
        return {"volume": self.resource_id, "backup": self._backup(), "deleting": False}

    def check_delete_complete(self, token: dict[str, Any] | None) -> bool:
        """Wait for the backup (if any), then for the volume to be gone."""
        if not token:
            return True
        cinder = self.client()
        if token.get("deleting", True) is None:
            try:
                status = cinder.volumes.get(token["volume"]).status
                if status in BUSY:
                    return False
                cinder.volumes.delete(token["volume"])
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)
                return True
            token["deleting"] = True
            return False
        if token.get("deleting") is False:
            status = cinder.backups.get(token["backup"]).status
            if not status_done("Volume backup", status, ["available"], pending=["creating"]):
                return False
            cinder.volumes.delete(token["volume"])
            token["deleting"] = True
            return False
        return gone(self, "block_storage", lambda: cinder.volumes.get(token["volume"]))

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        volume = self.client().volumes.get(self.resource_id).to_dict()
        renamed = {
            "display_name": "name",
            "display_description": "description",
            "metadata_values": "metadata",
            "attachments_list": "attachments",
        }
        if name in renamed:
            return volume.get(renamed[name])
        if name == "bootable":
            return str(volume.get("bootable")).lower() == "true"
        if name == "size":
            return str(volume.get("size"))
        return volume.get(name)


class VolumeAttachment(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Cinder::VolumeAttachment``: attaches a volume to a server.

    The resource id is the volume id. Deleting it detaches the volume (a
    volume already detached, e.g. because its server is gone, is fine).
    """

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "block_storage"
    lint_properties: ClassVar[dict[str, Any]] = {
        "instance_uuid": {"get_resource": "server"},
        "volume_id": {"get_resource": "volume"},
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "server": {
            "type": "OS::Nova::Server",
            "properties": {"image": "cirros", "flavor": "m1.tiny"},
        },
        "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
    }
    properties_schema = {
        "instance_uuid": properties.Schema(
            properties.Schema.STRING, "Id of the server.", required=True, update_allowed=True
        ),
        "volume_id": properties.Schema(
            properties.Schema.STRING,
            "Id or name of the volume.",
            required=True,
            update_allowed=True,
            constraints=[constraints.CustomConstraint("cinder.volume")],
        ),
        "mountpoint": properties.Schema(
            properties.Schema.STRING,
            "Device in the server, e.g. /dev/vdb.",
            update_allowed=True,
        ),
    }

    def handle_create(self) -> str:
        """Ask compute to attach the volume."""
        cinder = self.client()
        volume = find_in(cinder.volumes.list(), self.properties["volume_id"], "Volume")
        server = self.properties["instance_uuid"]
        self.client("compute").volumes.create_server_volume(
            server, volume.id, self.properties["mountpoint"]
        )
        self.resource_id_set(volume.id)
        self.data_set("server_id", server)
        return volume.id

    def check_create_complete(self, volume_id: str) -> bool:
        """Done when the volume is in-use."""
        status = self.client().volumes.get(volume_id).status
        return status_done("Volume attach", status, ["in-use"], pending=["attaching", "available"])

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> dict[str, Any] | None:
        """Move the attachment in place, as Heat does: detach, then attach what is named now."""
        diff = dict(prop_diff or {})
        if not diff:
            return None
        new = {k: diff.get(k, self.properties[k]) for k in self.properties_schema}
        server = self.data().get("server_id") or self.properties["instance_uuid"]
        if self.resource_id is not None:
            volume = self.client().volumes.get(self.resource_id)
            if volume.status == "in-use":
                self.client("compute").volumes.delete_server_volume(server, self.resource_id)
        return {"phase": "detaching", "old": self.resource_id, "new": new}

    def check_update_complete(self, token: dict[str, Any] | None) -> bool:
        """Wait for the old volume to be free, attach the new one, wait until it is in use."""
        if token is None:
            return True
        cinder = self.client()
        if token["phase"] == "detaching":
            if token["old"] is not None:
                status = cinder.volumes.get(token["old"]).status
                if not status_done(
                    "Volume detach", status, ["available"], pending=["detaching", "in-use"]
                ):
                    return False
            new = token["new"]
            volume = find_in(cinder.volumes.list(), new["volume_id"], "Volume")
            self.client("compute").volumes.create_server_volume(
                new["instance_uuid"], volume.id, new["mountpoint"]
            )
            self.resource_id_set(volume.id)
            self.data_set("server_id", new["instance_uuid"])
            token.update(phase="attaching", volume=volume.id)
            return False
        status = cinder.volumes.get(token["volume"]).status
        return status_done("Volume attach", status, ["in-use"], pending=["attaching", "available"])

    def handle_delete(self) -> str | None:
        """Detach the volume."""
        if self.resource_id is None:
            return None
        server = self.data().get("server_id") or self.properties["instance_uuid"]
        try:
            volume = self.client().volumes.get(self.resource_id)
            if volume.status == "in-use":
                self.client("compute").volumes.delete_server_volume(server, self.resource_id)
                self.data_set("detaching", "1")
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None
        return self.resource_id

    def check_delete_complete(self, volume_id: str | None) -> bool:
        """Done when the volume is available (or gone)."""
        if volume_id is None:
            return True
        try:
            status = self.client().volumes.get(volume_id).status
            if status == "in-use" and not self.data().get("detaching"):
                # Still attaching when the delete began (e.g. after a failed create).
                server = self.data().get("server_id") or self.properties["instance_uuid"]
                self.client("compute").volumes.delete_server_volume(server, volume_id)
                self.data_set("detaching", "1")
                return False
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return True
        return status_done(
            "Volume detach", status, ["available"], pending=["attaching", "detaching", "in-use"]
        )
