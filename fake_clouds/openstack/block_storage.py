"""Block Storage v3 on the wire (cinder): volumes and their actions, snapshots, backups,
volume types (:mod:`fake_clouds.openstack.volume_types`), availability zones,
limits and microversions.

The endpoint is ``/volume/v3/{project_id}``. Microversions ``3.0``-:data:`MAX_VERSION`
are accepted in ``OpenStack-API-Version: volume X.Y`` (406 outside, 400
malformed). Volumes, snapshots and backups are the block storage service's
entities, with its status machine (``creating`` -> ``available`` ...).
"""

from __future__ import annotations

import re
from typing import Any

from fake_clouds.core import scope
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, bad, route
from fake_clouds.openstack.block_storage_admin import BlockStorageAdminRoutes
from fake_clouds.openstack.block_storage_qos import QoSSpecsRoutes
from fake_clouds.openstack.name_fields import check_name
from fake_clouds.openstack.volume_transfers import VolumeTransferRoutes
from fake_clouds.openstack.volume_types import DEFAULT_TYPE_ID, VolumeTypeRoutes
from fake_clouds.rest.common import iso
from sdk import exception

MIN_VERSION = (3, 0)
MAX_VERSION = (3, 70)
_KEYS = {
    400: "badRequest",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    406: "notAcceptable",
    409: "conflictingRequest",
    413: "overLimit",
    429: "overLimit",
}
_VERSION = re.compile(r"^([1-9]\d*)\.(0|[1-9]\d*)$")
_P = "/v3/<project>"
_VOL = ("block_storage", "volumes.get", "volume")
_VOLUME_ARGS = (
    "size",
    "name",
    "description",
    "snapshot_id",
    "source_volid",
    "imageRef",
    "volume_type",
    "metadata",
    "availability_zone",
)


def _stamp(t: float) -> str:
    return iso(t, zulu=False) + ".000000"


