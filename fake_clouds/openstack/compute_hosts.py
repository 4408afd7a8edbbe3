"""Nova's view of its one compute host on the wire: hypervisors, ``os-services`` and the
extension list.

The world has one hypervisor, ``plugsim`` (64 vCPUs, 256 GiB of memory, 2 TB
of disk); what it reports as used is computed from the compute service's live
servers and their flavors, so it follows every boot and delete. The services
are the compute service's daemons (:mod:`fake_clouds.daemons`): while
``nova-compute`` is disabled a new server ends in ``ERROR`` (no valid host).
The extension list names what this fake serves.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.daemons import stable_uuid
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route
from fake_clouds.rest.common import iso

HYPERVISOR_ID = "5e1f0a6c-6a4b-4e61-9c2d-7a1b3c4d5e6f"
_CAPACITY = {"vcpus": 64, "memory_mb": 262144, "local_gb": 2000}
_LIST = ("compute", "servers.list", "server")
#: (alias, name, description) of the nova extensions served
EXTENSIONS = (
    ("os-aggregates", "Aggregates", "Host aggregates and their hosts and metadata."),
    ("os-availability-zone", "AvailabilityZone", "Availability zones."),
    ("os-extended-volumes", "ExtendedVolumes", "Volumes attached to a server."),
    ("os-flavor-access", "FlavorAccess", "Private flavors and their projects."),
    ("os-flavor-extra-specs", "FlavorExtraSpecs", "Flavor extra specs."),
    ("os-flavor-manage", "FlavorManage", "Flavor create and delete."),
    ("os-hypervisors", "Hypervisors", "The compute host and its usage."),
    ("os-keypairs", "Keypairs", "Keypair support."),
    ("os-quota-sets", "Quotas", "Per-project quota sets."),
    ("os-services", "Services", "The compute daemons, enabled or disabled."),
    ("os-volumes-attachment", "VolumeAttachments", "Attach volumes through nova."),
    ("servers", "Servers", "Servers and their actions."),
)


class ComputeHostRoutes:
    """Hypervisor and extension routes of :class:`~fake_clouds.openstack.compute.ComputeAPI`."""

    compute: Any

    def hypervisor_view(self, req: ApiRequest, detail: bool) -> dict[str, Any]:
        """Return nova's hypervisor body (usage from the live servers)."""
        servers = self.compute._live_servers()
        flavors = [self.compute._flavor_of(s) for s in servers]
        out: dict[str, Any] = {
            "id": HYPERVISOR_ID,
            "hypervisor_hostname": "plugsim",
            "state": "up",
            "status": "enabled",
        }
        if detail:
            used = {
                "vcpus_used": sum(f.get("vcpus", 0) for f in flavors),
                "memory_mb_used": sum(f.get("ram", 0) for f in flavors),
                "local_gb_used": sum(f.get("disk", 0) for f in flavors),
            }
            out.update(
                hypervisor_type="QEMU",
                hypervisor_version=8002000,
                host_ip="127.0.0.1",
                service={"host": "plugsim", "id": HYPERVISOR_ID, "disabled_reason": None},
                running_vms=len(servers),
                uptime=None,
            )
            if (req.version or (2, 1)) < (2, 88):
                out.update(
                    **_CAPACITY,
                    **used,
                    free_ram_mb=_CAPACITY["memory_mb"] - used["memory_mb_used"],
                    free_disk_gb=_CAPACITY["local_gb"] - used["local_gb_used"],
                    current_workload=0,
                    disk_available_least=_CAPACITY["local_gb"] - used["local_gb_used"],
                )
        return out

    def _hypervisors(self, req: ApiRequest, detail: bool) -> list[dict[str, Any]]:
        items = [self.hypervisor_view(req, detail)]
        pattern = req.args.get("hypervisor_hostname_pattern")
        return [h for h in items if pattern is None or pattern in h["hypervisor_hostname"]]

    @route("GET", "/v2.1/os-hypervisors", op=_LIST)
    def list_hypervisors(self, req: ApiRequest) -> Reply:
        """``GET /os-hypervisors``."""
        return Reply(200, {"hypervisors": self._hypervisors(req, False)})

    @route("GET", "/v2.1/os-hypervisors/detail", op=_LIST)
    def list_hypervisors_detail(self, req: ApiRequest) -> Reply:
        """``GET /os-hypervisors/detail``."""
        return Reply(200, {"hypervisors": self._hypervisors(req, True)})

    @route("GET", "/v2.1/os-hypervisors/<hid>", op=_LIST)
    def get_hypervisor(self, req: ApiRequest, hid: str) -> Reply:
        """``GET /os-hypervisors/{id}``."""
        if hid != HYPERVISOR_ID:
            raise ApiError(404, f"Hypervisor with ID {hid} could not be found.")
        return Reply(200, {"hypervisor": self.hypervisor_view(req, True)})

    @route("GET", "/v2.1/extensions")
    def extensions(self, req: ApiRequest) -> Reply:
        """``GET /extensions``: what this fake serves."""
        items = [
            {
                "alias": alias,
                "name": name,
                "description": text,
                "links": [],
                "namespace": f"http://docs.openstack.org/compute/ext/{alias}/api/v2.1",
                "updated": "2014-12-03T00:00:00Z",
            }
            for alias, name, text in EXTENSIONS
        ]
        return Reply(200, {"extensions": items})

    # --- os-services --------------------------------------------------------------------------

    def service_view(self, req: ApiRequest, daemon: dict[str, Any]) -> dict[str, Any]:
        """Return nova's service body (ids are UUIDs from microversion 2.53)."""
        ident: Any = stable_uuid(f"nova-service:{daemon['binary']}")
        if (req.version or (2, 1)) < (2, 53):
            ident = [d["binary"] for d in self.compute.list_daemons()].index(daemon["binary"]) + 1
        return {
            "id": ident,
            "binary": daemon["binary"],
            "host": daemon["host"],
            "zone": daemon["zone"],
            "status": daemon["status"],
            "state": daemon["state"],
            "disabled_reason": daemon["disabled_reason"],
            "forced_down": False,
            "updated_at": iso(daemon["updated_at"], zulu=False) + ".000000",
        }

    @route("GET", "/v2.1/os-services", op=("compute", "services.list", None))
    def list_services(self, req: ApiRequest) -> Reply:
        """``GET /os-services`` (filters ``binary`` and ``host``)."""
        items = self.compute.list_daemons()
        for key in ("binary", "host"):
            if key in req.args:
                items = [d for d in items if d[key] == req.args[key]]
        return Reply(200, {"services": [self.service_view(req, d) for d in items]})

    @route("PUT", "/v2.1/os-services/<target>", op=("compute", "services.update", None))
    def update_service(self, req: ApiRequest, target: str) -> Reply:
        """``PUT /os-services/{enable,disable,disable-log-reason}`` (before 2.53, with host
        and binary) or ``PUT /os-services/{id}`` with ``status`` (2.53 on)."""
        body = req.json()
        if target in ("enable", "disable", "disable-log-reason"):
            host, binary = body.get("host"), body.get("binary")
            if not isinstance(host, str) or not isinstance(binary, str):
                raise bad("Invalid input: 'host' and 'binary' strings are required")
            reason = body.get("disabled_reason") if target == "disable-log-reason" else None
            daemon = self.compute.set_daemon(binary, host, target == "enable", reason)
            return Reply(200, {"service": self.service_view(req, daemon)})
        found = [
            d
            for d in self.compute.list_daemons()
            if target == stable_uuid(f"nova-service:{d['binary']}")
        ]
        if not found:
            raise ApiError(404, f"Service {target} could not be found.")
        status = body.get("status", found[0]["status"])
        if status not in ("enabled", "disabled"):
            raise bad("Invalid input for field/attribute status: enabled or disabled")
        daemon = self.compute.set_daemon(
            found[0]["binary"], found[0]["host"], status == "enabled", body.get("disabled_reason")
        )
        return Reply(200, {"service": self.service_view(req, daemon)})
