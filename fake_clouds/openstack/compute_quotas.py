"""Nova's quota sets, limits and availability zones on the wire.

Quota sets are the compute service's per-project sets
(:mod:`fake_clouds.project_quotas`) over its service-wide quotas; ``limits``
reports the service-wide quotas and what the world's servers use.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route


class QuotaRoutes:
    """Quota, limit and zone routes of :class:`~fake_clouds.openstack.compute.ComputeAPI`."""

    compute: Any
    cloud: Any

    def _quota_body(self, project: str, quotas: dict[str, int], detail: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": project,
            "instances": quotas["instances"],
            "cores": quotas["cores"],
            "ram": quotas["ram"],
            "key_pairs": quotas["key_pairs"],
            "metadata_items": 128,
            "server_groups": 10,
            "server_group_members": 10,
        }
        if detail:
            servers = self.compute._live_servers()
            used = {
                "instances": len(servers),
                "cores": sum(self.compute._flavor_of(s)["vcpus"] for s in servers),
                "ram": sum(self.compute._flavor_of(s)["ram"] for s in servers),
                "key_pairs": self.compute._count("keypair"),
            }
            body = {
                k: v if k == "id" else {"limit": v, "in_use": used.get(k, 0), "reserved": 0}
                for k, v in body.items()
            }
        return body

    @route("GET", "/v2.1/os-quota-sets/<project>", op=("compute", "quotas.get", None))
    @route("GET", "/v2.1/os-quota-sets/<project>/detail", op=("compute", "quotas.get", None))
    def quota_set(self, req: ApiRequest, project: str) -> Reply:
        """``GET /os-quota-sets/{project}[/detail]``: the project's compute quotas."""
        quotas = self.compute.project_quota(project)
        detail = req.raw.path.endswith("/detail")
        return Reply(200, {"quota_set": self._quota_body(project, quotas, detail)})

    @route("GET", "/v2.1/os-quota-sets/<project>/defaults")
    def quota_set_defaults(self, req: ApiRequest, project: str) -> Reply:
        """``GET /os-quota-sets/{project}/defaults``: the service-wide quotas."""
        body = self._quota_body(project, dict(self.compute.quotas), False)
        return Reply(200, {"quota_set": body})

    @route("PUT", "/v2.1/os-quota-sets/<project>", op=("compute", "quotas.update", None))
    def update_quota_set(self, req: ApiRequest, project: str) -> Reply:
        """``PUT /os-quota-sets/{project}`` with ``{"quota_set": {name: limit}}``."""
        spec = dict(req.member("quota_set"))
        spec.pop("force", None)
        fixed = sorted(set(spec) & {"metadata_items", "server_groups", "server_group_members"})
        if fixed:
            raise bad(f"Quota {fixed[0]} is fixed in the fake and cannot be changed")
        quotas = self.compute.set_project_quota(project, spec)
        body = self._quota_body(project, quotas, False)
        body.pop("id")
        return Reply(200, {"quota_set": body})

    @route("DELETE", "/v2.1/os-quota-sets/<project>", op=("compute", "quotas.delete", None))
    def revert_quota_set(self, req: ApiRequest, project: str) -> Reply:
        """``DELETE /os-quota-sets/{project}``: back to the defaults."""
        self.compute.revert_project_quota(project)
        return Reply(202)

    @route("GET", "/v2.1/os-availability-zone")
    @route("GET", "/v2.1/os-availability-zone/detail")
    def availability_zones(self, req: ApiRequest) -> Reply:
        """The one zone, ``nova``."""
        zone = {"zoneName": "nova", "zoneState": {"available": True}, "hosts": None}
        return Reply(200, {"availabilityZoneInfo": [zone]})

    def _network_quota(self, kind: str) -> int:
        if "network" not in self.cloud.service_names():
            return -1
        return int(self.cloud.service("network").quotas.get(kind, -1))

    @route("GET", "/v2.1/limits")
    def limits(self, req: ApiRequest) -> Reply:
        """``GET /limits``: the compute quotas and what is used."""
        compute = self.compute
        servers = compute._live_servers()
        quotas = compute.quotas
        absolute = {
            "maxTotalInstances": quotas["instances"],
            "totalInstancesUsed": len(servers),
            "maxTotalCores": quotas["cores"],
            "totalCoresUsed": sum(compute._flavor_of(s)["vcpus"] for s in servers),
            "maxTotalRAMSize": quotas["ram"],
            "totalRAMUsed": sum(compute._flavor_of(s)["ram"] for s in servers),
            "maxTotalKeypairs": quotas["key_pairs"],
            "maxServerMeta": 128,
            "maxSecurityGroups": self._network_quota("security_group"),
            "maxSecurityGroupRules": self._network_quota("security_group_rule"),
            "maxTotalFloatingIps": self._network_quota("floatingip"),
            "maxServerGroups": 10,
            "maxServerGroupMembers": 10,
            "totalServerGroupsUsed": 0,
        }
        return Reply(200, {"limits": {"absolute": absolute, "rate": []}})
