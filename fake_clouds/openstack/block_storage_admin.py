"""Cinder's operator routes on the wire: ``os-services``, backend capabilities,
the volume summary, per-project quota sets, the extension list and the
resource filters.

The services are the block storage service's daemons
(:mod:`fake_clouds.volume_hosts`): disabling ``cinder-volume`` makes new
volumes end in ``error``. The extension and resource filter lists describe
what this fake serves, so a client probing them learns the truth.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.daemons import DAEMONS
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route
from fake_clouds.rest.common import iso

_P = "/v3/<project>"
_LIST = ("block_storage", "services.list", None)
#: (alias, name, description) of the extensions served
EXTENSIONS = (
    ("os-availability-zone", "AvailabilityZones", "Describe availability zones."),
    ("os-extended-snapshot-attributes", "ExtendedSnapshotAttributes", "Snapshot project ids."),
    ("os-services", "Services", "Services support (enable, disable, list)."),
    ("os-types-manage", "TypesManage", "Volume types create, update and delete."),
    ("os-types-extra-specs", "TypesExtraSpecs", "Volume type extra specs."),
    ("os-vol-host-attr", "VolumeHostAttribute", "The host of a volume."),
    ("os-vol-tenant-attr", "VolumeTenantAttribute", "The project of a volume."),
    ("os-volume-actions", "VolumeActions", "Extend, attach and detach volumes."),
    ("os-volume-transfer", "VolumeTransfer", "Volume transfers between projects."),
    ("backups", "Backups", "Volume backups with restore."),
    ("capabilities", "Capabilities", "Backend capabilities."),
)
#: resource -> the query filters its list endpoint honours
RESOURCE_FILTERS = {
    "volume": ["name", "status", "volume_id", "bootable", "limit"],
    "snapshot": ["name", "status", "volume_id"],
    "backup": ["name", "status", "volume_id"],
}


class BlockStorageAdminRoutes:
    """Operator routes of :class:`~fake_clouds.openstack.block_storage.BlockStorageAPI`."""

    storage: Any

    @staticmethod
    def _service_view(daemon: dict[str, Any]) -> dict[str, Any]:
        return {
            "binary": daemon["binary"],
            "host": daemon["host"],
            "zone": daemon["zone"],
            "status": daemon["status"],
            "state": daemon["state"],
            "disabled_reason": daemon["disabled_reason"],
            "updated_at": iso(daemon["updated_at"], zulu=False) + ".000000",
            "cluster": None,
            "frozen": False,
            "replication_status": "disabled",
            "active_backend_id": None,
        }

    @route("GET", f"{_P}/os-services", op=_LIST)
    def list_services(self, req: ApiRequest, project: str) -> Reply:
        """``GET /os-services`` (filters ``binary`` and ``host``)."""
        items = self.storage.list_daemons()
        for key in ("binary", "host"):
            if key in req.args:
                items = [d for d in items if d[key] == req.args[key]]
        return Reply(200, {"services": [self._service_view(d) for d in items]})

    @route("PUT", f"{_P}/os-services/<action>", op=("block_storage", "services.update", None))
    def update_service(self, req: ApiRequest, project: str, action: str) -> Reply:
        """``PUT /os-services/{enable,disable,disable-log-reason}`` with host and binary."""
        if action not in ("enable", "disable", "disable-log-reason"):
            raise ApiError(404, f"Unknown os-services action {action}.", unserved=True)
        body = req.json()
        host, binary = body.get("host"), body.get("binary")
        if not isinstance(host, str) or not isinstance(binary, str):
            raise bad("Invalid input: 'host' and 'binary' strings are required")
        reason = body.get("disabled_reason") if action == "disable-log-reason" else None
        daemon = self.storage.set_daemon(binary, host, action == "enable", reason)
        out = {
            "host": host,
            "binary": binary,
            "status": daemon["status"],
            "disabled": daemon["status"] == "disabled",
        }
        if action == "disable-log-reason":
            out["disabled_reason"] = reason
        return Reply(200, out)

    @route("GET", f"{_P}/capabilities/<path:host>", op=_LIST)
    def capabilities(self, req: ApiRequest, project: str, host: str) -> Reply:
        """``GET /capabilities/{host}``: what the one LVM backend offers."""
        volume_hosts = {h for b, h in DAEMONS if b == "cinder-volume"}
        if host.split("#", 1)[0] not in volume_hosts:
            raise ApiError(404, f"Host {host} could not be found.")
        body = {
            "namespace": "OS::Storage::Capabilities::plugsim@lvmdriver-1",
            "vendor_name": "Open Source",
            "volume_backend_name": "lvmdriver-1",
            "pool_name": None,
            "driver_version": "3.0.0",
            "storage_protocol": "iSCSI",
            "display_name": None,
            "description": None,
            "visibility": None,
            "replication_targets": [],
            "properties": {
                "thin_provisioning": {
                    "title": "Thin Provisioning",
                    "description": "Sets thin provisioning.",
                    "type": "boolean",
                }
            },
        }
        return Reply(200, body)

    @route("GET", f"{_P}/volumes/summary", op=("block_storage", "volumes.list", "volume"))
    def volume_summary(self, req: ApiRequest, project: str) -> Reply:
        """``GET /volumes/summary``: count, size and metadata values of the volumes."""
        volumes = self.storage.list_volumes()
        metadata: dict[str, list[str]] = {}
        for vol in volumes:
            for key, value in sorted((vol.get("metadata") or {}).items()):
                if value not in metadata.setdefault(key, []):
                    metadata[key].append(value)
        summary = {
            "total_count": len(volumes),
            "total_size": sum(v["size"] for v in volumes),
            "metadata": metadata,
        }
        return Reply(200, {"volume-summary": summary})

    # --- quota sets ------------------------------------------------------------------------

    def _quota_body(self, project: str, quotas: dict[str, int], usage: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"id": project, **quotas}
        if usage:
            storage = self.storage
            used = {
                "volumes": storage._count("volume"),
                "gigabytes": storage._gigabytes(),
                "snapshots": storage._count("snapshot"),
                "backups": storage._count("backup"),
            }
            body = {
                k: v if k == "id" else {"limit": v, "in_use": used.get(k, 0), "reserved": 0}
                for k, v in body.items()
            }
        return body

    @route("GET", f"{_P}/os-quota-sets/<target>", op=("block_storage", "quotas.get", None))
    def quota_set(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``GET /os-quota-sets/{project}[?usage=true]``."""
        usage = req.args.get("usage", "").lower() in ("true", "1", "yes")
        quotas = self.storage.project_quota(target)
        return Reply(200, {"quota_set": self._quota_body(target, quotas, usage)})

    @route("GET", f"{_P}/os-quota-sets/<target>/defaults")
    def quota_set_defaults(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``GET /os-quota-sets/{project}/defaults``: the service-wide quotas."""
        quotas = dict(sorted(self.storage.quotas.items()))
        return Reply(200, {"quota_set": self._quota_body(target, quotas, False)})

    @route("PUT", f"{_P}/os-quota-sets/<target>", op=("block_storage", "quotas.update", None))
    def update_quota_set(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``PUT /os-quota-sets/{project}`` with ``{"quota_set": {name: limit}}``."""
        spec = dict(req.member("quota_set"))
        spec.pop("tenant_id", None)
        body = self._quota_body(target, self.storage.set_project_quota(target, spec), False)
        body.pop("id")
        return Reply(200, {"quota_set": body})

    @route("DELETE", f"{_P}/os-quota-sets/<target>", op=("block_storage", "quotas.delete", None))
    def revert_quota_set(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``DELETE /os-quota-sets/{project}``."""
        self.storage.revert_project_quota(target)
        return Reply(200)

    @route("GET", f"{_P}/extensions")
    def extensions(self, req: ApiRequest, project: str) -> Reply:
        """``GET /extensions``: what this fake serves."""
        items = [
            {
                "alias": alias,
                "name": name,
                "description": text,
                "links": [],
                "updated": "2024-01-01T00:00:00+00:00",
            }
            for alias, name, text in EXTENSIONS
        ]
        return Reply(200, {"extensions": items})

    @route("GET", f"{_P}/resource_filters")
    def resource_filters(self, req: ApiRequest, project: str) -> Reply:
        """``GET /resource_filters`` (3.33): the filters each list honours."""
        items = [{"resource": r, "filters": list(f)} for r, f in RESOURCE_FILTERS.items()]
        if "resource" in req.args:
            items = [i for i in items if i["resource"] == req.args["resource"]]
        return Reply(200, {"resource_filters": items})
