"""Hetzner Cloud API (``https://api.hetzner.cloud/v1``): servers, types, images, locations, keys.

A server is a compute server (its location the availability zone; its public
IPv4 from the external network, shown like Linode's - see
:meth:`fake_clouds.rest.linode.Linode.public_address`). A server type is one
of Hetzner's documented types (``cx22``, ``cpx11`` ...) running on the
smallest flavor that fits it (the type is kept in the server's metadata); an
image is a compute image (``ubuntu-22.04``, ``fedora-39``); an SSH key a
keypair. Actions (create, delete, power) follow the server's transition:
``running`` until it is due, then ``success`` (``error`` on ERROR).
"""

from __future__ import annotations

import math
from typing import Any

from fake_clouds.rest.common import entity, int_id, iso, paginate, parse_int, rest_state
from fake_clouds.rest.dialect import Dialect, Reply, Request, route

TASK = "OS-EXT-STS:task_state"
TYPE_KEY = "hetzner:server_type"
_SERVER = ("compute", "servers.get", "server")
_LIST = ("compute", "servers.list", "server")

#: Hetzner's documented server types: name -> (id, cores, memory GB, disk GB, cpu, arch).
SERVER_TYPES: dict[str, tuple[int, int, float, int, str, str]] = {
    "cx22": (104, 2, 4.0, 40, "shared", "x86"),
    "cx32": (105, 4, 8.0, 80, "shared", "x86"),
    "cx42": (106, 8, 16.0, 160, "shared", "x86"),
    "cx52": (107, 16, 32.0, 320, "shared", "x86"),
    "cpx11": (22, 2, 2.0, 40, "shared", "x86"),
    "cpx21": (23, 3, 4.0, 80, "shared", "x86"),
    "cpx31": (24, 4, 8.0, 160, "shared", "x86"),
    "cax11": (45, 2, 4.0, 40, "shared", "arm"),
    "ccx13": (96, 2, 8.0, 80, "dedicated", "x86"),
}
#: Locations: name -> (id, city, country, network zone, datacenter).
LOCATIONS: dict[str, tuple[int, str, str, str, str]] = {
    "fsn1": (1, "Falkenstein", "DE", "eu-central", "fsn1-dc14"),
    "nbg1": (2, "Nuremberg", "DE", "eu-central", "nbg1-dc3"),
    "hel1": (3, "Helsinki", "FI", "eu-central", "hel1-dc2"),
    "ash": (4, "Ashburn, VA", "US", "us-east", "ash-dc1"),
    "hil": (5, "Hillsboro, OR", "US", "us-west", "hil-dc1"),
    "sin": (6, "Singapore", "SG", "ap-southeast", "sin-dc1"),
}
#: The world's public images by their Hetzner names.
IMAGES = {"ubuntu": ("ubuntu-22.04", "ubuntu", "22.04"), "fedora": ("fedora-39", "fedora", "39")}
_STATUS = {"BUILD": "initializing", "ACTIVE": "running", "SHUTOFF": "off", "REBOOT": "rebooting"}
_ACTION_STATUS = {"in-progress": "running", "completed": "success", "errored": "error"}


