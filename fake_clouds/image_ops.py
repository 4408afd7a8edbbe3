"""Image operations of the compute service that glance's API needs (mixed into
:class:`fake_clouds.compute.ComputeService`, which owns the ``image`` entities nova boots).

``images.create`` registers an image ``queued`` with no data; ``images.upload``
stores its data (size and checksum only; the bytes are not kept) and makes it
``active`` after a sampled ``upload`` transition (``saving``);
``images.update`` changes its name, visibility, tags or properties. Images
booted by nova and images seen through glance are the same entities.
"""

from __future__ import annotations

import hashlib
from typing import Any

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
    def upload_image(self: Any, image_id: str, data: bytes) -> dict[str, Any]:
        """Store an image's data: ``saving`` then ``active``."""
        img = self._get("image", image_id, label="Image")
        self._require_status(img, ("queued",), "upload data to")
        if not isinstance(data, bytes):
            raise _bad("Image data must be bytes")
        self._set(
            img,
            size=len(data),
            checksum=hashlib.md5(data, usedforsecurity=False).hexdigest(),
            os_hash_algo="sha512",
            os_hash_value=hashlib.sha512(data).hexdigest(),
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
