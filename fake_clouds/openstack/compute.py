"""Compute v2.1 on the wire (nova): servers and their actions, flavors, keypairs,
availability zones, limits and microversions.

Microversions: a request names one with ``OpenStack-API-Version: compute X.Y``
or ``X-OpenStack-Nova-API-Version: X.Y`` (``latest`` = :data:`MAX_VERSION`);
a malformed value is a 400, one outside ``2.1``-:data:`MAX_VERSION` a 406, as
nova answers. From 2.47 a server embeds its flavor's details instead of a
link. Servers, flavors, images and keypairs are the compute service's
entities, so the engine's Python client sees what the wire created.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from fake_clouds.compute_addresses import nova_addresses
from fake_clouds.core import scope
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, bad, route
from fake_clouds.openstack.compute_aggregates import AggregateRoutes
from fake_clouds.openstack.compute_flavors import FlavorRoutes
from fake_clouds.openstack.compute_hosts import ComputeHostRoutes
from fake_clouds.openstack.compute_quotas import QuotaRoutes
from fake_clouds.openstack.compute_volumes import VolumeAttachmentRoutes
from fake_clouds.openstack.name_fields import check_name
from fake_clouds.rest.common import iso
from sdk import exception

MIN_VERSION = (2, 1)
MAX_VERSION = (2, 96)
_KEYS = {
    400: "badRequest",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    406: "notAcceptable",
    409: "conflictingRequest",
    413: "overLimit",
    429: "overLimit",
    503: "serviceUnavailable",
}
_VM_STATE = {
    "ACTIVE": ("active", 1),
    "BUILD": ("building", 0),
    "SHUTOFF": ("stopped", 4),
    "SUSPENDED": ("suspended", 7),
    "ERROR": ("error", 0),
    "VERIFY_RESIZE": ("resized", 1),
    "REBOOT": ("active", 1),
    "HARD_REBOOT": ("active", 1),
}
_HIDDEN = ("created_at", "updated_at", "user_data", "previous_flavor")
_VERSION = re.compile(r"^([1-9]\d*)\.(0|[1-9]\d*)$")
_SERVER = ("compute", "servers.get", "server")

#: Server action key in a ``POST /servers/{id}/action`` body -> the compute operation.
ACTIONS = {
    "os-stop": "servers.stop",
    "os-start": "servers.start",
    "reboot": "servers.reboot",
    "suspend": "servers.suspend",
    "resume": "servers.resume",
    "createImage": "servers.create_image",
    "resize": "servers.resize",
    "confirmResize": "servers.confirm_resize",
    "revertResize": "servers.revert_resize",
    "rebuild": "servers.rebuild",
}


def _text(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


class ComputeAPI(
    AggregateRoutes,
    FlavorRoutes,
    VolumeAttachmentRoutes,
    QuotaRoutes,
    ComputeHostRoutes,
    ServiceAPI,
):
    """Nova v2.1 (``/compute/v2.1``); flavors and volume attachments come from the mixins."""

    prefix = "compute"
    catalog_type = "compute"
    catalog_name = "nova"

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    def endpoint(self, project_id: str) -> str:
        """Nova's catalog URL (``/compute/v2.1``)."""
        return self.url("/v2.1")

    def error_body(self, status: int, message: str) -> Any:
        """Nova's ``{"<kind>": {"code", "message"}}``."""
        return {_KEYS.get(status, "computeFault"): {"code": status, "message": message}}

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Keep nova-shaped bodies of the compute service; shape anything else."""
        body = ex.body
        if isinstance(body, dict) and len(body) == 1:
            (key,) = body
            if key in (*_KEYS.values(), "computeFault") and isinstance(body[key], dict):
                return {key: {**body[key], "code": status}}
        return self.error_body(status, str(ex))

    # --- microversions ------------------------------------------------------------------

    def negotiate(self, req: ApiRequest) -> dict[str, str]:
        """Read the requested microversion (400 malformed, 406 unsupported); echo it."""
        raw = None
        header = req.headers.get("OpenStack-API-Version")
        if header:
            service, _, value = header.strip().partition(" ")
            if service.lower() == "compute":
                raw = value.strip()
        if raw is None:
            raw = req.headers.get("X-OpenStack-Nova-API-Version")
        version = MIN_VERSION
        if raw:
            if raw.lower() == "latest":
                version = MAX_VERSION
            else:
                match = _VERSION.match(raw.strip())
                if match is None:
                    raise ApiError(400, f"Invalid API version request string {raw!r}.")
                version = (int(match.group(1)), int(match.group(2)))
                if not MIN_VERSION <= version <= MAX_VERSION:
                    raise ApiError(
                        406,
                        f"Version {raw} is not supported by the API. Minimum is "
                        f"{_text(MIN_VERSION)} and maximum is {_text(MAX_VERSION)}.",
                    )
        req.version = version
        text = _text(version)
        return {
            "OpenStack-API-Version": f"compute {text}",
            "X-OpenStack-Nova-API-Version": text,
            "Vary": "OpenStack-API-Version, X-OpenStack-Nova-API-Version",
        }

    def _version_doc(self) -> dict[str, Any]:
        return {
            "id": "v2.1",
            "status": "CURRENT",
            "version": _text(MAX_VERSION),
            "min_version": _text(MIN_VERSION),
            "updated": "2013-07-23T11:33:21Z",
            "links": [{"rel": "self", "href": self.url("/v2.1/")}],
            "media-types": [
                {
                    "base": "application/json",
                    "type": "application/vnd.openstack.compute+json;version=2.1",
                }
            ],
        }

    @route("GET", "/", public=True)
    def versions(self, req: ApiRequest) -> Reply:
        """``GET /compute``: the version list."""
        return Reply(200, {"versions": [self._version_doc()]})

    @route("GET", "/v2.1", public=True)
    def version(self, req: ApiRequest) -> Reply:
        """``GET /compute/v2.1``."""
        return Reply(200, {"version": self._version_doc()})

    # --- views --------------------------------------------------------------------------

    def link(self, kind: str, ident: str) -> list[dict[str, str]]:
        """Nova's self/bookmark links."""
        return [
            {"rel": "self", "href": self.url(f"/v2.1/{kind}/{ident}")},
            {"rel": "bookmark", "href": self.url(f"/{kind}/{ident}")},
        ]

    def server_view(self, req: ApiRequest, server: dict[str, Any]) -> dict[str, Any]:
        """Return a nova server body for the request's microversion."""
        out = {k: v for k, v in server.items() if k not in _HIDDEN}
        vm_state, power = _VM_STATE.get(server["status"], ("active", 1))
        flavor: dict[str, Any]
        if (req.version or MIN_VERSION) >= (2, 47):
            flv = self.compute._store["flavor"].get(server["flavor"]["id"])
            attrs = flv.attrs if flv is not None else {}
            flavor = {
                "original_name": server["flavor"].get("original_name", ""),
                "vcpus": attrs.get("vcpus", 0),
                "ram": attrs.get("ram", 0),
                "disk": attrs.get("disk", 0),
                "ephemeral": attrs.get("ephemeral", 0),
                "swap": attrs.get("swap", 0) or 0,
                "extra_specs": dict(attrs.get("extra_specs", {})),
            }
        else:
            flavor = {
                "id": server["flavor"]["id"],
                "links": self.link("flavors", server["flavor"]["id"]),
            }
        out.update(
            created=iso(server["created_at"]),
            updated=iso(server["updated_at"]),
            flavor=flavor,
            image={
                "id": server["image"]["id"],
                "links": self.link("images", server["image"]["id"]),
            },
            links=self.link("servers", server["id"]),
            addresses=nova_addresses(self.compute.world, server),
            tenant_id=scope.owner_of(self.compute, "server", server["id"]) or req.project_id,
            user_id=req.user_id,
            hostId=hashlib.sha224(server["id"].encode()).hexdigest(),
            accessIPv4="",
            accessIPv6="",
            progress=100 if server["status"] == "ACTIVE" else 0,
            config_drive="",
            locked=False,
            tags=[],
            **{
                "OS-EXT-STS:vm_state": vm_state,
                "OS-EXT-STS:power_state": power,
                "OS-DCF:diskConfig": "MANUAL",
                "OS-SRV-USG:launched_at": iso(server["created_at"]),
                "OS-SRV-USG:terminated_at": None,
            },
        )
        if (req.version or MIN_VERSION) >= (2, 3):
            index = 0
            out.update(
                {
                    "OS-EXT-SRV-ATTR:reservation_id": "r-" + server["id"][:8],
                    "OS-EXT-SRV-ATTR:launch_index": index,
                    "OS-EXT-SRV-ATTR:hostname": server["name"],
                    "OS-EXT-SRV-ATTR:kernel_id": "",
                    "OS-EXT-SRV-ATTR:ramdisk_id": "",
                    "OS-EXT-SRV-ATTR:root_device_name": "/dev/vda",
                    "OS-EXT-SRV-ATTR:user_data": server.get("user_data"),
                    "OS-EXT-SRV-ATTR:host": "plugsim",
                    "OS-EXT-SRV-ATTR:hypervisor_hostname": "plugsim",
                    "OS-EXT-SRV-ATTR:instance_name": "instance-" + server["id"][:8],
                }
            )
        if out.get("fault") is None:
            out.pop("fault", None)
        return out

    def keypair_view(self, req: ApiRequest, keypair: dict[str, Any]) -> dict[str, Any]:
        """Return a nova keypair body."""
        out = {
            "name": keypair["name"],
            "public_key": keypair.get("public_key"),
            "fingerprint": keypair.get("fingerprint"),
            "type": keypair.get("type", "ssh"),
            "user_id": req.user_id,
        }
        if "private_key" in keypair:
            out["private_key"] = keypair["private_key"]
        return out

    # --- servers --------------------------------------------------------------------------

    def _servers(self, req: ApiRequest) -> list[dict[str, Any]]:
        filters = {k: req.args[k] for k in ("status",) if k in req.args}
        servers = self.compute.list_servers(**filters)
        name = req.args.get("name")
        if name:
            try:
                pattern = re.compile(name)
            except re.error:
                raise bad(f"Invalid filter name: {name!r} is not a regular expression") from None
            servers = [s for s in servers if pattern.search(s["name"])]
        servers = [s for s in servers if s.get("OS-EXT-STS:task_state") != "deleted"]
        return servers

    @route("GET", "/v2.1/servers", op=("compute", "servers.list", "server"))
    def list_servers(self, req: ApiRequest) -> Reply:
        """``GET /servers``: ids, names and links."""
        servers = [
            {"id": s["id"], "name": s["name"], "links": self.link("servers", s["id"])}
            for s in self._servers(req)
        ]
        return Reply(200, {"servers": servers})

    @route("GET", "/v2.1/servers/detail", op=("compute", "servers.list", "server"))
    def list_servers_detail(self, req: ApiRequest) -> Reply:
        """``GET /servers/detail``."""
        return Reply(200, {"servers": [self.server_view(req, s) for s in self._servers(req)]})

    @route("POST", "/v2.1/servers", op=("compute", "servers.create", "server"))
    def create_server(self, req: ApiRequest) -> Reply:
        """``POST /servers``."""
        spec = req.member("server")
        check_name(spec)
        for key in ("name", "flavorRef"):
            if not isinstance(spec.get(key), str) or not spec[key]:
                raise bad(f"Invalid input for field/attribute {key}. Value: {spec.get(key)!r}.")
        image = spec.get("imageRef")
        if not isinstance(image, str) or not image:
            raise bad("Invalid input for field/attribute imageRef: an image is required.")
        options: dict[str, Any] = {}
        for key in (
            "key_name",
            "metadata",
            "user_data",
            "availability_zone",
            "description",
            "block_device_mapping_v2",
        ):
            if spec.get(key) is not None:
                options[key] = spec[key]
        if "metadata" in options and not isinstance(options["metadata"], dict):
            raise bad("Invalid input for field/attribute metadata: expected an object")
        nets = spec.get("networks")
        if isinstance(nets, list):
            options["networks"] = nets
        elif nets not in (None, "auto", "none"):
            raise bad(
                "Invalid input for field/attribute networks: expected a list, 'auto' or 'none'"
            )
        groups = spec.get("security_groups")
        if groups is not None:
            if not isinstance(groups, list) or not all(
                isinstance(g, dict) and "name" in g for g in groups
            ):
                raise bad("Invalid input for field/attribute security_groups")
            options["security_groups"] = [g["name"] for g in groups]
        server = self.compute.create_server(spec["name"], image, spec["flavorRef"], **options)
        body = {
            "id": server["id"],
            "links": self.link("servers", server["id"]),
            "adminPass": hashlib.sha256(server["id"].encode()).hexdigest()[:12],
            "OS-DCF:diskConfig": "MANUAL",
            "security_groups": server["security_groups"],
        }
        return Reply(202, {"server": body}, {"Location": self.url(f"/v2.1/servers/{server['id']}")})

    @route("GET", "/v2.1/servers/<sid>", op=_SERVER)
    def get_server(self, req: ApiRequest, sid: str) -> Reply:
        """``GET /servers/{id}``."""
        return Reply(200, {"server": self.server_view(req, self.compute.get_server(sid))})

    @route("PUT", "/v2.1/servers/<sid>", op=("compute", "servers.update", "server"))
    def update_server(self, req: ApiRequest, sid: str) -> Reply:
        """``PUT /servers/{id}`` (name, description)."""
        spec = req.member("server")
        check_name(spec)
        unknown = sorted(set(spec) - {"name", "description", "accessIPv4", "accessIPv6"})
        if unknown:
            raise bad(
                f"Additional properties are not allowed ({', '.join(unknown)} were unexpected)"
            )
        changes = {k: spec[k] for k in ("name", "description") if k in spec}
        server = self.compute.update_server(sid, **changes)
        return Reply(200, {"server": self.server_view(req, server)})

    @route("DELETE", "/v2.1/servers/<sid>", op=("compute", "servers.delete", "server"))
    def delete_server(self, req: ApiRequest, sid: str) -> Reply:
        """``DELETE /servers/{id}``."""
        self.compute.delete_server(sid)
        return Reply(204)

    @route("GET", "/v2.1/servers/<sid>/metadata", op=_SERVER)
    def server_metadata(self, req: ApiRequest, sid: str) -> Reply:
        """``GET /servers/{id}/metadata``."""
        return Reply(200, {"metadata": self.compute.get_server(sid)["metadata"]})

    @route("POST", "/v2.1/servers/<sid>/metadata", op=("compute", "servers.set_meta", "server"))
    @route("PUT", "/v2.1/servers/<sid>/metadata", op=("compute", "servers.set_meta", "server"))
    def set_server_metadata(self, req: ApiRequest, sid: str) -> Reply:
        """Merge server metadata."""
        metadata = req.json().get("metadata")
        if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
            raise bad("Invalid input for field/attribute metadata: expected an object of strings")
        server = self.compute.set_server_metadata(sid, metadata)
        return Reply(200, {"metadata": server["metadata"]})

    @route("GET", "/v2.1/servers/<sid>/metadata/<key>", op=_SERVER)
    def server_metadata_item(self, req: ApiRequest, sid: str, key: str) -> Reply:
        """``GET /servers/{id}/metadata/{key}``."""
        metadata = self.compute.get_server(sid)["metadata"]
        if key not in metadata:
            raise ApiError(404, f"Metadata item was not found: {key}")
        return Reply(200, {"meta": {key: metadata[key]}})

    @route(
        "PUT", "/v2.1/servers/<sid>/metadata/<key>", op=("compute", "servers.set_meta", "server")
    )
    def set_server_metadata_item(self, req: ApiRequest, sid: str, key: str) -> Reply:
        """``PUT /servers/{id}/metadata/{key}`` with ``{"meta": {key: value}}``."""
        meta = req.json().get("meta")
        if not isinstance(meta, dict) or list(meta) != [key] or not isinstance(meta[key], str):
            raise bad("Request body and URI mismatch: meta must hold exactly the key of the URI")
        self.compute.set_server_metadata(sid, meta)
        return Reply(200, {"meta": meta})

    @route(
        "DELETE", "/v2.1/servers/<sid>/metadata/<key>", op=("compute", "servers.set_meta", "server")
    )
    def delete_server_metadata_item(self, req: ApiRequest, sid: str, key: str) -> Reply:
        """``DELETE /servers/{id}/metadata/{key}``."""
        metadata = dict(self.compute.get_server(sid)["metadata"])
        if key not in metadata:
            raise ApiError(404, f"Metadata item was not found: {key}")
        del metadata[key]
        ent = self.compute._get("server", sid, label="Instance")
        self.compute._set(ent, metadata=metadata)
        return Reply(204)

    @route("GET", "/v2.1/servers/<sid>/os-security-groups", op=_SERVER)
    def server_security_groups(self, req: ApiRequest, sid: str) -> Reply:
        """The server's security groups by name."""
        groups = self.compute.get_server(sid)["security_groups"]
        return Reply(200, {"security_groups": [{"name": g["name"]} for g in groups]})

    def action_op(self, req: ApiRequest, sid: str) -> Any:
        """The compute operation a ``POST /servers/{id}/action`` dispatches as."""
        try:
            body = req.json()
        except ApiError:
            return _SERVER
        for key in sorted(body):
            if key in ACTIONS:
                return ("compute", ACTIONS[key], "image" if key == "createImage" else "server")
        return _SERVER

    @route("POST", "/v2.1/servers/<sid>/action", op="action_op")
    def server_action(self, req: ApiRequest, sid: str) -> Reply:
        """``POST /servers/{id}/action`` with one action key."""
        body = req.json()
        if len(body) != 1:
            raise bad("The action body must hold exactly one action.")
        (key,) = body
        if key not in ACTIONS:
            self.app.count_unserved(self.prefix, "POST", f"/v2.1/servers/{{id}}/action#{key}")
            self.compute.get_server(sid)
            raise bad(f"There is no such action: {key}")
        arg = body[key]
        compute = self.compute
        if key == "reboot":
            kind = arg.get("type") if isinstance(arg, dict) else None
            if kind not in ("SOFT", "HARD"):
                raise bad("Invalid input for field/attribute type. Value: SOFT or HARD required.")
            compute.reboot_server(sid, kind)
        elif key == "createImage":
            if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
                raise bad("Invalid input for field/attribute name of createImage.")
            image = compute.create_image(sid, arg["name"], arg.get("metadata"))
            location = {"Location": self.url(f"/v2.1/images/{image['id']}")}
            if (req.version or MIN_VERSION) >= (2, 45):
                return Reply(202, {"image_id": image["id"]}, location)
            return Reply(202, None, location)
        elif key == "resize":
            if not isinstance(arg, dict) or not isinstance(arg.get("flavorRef"), str):
                raise bad("Invalid input for field/attribute flavorRef of resize.")
            compute.resize_server(sid, arg["flavorRef"])
        elif key == "rebuild":
            if not isinstance(arg, dict) or not isinstance(arg.get("imageRef"), str):
                raise bad("Invalid input for field/attribute imageRef of rebuild.")
            check_name(arg)
            server = compute.rebuild_server(sid, arg["imageRef"], arg.get("name"))
            return Reply(202, {"server": self.server_view(req, server)})
        else:
            method = ACTIONS[key].split(".", 1)[1]
            if method in ("stop", "start", "suspend", "resume"):
                method = f"{method}_server"
            getattr(compute, method)(sid)
        return Reply(202)

    # --- flavors, keypairs, zones, limits ---------------------------------------------------

    def image_view(self, image: dict[str, Any]) -> dict[str, Any]:
        """Return nova's (proxied) image body."""
        status = {"active": "ACTIVE", "queued": "SAVING", "saving": "SAVING"}.get(
            image["status"], image["status"].upper()
        )
        return {
            "id": image["id"],
            "name": image["name"],
            "status": status,
            "minDisk": image.get("min_disk", 0),
            "minRam": image.get("min_ram", 0),
            "progress": 100 if status == "ACTIVE" else 50,
            "metadata": image.get("metadata", {}),
            "created": iso(image["created_at"]),
            "updated": iso(image["updated_at"]),
            "links": self.link("images", image["id"]),
        }

    @route("GET", "/v2.1/images", op=("compute", "images.list", "image"))
    def list_images(self, req: ApiRequest) -> Reply:
        """``GET /images`` (nova's image proxy)."""
        images = [
            {"id": i["id"], "name": i["name"], "links": self.link("images", i["id"])}
            for i in self.compute.list_images()
        ]
        return Reply(200, {"images": images})

    @route("GET", "/v2.1/images/detail", op=("compute", "images.list", "image"))
    def list_images_detail(self, req: ApiRequest) -> Reply:
        """``GET /images/detail``."""
        return Reply(200, {"images": [self.image_view(i) for i in self.compute.list_images()]})

    @route("GET", "/v2.1/images/<iid>", op=("compute", "images.get", "image"))
    def get_image(self, req: ApiRequest, iid: str) -> Reply:
        """``GET /images/{id}``."""
        return Reply(200, {"image": self.image_view(self.compute.get_image(iid))})

    @route("DELETE", "/v2.1/images/<iid>", op=("compute", "images.delete", "image"))
    def delete_image(self, req: ApiRequest, iid: str) -> Reply:
        """``DELETE /images/{id}``."""
        self.compute.delete_image(iid)
        return Reply(204)

    @route("GET", "/v2.1/images/<iid>/metadata", op=("compute", "images.get", "image"))
    def image_metadata(self, req: ApiRequest, iid: str) -> Reply:
        """``GET /images/{id}/metadata``: the image's properties."""
        return Reply(200, {"metadata": dict(self.compute.get_image(iid).get("metadata") or {})})

    @route("POST", "/v2.1/images/<iid>/metadata", op=("compute", "images.update", "image"))
    @route("PUT", "/v2.1/images/<iid>/metadata", op=("compute", "images.update", "image"))
    def set_image_metadata(self, req: ApiRequest, iid: str) -> Reply:
        """Merge (``POST``) or replace (``PUT``) the image's properties."""
        metadata = req.json().get("metadata")
        if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
            raise bad("Invalid input for field/attribute metadata: expected an object of strings")
        changes: dict[str, Any] = dict(metadata)
        if req.method == "PUT":
            current = self.compute.get_image(iid).get("metadata") or {}
            changes = {**dict.fromkeys(current), **changes}
        image = self.compute.update_image(iid, changes)
        return Reply(200, {"metadata": dict(image.get("metadata") or {})})

    @route("GET", "/v2.1/images/<iid>/metadata/<key>", op=("compute", "images.get", "image"))
    def image_metadata_item(self, req: ApiRequest, iid: str, key: str) -> Reply:
        """``GET /images/{id}/metadata/{key}``."""
        metadata = self.compute.get_image(iid).get("metadata") or {}
        if key not in metadata:
            raise ApiError(404, f"Metadata item was not found: {key}")
        return Reply(200, {"meta": {key: metadata[key]}})

    @route("PUT", "/v2.1/images/<iid>/metadata/<key>", op=("compute", "images.update", "image"))
    def set_image_metadata_item(self, req: ApiRequest, iid: str, key: str) -> Reply:
        """``PUT /images/{id}/metadata/{key}`` with ``{"meta": {key: value}}``."""
        meta = req.json().get("meta")
        if not isinstance(meta, dict) or list(meta) != [key] or not isinstance(meta[key], str):
            raise bad("Request body and URI mismatch: meta must hold exactly the key of the URI")
        self.compute.update_image(iid, meta)
        return Reply(200, {"meta": meta})

    @route("DELETE", "/v2.1/images/<iid>/metadata/<key>", op=("compute", "images.update", "image"))
    def delete_image_metadata_item(self, req: ApiRequest, iid: str, key: str) -> Reply:
        """``DELETE /images/{id}/metadata/{key}``."""
        if key not in (self.compute.get_image(iid).get("metadata") or {}):
            raise ApiError(404, f"Metadata item was not found: {key}")
        self.compute.update_image(iid, {key: None})
        return Reply(204)

    @route("GET", "/v2.1/os-keypairs", op=("compute", "keypairs.list", "keypair"))
    def list_keypairs(self, req: ApiRequest) -> Reply:
        """``GET /os-keypairs``."""
        items = [{"keypair": self.keypair_view(req, k)} for k in self.compute.list_keypairs()]
        return Reply(200, {"keypairs": items})

    @route("POST", "/v2.1/os-keypairs", op=("compute", "keypairs.create", "keypair"))
    def create_keypair(self, req: ApiRequest) -> Reply:
        """``POST /os-keypairs`` (generate or import)."""
        spec = req.member("keypair")
        check_name(spec)
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise bad("Invalid input for field/attribute name. Value: a non-empty string required.")
        public_key = spec.get("public_key")
        if public_key is not None and not isinstance(public_key, str):
            raise bad("Invalid input for field/attribute public_key: expected a string")
        keypair = self.compute.create_keypair(name, public_key)
        status = 201 if (req.version or MIN_VERSION) >= (2, 2) else 200
        return Reply(status, {"keypair": self.keypair_view(req, keypair)})

    @route("GET", "/v2.1/os-keypairs/<name>", op=("compute", "keypairs.get", "keypair"))
    def get_keypair(self, req: ApiRequest, name: str) -> Reply:
        """``GET /os-keypairs/{name}``."""
        keypair = self.keypair_view(req, self.compute.get_keypair(name))
        keypair.update(id=1, deleted=False, created_at=iso(0), updated_at=None, deleted_at=None)
        return Reply(200, {"keypair": keypair})

    @route("DELETE", "/v2.1/os-keypairs/<name>", op=("compute", "keypairs.delete", "keypair"))
    def delete_keypair(self, req: ApiRequest, name: str) -> Reply:
        """``DELETE /os-keypairs/{name}``."""
        self.compute.delete_keypair(name)
        status = 204 if (req.version or MIN_VERSION) >= (2, 2) else 202
        return Reply(status)
