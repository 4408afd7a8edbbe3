"""DigitalOcean v2: errors, lookups and the JSON views shared by every DO endpoint.

Mapping onto the fake cloud: a droplet is a compute server (its region is the
server's availability zone, its public IPv4 a port on the external network
``public``), an image is a compute image, a size a flavor, an SSH key a
keypair, a floating IP a network floating IP, a VPC a network with one
subnet, a tag an ``entity`` of kind ``do_tag``.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from fake_clouds.rest.common import (
    DO_SIZES,
    IMAGE_ALIASES,
    entity,
    flavor_slug,
    int_id,
    iso,
    paginate,
    parse_int,
    rest_state,
    settle_resize,
)
from fake_clouds.rest.dialect import Dialect, Reply, Request

TASK = "OS-EXT-STS:task_state"

REGIONS = [
    ("ams3", "Amsterdam 3"),
    ("blr1", "Bangalore 1"),
    ("fra1", "Frankfurt 1"),
    ("lon1", "London 1"),
    ("nyc1", "New York 1"),
    ("nyc2", "New York 2"),
    ("nyc3", "New York 3"),
    ("sfo2", "San Francisco 2"),
    ("sfo3", "San Francisco 3"),
    ("sgp1", "Singapore 1"),
    ("syd1", "Sydney 1"),
    ("tor1", "Toronto 1"),
]
DEFAULT_REGION = "nyc3"

#: DigitalOcean's public size slugs as its documentation lists them:
#: slug -> (vCPUs, memory MB, disk GB, description).
_CATALOGUE: dict[str, tuple[int, int, int, str]] = {
    "s-1vcpu-512mb-10gb": (1, 512, 10, "Basic"),
    "s-1vcpu-1gb": (1, 1024, 25, "Basic"),
    "s-1vcpu-1gb-amd": (1, 1024, 25, "Basic AMD"),
    "s-1vcpu-1gb-intel": (1, 1024, 25, "Basic Intel"),
    "s-1vcpu-2gb": (1, 2048, 50, "Basic"),
    "s-2vcpu-2gb": (2, 2048, 60, "Basic"),
    "s-2vcpu-4gb": (2, 4096, 80, "Basic"),
    "s-4vcpu-8gb": (4, 8192, 160, "Basic"),
    "s-8vcpu-16gb": (8, 16384, 320, "Basic"),
    "c-2": (2, 4096, 25, "CPU-Optimized"),
    "g-2vcpu-8gb": (2, 8192, 25, "General Purpose"),
    "m-2vcpu-16gb": (2, 16384, 50, "Memory-Optimized"),
}
#: Server metadata key holding the size slug a droplet was created (or resized) with.
SIZE_KEY = "do:size"

_ERROR_IDS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    422: "unprocessable_entity",
    429: "too_many_requests",
    500: "server_error",
    503: "service_unavailable",
}

_TAG_NAME = re.compile(r"^[A-Za-z0-9:_\-]{1,255}$")


class DOBase(Dialect):
    """Shared plumbing of the DigitalOcean dialect."""

    status_map = {409: 422, 413: 422}  # noqa: RUF012

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """DigitalOcean's ``{"id": ..., "message": ...}``."""
        return {"id": _ERROR_IDS.get(status, "error"), "message": message}

    def unauthorized(self) -> Reply:
        """The 401 body DigitalOcean sends for a missing or wrong token."""
        return Reply(401, {"id": "unauthorized", "message": "Unable to authenticate you."})

    def not_found(self) -> Reply:
        """The 404 body DigitalOcean sends."""
        return Reply(
            404,
            {
                "id": "not_found",
                "message": "The resource you were accessing could not be found.",
            },
        )

    def missing(self) -> Exception:
        """Return the typed 404 error of a missing resource."""
        return self.fail(404, "The resource you were accessing could not be found.")

    def invalid(self, message: str, field_name: str | None = None) -> Exception:
        """Return a 422 ``unprocessable_entity`` error."""
        return self.fail(422, message, field_name)

    # --- shortcuts ------------------------------------------------------------------

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    def page(self, req: Request, key: str, items: list[Any], extra: Any = None) -> Reply:
        """Return DigitalOcean's paginated list reply (``links.pages`` and ``meta.total``)."""
        page = req.int_arg(self, "page", 1, 1, 10**6)
        per_page = req.int_arg(self, "per_page", 20, 1, 200)
        chunk, pages = paginate(items, page, per_page)
        url = req.url.split("?", 1)[0]
        keep = "".join(
            f"&{k}={v[0]}" for k, v in sorted(req.query.items()) if k not in ("page", "per_page")
        )

        def link(n: int) -> str:
            return f"{url}?page={n}&per_page={per_page}{keep}"

        links: dict[str, Any] = {}
        if pages > 1:
            nav = {}
            if page > 1:
                nav["first"] = link(1)
                nav["prev"] = link(page - 1)
            if page < pages:
                nav["next"] = link(page + 1)
                nav["last"] = link(pages)
            links["pages"] = nav
        body = {key: chunk, "links": links, "meta": {"total": len(items)}}
        if extra:
            body.update(extra)
        return Reply(200, body)

    # --- regions, sizes, images ------------------------------------------------------

    def region_view(self, slug: str) -> dict[str, Any]:
        """Return a region object."""
        names = dict(REGIONS)
        return {
            "slug": slug,
            "name": names.get(slug, slug),
            "sizes": [z["slug"] for z in self.size_views()],
            "available": True,
            "features": ["backups", "ipv6", "metadata", "install_agent", "private_networking"],
        }

    def check_region(self, value: Any, field_name: str = "region") -> str:
        """Return a valid region slug or fail naming *field_name*."""
        if not isinstance(value, str) or value not in dict(REGIONS):
            self.state().misses.append((self.name, "region", str(value)))
            raise self.invalid(f"You specified an invalid region ({value!r}).", field_name)
        return value

    def size_view(self, flavor: dict[str, Any]) -> dict[str, Any]:
        """Return a size object for a flavor (a catalogue slug's numbers when it has one)."""
        slug = flavor_slug(flavor, DO_SIZES)
        if slug in _CATALOGUE:
            return self.slug_view(slug)
        return self._size(slug, flavor["vcpus"], flavor["ram"], flavor["disk"], flavor["name"])

    def slug_view(self, slug: str) -> dict[str, Any]:
        """Return the size object of a catalogue slug."""
        vcpus, memory, disk, description = _CATALOGUE[slug]
        return self._size(slug, vcpus, memory, disk, description)

    def _size(self, slug: str, vcpus: int, memory: int, disk: int, text: str) -> dict[str, Any]:
        monthly = round(4.0 * vcpus + 3.0 * memory / 1024, 2)
        return {
            "slug": slug,
            "memory": memory,
            "vcpus": vcpus,
            "disk": disk,
            "transfer": float(max(1, memory // 1024)),
            "price_monthly": monthly,
            "price_hourly": round(monthly / 672, 5),
            "regions": [r for r, _ in REGIONS],
            "available": True,
            "description": text,
        }

    def size_views(self) -> list[dict[str, Any]]:
        """Return every size: the catalogue's slugs, then flavors outside it (by name)."""
        views = [self.slug_view(slug) for slug in _CATALOGUE]
        for flavor in self.compute.list_flavors():
            if flavor_slug(flavor, DO_SIZES) not in _CATALOGUE:
                views.append(self.size_view(flavor))
        return views

    def resolve_size(self, value: Any) -> tuple[str, dict[str, Any]]:
        """Return ``(slug, flavor)`` for a size slug (or flavor name/id), or fail with 422.

        A catalogue slug without a flavor of its own runs on the smallest flavor
        that fits it; the droplet still shows the slug (kept in its metadata).
        """
        flavors = self.compute.list_flavors()
        for flavor in flavors:
            if value in (flavor_slug(flavor, DO_SIZES), flavor["name"], flavor["id"]):
                return flavor_slug(flavor, DO_SIZES), flavor
        if isinstance(value, str) and value in _CATALOGUE and flavors:
            vcpus, memory, _, _ = _CATALOGUE[value]
            fits = [f for f in flavors if f["vcpus"] >= vcpus and f["ram"] >= memory]
            pool = fits or flavors
            return value, min(pool, key=lambda f: (f["ram"], f["vcpus"], f["disk"], f["id"]))
        self.state().misses.append((self.name, "size", str(value)))
        raise self.invalid(
            f"You specified an invalid size for Droplet creation ({value!r}).", "size"
        )

    def find_size(self, value: Any) -> dict[str, Any]:
        """Return the flavor a size slug (or flavor name/id) runs on, or fail with 422."""
        return self.resolve_size(value)[1]

    def droplet_size(self, server: dict[str, Any], flavor: dict[str, Any]) -> dict[str, Any]:
        """Return the size object a droplet shows (the slug it was created or resized with)."""
        slug = (server.get("metadata") or {}).get(SIZE_KEY)
        if slug in _CATALOGUE and flavor_slug(flavor, DO_SIZES) != slug:
            return self.slug_view(slug)
        return self.size_view(flavor)

    def image_view(self, image: dict[str, Any]) -> dict[str, Any]:
        """Return an image object."""
        alias = IMAGE_ALIASES.get(image["name"])
        public = image.get("visibility") == "public"
        status = {"active": "available", "error": "deleted"}.get(image["status"], "pending")
        return {
            "id": int_id(image["id"]),
            "name": (image.get("file") or image["name"]) if public else image["name"],
            "distribution": alias[2] if alias else "Unknown",
            "slug": (alias[0] if alias else image["name"]) if public else None,
            "public": public,
            "regions": [slug for slug, _ in REGIONS],
            "created_at": iso(image["created_at"]),
            "type": "snapshot" if image.get("image_type") == "snapshot" else "base",
            "min_disk_size": image.get("min_disk", 0),
            "size_gigabytes": round(image.get("size", 0) / 2**30, 2),
            "description": "",
            "tags": [],
            "status": status,
            "error_message": "",
        }

    def find_image(self, value: Any, field_name: str = "image") -> dict[str, Any]:
        """Return the image an id, slug or name names, or fail with 422."""
        number = parse_int(value)
        for image in self.compute.list_images():
            alias = IMAGE_ALIASES.get(image["name"])
            if number is not None and int_id(image["id"]) == number:
                return image
            if isinstance(value, str) and value in (image["name"], alias[0] if alias else None):
                return image
        self.state().misses.append((self.name, "image", str(value)))
        raise self.invalid(
            f"You specified an invalid image for Droplet creation ({value!r}).", field_name
        )

    # --- droplets ----------------------------------------------------------------------

    def find_droplet(self, droplet_id: Any) -> dict[str, Any]:
        """Return the server behind a droplet id, or fail with 404."""
        number = parse_int(droplet_id)
        if number is not None:
            for server in self.compute.list_servers():
                if int_id(server["id"]) == number:
                    return self.settle(server)
        raise self.missing()

    def settle(self, server: dict[str, Any]) -> dict[str, Any]:
        """Confirm a finished resize (DigitalOcean has no VERIFY_RESIZE step)."""
        return settle_resize(self.cloud, server)

    def droplet_status(self, server: dict[str, Any]) -> str:
        """Map a server status onto DigitalOcean's new/active/off/archive."""
        if server.get(TASK) == "deleting":
            return "archive"
        status = server["status"]
        if status in ("BUILD", "REBUILD"):
            return "new"
        if status in ("SHUTOFF", "SUSPENDED", "ERROR"):
            return "off"
        return "active"

    def droplet_region(self, server: dict[str, Any]) -> str:
        """Return the region slug a server lives in."""
        zone = server.get("OS-EXT-AZ:availability_zone")
        return zone if zone in dict(REGIONS) else DEFAULT_REGION

    def droplet_view(self, server: dict[str, Any]) -> dict[str, Any]:
        """Return a droplet object for a compute server."""
        flavor = self.compute.get_flavor(server["flavor"]["id"])
        size = self.droplet_size(server, flavor)
        image_ent = entity(self.cloud, "compute", "image", server["image"]["id"])
        image = image_ent.view() if image_ent is not None else None
        number = int_id(server["id"])
        snapshots = [
            int_id(i["id"])
            for i in self.compute.list_images()
            if i.get("instance_uuid") == server["id"]
        ]
        region = self.droplet_region(server)
        vpc = None
        for net in self.networks_of(server):
            if net["type"] == "private":
                vpc = net["network_id"]
        return {
            "id": number,
            "name": server["name"],
            "memory": size["memory"],
            "vcpus": size["vcpus"],
            "disk": size["disk"],
            "locked": server.get(TASK) == "deleting",
            "status": self.droplet_status(server),
            "kernel": None,
            "created_at": iso(server["created_at"]),
            "features": ["private_networking"] if vpc else [],
            "backup_ids": [],
            "next_backup_window": None,
            "snapshot_ids": snapshots,
            "image": self.image_view(image) if image else {},
            "volume_ids": [v["id"] for v in server.get("os-extended-volumes:volumes_attached", [])],
            "size": size,
            "size_slug": size["slug"],
            "networks": {
                "v4": [
                    {k: n[k] for k in ("ip_address", "netmask", "gateway", "type")}
                    for n in self.networks_of(server)
                ],
                "v6": [],
            },
            "region": self.region_view(region),
            "tags": self.tags_of(number),
            "vpc_uuid": vpc,
        }

    def networks_of(self, server: dict[str, Any]) -> list[dict[str, Any]]:
        """Return the droplet's IPv4 networks (public first) with netmask and gateway."""
        if "network" not in self.cloud.service_names():
            return []
        network = self.cloud.service("network")
        out = []
        for name in sorted(server.get("addresses") or {}):
            nets = network.list_networks(name=name)
            for addr in server["addresses"][name]:
                if addr.get("version") != 4 or not nets:
                    continue
                subnet = None
                for sid in nets[0].get("subnets", []):
                    candidate = entity(self.cloud, "network", "subnet", sid)
                    if candidate is not None and ipaddress.ip_address(
                        addr["addr"]
                    ) in ipaddress.ip_network(candidate.attrs["cidr"]):
                        subnet = candidate.attrs
                public = bool(nets[0].get("router:external"))
                out.append(
                    {
                        "ip_address": addr["addr"],
                        "netmask": str(ipaddress.ip_network(subnet["cidr"]).netmask)
                        if subnet
                        else "255.255.255.0",
                        "gateway": (subnet or {}).get("gateway_ip") if public else "",
                        "type": "public" if public else "private",
                        "network_id": nets[0]["id"],
                    }
                )
        out.sort(key=lambda n: (n["type"] != "public", n["ip_address"]))
        return out

    # --- tags ----------------------------------------------------------------------------

    def tag_service(self) -> Any:
        """Return the entity service with the ``do_tag`` kind defined."""
        svc = self.cloud.service("entity")
        if "do_tag" not in svc.counters.get("kinds", {}):
            svc.define_kind("do_tag", create=(None, "ACTIVE"), update=None, delete=(None, None))
        return svc

    def all_tags(self) -> list[dict[str, Any]]:
        """Return every tag entity (creation order)."""
        if "entity" not in self.cloud.service_names():
            return []
        return self.tag_service().list_entities(kind="do_tag")

    def find_tag(self, name: str) -> dict[str, Any] | None:
        """Return the tag entity called *name*, or None."""
        for tag in self.all_tags():
            if tag["name"] == name:
                return tag
        return None

    def check_tag_name(self, name: Any, field_name: str = "name") -> str:
        """Return a valid tag name or fail with 422 naming *field_name*."""
        if not isinstance(name, str) or not _TAG_NAME.match(name):
            raise self.invalid(
                f"{field_name}: a tag name is 1-255 letters, digits, ':', '-' or '_' "
                f"(got {name!r})",
                field_name,
            )
        return name

    def ensure_tag(self, name: str) -> dict[str, Any]:
        """Return the tag called *name*, creating it if needed."""
        tag = self.find_tag(name)
        if tag is None:
            tag = self.tag_service().create_entity("do_tag", {"resources": []}, name=name)
        return tag

    def tag_resource(self, name: str, resource_id: str, resource_type: str) -> None:
        """Attach a resource to the tag *name* (created if needed)."""
        tag = self.ensure_tag(name)
        item = {"resource_id": resource_id, "resource_type": resource_type}
        if item not in tag["resources"]:
            self.tag_service().update_entity(tag["id"], {"resources": [*tag["resources"], item]})

    def tags_of(self, droplet_id: int) -> list[str]:
        """Return the names of the tags a droplet carries (sorted)."""
        key = {"resource_id": str(droplet_id), "resource_type": "droplet"}
        return sorted(t["name"] for t in self.all_tags() if key in t["resources"])

    def live_droplet_ids(self) -> set[str]:
        """Return the ids (as strings) of every live droplet."""
        return {str(int_id(s["id"])) for s in self.compute.list_servers()}

    # --- actions -------------------------------------------------------------------------

    def action_view(self, action: Any) -> dict[str, Any]:
        """Return an action object (its status follows the fake cloud's transition)."""
        status = action.status(self.cloud)
        return {
            "id": action.id,
            "status": status,
            "type": action.type,
            "started_at": iso(action.started_at),
            "completed_at": iso(action.completed_at) if status != "in-progress" else None,
            "resource_id": action.resource_id,
            "resource_type": action.resource_type,
            "region": self.region_view(action.region),
            "region_slug": action.region,
        }

    def state(self) -> Any:
        """Return the REST records of this world."""
        return rest_state(self.cloud)