class Hetzner(Dialect):
    """The Hetzner Cloud dialect."""

    name = "hetzner"
    default_base_url = "https://api.hetzner.cloud/v1"
    default_token = "plugsim-hetzner-token"
    status_map = {413: 422}  # noqa: RUF012

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """Hetzner's ``{"error": {"code", "message", "details"}}``."""
        code = {
            400: "invalid_input",
            401: "unauthorized",
            403: "forbidden",
            404: "not_found",
            409: "conflict",
            422: "invalid_input",
            423: "locked",
            429: "rate_limit_exceeded",
            503: "unavailable",
        }.get(status, "server_error")
        details = {"fields": [{"name": field_name, "messages": [message]}]} if field_name else {}
        return {"error": {"code": code, "message": message, "details": details}}

    def unauthorized(self) -> Reply:
        """Hetzner's 401."""
        return Reply(401, self.error_body(401, "unable to authenticate"))

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    def page(self, req: Request, key: str, items: list[Any]) -> Reply:
        """Return Hetzner's list (``meta.pagination``); ``name=`` filters by name."""
        wanted = req.arg("name")
        if wanted is not None:
            items = [i for i in items if i.get("name") == wanted]
        page = req.int_arg(self, "page", 1, 1, 10**6)
        per_page = req.int_arg(self, "per_page", 25, 1, 50)
        chunk, pages = paginate(items, page, per_page)
        pagination = {
            "page": page,
            "per_page": per_page,
            "previous_page": page - 1 if page > 1 else None,
            "next_page": page + 1 if page < pages else None,
            "last_page": pages,
            "total_entries": len(items),
        }
        return Reply(200, {key: chunk, "meta": {"pagination": pagination}})

    # --- catalogue ----------------------------------------------------------------------

    def type_view(self, name: str) -> dict[str, Any]:
        """Return a server type."""
        tid, cores, memory, disk, cpu, arch = SERVER_TYPES[name]
        monthly = round(2.0 * cores + memory, 4)
        return {
            "id": tid,
            "name": name,
            "description": name.upper(),
            "cores": cores,
            "memory": memory,
            "disk": disk,
            "deprecated": False,
            "deprecation": None,
            "prices": [
                {
                    "location": loc,
                    "price_hourly": {
                        "net": f"{monthly / 730:.4f}",
                        "gross": f"{monthly / 730:.4f}",
                    },
                    "price_monthly": {"net": f"{monthly:.4f}", "gross": f"{monthly:.4f}"},
                    "included_traffic": 20 * 2**40,
                    "price_per_tb_traffic": {"net": "1.0000", "gross": "1.0000"},
                }
                for loc in LOCATIONS
            ],
            "storage_type": "local",
            "cpu_type": cpu,
            "architecture": arch,
            "included_traffic": 20 * 2**40,
        }

    def find_type(self, ref: Any) -> str:
        """Return a server type's name from its name or id (invalid_input otherwise)."""
        number = parse_int(ref)
        for name, spec in SERVER_TYPES.items():
            if ref == name or number == spec[0]:
                return name
        rest_state(self.cloud).misses.append((self.name, "server_type", str(ref)))
        raise self.fail(422, f"server type {ref!r} not found", "server_type")

    def flavor_for(self, type_name: str) -> dict[str, Any]:
        """Return the smallest flavor that fits a server type."""
        _, cores, memory, _, _, _ = SERVER_TYPES[type_name]
        flavors = self.compute.list_flavors()
        fits = [f for f in flavors if f["vcpus"] >= cores and f["ram"] >= memory * 1024]
        return min(fits or flavors, key=lambda f: (f["ram"], f["vcpus"], f["disk"], f["id"]))

    def image_view(self, image: dict[str, Any]) -> dict[str, Any]:
        """Return an image."""
        name, flavor, version = IMAGES.get(image["name"], (image["name"], "unknown", ""))
        public = image.get("visibility") == "public"
        return {
            "id": int_id(image["id"]),
            "type": "system" if public else "snapshot",
            "status": "available" if image["status"] == "active" else "creating",
            "name": name if public else None,
            "description": name if public else image["name"],
            "image_size": None,
            "disk_size": max(1, int(image.get("min_disk") or 1)),
            "created": iso(image["created_at"]),
            "created_from": None,
            "bound_to": None,
            "os_flavor": flavor,
            "os_version": version or None,
            "rapid_deploy": public,
            "protection": {"delete": False},
            "deprecated": None,
            "deleted": None,
            "labels": {},
            "architecture": "x86",
        }

    def find_image(self, ref: Any) -> dict[str, Any]:
        """Return the image a Hetzner name or id names (invalid_input otherwise)."""
        number = parse_int(ref)
        for image in self.compute.list_images():
            view = self.image_view(image)
            if ref == view["name"] or (number is not None and number == view["id"]):
                return image
        rest_state(self.cloud).misses.append((self.name, "image", str(ref)))
        raise self.fail(422, f"image {ref!r} not found", "image")

    def location_view(self, name: str) -> dict[str, Any]:
        """Return a location."""
        lid, city, country, zone, _ = LOCATIONS[name]
        return {
            "id": lid,
            "name": name,
            "description": f"{city} DC Park 1",
            "country": country,
            "city": city,
            "latitude": 0.0,
            "longitude": 0.0,
            "network_zone": zone,
        }

    def datacenter_view(self, location: str) -> dict[str, Any]:
        """Return the datacenter of a location."""
        lid, _, _, _, dc_name = LOCATIONS[location]
        ids = [spec[0] for spec in SERVER_TYPES.values()]
        return {
            "id": lid,
            "name": dc_name,
            "description": f"{location} datacenter",
            "location": self.location_view(location),
            "server_types": {"supported": ids, "available": ids, "available_for_migration": ids},
        }

    def find_location(self, ref: Any, field_name: str) -> str:
        """Return a location name from a location or datacenter name or id."""
        number = parse_int(ref)
        for name, spec in LOCATIONS.items():
            if ref in (name, spec[4]) or number == spec[0]:
                return name
        rest_state(self.cloud).misses.append((self.name, field_name, str(ref)))
        raise self.fail(422, f"{field_name} {ref!r} not found", field_name)

    # --- servers ----------------------------------------------------------------------------

    def find_server(self, ref: Any) -> dict[str, Any]:
        """Return the server behind a Hetzner server id (not_found otherwise)."""
        number = parse_int(ref)
        for server in self.compute.list_servers():
            if number is not None and int_id(server["id"]) == number:
                return server
        raise self.fail(404, f"server with ID '{ref}' not found")

    def status(self, server: dict[str, Any]) -> str:
        """Map a server status onto Hetzner's."""
        task = server.get(TASK)
        if task == "deleting":
            return "deleting"
        if task == "powering-off":
            return "stopping"
        if task == "powering-on":
            return "starting"
        return _STATUS.get(server["status"], "unknown")

    def server_view(self, server: dict[str, Any]) -> dict[str, Any]:
        """Return a server."""
        from fake_clouds.rest.linode import Linode

        number = int_id(server["id"])
        image = entity(self.cloud, "compute", "image", server["image"]["id"])
        flavor = self.compute.get_flavor(server["flavor"]["id"])
        type_name = (server.get("metadata") or {}).get(TYPE_KEY) or self._type_of(flavor)
        zone = server.get("OS-EXT-AZ:availability_zone")
        location = zone if zone in LOCATIONS else "fsn1"
        shower = Linode(self.cloud, Linode.default_base_url, "")
        public, _ = shower.addresses(server)
        ipv4 = None
        if public:
            ipv4 = {"id": number + 1, "ip": public[0], "blocked": False, "dns_ptr": ""}
        return {
            "id": number,
            "name": server["name"],
            "status": self.status(server),
            "created": iso(server["created_at"]),
            "public_net": {
                "ipv4": ipv4,
                "ipv6": None,
                "floating_ips": [],
                "firewalls": [],
            },
            "private_net": [],
            "server_type": self.type_view(type_name),
            "datacenter": self.datacenter_view(location),
            "image": self.image_view(image.view()) if image is not None else None,
            "iso": None,
            "rescue_enabled": False,
            "locked": server.get(TASK) == "deleting",
            "backup_window": None,
            "outgoing_traffic": 0,
            "ingoing_traffic": 0,
            "included_traffic": 20 * 2**40,
            "protection": {"delete": False, "rebuild": False},
            "labels": {},
            "volumes": [],
            "load_balancers": [],
            "primary_disk_size": SERVER_TYPES[type_name][3],
            "placement_group": None,
        }

    def _type_of(self, flavor: dict[str, Any]) -> str:
        for name in SERVER_TYPES:
            if self.flavor_for(name)["id"] == flavor["id"]:
                return name
        return next(iter(SERVER_TYPES))

    def action(self, command: str, server: dict[str, Any], done: tuple[str, ...]) -> Any:
        """Record an action following *server*'s transition."""
        return rest_state(self.cloud).start_action(
            self.cloud,
            command,
            int_id(server["id"]),
            "hetzner_server",
            "fsn1",
            ("compute", "server", server["id"]),
            done,
        )

    def action_view(self, action: Any) -> dict[str, Any]:
        """Return an action."""
        status = _ACTION_STATUS[action.status(self.cloud)]
        finished = action.completed_at if status != "running" else None
        return {
            "id": action.id,
            "command": action.type,
            "status": status,
            "progress": 100 if status == "success" else 0,
            "started": iso(action.started_at),
            "finished": None if finished is None or math.isinf(finished) else iso(finished),
            "resources": [{"id": action.resource_id, "type": "server"}],
            "error": {"code": "action_failed", "message": "Action failed"}
            if status == "error"
            else None,
        }

    @route("GET", "/servers", op=_LIST)
    def list_servers(self, req: Request) -> Reply:
        """``GET /servers`` (``name``, ``page``, ``per_page``)."""
        views = [self.server_view(s) for s in self.compute.list_servers()]
        return self.page(req, "servers", views)

    @route("POST", "/servers", op=("compute", "servers.create", "server"))
    def create_server(self, req: Request) -> Reply:
        """``POST /servers`` with ``name``, ``server_type``, ``image`` and optional location."""
        body = req.json(self)
        for key in ("name", "server_type", "image"):
            if body.get(key) in (None, ""):
                raise self.fail(422, f"{key} is required", key)
        if not isinstance(body["name"], str):
            raise self.fail(422, "name must be a string", "name")
        type_name = self.find_type(body["server_type"])
        image = self.find_image(body["image"])
        location = "fsn1"
        if body.get("location") not in (None, ""):
            location = self.find_location(body["location"], "location")
        elif body.get("datacenter") not in (None, ""):
            location = self.find_location(body["datacenter"], "datacenter")
        keys = body.get("ssh_keys") or []
        key_name = None
        for ref in keys:
            key = self._find_key(ref)
            key_name = key_name or key["name"]
        networks = []
        if "network" in self.cloud.service_names():
            public = [
                n for n in self.cloud.service("network").list_networks() if n.get("router:external")
            ]
            networks = [{"uuid": public[0]["id"]}] if public else []
        server = self.compute.create_server(
            body["name"],
            image["id"],
            self.flavor_for(type_name)["id"],
            availability_zone=location,
            key_name=key_name,
            networks=networks,
            metadata={TYPE_KEY: type_name},
        )
        req.entity_id = server["id"]
        action = self.action("create_server", server, ("ACTIVE",))
        password = None if keys else f"plugsim-{int_id(server['id']):08x}"
        return Reply(
            201,
            {
                "server": self.server_view(server),
                "action": self.action_view(action),
                "next_actions": [],
                "root_password": password,
            },
        )

    @route("GET", "/servers/{id}", op=_SERVER)
    def get_server(self, req: Request) -> Reply:
        """``GET /servers/{id}``."""
        server = self.find_server(req.params["id"])
        req.entity_id = server["id"]
        return Reply(200, {"server": self.server_view(server)})

    @route("DELETE", "/servers/{id}", op=("compute", "servers.delete", "server"))
    def delete_server(self, req: Request) -> Reply:
        """``DELETE /servers/{id}``."""
        server = self.find_server(req.params["id"])
        req.entity_id = server["id"]
        self.compute.delete_server(server["id"])
        return Reply(200, {"action": self.action_view(self.action("delete_server", server, ()))})

    def power_op(self, req: Request) -> tuple[str, str, str | None]:
        """The compute operation a server action stands for."""
        verb = req.params.get("action", "")
        op = {"poweron": "servers.start", "poweroff": "servers.stop", "shutdown": "servers.stop"}
        return ("compute", op.get(verb, "servers.reboot"), "server")

    @route("POST", "/servers/{id}/actions/{action}", op="power_op")
    def server_action(self, req: Request) -> Reply:
        """``POST /servers/{id}/actions/{poweron|poweroff|shutdown|reboot|reset}``."""
        verb = req.params["action"]
        if verb not in ("poweron", "poweroff", "shutdown", "reboot", "reset"):
            return self.unserved(req)
        server = self.find_server(req.params["id"])
        req.entity_id = server["id"]
        idle = not server.get(TASK)
        if verb == "poweron":
            if not (server["status"] == "ACTIVE" and idle):
                self.compute.start_server(server["id"])
            done: tuple[str, ...] = ("ACTIVE",)
        elif verb in ("poweroff", "shutdown"):
            if not (server["status"] == "SHUTOFF" and idle):
                self.compute.stop_server(server["id"])
            done = ("SHUTOFF",)
        else:
            self.compute.reboot_server(server["id"], "SOFT" if verb == "reboot" else "HARD")
            done = ("ACTIVE",)
        action = self.action(f"{'start' if verb == 'poweron' else verb}_server", server, done)
        return Reply(201, {"action": self.action_view(action)})

    @route("GET", "/actions/{id}")
    def get_action(self, req: Request) -> Reply:
        """``GET /actions/{id}``."""
        number = parse_int(req.params["id"])
        action = rest_state(self.cloud).actions.get(number) if number is not None else None
        if action is None or action.resource_type != "hetzner_server":
            raise self.fail(404, f"action with ID '{req.params['id']}' not found")
        return Reply(200, {"action": self.action_view(action)})

    # --- catalogue routes ---------------------------------------------------------------------

    @route("GET", "/server_types")
    def list_types(self, req: Request) -> Reply:
        """``GET /server_types``."""
        return self.page(req, "server_types", [self.type_view(n) for n in SERVER_TYPES])

    @route("GET", "/images", op=("compute", "images.list", "image"))
    def list_images(self, req: Request) -> Reply:
        """``GET /images`` (``name``)."""
        views = [self.image_view(i) for i in self.compute.list_images()]
        return self.page(req, "images", views)

    @route("GET", "/locations")
    def list_locations(self, req: Request) -> Reply:
        """``GET /locations``."""
        return self.page(req, "locations", [self.location_view(n) for n in LOCATIONS])

    @route("GET", "/datacenters")
    def list_datacenters(self, req: Request) -> Reply:
        """``GET /datacenters``."""
        views = [self.datacenter_view(n) for n in LOCATIONS]
        return self.page(req, "datacenters", views)

    def key_view(self, key: dict[str, Any]) -> dict[str, Any]:
        """Return an SSH key."""
        return {
            "id": int(key["fingerprint"].replace(":", "")[:7], 16),
            "name": key["name"],
            "fingerprint": key["fingerprint"],
            "public_key": key["public_key"],
            "labels": {},
            "created": iso(key.get("created_at", 0.0)),
        }

    def _find_key(self, ref: Any) -> dict[str, Any]:
        number = parse_int(ref)
        for key in self.compute.list_keypairs():
            view = self.key_view(key)
            if ref == view["name"] or number == view["id"]:
                return key
        raise self.fail(422, f"ssh key {ref!r} not found", "ssh_keys")

    @route("GET", "/ssh_keys", op=("compute", "keypairs.list", "keypair"))
    def list_keys(self, req: Request) -> Reply:
        """``GET /ssh_keys`` (``name``)."""
        views = [self.key_view(k) for k in self.compute.list_keypairs()]
        return self.page(req, "ssh_keys", views)
