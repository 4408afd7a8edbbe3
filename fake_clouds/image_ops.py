"""Image operations of the compute service that glance's API needs (mixed into
:class:`fake_clouds.compute.ComputeService`, which owns the ``image`` entities nova boots).

``images.create`` registers an image ``queued`` with no data; ``images.upload``
stores its data (size and checksum only; the bytes are not kept) and makes it
``active`` after a sampled ``upload`` transition (``saving``);
``images.update`` changes its name, visibility, tags or properties. A
``shared`` image has members (projects it is shared with), each ``pending``
until the project accepts or rejects it. Images booted by nova and images
seen through glance are the same entities.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fake_clouds.core.blobs import CHUNK, Spooled
from fake_clouds.core.service import operation
from sdk import exception

#: Attributes an image update may change (anything else is a free-form property).
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
_VISIBILITY = ("public", "private", "shared", "community")
_MEMBER_STATUSES = ("pending", "accepted", "rejected")


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


class ImageOperations:
    """Glance-side image operations (a mixin of the compute service)."""

    @operation("images.create", kind="image")
    def register_image(self: Any, name: str | None = None, **attrs: Any) -> dict[str, Any]:
        """Register an image without data: ``queued``."""
        if name is not None and not isinstance(name, str):
            raise _bad(f"Invalid image name {name!r}: expected a string")
        visibility = attrs.get("visibility", "shared")
        if visibility not in _VISIBILITY:
            raise _bad(f"Invalid visibility value: {visibility}")
        full = {
            "file": None,
            "size": None,
            "checksum": None,
            "min_disk": 0,
            "min_ram": 0,
            "disk_format": None,
            "container_format": None,
            "visibility": visibility,
            "image_type": "image",
            "metadata": {},
            "tags": [],
            "protected": False,
        }
        full.update({k: v for k, v in attrs.items() if k in full})
        full["metadata"] = {k: v for k, v in attrs.items() if k not in full}
        return self._create("image", name or "", "queued", full).view()

    @operation("images.upload", kind="image", id_arg="image_id")
    def upload_image(self: Any, image_id: str, data: bytes | Spooled) -> dict[str, Any]:
        """Take an image's data (its size and hashes are kept, not its bytes): ``saving`` then ``active``."""
        img = self._get("image", image_id, label="Image")
        self._require_status(img, ("queued",), "upload data to")
        md5, sha512 = hashlib.md5(usedforsecurity=False), hashlib.sha512()
        if isinstance(data, Spooled):  # a large upload the wire streamed to disk
            size = data.size
            with open(data.path, "rb") as fh:
                while chunk := fh.read(CHUNK):
                    md5.update(chunk)
                    sha512.update(chunk)
        elif isinstance(data, bytes):
            size = len(data)
            md5.update(data)
            sha512.update(data)
        else:
            raise _bad("Image data must be bytes")
        self._set(
            img,
            size=size,
            checksum=md5.hexdigest(),
            os_hash_algo="sha512",
            os_hash_value=sha512.hexdigest(),
        )
        self._start(img, "upload", "saving", "active")
        return img.view()

    @operation("images.update", kind="image", id_arg="image_id")
    def update_image(self: Any, image_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Change an image's name, visibility, tags or properties (None removes a property)."""
        img = self._get("image", image_id, label="Image")
        if not isinstance(changes, dict):
            raise _bad("Image changes must be a mapping")
        if "visibility" in changes and changes["visibility"] not in _VISIBILITY:
            raise _bad(f"Invalid visibility value: {changes['visibility']}")
        metadata = dict(img.attrs.get("metadata") or {})
        core = {}
        for key, value in changes.items():
            if key == "name":
                img.name = str(value or "")
            elif key in _CORE:
                core[key] = value
            elif value is None:
                metadata.pop(key, None)
            else:
                metadata[key] = value
        self._set(img, metadata=metadata, **core)
        return img.view()

    # --- members (sharing an image with other projects) ------------------------------

    def _member_view(self: Any, img: Any, member_id: str) -> dict[str, Any]:
        record = img.attrs.get("members", {}).get(member_id)
        if record is None:
            raise exception.NotFound(f"Member {member_id} of image {img.id} could not be found.")
        return {"image_id": img.id, "member_id": member_id, **record}

    @operation("images.add_member", kind="image", id_arg="image_id")
    def add_image_member(self: Any, image_id: str, member_id: str) -> dict[str, Any]:
        """Share an image with a project: the member starts ``pending``.

        Only a ``shared`` image takes members (glance answers 403 otherwise);
        a project is a member once (409).
        """
        img = self._get("image", image_id, label="Image")
        if not isinstance(member_id, str) or not member_id:
            raise _bad("Invalid member: a project id is required")
        if img.attrs.get("visibility") != "shared":
            raise exception.ClientError(
                f"Image {image_id} is {img.attrs.get('visibility')}, not shared: "
                "only a shared image can have members.",
                code=403,
            )
        members = dict(img.attrs.get("members") or {})
        if member_id in members:
            raise exception.Conflict(f"Member {member_id} already exists on image {image_id}.")
        now = self._now()
        members[member_id] = {"status": "pending", "created_at": now, "updated_at": now}
        self._set(img, members=members)
        return self._member_view(img, member_id)

    @operation("images.get_member", kind="image", id_arg="image_id")
    def get_image_member(self: Any, image_id: str, member_id: str) -> dict[str, Any]:
        """Return one member of an image."""
        return self._member_view(self._get("image", image_id, label="Image"), member_id)

    @operation("images.list_members", kind="image", id_arg="image_id")
    def list_image_members(self: Any, image_id: str) -> list[dict[str, Any]]:
        """Return the members of an image, oldest first."""
        img = self._get("image", image_id, label="Image")
        members = img.attrs.get("members") or {}
        order = sorted(members, key=lambda m: (members[m]["created_at"], m))
        return [self._member_view(img, m) for m in order]

    @operation("images.update_member", kind="image", id_arg="image_id")
    def update_image_member(
        self: Any, image_id: str, member_id: str, status: str
    ) -> dict[str, Any]:
        """Accept, reject or reset (``pending``) a membership."""
        img = self._get("image", image_id, label="Image")
        self._member_view(img, member_id)
        if status not in _MEMBER_STATUSES:
            raise _bad(f"Invalid status {status!r}: expected one of {', '.join(_MEMBER_STATUSES)}")
        members = {k: dict(v) for k, v in (img.attrs.get("members") or {}).items()}
        members[member_id].update(status=status, updated_at=self._now())
        self._set(img, members=members)
        return self._member_view(img, member_id)

    @operation("images.remove_member", kind="image", id_arg="image_id")
    def remove_image_member(self: Any, image_id: str, member_id: str) -> None:
        """Stop sharing an image with a project."""
        img = self._get("image", image_id, label="Image")
        self._member_view(img, member_id)
        members = dict(img.attrs.get("members") or {})
        del members[member_id]
        self._set(img, members=members)
