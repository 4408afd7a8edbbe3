"""Vultr API v1 (``https://api.vultr.com/v1``), the API Salt 3007's vultr driver speaks.

Vultr retired v1 for v2; Salt 3007.8's ``vultrpy`` driver still calls v1
(``/v1/server/create?api_key=...`` with form-encoded bodies), so this dialect
serves that: regions, plans, operating systems, SSH keys, startup scripts,
firewall groups and servers (list, create, destroy, halt, start, reboot).

A server is a compute server (its DCID region kept as the availability
zone); a plan runs on the smallest flavor that fits it and an OS on the
world's image of that family (the plan and OS ids stay in the server's
metadata, so listings show what was asked for); the public address is shown
like Linode's (:meth:`fake_clouds.rest.linode.Linode.public_address`). The
key is accepted as the ``api_key`` query parameter or the ``API-Key`` header.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from fake_clouds.rest.common import int_id, iso, parse_int, rest_state
from fake_clouds.rest.dialect import Dialect, Reply, Request, route

TASK = "OS-EXT-STS:task_state"
PLAN_KEY = "vultr:plan"
OS_KEY = "vultr:os"
_LIST = ("compute", "servers.list", "server")

#: Data centres: DCID -> (name, country, continent, region code).
REGIONS: dict[int, tuple[str, str, str, str]] = {
    1: ("New Jersey", "US", "North America", "EWR"),
    2: ("Chicago", "US", "North America", "ORD"),
    3: ("Dallas", "US", "North America", "DFW"),
    5: ("Los Angeles", "US", "North America", "LAX"),
    6: ("Atlanta", "US", "North America", "ATL"),
    7: ("Amsterdam", "NL", "Europe", "AMS"),
    8: ("London", "GB", "Europe", "LHR"),
    9: ("Frankfurt", "DE", "Europe", "FRA"),
    12: ("Silicon Valley", "US", "North America", "SJC"),
    19: ("Sydney", "AU", "Australia", "SYD"),
    24: ("Paris", "FR", "Europe", "CDG"),
    25: ("Tokyo", "JP", "Asia", "NRT"),
    40: ("Singapore", "SG", "Asia", "SGP"),
}
#: Plans: VPSPLANID -> (vCPUs, memory MB, disk GB, bandwidth TB).
PLANS: dict[int, tuple[int, int, int, float]] = {
    200: (1, 512, 10, 0.5),
    201: (1, 1024, 25, 1.0),
    202: (1, 2048, 55, 2.0),
    203: (2, 4096, 80, 3.0),
    204: (4, 8192, 160, 4.0),
    205: (6, 16384, 320, 5.0),
    13: (1, 2048, 40, 2.0),
    95: (4, 4096, 60, 3.0),
}
#: Operating systems: OSID -> (name, family); each runs on the world's image of its family.
OSES: dict[int, tuple[str, str]] = {
    160: ("Ubuntu 14.04 x64", "ubuntu"),
    215: ("Ubuntu 16.04 x64", "ubuntu"),
    223: ("Ubuntu 17.04 x64", "ubuntu"),
    270: ("Ubuntu 18.04 x64", "ubuntu"),
    387: ("Ubuntu 20.04 x64", "ubuntu"),
    1743: ("Ubuntu 22.04 x64", "ubuntu"),
    2054: ("Fedora 39 x64", "fedora"),
}


def plan_name(plan_id: int) -> str:
    """Return a plan's v1 name (``1024 MB RAM,25 GB SSD,1.00 TB BW``)."""
    _, memory, disk, bandwidth = PLANS[plan_id]
    return f"{memory} MB RAM,{disk} GB SSD,{bandwidth:.2f} TB BW"


