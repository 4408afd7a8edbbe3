"""Linode API v4 (``https://api.linode.com/v4``): instances, images, types and regions.

A Linode instance is a compute server (region = availability zone; IPv4 from
the ports bound to it), a type is a flavor, an image a compute image
(``linode/<distro>`` for the public ones, ``private/<id>`` for snapshots).
Instance tags live in the server's metadata under ``linode:tags``.
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any

from fake_clouds.rest.common import (
    IMAGE_ALIASES,
    LINODE_TYPES,
    entity,
    flavor_slug,
    int_id,
    iso,
    paginate,
    parse_int,
    rest_state,
    settle_resize,
)
from fake_clouds.rest.dialect import Dialect, Reply, Request, route

TASK = "OS-EXT-STS:task_state"
TAGS_KEY = "linode:tags"
REGIONS = [
    ("ap-south", "Singapore, SG", "sg"),
    ("ap-southeast", "Sydney, AU", "au"),
    ("eu-central", "Frankfurt, DE", "de"),
    ("eu-west", "London, UK", "gb"),
    ("us-central", "Dallas, TX", "us"),
    ("us-east", "Newark, NJ", "us"),
    ("us-west", "Fremont, CA", "us"),
]
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_.\-]{1,62})[A-Za-z0-9]$")
_DOUBLE = re.compile(r"--|__|\.\.")
_SERVER = ("compute", "servers.get", "server")


class Linode(Dialect):
    """The Linode v4 dialect."""

    name = "linode"
    default_base_url = "https://api.linode.com/v4"
    default_token = "plugsim-linode-token"
    status_map = {409: 400, 413: 400}  # noqa: RUF012

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """Linode's ``{"errors": [{"reason": ..., "field": ...}]}``."""
        error: dict[str, str] = {"reason": message}
        if field_name:
            error["field"] = field_name
        return {"errors": [error]}

    def unauthorized(self) -> Reply:
        """Linode's 401 body."""
        return Reply(401, {"errors": [{"reason": "Invalid Token"}]})

    def not_found(self) -> Reply:
        """Linode's 404 body."""
        return Reply(404, {"errors": [{"reason": "Not found"}]})

    def missing(self) -> Exception:
        """The typed 404 of a missing object."""
        return self.fail(404, "Not found")

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    def page(self, req: Request, items: list[Any]) -> Reply:
        """Return Linode's paginated list (``data``, ``page``, ``pages``, ``results``)."""
        page = req.int_arg(self, "page", 1, 1, 10**6)
        size = req.int_arg(self, "page_size", 100, 25, 500)
        chunk, pages = paginate(items, page, size)
        return Reply(200, {"data": chunk, "page": page, "pages": pages, "results": len(items)})

    # --- views ----------------------------------------------------------------------------

    def status(self, server: dict[str, Any]) -> str:
        """Map a server status onto Linode's statuses."""
        task = server.get(TASK)
        if task == "deleting":
            return "deleting"
        status = server["status"]
        if status == "BUILD":
            return "provisioning"
        if status == "ACTIVE":
            return "shutting_down" if task == "powering-off" else "running"
        if status == "SHUTOFF":
            return "booting" if task == "powering-on" else "offline"
        return {
            "REBOOT": "rebooting",
            "HARD_REBOOT": "rebooting",
            "RESIZE": "resizing",
            "VERIFY_RESIZE": "resizing",
            "REVERT_RESIZE": "resizing",
            "REBUILD": "rebuilding",
        }.get(status, "offline")

    def image_id(self, image: dict[str, Any]) -> str:
        """Return the Linode id of an image."""
        alias = IMAGE_ALIASES.get(image["name"])
        if image.get("visibility") == "public":
            return alias[1] if alias else f"linode/{image['name']}"
        return f"private/{int_id(image['id'])}"

    def image_view(self, image: dict[str, Any]) -> dict[str, Any]:
        """Return a Linode image object."""
        public = image.get("visibility") == "public"
        alias = IMAGE_ALIASES.get(image["name"])
        return {
            "id": self.image_id(image),
            "label": (image.get("file") or image["name"]) if public else image["name"],
            "description": "",
            "created": iso(image["created_at"], zulu=False),
            "type": "manual",
            "is_public": public,
            "size": image.get("size", 0) // 2**20,
            "vendor": alias[2] if alias and public else None,
            "deprecated": False,
            "status": "available" if image["status"] == "active" else "creating",
        }

    def type_view(self, flavor: dict[str, Any]) -> dict[str, Any]:
        """Return a Linode type object for a flavor."""
        slug = flavor_slug(flavor, LINODE_TYPES)
        monthly = round(5.0 * flavor["ram"] / 1024, 2)
        return {
            "id": slug,
            "label": f"Linode {flavor['ram'] // 1024 or 0.5}GB",
            "disk": flavor["disk"] * 1024,
            "memory": flavor["ram"],
            "vcpus": flavor["vcpus"],
            "transfer": max(1, flavor["ram"] // 1024) * 1000,
            "network_out": 1000,
            "class": "nanode" if slug.startswith("g6-nanode") else "standard",
            "price": {"hourly": round(monthly / 730, 4), "monthly": monthly},
            "successor": None,
        }

    def public_address(self, addr: str) -> str:
        """Return the address Linode shows for a public address of the fake cloud.

        The fake's external network may use a private range (the default world's
        172.24.4.0/24), which a client's own classification - Salt's linode driver
        asks ``ipaddress.ip_address(a).is_private`` - would file under private
        addresses. Such an address is shown in the RFC 6598 shared range
        100.64.0.0/10 (never routed on the Internet, yet not ``is_private``;
        the RFC 5737 documentation ranges are ``is_private`` in Python), keeping
        its last two octets; the alias is remembered so the simulated deploy
        finds the server behind it. Nothing is ever contacted.
        """
        ip = ipaddress.ip_address(addr)
        if ip.version != 4 or not ip.is_private:
            return addr
        octets = addr.split(".")
        shown = f"100.64.{octets[2]}.{octets[3]}"
        rest_state(self.cloud).aliases[shown] = addr
        return shown

    def addresses(self, server: dict[str, Any]) -> tuple[list[str], list[str]]:
        """Return (public, private) IPv4 addresses of a server (public ones as shown)."""
        public: list[str] = []
        private: list[str] = []
        for net_name in sorted(server.get("addresses") or {}):
            external = False
            if "network" in self.cloud.service_names():
                nets = self.cloud.service("network").list_networks(name=net_name)
                external = bool(nets and nets[0].get("router:external"))
            for addr in server["addresses"][net_name]:
                if addr.get("version") != 4:
                    continue
                if external:
                    public.append(self.public_address(addr["addr"]))
                else:
                    private.append(addr["addr"])
        return public, private

    def instance_view(self, server: dict[str, Any]) -> dict[str, Any]:
        """Return a Linode instance object for a compute server."""
        flavor = self.compute.get_flavor(server["flavor"]["id"])
        image = entity(self.cloud, "compute", "image", server["image"]["id"])
        public, private = self.addresses(server)
        region = server.get("OS-EXT-AZ:availability_zone")
        tags = json.loads(server.get("metadata", {}).get(TAGS_KEY, "[]"))
        return {
            "id": int_id(server["id"]),
            "label": server["name"],
            "group": "",
            "status": self.status(server),
            "created": iso(server["created_at"], zulu=False),
            "updated": iso(server["updated_at"], zulu=False),
            "type": flavor_slug(flavor, LINODE_TYPES),
            "ipv4": public + private,
            "ipv6": None,
            "image": self.image_id(image.view()) if image is not None else None,
            "region": region if region in {r for r, _, _ in REGIONS} else "us-east",
            "specs": {
                "disk": flavor["disk"] * 1024,
                "memory": flavor["ram"],
                "vcpus": flavor["vcpus"],
                "transfer": max(1, flavor["ram"] // 1024) * 1000,
            },
            "alerts": {"cpu": 90, "io": 10000, "network_in": 10, "network_out": 10},
            "backups": {"enabled": False, "available": False},
            "hypervisor": "kvm",
            "watchdog_enabled": True,
            "tags": tags,
        }

    # --- lookups ----------------------------------------------------------------------------

    def find_instance(self, ref: Any) -> dict[str, Any]:
        """Return the server behind a Linode id (404 otherwise)."""
        number = parse_int(ref)
        if number is not None:
            for server in self.compute.list_servers():
                if int_id(server["id"]) == number:
                    return settle_resize(self.cloud, server)
        raise self.missing()

    def find_type(self, ref: Any) -> dict[str, Any]:
        """Return the flavor a type id names (400 naming ``type`` otherwise)."""
        for flavor in self.compute.list_flavors():
            if ref in (flavor_slug(flavor, LINODE_TYPES), flavor["name"]):
                return flavor
        rest_state(self.cloud).misses.append((self.name, "type", str(ref)))
        raise self.fail(400, f"A valid plan type by that ID was not found ({ref!r})", "type")

    def find_image(self, ref: Any) -> dict[str, Any] | None:
        """Return the image a Linode image id names, or None."""
        for image in self.compute.list_images():
            if ref == self.image_id(image):
                return image
        return None

    def check_label(self, label: Any) -> str:
        """Return a valid label or fail with 400 naming ``label``."""
        if not isinstance(label, str) or not _LABEL.match(label) or _DOUBLE.search(label):
            raise self.fail(
                400,
                "Label must be 3-64 characters: letters, digits, '-', '_' or '.', starting and "
                f"ending with a letter or digit, without two of '-', '_' or '.' in a row "
                f"(got {label!r})",
                "label",
            )
        return label

    def check_tags(self, tags: Any) -> list[str]:
        """Return a valid tag list or fail with 400 naming ``tags``."""
        if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
            raise self.fail(400, "tags must be a list of non-empty strings", "tags")
        return sorted(set(tags))

    # --- instances --------------------------------------------------------------------------

    @route("GET", "/linode/instances", op=("compute", "servers.list", "server"))
    def list_instances(self, req: Request) -> Reply:
        """``GET /linode/instances`` (``page``, ``page_size``)."""
        servers = [settle_resize(self.cloud, s) for s in self.compute.list_servers()]
        return self.page(req, [self.instance_view(s) for s in servers])

    @route("POST", "/linode/instances", op=("compute", "servers.create", "server"))
    def create_instance(self, req: Request) -> Reply:
        """``POST /linode/instances`` with ``type``, ``region``, ``image`` and optional label."""
        body = req.json(self)
        for name in ("type", "region", "image"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise self.fail(400, f"{name} is required", name)
        flavor = self.find_type(body["type"])
        if body["region"] not in {r for r, _, _ in REGIONS}:
            rest_state(self.cloud).misses.append((self.name, "region", str(body["region"])))
            raise self.fail(400, f"region is not valid ({body['region']!r})", "region")
        image = self.find_image(body["image"])
        if image is None:
            rest_state(self.cloud).misses.append((self.name, "image", str(body["image"])))
            raise self.fail(400, f"image is not valid ({body['image']!r})", "image")
        label = self.check_label(body["label"]) if "label" in body else None
        tags = self.check_tags(body.get("tags", []))
        for name in ("root_pass",):
            value = body.get(name)
            if name in body and (not isinstance(value, str) or not 7 <= len(value) <= 128):
                raise self.fail(400, f"{name} must be a string of 7 to 128 characters", name)
        keys = body.get("authorized_keys", [])
        if not isinstance(keys, list) or not all(
            isinstance(k, str) and k.startswith(("ssh-", "ecdsa-")) for k in keys
        ):
            raise self.fail(
                400, "authorized_keys must be a list of SSH public keys", "authorized_keys"
            )
        if "booted" in body and not isinstance(body["booted"], bool):
            raise self.fail(400, "booted must be a boolean", "booted")
        networks = []
        if "network" in self.cloud.service_names():
            public = [
                n for n in self.cloud.service("network").list_networks() if n.get("router:external")
            ]
            networks = [{"uuid": public[0]["id"]}] if public else []
        server = self.compute.create_server(
            label or "linode",
            image["id"],
            flavor["id"],
            availability_zone=body["region"],
            networks=networks,
            metadata={TAGS_KEY: json.dumps(tags)},
        )
        if label is None:
            server = self.compute.update_server(server["id"], name=f"linode{int_id(server['id'])}")
        req.entity_id = server["id"]
        self.record_event("linode_create", server, ("ACTIVE",))
        return Reply(200, self.instance_view(server))

    @route("GET", "/linode/instances/{id}", op=_SERVER)
    def get_instance(self, req: Request) -> Reply:
        """``GET /linode/instances/{id}``."""
        server = self.find_instance(req.params["id"])
        req.entity_id = server["id"]
        return Reply(200, self.instance_view(server))

    @route("PUT", "/linode/instances/{id}", op=("compute", "servers.update", "server"))
    def update_instance(self, req: Request) -> Reply:
        """``PUT /linode/instances/{id}`` with ``label`` and/or ``tags``."""
        server = self.find_instance(req.params["id"])
        req.entity_id = server["id"]
        body = req.json(self)
        if "label" in body:
            server = self.compute.update_server(server["id"], name=self.check_label(body["label"]))
        if "tags" in body:
            tags = self.check_tags(body["tags"])
            server = self.compute.set_server_metadata(server["id"], {TAGS_KEY: json.dumps(tags)})
        return Reply(200, self.instance_view(server))

    @route("DELETE", "/linode/instances/{id}", op=("compute", "servers.delete", "server"))
    def delete_instance(self, req: Request) -> Reply:
        """``DELETE /linode/instances/{id}``."""
        server = self.find_instance(req.params["id"])
        req.entity_id = server["id"]
        self.compute.delete_server(server["id"])
        self.record_event("linode_delete", server, ())
        return Reply(200, {})

    def _power(self, req: Request, verb: str) -> Reply:
        server = self.find_instance(req.params["id"])
        req.entity_id = server["id"]
        if verb == "boot":
            if server["status"] == "ACTIVE" and not server.get(TASK):
                return Reply(200, {})
            self.compute.start_server(server["id"])
        elif verb == "shutdown":
            if server["status"] == "SHUTOFF" and not server.get(TASK):
                return Reply(200, {})
            self.compute.stop_server(server["id"])
        else:
            self.compute.reboot_server(server["id"], "SOFT")
        done = ("SHUTOFF",) if verb == "shutdown" else ("ACTIVE",)
        self.record_event(f"linode_{verb}", server, done)
        return Reply(200, {})

    # --- account events ----------------------------------------------------------------------

    def record_event(self, action: str, server: dict[str, Any], done: tuple[str, ...]) -> None:
        """Record an account event following *server*'s transition (``started``/``finished``)."""
        number = int_id(server["id"])
        rest_state(self.cloud).start_action(
            self.cloud,
            action,
            number,
            "linode",
            str(server.get("OS-EXT-AZ:availability_zone") or "us-east"),
            ("compute", "server", server["id"]),
            done,
        )
        self._labels[number] = server["name"]

    @property
    def _labels(self) -> dict[int, str]:
        return rest_state(self.cloud).__dict__.setdefault("linode_labels", {})

    def event_view(self, action: Any) -> dict[str, Any]:
        """Return a Linode account event for a recorded action."""
        status = {"in-progress": "started", "completed": "finished", "errored": "failed"}[
            action.status(self.cloud)
        ]
        finished = action.completed_at if status != "started" else None
        return {
            "id": action.id,
            "action": action.type,
            "created": iso(action.started_at, zulu=False),
            "entity": {
                "id": action.resource_id,
                "type": "linode",
                "label": self._labels.get(action.resource_id, ""),
                "url": f"/v4/linode/instances/{action.resource_id}",
            },
            "status": status,
            "percent_complete": 100 if status == "finished" else 50,
            "seen": False,
            "read": False,
            "rate": None,
            "time_remaining": None,
            "duration": None if finished is None else finished - action.started_at,
            "username": "plugsim",
        }

    def events(self) -> list[Any]:
        """Return the recorded Linode actions, oldest first."""
        actions = rest_state(self.cloud).actions.values()
        return [a for a in actions if a.resource_type == "linode"]

    @route("GET", "/account/events")
    def list_events(self, req: Request) -> Reply:
        """``GET /account/events`` honouring ``X-Filter`` (fields, ``+gt``, ``+order``)."""
        raw = req.headers.get("X-Filter")
        try:
            wanted = json.loads(raw) if raw else {}
        except ValueError:
            raise self.fail(400, f"X-Filter is not valid JSON: {raw!r}", "X-Filter") from None
        if not isinstance(wanted, dict):
            raise self.fail(400, "X-Filter must be a JSON object", "X-Filter")
        views = [self.event_view(a) for a in self.events()]
        views = [v for v in views if _matches(v, wanted)]
        if wanted.get("+order") == "desc":
            views.reverse()
        return self.page(req, views)

    @route("GET", "/account/events/{id}")
    def get_event(self, req: Request) -> Reply:
        """``GET /account/events/{id}``."""
        number = parse_int(req.params["id"])
        for action in self.events():
            if action.id == number:
                return Reply(200, self.event_view(action))
        return Reply(404, self.error_body(404, "Not found"))

    @route("POST", "/linode/instances/{id}/boot", op=("compute", "servers.start", "server"))
    def boot(self, req: Request) -> Reply:
        """``POST /linode/instances/{id}/boot`` (a running instance stays running)."""
        return self._power(req, "boot")

    @route("POST", "/linode/instances/{id}/shutdown", op=("compute", "servers.stop", "server"))
    def shutdown(self, req: Request) -> Reply:
        """``POST /linode/instances/{id}/shutdown`` (an offline instance stays offline)."""
        return self._power(req, "shutdown")

    @route("POST", "/linode/instances/{id}/reboot", op=("compute", "servers.reboot", "server"))
    def reboot(self, req: Request) -> Reply:
        """``POST /linode/instances/{id}/reboot``."""
        return self._power(req, "reboot")

    @route("POST", "/linode/instances/{id}/resize", op=("compute", "servers.resize", "server"))
    def resize(self, req: Request) -> Reply:
        """``POST /linode/instances/{id}/resize`` with ``type``."""
        server = self.find_instance(req.params["id"])
        req.entity_id = server["id"]
        body = req.json(self)
        if not isinstance(body.get("type"), str):
            raise self.fail(400, "type is required", "type")
        self.compute.resize_server(server["id"], self.find_type(body["type"])["id"])
        return Reply(200, {})

    @route("GET", "/linode/instances/{id}/ips", op=_SERVER)
    def ips(self, req: Request) -> Reply:
        """``GET /linode/instances/{id}/ips``."""
        server = self.find_instance(req.params["id"])
        req.entity_id = server["id"]
        public, private = self.addresses(server)
        number = int_id(server["id"])
        region = self.instance_view(server)["region"]

        def address(ip: str, is_public: bool) -> dict[str, Any]:
            net = ipaddress.ip_network(f"{ip}/24", strict=False)
            return {
                "address": ip,
                "gateway": str(net[1]) if is_public else None,
                "subnet_mask": str(net.netmask),
                "prefix": 24,
                "type": "ipv4",
                "public": is_public,
                "rdns": None,
                "linode_id": number,
                "region": region,
            }

        return Reply(
            200,
            {
                "ipv4": {
                    "public": [address(ip, True) for ip in public],
                    "private": [address(ip, False) for ip in private],
                    "shared": [],
                    "reserved": [],
                },
                "ipv6": {"slaac": None, "link_local": None, "global": []},
            },
        )

    # --- images, types, regions -----------------------------------------------------------

    @route("GET", "/images", op=("compute", "images.list", "image"))
    def list_images(self, req: Request) -> Reply:
        """``GET /images``."""
        return self.page(req, [self.image_view(i) for i in self.compute.list_images()])

    @route("GET", "/images/{vendor}/{name}", op=("compute", "images.get", "image"))
    def get_image(self, req: Request) -> Reply:
        """``GET /images/{linode/<distro> or private/<id>}``."""
        image = self.find_image(f"{req.params['vendor']}/{req.params['name']}")
        if image is None:
            raise self.missing()
        req.entity_id = image["id"]
        return Reply(200, self.image_view(image))

    @route("GET", "/linode/types", op=("compute", "flavors.list", "flavor"))
    def list_types(self, req: Request) -> Reply:
        """``GET /linode/types``."""
        return self.page(req, [self.type_view(f) for f in self.compute.list_flavors()])

    @route("GET", "/linode/types/{id}", op=("compute", "flavors.get", "flavor"))
    def get_type(self, req: Request) -> Reply:
        """``GET /linode/types/{id}``."""
        for flavor in self.compute.list_flavors():
            if flavor_slug(flavor, LINODE_TYPES) == req.params["id"]:
                req.entity_id = flavor["id"]
                return Reply(200, self.type_view(flavor))
        raise self.missing()

    def region_view(self, region: tuple[str, str, str]) -> dict[str, Any]:
        """Return a region object."""
        rid, label, country = region
        return {
            "id": rid,
            "label": label,
            "country": country,
            "capabilities": ["Linodes", "Block Storage", "NodeBalancers"],
            "status": "ok",
        }

    @route("GET", "/regions")
    def list_regions(self, req: Request) -> Reply:
        """``GET /regions``."""
        return self.page(req, [self.region_view(r) for r in REGIONS])

    @route("GET", "/regions/{id}")
    def get_region(self, req: Request) -> Reply:
        """``GET /regions/{id}``."""
        for region in REGIONS:
            if region[0] == req.params["id"]:
                return Reply(200, self.region_view(region))
        return self.not_found()


def _field(view: dict[str, Any], dotted: str) -> Any:
    value: Any = view
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _matches(view: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """True when an event satisfies an ``X-Filter`` (plain fields and ``+gt`` on the id)."""
    for key, value in wanted.items():
        if key == "+gt":
            if not isinstance(value, int) or view["id"] <= value:
                return False
        elif key.startswith("+"):
            continue
        elif _field(view, key) != value:
            return False
    return True