class BlockStorageAPI(
    QoSSpecsRoutes, VolumeTypeRoutes, BlockStorageAdminRoutes, VolumeTransferRoutes, ServiceAPI
):
    """Cinder v3 (``/volume/v3/{project_id}``)."""

    prefix = "volume"
    catalog_type = "block-storage"
    catalog_name = "cinderv3"

    @property
    def storage(self) -> Any:
        """The block storage service."""
        return self.cloud.service("block_storage")

    def endpoint(self, project_id: str) -> str:
        """Cinder's catalog URL with the project id."""
        return self.url(f"/v3/{project_id}")

    def error_body(self, status: int, message: str) -> Any:
        """Cinder's ``{"<kind>": {"code", "message"}}``."""
        return {_KEYS.get(status, "computeFault"): {"code": status, "message": message}}

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Shape the block storage service's errors as cinder does."""
        return self.error_body(status, str(ex))

    def negotiate(self, req: ApiRequest) -> dict[str, str]:
        """Read ``OpenStack-API-Version: volume X.Y``; echo the version served."""
        raw = None
        header = req.headers.get("OpenStack-API-Version")
        if header:
            service, _, value = header.strip().partition(" ")
            if service.lower() == "volume":
                raw = value.strip()
        version = MIN_VERSION
        if raw:
            if raw.lower() == "latest":
                version = MAX_VERSION
            else:
                match = _VERSION.match(raw)
                if match is None:
                    raise ApiError(400, f"Invalid API version request string {raw!r}.")
                version = (int(match.group(1)), int(match.group(2)))
                if not MIN_VERSION <= version <= MAX_VERSION:
                    raise ApiError(
                        406,
                        f"Version {raw} is not supported by the API. Minimum is 3.0 and "
                        f"maximum is {MAX_VERSION[0]}.{MAX_VERSION[1]}.",
                    )
        req.version = version
        text = f"{version[0]}.{version[1]}"
        return {"OpenStack-API-Version": f"volume {text}", "Vary": "OpenStack-API-Version"}

    def _version_doc(self) -> dict[str, Any]:
        return {
            "id": "v3.0",
            "status": "CURRENT",
            "version": f"{MAX_VERSION[0]}.{MAX_VERSION[1]}",
            "min_version": "3.0",
            "updated": "2023-08-31T00:00:00Z",
            "links": [{"rel": "self", "href": self.url("/v3/")}],
            "media-types": [
                {
                    "base": "application/json",
                    "type": "application/vnd.openstack.volume+json;version=3",
                }
            ],
        }

    @route("GET", "/", public=True)
    def versions(self, req: ApiRequest) -> Reply:
        """``GET /volume``."""
        return Reply(300, {"versions": [self._version_doc()]})

    @route("GET", "/v3", public=True)
    @route("GET", _P, public=True)
    def version(self, req: ApiRequest, project: str | None = None) -> Reply:
        """``GET /volume/v3``."""
        return Reply(200, {"versions": [self._version_doc()]})

    # --- views ----------------------------------------------------------------------------

    def volume_view(self, req: ApiRequest, vol: dict[str, Any]) -> dict[str, Any]:
        """Return a cinder volume body."""
        out = {k: v for k, v in vol.items() if k not in ("created_at", "updated_at")}
        out.update(
            created_at=_stamp(vol["created_at"]),
            updated_at=_stamp(vol["updated_at"]),
            links=[{"rel": "self", "href": self.url(f"/v3/{req.project_id}/volumes/{vol['id']}")}],
            user_id=req.user_id,
            encrypted=False,
            replication_status="disabled",
            consistencygroup_id=None,
            group_id=None,
            migration_status=None,
            volume_type_id=self._type_id(vol.get("volume_type")),
            **{
                "os-vol-tenant-attr:tenant_id": scope.owner_of(self.storage, "volume", vol["id"])
                or req.project_id,
                "os-vol-host-attr:host": "plugsim@lvm#lvm",
            },
        )
        out["attachments"] = [
            {
                "server_id": a.get("server_id"),
                "attachment_id": a.get("attachment_id", a.get("server_id")),
                "volume_id": vol["id"],
                "device": a.get("device") or a.get("mountpoint"),
                "id": vol["id"],
            }
            for a in vol.get("attachments", [])
        ]
        if out.get("volume_image_metadata") is None:
            out.pop("volume_image_metadata", None)
        return out

    def _type_id(self, ref: Any) -> str:
        try:
            return str(self.find_type(str(ref))["id"])
        except ApiError:
            return DEFAULT_TYPE_ID

    def simple_view(self, req: ApiRequest, item: dict[str, Any], what: str) -> dict[str, Any]:
        """Return a snapshot or backup body."""
        out = {k: v for k, v in item.items() if k not in ("created_at", "updated_at")}
        out.update(created_at=_stamp(item["created_at"]), updated_at=_stamp(item["updated_at"]))
        out["links"] = [
            {"rel": "self", "href": self.url(f"/v3/{req.project_id}/{what}/{item['id']}")}
        ]
        out.setdefault("metadata", {})
        out["os-extended-snapshot-attributes:project_id"] = req.project_id
        return out

    # --- volumes ----------------------------------------------------------------------------

    def _filtered(self, req: ApiRequest, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for key in ("name", "status", "volume_id", "bootable"):
            if key in req.args:
                items = [i for i in items if str(i.get(key)) == req.args[key]]
        if "limit" in req.args:
            if not req.args["limit"].isdigit():
                raise bad(f"Invalid input received: limit={req.args['limit']!r}")
            items = items[: int(req.args["limit"])]
        return items

    @route("GET", f"{_P}/volumes", op=("block_storage", "volumes.list", "volume"))
    def list_volumes(self, req: ApiRequest, project: str) -> Reply:
        """``GET /volumes``: ids, names and links."""
        items = self._filtered(req, self.storage.list_volumes())
        return Reply(200, {"volumes": [{"id": v["id"], "name": v["name"]} for v in items]})

    @route("GET", f"{_P}/volumes/detail", op=("block_storage", "volumes.list", "volume"))
    def list_volumes_detail(self, req: ApiRequest, project: str) -> Reply:
        """``GET /volumes/detail``."""
        items = self._filtered(req, self.storage.list_volumes())
        return Reply(200, {"volumes": [self.volume_view(req, v) for v in items]})

    @route("POST", f"{_P}/volumes", op=("block_storage", "volumes.create", "volume"))
    def create_volume(self, req: ApiRequest, project: str) -> Reply:
        """``POST /volumes``."""
        spec = req.member("volume")
        check_name(spec)
        args = {k: spec[k] for k in _VOLUME_ARGS if spec.get(k) is not None}
        if "size" in args and (
            isinstance(args["size"], bool) or not isinstance(args["size"], int | str)
        ):
            raise bad(f"Invalid input for field/attribute size. Value: {args['size']!r}.")
        if isinstance(args.get("size"), str):
            if not args["size"].isdigit():
                raise bad(f"Invalid input for field/attribute size. Value: {args['size']!r}.")
            args["size"] = int(args["size"])
        vol = self.storage.create_volume(**args)
        return Reply(202, {"volume": self.volume_view(req, vol)})

    @route("GET", f"{_P}/volumes/<vid>", op=_VOL)
    def get_volume(self, req: ApiRequest, project: str, vid: str) -> Reply:
        """``GET /volumes/{id}``."""
        return Reply(200, {"volume": self.volume_view(req, self.storage.get_volume(vid))})

    @route("PUT", f"{_P}/volumes/<vid>", op=("block_storage", "volumes.update", "volume"))
    def update_volume(self, req: ApiRequest, project: str, vid: str) -> Reply:
        """``PUT /volumes/{id}`` (name, description, metadata)."""
        spec = req.member("volume")
        check_name(spec)
        args = {k: spec[k] for k in ("name", "description", "metadata") if k in spec}
        return Reply(
            200, {"volume": self.volume_view(req, self.storage.update_volume(vid, **args))}
        )

    @route("DELETE", f"{_P}/volumes/<vid>", op=("block_storage", "volumes.delete", "volume"))
    def delete_volume(self, req: ApiRequest, project: str, vid: str) -> Reply:
        """``DELETE /volumes/{id}``."""
        self.storage.delete_volume(vid)
        return Reply(202)

    @route("GET", f"{_P}/volumes/<vid>/metadata", op=_VOL)
    def volume_metadata(self, req: ApiRequest, project: str, vid: str) -> Reply:
        """``GET /volumes/{id}/metadata``."""
        return Reply(200, {"metadata": self.storage.get_volume(vid)["metadata"]})

    @route("POST", f"{_P}/volumes/<vid>/metadata", op=("block_storage", "volumes.update", "volume"))
    def set_volume_metadata(self, req: ApiRequest, project: str, vid: str) -> Reply:
        """Merge volume metadata."""
        metadata = req.json().get("metadata")
        if not isinstance(metadata, dict):
            raise bad("Malformed request body: metadata must be an object")
        current = dict(self.storage.get_volume(vid)["metadata"])
        current.update(metadata)
        vol = self.storage.update_volume(vid, metadata=current)
        return Reply(200, {"metadata": vol["metadata"]})

    def action_op(self, req: ApiRequest, project: str, vid: str) -> Any:
        """The operation a volume action dispatches as."""
        try:
            body = req.json()
        except ApiError:
            return _VOL
        ops = {"os-extend": "volumes.extend", "os-attach": "volumes.attach"}
        ops.update({"os-detach": "volumes.detach", "os-force_detach": "volumes.detach"})
        for key in sorted(body):
            if key in ops:
                return ("block_storage", ops[key], "volume")
        return _VOL

    @route("POST", f"{_P}/volumes/<vid>/action", op="action_op")
    def volume_action(self, req: ApiRequest, project: str, vid: str) -> Reply:
        """``POST /volumes/{id}/action``: os-extend, os-attach, os-detach, os-reset_status ..."""
        body = req.json()
        if len(body) != 1:
            raise bad("The action body must hold exactly one action.")
        (key,) = body
        arg = body[key] if isinstance(body[key], dict) else {}
        if key == "os-extend":
            new_size = arg.get("new_size")
            if isinstance(new_size, str) and new_size.isdigit():
                new_size = int(new_size)
            if not isinstance(new_size, int) or isinstance(new_size, bool):
                raise bad("Invalid input for field/attribute new_size.")
            self.storage.extend_volume(vid, new_size)
        elif key == "os-attach":
            server = arg.get("instance_uuid")
            if not isinstance(server, str):
                raise bad("Invalid input for field/attribute instance_uuid.")
            self.storage.attach_volume(vid, server, arg.get("mountpoint"))
        elif key in ("os-detach", "os-force_detach"):
            self.storage.detach_volume(vid, arg.get("attachment_id"))
        elif key in ("os-set_bootable", "os-update_readonly_flag", "os-reserve", "os-unreserve"):
            self.storage.get_volume(vid)
        else:
            self.app.count_unserved(self.prefix, "POST", f"/v3/{{id}}/volumes/{{id}}/action#{key}")
            self.storage.get_volume(vid)
            raise bad(f"There is no such action: {key}")
        return Reply(202)

    # --- snapshots and backups ------------------------------------------------------------

    @route("GET", f"{_P}/snapshots", op=("block_storage", "snapshots.list", "snapshot"))
    @route("GET", f"{_P}/snapshots/detail", op=("block_storage", "snapshots.list", "snapshot"))
    def list_snapshots(self, req: ApiRequest, project: str) -> Reply:
        """``GET /snapshots[/detail]``."""
        items = self._filtered(req, self.storage.list_snapshots())
        return Reply(200, {"snapshots": [self.simple_view(req, s, "snapshots") for s in items]})

    @route("POST", f"{_P}/snapshots", op=("block_storage", "snapshots.create", "snapshot"))
    def create_snapshot(self, req: ApiRequest, project: str) -> Reply:
        """``POST /snapshots``."""
        spec = req.member("snapshot")
        check_name(spec)
        if not isinstance(spec.get("volume_id"), str):
            raise bad("Invalid input for field/attribute volume_id.")
        force = spec.get("force", False)
        if isinstance(force, str):
            force = force.lower() in ("true", "1", "yes")
        args = {k: spec[k] for k in ("name", "description", "metadata") if spec.get(k) is not None}
        snap = self.storage.create_snapshot(spec["volume_id"], force=bool(force), **args)
        return Reply(202, {"snapshot": self.simple_view(req, snap, "snapshots")})

    @route("GET", f"{_P}/snapshots/<sid>", op=("block_storage", "snapshots.get", "snapshot"))
    def get_snapshot(self, req: ApiRequest, project: str, sid: str) -> Reply:
        """``GET /snapshots/{id}``."""
        snap = self.storage.get_snapshot(sid)
        return Reply(200, {"snapshot": self.simple_view(req, snap, "snapshots")})

    @route("DELETE", f"{_P}/snapshots/<sid>", op=("block_storage", "snapshots.delete", "snapshot"))
    def delete_snapshot(self, req: ApiRequest, project: str, sid: str) -> Reply:
        """``DELETE /snapshots/{id}``."""
        self.storage.delete_snapshot(sid)
        return Reply(202)

    @route("GET", f"{_P}/backups", op=("block_storage", "backups.list", "backup"))
    @route("GET", f"{_P}/backups/detail", op=("block_storage", "backups.list", "backup"))
    def list_backups(self, req: ApiRequest, project: str) -> Reply:
        """``GET /backups[/detail]``."""
        items = self._filtered(req, self.storage.list_backups())
        return Reply(200, {"backups": [self.simple_view(req, b, "backups") for b in items]})

    @route("POST", f"{_P}/backups", op=("block_storage", "backups.create", "backup"))
    def create_backup(self, req: ApiRequest, project: str) -> Reply:
        """``POST /backups`` (``force`` backs up an in-use volume)."""
        spec = req.member("backup")
        check_name(spec)
        if not isinstance(spec.get("volume_id"), str):
            raise bad("Invalid input for field/attribute volume_id.")
        args = {k: spec[k] for k in ("name", "description") if spec.get(k) is not None}
        backup = self.storage.create_backup(
            spec["volume_id"],
            incremental=bool(spec.get("incremental")),
            force=bool(spec.get("force")),
            **args,
        )
        return Reply(202, {"backup": self.simple_view(req, backup, "backups")})

    @route("GET", f"{_P}/backups/<bid>", op=("block_storage", "backups.get", "backup"))
    def get_backup(self, req: ApiRequest, project: str, bid: str) -> Reply:
        """``GET /backups/{id}``."""
        return Reply(
            200, {"backup": self.simple_view(req, self.storage.get_backup(bid), "backups")}
        )

    @route("DELETE", f"{_P}/backups/<bid>", op=("block_storage", "backups.delete", "backup"))
    def delete_backup(self, req: ApiRequest, project: str, bid: str) -> Reply:
        """``DELETE /backups/{id}``."""
        self.storage.delete_backup(bid)
        return Reply(202)

    @route("POST", f"{_P}/backups/<bid>/restore", op=("block_storage", "backups.restore", "backup"))
    def restore_backup(self, req: ApiRequest, project: str, bid: str) -> Reply:
        """``POST /backups/{id}/restore``."""
        spec = req.json().get("restore") or {}
        if not isinstance(spec, dict):
            raise bad("Invalid input for field/attribute restore.")
        vol = self.storage.restore_backup(bid, spec.get("volume_id"), spec.get("name"))
        body = {"backup_id": bid, "volume_id": vol["id"], "volume_name": vol["name"]}
        return Reply(202, {"restore": body})

    # --- types, zones, limits ---------------------------------------------------------------

    @route("GET", f"{_P}/os-availability-zone")
    def zones(self, req: ApiRequest, project: str) -> Reply:
        """The one zone, ``nova``."""
        zone = {"zoneName": "nova", "zoneState": {"available": True}}
        return Reply(200, {"availabilityZoneInfo": [zone]})

    @route("GET", f"{_P}/limits")
    def limits(self, req: ApiRequest, project: str) -> Reply:
        """The block storage quotas and what is used."""
        quotas = self.storage.quotas
        used = self.storage._count("volume")
        absolute = {
            "maxTotalVolumes": quotas.get("volumes", -1),
            "totalVolumesUsed": used,
            "maxTotalVolumeGigabytes": quotas.get("gigabytes", -1),
            "totalGigabytesUsed": self.storage._gigabytes(),
            "maxTotalSnapshots": quotas.get("snapshots", -1),
            "totalSnapshotsUsed": self.storage._count("snapshot"),
            "maxTotalBackups": quotas.get("backups", -1),
            "totalBackupsUsed": self.storage._count("backup"),
            "maxTotalBackupGigabytes": quotas.get("backup_gigabytes", -1),
            "totalBackupGigabytesUsed": sum(
                b["size"] for b in self.storage.list_backups() if b.get("size") is not None
            ),
        }
        return Reply(200, {"limits": {"absolute": absolute, "rate": []}})