class Vultr(Dialect):
    """The Vultr v1 dialect."""

    name = "vultr"
    default_base_url = "https://api.vultr.com/v1"
    default_token = "plugsim-vultr-token"
    status_map = {404: 412, 409: 412, 422: 412, 413: 412}  # noqa: RUF012

    def authenticate(self, req: Request) -> bool:
        """v1 takes the key as the ``api_key`` query parameter (or the ``API-Key`` header)."""
        key = req.arg("api_key") or req.headers.get("API-Key", "")
        return key == self.token or key in self.accepted

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """v1 answered errors with a plain message."""
        return message

    def unauthorized(self) -> Reply:
        """v1's 403 for a wrong key."""
        return Reply(403, "Invalid API key.  Please check your API key is correct and enabled.")

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    def form(self, req: Request) -> dict[str, str]:
        """Return the form-encoded body (v1's POST parameters)."""
        text = (req.body or b"").decode("utf-8", "replace")
        return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}

    def pick(self, table: dict[int, Any], value: Any, kind: str) -> int:
        """Return a catalogue id from the form, or fail with v1's 412."""
        number = parse_int(value)
        if number is None or number not in table:
            rest_state(self.cloud).misses.append((self.name, kind, str(value)))
            raise self.fail(412, f"Invalid {kind}.  Check the {kind} and try again.", kind)
        return number

    # --- catalogue ------------------------------------------------------------------------

    @route("GET", "/regions/list")
    def regions(self, req: Request) -> Reply:
        """``GET /regions/list``."""
        body = {
            str(dcid): {
                "DCID": str(dcid),
                "name": name,
                "country": country,
                "continent": continent,
                "state": "",
                "ddos_protection": True,
                "block_storage": True,
                "regioncode": code,
            }
            for dcid, (name, country, continent, code) in REGIONS.items()
        }
        return Reply(200, body)

    @route("GET", "/plans/list")
    def plans(self, req: Request) -> Reply:
        """``GET /plans/list``."""
        body = {
            str(pid): {
                "VPSPLANID": str(pid),
                "name": plan_name(pid),
                "vcpu_count": str(vcpus),
                "ram": str(memory),
                "disk": str(disk),
                "bandwidth": f"{bandwidth:.2f}",
                "price_per_month": f"{5.0 * memory / 1024:.2f}",
                "plan_type": "SSD",
                "windows": False,
                "available_locations": sorted(REGIONS),
            }
            for pid, (vcpus, memory, disk, bandwidth) in PLANS.items()
        }
        return Reply(200, body)

    @route("GET", "/os/list")
    def oses(self, req: Request) -> Reply:
        """``GET /os/list``."""
        body = {
            str(osid): {
                "OSID": osid,
                "name": name,
                "arch": "x64",
                "family": family,
                "windows": False,
            }
            for osid, (name, family) in OSES.items()
        }
        return Reply(200, body)

    @route("GET", "/sshkey/list", op=("compute", "keypairs.list", "keypair"))
    def ssh_keys(self, req: Request) -> Reply:
        """``GET /sshkey/list`` (the world's keypairs)."""
        body = {}
        for key in self.compute.list_keypairs():
            kid = key["fingerprint"].replace(":", "")[:13]
            body[kid] = {
                "SSHKEYID": kid,
                "date_created": iso(key.get("created_at", 0.0)).replace("T", " ")[:19],
                "name": key["name"],
                "ssh_key": key["public_key"],
            }
        return Reply(200, body)

    @route("GET", "/startupscript/list")
    def scripts(self, req: Request) -> Reply:
        """``GET /startupscript/list`` (none)."""
        return Reply(200, {})

    @route("GET", "/firewall/group_list")
    def firewall_groups(self, req: Request) -> Reply:
        """``GET /firewall/group_list`` (none)."""
        return Reply(200, {})

    # --- servers ----------------------------------------------------------------------------

    def server_view(self, server: dict[str, Any]) -> dict[str, Any]:
        """Return a v1 server record."""
        from fake_clouds.rest.linode import Linode

        meta = server.get("metadata") or {}
        plan = parse_int(meta.get(PLAN_KEY)) or 201
        osid = parse_int(meta.get(OS_KEY)) or 1743
        vcpus, memory, disk, bandwidth = PLANS.get(plan, PLANS[201])
        dcid = parse_int(server.get("OS-EXT-AZ:availability_zone")) or 1
        public, private = Linode(self.cloud, Linode.default_base_url, "").addresses(server)
        building = server["status"] == "BUILD"
        task = server.get(TASK)
        power = "stopped" if server["status"] == "SHUTOFF" else "running"
        number = int_id(server["id"])
        return {
            "SUBID": str(number),
            "os": OSES.get(osid, ("Custom", ""))[0],
            "ram": f"{memory} MB",
            "disk": f"Virtual {disk} GB",
            "main_ip": public[0] if public and not building else "0.0.0.0",
            "vcpu_count": str(vcpus),
            "location": REGIONS.get(dcid, REGIONS[1])[0],
            "DCID": str(dcid),
            "default_password": "" if building else f"plugsim-{number:08x}",
            "date_created": iso(server["created_at"]).replace("T", " ")[:19],
            "pending_charges": "0.00",
            "status": "pending" if building else "active",
            "cost_per_month": f"{5.0 * memory / 1024:.2f}",
            "current_bandwidth_gb": 0,
            "allowed_bandwidth_gb": str(int(bandwidth * 1000)),
            "netmask_v4": "255.255.255.0",
            "gateway_v4": "",
            "power_status": power,
            "server_state": "installingbooting" if building or task else "ok",
            "VPSPLANID": str(plan),
            "v6_networks": [],
            "label": server["name"],
            "internal_ip": private[0] if private else "",
            "kvm_url": "",
            "auto_backups": "no",
            "tag": "",
            "OSID": str(osid),
            "APPID": "0",
            "FIREWALLGROUPID": "0",
        }

    def find_server(self, subid: Any) -> dict[str, Any]:
        """Return the server behind a SUBID (412 otherwise)."""
        number = parse_int(subid)
        for server in self.compute.list_servers():
            if number is not None and int_id(server["id"]) == number:
                return server
        raise self.fail(412, "Invalid server.  Check SUBID value and ensure your API key matches")

    @route("GET", "/server/list", op=_LIST)
    def list_servers(self, req: Request) -> Reply:
        """``GET /server/list`` (``SUBID`` selects one)."""
        views = [self.server_view(s) for s in self.compute.list_servers()]
        only = req.arg("SUBID")
        if only is not None:
            for view in views:
                if view["SUBID"] == only:
                    return Reply(200, view)
            raise self.fail(412, "Invalid server.  Check SUBID value")
        return Reply(200, {v["SUBID"]: v for v in views})

    @route("POST", "/server/create", op=("compute", "servers.create", "server"))
    def create_server(self, req: Request) -> Reply:
        """``POST /server/create`` with ``DCID``, ``VPSPLANID``, ``OSID`` and ``label``."""
        form = self.form(req)
        dcid = self.pick(REGIONS, form.get("DCID"), "DCID")
        plan = self.pick(PLANS, form.get("VPSPLANID"), "VPSPLANID")
        osid = self.pick(OSES, form.get("OSID"), "OSID")
        family = OSES[osid][1]
        images = [i for i in self.compute.list_images() if i["name"] == family]
        if not images:
            rest_state(self.cloud).misses.append((self.name, "OSID", str(osid)))
            raise self.fail(412, f"Invalid OSID {osid}: no {family} image in this world", "OSID")
        vcpus, memory, _, _ = PLANS[plan]
        flavors = self.compute.list_flavors()
        fits = [f for f in flavors if f["vcpus"] >= vcpus and f["ram"] >= memory]
        flavor = min(fits or flavors, key=lambda f: (f["ram"], f["vcpus"], f["disk"], f["id"]))
        networks = []
        if "network" in self.cloud.service_names():
            public = [
                n for n in self.cloud.service("network").list_networks() if n.get("router:external")
            ]
            networks = [{"uuid": public[0]["id"]}] if public else []
        label = form.get("label") or form.get("hostname") or "vultr"
        server = self.compute.create_server(
            label,
            images[0]["id"],
            flavor["id"],
            availability_zone=str(dcid),
            networks=networks,
            metadata={PLAN_KEY: str(plan), OS_KEY: str(osid)},
        )
        req.entity_id = server["id"]
        return Reply(200, {"SUBID": str(int_id(server["id"]))})

    @route("POST", "/server/destroy", op=("compute", "servers.delete", "server"))
    def destroy_server(self, req: Request) -> Reply:
        """``POST /server/destroy`` with ``SUBID`` (an empty 200)."""
        server = self.find_server(self.form(req).get("SUBID"))
        req.entity_id = server["id"]
        self.compute.delete_server(server["id"])
        return Reply(200, None)

    @route("POST", "/server/halt", op=("compute", "servers.stop", "server"))
    def halt(self, req: Request) -> Reply:
        """``POST /server/halt`` with ``SUBID``."""
        server = self.find_server(self.form(req).get("SUBID"))
        req.entity_id = server["id"]
        if server["status"] != "SHUTOFF":
            self.compute.stop_server(server["id"])
        return Reply(200, None)

    @route("POST", "/server/start", op=("compute", "servers.start", "server"))
    def start(self, req: Request) -> Reply:
        """``POST /server/start`` with ``SUBID``."""
        server = self.find_server(self.form(req).get("SUBID"))
        req.entity_id = server["id"]
        if server["status"] == "SHUTOFF":
            self.compute.start_server(server["id"])
        return Reply(200, None)

    @route("POST", "/server/reboot", op=("compute", "servers.reboot", "server"))
    def reboot(self, req: Request) -> Reply:
        """``POST /server/reboot`` with ``SUBID``."""
        server = self.find_server(self.form(req).get("SUBID"))
        req.entity_id = server["id"]
        self.compute.reboot_server(server["id"], "SOFT")
        return Reply(200, None)
