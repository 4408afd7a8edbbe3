"""Image v2 on the wire (glance): images with the upload state machine, tags and properties.

``POST /v2/images`` registers an image ``queued``; ``PUT /v2/images/{id}/file``
uploads its data (``saving`` -> ``active``; only size and checksums are kept,
so a download answers 204 like an image without data); ``PATCH`` takes
glance's JSON-patch. Images are the compute service's image entities: the
image nova boots is the image glance lists.
"""

from __future__ import annotations

import json
from typing import Any

from fake_clouds.core import scope
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, bad, route
from fake_clouds.openstack.image_members import ImageMemberRoutes
from fake_clouds.openstack.image_schemas import ImageSchemaRoutes
from fake_clouds.openstack.wire_input import SPOOLED
from fake_clouds.rest.common import iso
from sdk import exception

_CORE = (
    "name",
    "visibility",
    "tags",
    "min_disk",
    "min_ram",
    "protected",
    "disk_format",
    "container_format",
    "os_hidden",
)
_READ_ONLY = ("id", "status", "size", "checksum", "created_at", "updated_at", "file", "self")


class ImageAPI(ImageMemberRoutes, ImageSchemaRoutes, ServiceAPI):
    """Glance v2 (``/image/v2``); members and schemas are served by the mixins."""

    prefix = "image"
    catalog_type = "image"
    catalog_name = "glance"
    #: glance's ``image_size_cap`` default (1 TiB): image data is streamed, never held whole
    max_upload_size = 1099511627776

    @property
    def compute(self) -> Any:
        """The compute service (owner of the image entities)."""
        return self.cloud.service("compute")

    def error_body(self, status: int, message: str) -> Any:
        """Glance's ``{"code", "title", "message"}`` body."""
        titles = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}
        titles.update({405: "Method Not Allowed", 409: "Conflict", 413: "Over Limit"})
        return {"code": status, "title": titles.get(status, "Error"), "message": message}

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Glance-shape the compute service's image errors."""
        return self.error_body(status, str(ex))

    @route("GET", "/", public=True)
    def versions(self, req: ApiRequest) -> Reply:
        """``GET /image``: the version list."""
        link = [{"rel": "self", "href": self.url("/v2/")}]
        return Reply(300, {"versions": [{"id": "v2.16", "status": "CURRENT", "links": link}]})

    # --- views --------------------------------------------------------------------------

    def view(self, image: dict[str, Any]) -> dict[str, Any]:
        """Return glance's flat image body (properties at the top level)."""
        out = dict(image.get("metadata") or {})
        status = image["status"]
        out.update(
            id=image["id"],
            name=image["name"] or None,
            status=status,
            visibility=image.get("visibility", "public"),
            size=image.get("size"),
            virtual_size=None,
            checksum=image.get("checksum"),
            os_hash_algo=image.get("os_hash_algo"),
            os_hash_value=image.get("os_hash_value"),
            disk_format=image.get("disk_format"),
            container_format=image.get("container_format"),
            min_disk=image.get("min_disk", 0),
            min_ram=image.get("min_ram", 0),
            protected=image.get("protected", False),
            os_hidden=image.get("os_hidden", False),
            tags=list(image.get("tags", [])),
            owner=scope.owner_of(self.compute, "image", image["id"])
            or image.get("owner", "plugsim"),
            created_at=iso(image["created_at"]),
            updated_at=iso(image["updated_at"]),
            file=f"/v2/images/{image['id']}/file",
            schema="/v2/schemas/image",
        )
        out["self"] = f"/v2/images/{image['id']}"
        if image.get("instance_uuid"):
            out["instance_uuid"] = image["instance_uuid"]
            out["image_type"] = "snapshot"
        return out

    # --- images -------------------------------------------------------------------------

    @route("GET", "/v2/images", op=("compute", "images.list", "image"))
    def list_images(self, req: ApiRequest) -> Reply:
        """``GET /v2/images`` (filters, ``limit``/``marker``)."""
        items = [self.view(i) for i in self.compute.list_images()]
        for key in ("name", "status", "visibility", "disk_format", "container_format", "id"):
            if key in req.args:
                items = [i for i in items if str(i.get(key)) == req.args[key]]
        if "tag" in req.args:
            wanted = req.args.getlist("tag")
            items = [i for i in items if all(t in i["tags"] for t in wanted)]
        body: dict[str, Any] = {"first": "/v2/images", "schema": "/v2/schemas/images"}
        marker = req.args.get("marker")
        if marker is not None:
            ids = [i["id"] for i in items]
            if marker not in ids:
                raise bad(f"marker {marker} could not be found.")
            items = items[ids.index(marker) + 1 :]
        limit = req.args.get("limit")
        if limit is not None:
            if not limit.isdigit():
                raise bad(f"limit param must be an integer, not {limit!r}")
            if len(items) > int(limit) > 0:
                items = items[: int(limit)]
                body["next"] = f"/v2/images?marker={items[-1]['id']}&limit={limit}"
        body["images"] = items
        return Reply(200, body)

    @route("POST", "/v2/images", op=("compute", "images.create", "image"))
    def create_image(self, req: ApiRequest) -> Reply:
        """``POST /v2/images``: a ``queued`` image."""
        spec = req.json()
        for key in sorted(set(spec) & set(_READ_ONLY)):
            if key != "id":
                raise ApiError(403, f"Attribute '{key}' is read-only.")
        spec.pop("id", None)
        if "tags" in spec and not isinstance(spec["tags"], list):
            raise bad("Invalid input for field 'tags': expected a list")
        for key in ("min_disk", "min_ram"):
            if key in spec and (isinstance(spec[key], bool) or not isinstance(spec[key], int)):
                raise bad(f"Invalid input for field '{key}': expected an integer")
        image = self.compute.register_image(**spec)
        location = {"Location": self.url(f"/v2/images/{image['id']}")}
        return Reply(201, self.view(image), location)

    @route("GET", "/v2/images/<iid>", op=("compute", "images.get", "image"))
    def get_image(self, req: ApiRequest, iid: str) -> Reply:
        """``GET /v2/images/{id}``."""
        return Reply(200, self.view(self.compute.get_image(iid)))

    @route("PATCH", "/v2/images/<iid>", op=("compute", "images.update", "image"))
    def patch_image(self, req: ApiRequest, iid: str) -> Reply:
        """``PATCH /v2/images/{id}`` with a JSON-patch list (add, replace, remove)."""
        try:
            ops = json.loads(req.raw.get_data() or b"null")
        except ValueError as ex:
            raise bad(f"Malformed JSON-patch body: {ex}") from None
        if not isinstance(ops, list):
            raise bad("Malformed JSON-patch body: expected a list of operations")
        current = self.compute.get_image(iid)
        changes: dict[str, Any] = {}
        for op in ops:
            if not isinstance(op, dict) or op.get("op") not in ("add", "replace", "remove"):
                raise bad(f"Invalid JSON-patch operation {op!r}")
            path = op.get("path")
            if not isinstance(path, str) or not path.startswith("/") or path.count("/") != 1:
                raise bad(f"Invalid JSON-patch path {path!r}")
            key = path[1:]
            if key in _READ_ONLY:
                raise ApiError(403, f"Attribute '{key}' is read-only.")
            if op["op"] == "remove":
                if key in _CORE:
                    raise ApiError(403, f"Attribute '{key}' is reserved.")
                if key not in (current.get("metadata") or {}):
                    raise ApiError(409, f"Property {key} does not exist.")
                changes[key] = None
            else:
                if "value" not in op:
                    raise bad(f"JSON-patch operation on {path} lacks a value")
                changes[key] = op["value"]
        return Reply(200, self.view(self.compute.update_image(iid, changes)))

    @route("DELETE", "/v2/images/<iid>", op=("compute", "images.delete", "image"))
    def delete_image(self, req: ApiRequest, iid: str) -> Reply:
        """``DELETE /v2/images/{id}`` (403 while protected)."""
        if self.compute.get_image(iid).get("protected"):
            raise ApiError(403, f"Image {iid} is protected and cannot be deleted.")
        self.compute.delete_image(iid)
        return Reply(204)

    @route("PUT", "/v2/images/<iid>/file", op=("compute", "images.upload", "image"))
    def upload(self, req: ApiRequest, iid: str) -> Reply:
        """``PUT /v2/images/{id}/file``: upload the data."""
        self.compute.upload_image(iid, req.raw.environ.get(SPOOLED) or req.raw.get_data())
        return Reply(204)

    @route("GET", "/v2/images/<iid>/file", op=("compute", "images.get", "image"))
    def download(self, req: ApiRequest, iid: str) -> Reply:
        """``GET /v2/images/{id}/file``: 204, the fake keeps no image bytes."""
        self.compute.get_image(iid)
        return Reply(204)

    @route("PUT", "/v2/images/<iid>/tags/<tag>", op=("compute", "images.update", "image"))
    def add_tag(self, req: ApiRequest, iid: str, tag: str) -> Reply:
        """Add a tag."""
        tags = list(self.compute.get_image(iid).get("tags", []))
        if tag not in tags:
            self.compute.update_image(iid, {"tags": [*tags, tag]})
        return Reply(204)

    @route("DELETE", "/v2/images/<iid>/tags/<tag>", op=("compute", "images.update", "image"))
    def remove_tag(self, req: ApiRequest, iid: str, tag: str) -> Reply:
        """Remove a tag (404 when absent)."""
        tags = list(self.compute.get_image(iid).get("tags", []))
        if tag not in tags:
            raise ApiError(404, f"Tag {tag} not found.")
        self.compute.update_image(iid, {"tags": [t for t in tags if t != tag]})
        return Reply(204)
