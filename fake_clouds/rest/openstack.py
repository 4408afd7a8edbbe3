"""An OpenStack-style compute API (nova v2.1 shapes) at ``https://compute.openstack.fake/v2.1``.

Authentication is the ``X-Auth-Token`` header. Bodies follow nova: a server
is ``{"server": {...}}`` with ``status``, ``addresses``, ``flavor``,
``image``, ``OS-EXT-STS:*`` ...; errors are ``{"itemNotFound": {"code": 404,
"message": ...}}``, ``badRequest``, ``conflictingRequest``, ``overLimit``
(413/429 with ``Retry-After``) and ``computeFault``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fake_clouds.rest.common import iso
from fake_clouds.rest.http import Dialect, Reply, Request, route
from sdk import exception

_KEYS = {
    400: "badRequest",
    403: "forbidden",
    404: "itemNotFound",
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
}
#: action key in the body -> compute operation.
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
_SERVER = ("compute", "servers.get", "server")
_HIDDEN = ("created_at", "updated_at", "user_data", "previous_flavor")


class OpenStackCompute(Dialect):
    """Nova-like compute: servers, server actions, flavors, images and keypairs."""

    name = "openstack"
    default_base_url = "https://compute.openstack.fake/v2.1"
    default_token = "plugsim-openstack-token"

    def authenticate(self, req: Request) -> bool:
        """True when ``X-Auth-Token`` carries the token."""
        return req.headers.get("X-Auth-Token") == self.token

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """Nova's ``{"<kind>": {"code": N, "message": ...}}``."""
        return {_KEYS.get(status, "computeFault"): {"code": status, "message": message}}

    def unauthorized(self) -> Reply:
        """The 401 body of a missing or wrong token."""
        return Reply(
            401,
            {
                "error": {
                    "code": 401,
                    "title": "Unauthorized",
                    "message": "The request you have made requires authentication.",
                }
            },
        )

    def not_found(self) -> Reply:
        """Nova's 404 body."""
        return Reply(404, self.error_body(404, "The resource could not be found."))

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Keep the compute service's nova-shaped bodies; shape anything else."""
        body = ex.body
        if isinstance(body, dict) and len(body) == 1:
            (key,) = body
            if key in (*_KEYS.values(), "computeFault") and isinstance(body[key], dict):
                return {key: {**body[key], "code": status}}
        return self.error_body(status, str(ex))

    @property
    def compute(self) -> Any:
        """The compute service."""
        return self.cloud.service("compute")

    # --- views ----------------------------------------------------------------------------

    def link(self, kind: str, ident: str) -> list[dict[str, str]]:
        """Return nova's self/bookmark links."""
        return [
            {"rel": "self", "href": f"{self.base_url}/{kind}/{ident}"},
            {"rel": "bookmark", "href": f"{self.base_url}/{kind}/{ident}"},
        ]

    def server_view(self, server: dict[str, Any]) -> dict[str, Any]:
        """Return a nova server body."""
        out = {k: v for k, v in server.items() if k not in _HIDDEN}
        vm_state, power = _VM_STATE.get(server["status"], ("active", 1))
        out.update(
            created=iso(server["created_at"]),
            updated=iso(server["updated_at"]),
            flavor={
                "id": server["flavor"]["id"],
                "links": self.link("flavors", server["flavor"]["id"]),
            },
            image={
                "id": server["image"]["id"],
                "links": self.link("images", server["image"]["id"]),
            },
            links=self.link("servers", server["id"]),
            tenant_id="plugsim",
            user_id="plugsim",
            hostId=hashlib.sha224(server["id"].encode()).hexdigest(),
            accessIPv4="",
            accessIPv6="",
            progress=100 if server["status"] == "ACTIVE" else 0,
            **{"OS-EXT-STS:vm_state": vm_state, "OS-EXT-STS:power_state": power},
        )
        out.setdefault("fault", None)
        if out["fault"] is None:
            del out["fault"]
        return out

    def flavor_view(self, flavor: dict[str, Any]) -> dict[str, Any]:
        """Return a nova flavor body."""
        return {
            "id": flavor["id"],
            "name": flavor["name"],
            "vcpus": flavor["vcpus"],
            "ram": flavor["ram"],
            "disk": flavor["disk"],
            "swap": flavor.get("swap") or "",
            "OS-FLV-EXT-DATA:ephemeral": flavor.get("ephemeral", 0),
            "os-flavor-access:is_public": flavor.get("is_public", True),
            "rxtx_factor": flavor.get("rxtx_factor", 1.0),
            "links": self.link("flavors", flavor["id"]),
        }

    def image_view(self, image: dict[str, Any]) -> dict[str, Any]:
        """Return a nova image body."""
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

    def bad(self, message: str) -> Exception:
        """Return nova's 400."""
        return self.fail(400, message)

    def server_body(self, req: Request, key: str = "server") -> dict[str, Any]:
        """Return ``body[key]`` as a mapping or fail with 400 naming it."""
        body = req.json(self)
        inner = body.get(key)
        if not isinstance(inner, dict):
            raise self.bad(f"Invalid input for field/attribute {key}: expected an object")
        return inner

    # --- servers --------------------------------------------------------------------------

    def _servers(self, req: Request) -> list[dict[str, Any]]:
        filters = {k: req.arg(k) for k in ("name", "status") if req.arg(k) is not None}
        return self.compute.list_servers(**filters)

    @route("GET", "/servers", op=("compute", "servers.list", "server"))
    def list_servers(self, req: Request) -> Reply:
        """``GET /servers`` (``name``, ``status`` filters): ids, names and links."""
        servers = [
            {"id": s["id"], "name": s["name"], "links": self.link("servers", s["id"])}
            for s in self._servers(req)
        ]
        return Reply(200, {"servers": servers})

    @route("GET", "/servers/detail", op=("compute", "servers.list", "server"))
    def list_servers_detail(self, req: Request) -> Reply:
        """``GET /servers/detail``."""
        return Reply(200, {"servers": [self.server_view(s) for s in self._servers(req)]})

    @route("POST", "/servers", op=("compute", "servers.create", "server"))
    def create_server(self, req: Request) -> Reply:
        """``POST /servers`` with ``{"server": {name, imageRef, flavorRef, ...}}``."""
        spec = self.server_body(req)
        for name in ("name", "imageRef", "flavorRef"):
            if not isinstance(spec.get(name), str) or not spec[name]:
                raise self.bad(
                    f"Invalid input for field/attribute {name}: a non-empty string is required"
                )
        options: dict[str, Any] = {}
        for key in ("key_name", "metadata", "user_data", "availability_zone", "description"):
            if key in spec:
                options[key] = spec[key]
        nets = spec.get("networks")
        if isinstance(nets, list):
            options["networks"] = nets
        elif nets not in (None, "auto", "none"):
            raise self.bad(
                "Invalid input for field/attribute networks: expected a list, 'auto' or 'none'"
            )
        groups = spec.get("security_groups")
        if groups is not None:
            if not isinstance(groups, list) or not all(
                isinstance(g, dict) and "name" in g for g in groups
            ):
                raise self.bad("Invalid input for field/attribute security_groups")
            options["security_groups"] = [g["name"] for g in groups]
        server = self.compute.create_server(
            spec["name"], spec["imageRef"], spec["flavorRef"], **options
        )
        req.entity_id = server["id"]
        body = {
            "id": server["id"],
            "links": self.link("servers", server["id"]),
            "adminPass": hashlib.sha256(server["id"].encode()).hexdigest()[:12],
            "OS-DCF:diskConfig": "MANUAL",
            "security_groups": server["security_groups"],
        }
        return Reply(202, {"server": body}, {"Location": f"{self.base_url}/servers/{server['id']}"})

    @route("GET", "/servers/{id}", op=_SERVER)
    def get_server(self, req: Request) -> Reply:
        """``GET /servers/{id}``."""
        req.entity_id = req.params["id"]
        return Reply(200, {"server": self.server_view(self.compute.get_server(req.params["id"]))})

    @route("PUT", "/servers/{id}", op=("compute", "servers.update", "server"))
    def update_server(self, req: Request) -> Reply:
        """``PUT /servers/{id}`` with ``{"server": {"name"?, "description"?}}``."""
        req.entity_id = req.params["id"]
        spec = self.server_body(req)
        unknown = sorted(set(spec) - {"name", "description"})
        if unknown:
            raise self.bad(f"Additional properties are not allowed ({', '.join(unknown)})")
        server = self.compute.update_server(req.params["id"], **spec)
        return Reply(200, {"server": self.server_view(server)})

    @route("DELETE", "/servers/{id}", op=("compute", "servers.delete", "server"))
    def delete_server(self, req: Request) -> Reply:
        """``DELETE /servers/{id}``."""
        req.entity_id = req.params["id"]
        self.compute.delete_server(req.params["id"])
        return Reply(204)

    def action_op(self, req: Request) -> tuple[str, str, str | None]:
        """The compute operation a ``POST /servers/{id}/action`` stands for."""
        try:
            body = req.json(self)
        except Exception:
            return _SERVER
        for key in sorted(body):
            if key in ACTIONS:
                kind = "image" if key == "createImage" else "server"
                return ("compute", ACTIONS[key], kind)
        return _SERVER

    @route("POST", "/servers/{id}/action", op="action_op")
    def server_action(self, req: Request) -> Reply:
        """``POST /servers/{id}/action`` with one action key (``os-stop``, ``reboot`` ...)."""
        sid = req.params["id"]
        req.entity_id = sid
        body = req.json(self)
        keys = [k for k in body if k in ACTIONS]
        if len(body) != 1 or len(keys) != 1:
            known = ", ".join(sorted(ACTIONS))
            raise self.bad(f"The action body must hold exactly one of: {known}")
        key = keys[0]
        arg = body[key]
        compute = self.compute
        if key == "reboot":
            kind = arg.get("type") if isinstance(arg, dict) else None
            if kind not in ("SOFT", "HARD"):
                raise self.bad("Invalid input for field/attribute reboot.type: SOFT or HARD")
            compute.reboot_server(sid, kind)
        elif key == "createImage":
            if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
                raise self.bad("Invalid input for field/attribute createImage.name")
            image = compute.create_image(sid, arg["name"], arg.get("metadata"))
            location = {"Location": f"{self.base_url}/images/{image['id']}"}
            return Reply(202, {"image_id": image["id"]}, location)
        elif key == "resize":
            if not isinstance(arg, dict) or not isinstance(arg.get("flavorRef"), str):
                raise self.bad("Invalid input for field/attribute resize.flavorRef")
            compute.resize_server(sid, arg["flavorRef"])
        elif key == "rebuild":
            if not isinstance(arg, dict) or not isinstance(arg.get("imageRef"), str):
                raise self.bad("Invalid input for field/attribute rebuild.imageRef")
            server = compute.rebuild_server(sid, arg["imageRef"], arg.get("name"))
            return Reply(202, {"server": self.server_view(server)})
        else:
            method = ACTIONS[key].split(".", 1)[1]
            if method in ("stop", "start", "suspend", "resume"):
                method = f"{method}_server"
            getattr(compute, method)(sid)
        return Reply(202)

    # --- flavors, images, keypairs -----------------------------------------------------------

    @route("GET", "/flavors", op=("compute", "flavors.list", "flavor"))
    def list_flavors(self, req: Request) -> Reply:
        """``GET /flavors``."""
        flavors = [
            {"id": f["id"], "name": f["name"], "links": self.link("flavors", f["id"])}
            for f in self.compute.list_flavors()
        ]
        return Reply(200, {"flavors": flavors})

    @route("GET", "/flavors/detail", op=("compute", "flavors.list", "flavor"))
    def list_flavors_detail(self, req: Request) -> Reply:
        """``GET /flavors/detail``."""
        return Reply(200, {"flavors": [self.flavor_view(f) for f in self.compute.list_flavors()]})

    @route("GET", "/flavors/{id}", op=("compute", "flavors.get", "flavor"))
    def get_flavor(self, req: Request) -> Reply:
        """``GET /flavors/{id}``."""
        req.entity_id = req.params["id"]
        return Reply(200, {"flavor": self.flavor_view(self.compute.get_flavor(req.params["id"]))})

    @route("GET", "/images", op=("compute", "images.list", "image"))
    def list_images(self, req: Request) -> Reply:
        """``GET /images``."""
        images = [
            {"id": i["id"], "name": i["name"], "links": self.link("images", i["id"])}
            for i in self.compute.list_images()
        ]
        return Reply(200, {"images": images})

    @route("GET", "/images/detail", op=("compute", "images.list", "image"))
    def list_images_detail(self, req: Request) -> Reply:
        """``GET /images/detail``."""
        return Reply(200, {"images": [self.image_view(i) for i in self.compute.list_images()]})

    @route("GET", "/images/{id}", op=("compute", "images.get", "image"))
    def get_image(self, req: Request) -> Reply:
        """``GET /images/{id}``."""
        req.entity_id = req.params["id"]
        return Reply(200, {"image": self.image_view(self.compute.get_image(req.params["id"]))})

    def keypair_view(self, key: dict[str, Any]) -> dict[str, Any]:
        """Return a nova keypair body."""
        out = {k: key[k] for k in ("name", "public_key", "fingerprint", "type") if k in key}
        if "private_key" in key:
            out["private_key"] = key["private_key"]
        return out

    @route("GET", "/os-keypairs", op=("compute", "keypairs.list", "keypair"))
    def list_keypairs(self, req: Request) -> Reply:
        """``GET /os-keypairs``."""
        pairs = [{"keypair": self.keypair_view(k)} for k in self.compute.list_keypairs()]
        return Reply(200, {"keypairs": pairs})

    @route("POST", "/os-keypairs", op=("compute", "keypairs.create", "keypair"))
    def create_keypair(self, req: Request) -> Reply:
        """``POST /os-keypairs`` with ``{"keypair": {"name", "public_key"?}}``."""
        spec = self.server_body(req, "keypair")
        if not isinstance(spec.get("name"), str) or not spec["name"]:
            raise self.bad("Invalid input for field/attribute keypair.name")
        key = self.compute.create_keypair(spec["name"], spec.get("public_key"))
        req.entity_id = key["id"]
        return Reply(200, {"keypair": self.keypair_view(key)})

    @route("GET", "/os-keypairs/{name}", op=("compute", "keypairs.get", "keypair"))
    def get_keypair(self, req: Request) -> Reply:
        """``GET /os-keypairs/{name}``."""
        req.entity_id = req.params["name"]
        return Reply(
            200, {"keypair": self.keypair_view(self.compute.get_keypair(req.params["name"]))}
        )

    @route("DELETE", "/os-keypairs/{name}", op=("compute", "keypairs.delete", "keypair"))
    def delete_keypair(self, req: Request) -> Reply:
        """``DELETE /os-keypairs/{name}``."""
        req.entity_id = req.params["name"]
        self.compute.delete_keypair(req.params["name"])
        return Reply(202)
