"""The swift-like object storage client, shaped like ``swiftclient.Connection``."""

from __future__ import annotations

from typing import Any


def _headers(info: dict[str, Any]) -> dict[str, str]:
    return dict(info.get("headers") or {})


class ObjectStorageClient:
    """Container and object calls returning swift's (headers, body) shapes."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def put_container(self, container: str, headers: dict[str, str] | None = None) -> None:
        """Create (or update) a container."""
        self.service.put_container(container, headers)

    def head_container(self, container: str) -> dict[str, str]:
        """Return a container's headers, counts included."""
        info = self.service.head_container(container)
        return {
            **_headers(info),
            "x-container-object-count": str(info["object_count"]),
            "x-container-bytes-used": str(info["bytes_used"]),
        }

    def post_container(self, container: str, headers: dict[str, str]) -> None:
        """Update a container's headers."""
        self.service.post_container(container, headers)

    def get_container(
        self, container: str, prefix: str | None = None
    ) -> tuple[dict[str, str], list[dict[str, Any]]]:
        """Return ``(headers, objects)``."""
        headers = self.head_container(container)
        return headers, self.service.list_objects(container, prefix)

    def delete_container(self, container: str) -> None:
        """Delete an empty container."""
        self.service.delete_container(container)

    def get_account(self) -> tuple[dict[str, str], list[dict[str, Any]]]:
        """Return ``(headers, containers)``."""
        containers = self.service.list_containers()
        return {"x-account-container-count": str(len(containers))}, containers

    def put_object(
        self,
        container: str,
        obj: str,
        contents: str | bytes = b"",
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> str:
        """Write an object; return its etag."""
        return self.service.put_object(container, obj, contents, content_type, headers)["etag"]

    def head_object(self, container: str, obj: str) -> dict[str, str]:
        """Return an object's headers."""
        info = self.service.get_object(container, obj)
        return {
            **_headers(info),
            "etag": info["etag"],
            "content-length": str(info["bytes"]),
            "content-type": info["content_type"],
        }

    def get_object(self, container: str, obj: str) -> tuple[dict[str, str], bytes]:
        """Return ``(headers, contents)``."""
        info = self.service.get_object(container, obj)
        headers = {
            **_headers(info),
            "etag": info["etag"],
            "content-length": str(info["bytes"]),
            "content-type": info["content_type"],
        }
        return headers, self.service.content(info)

    def delete_object(self, container: str, obj: str) -> None:
        """Delete an object."""
        self.service.delete_object(container, obj)
