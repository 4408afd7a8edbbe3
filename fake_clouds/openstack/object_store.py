"""Object Storage v1 on the wire (swift): the account, containers, objects and metadata headers.

The endpoint is ``/object-store/v1/AUTH_{project_id}``. Listings answer JSON
with ``format=json`` (or ``Accept: application/json``) and one name per line
otherwise; ``prefix``, ``limit`` and ``marker`` work as in swift. Metadata
travels in ``X-Container-Meta-*`` / ``X-Object-Meta-*`` headers. Errors are
swift's short text bodies. Containers and objects are the object storage
service's entities (object bytes included).
"""

from __future__ import annotations

import base64
from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, ServiceAPI, route
from fake_clouds.openstack.wire_input import SPOOLED
from fake_clouds.rest.common import iso
from sdk import exception

_A = "/v1/<account>"
_TEXT = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 409: "Conflict"}
_TEXT.update({405: "Method Not Allowed", 413: "Request Entity Too Large"})


def _http_date(t: float) -> str:
    from datetime import timedelta

    from fake_clouds.rest.common import EPOCH

    return (EPOCH + timedelta(seconds=float(t))).strftime("%a, %d %b %Y %H:%M:%S GMT")


class ObjectStoreAPI(ServiceAPI):
    """Swift v1 (``/object-store/v1/AUTH_{project_id}``)."""

    prefix = "object-store"
    catalog_type = "object-store"
    catalog_name = "swift"
    #: swift's ``max_file_size`` default (5 GiB + 2 bytes): the largest object one PUT writes
    max_upload_size = 5368709122

    @property
    def store(self) -> Any:
        """The object storage service."""
        return self.cloud.service("object_storage")

    def endpoint(self, project_id: str) -> str:
        """Swift's catalog URL with the account."""
        return self.url(f"/v1/AUTH_{project_id}")

    def error_body(self, status: int, message: str) -> Any:
        """Swift's short text body."""
        return f"{_TEXT.get(status, 'Error')}: {message}"

    def core_error_body(self, status: int, ex: exception.ClientError) -> Any:
        """Swift's short text body for the service's errors."""
        return self.error_body(status, str(ex))

    @route("GET", "/info", public=True)
    def info(self, req: ApiRequest) -> Reply:
        """``GET /info``: the cluster's capabilities."""
        return Reply(200, {"swift": {"version": "2.33.0", "max_file_size": 5368709122}})

    # --- helpers --------------------------------------------------------------------------

    def _json(self, req: ApiRequest) -> bool:
        fmt = req.args.get("format")
        if fmt is not None:
            return fmt == "json"
        return "application/json" in req.headers.get("Accept", "")

    def _page(self, req: ApiRequest, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        marker = req.args.get("marker")
        if marker:
            items = [i for i in items if i["name"] > marker]
        limit = req.args.get("limit")
        if limit is not None:
            if not limit.isdigit():
                raise ApiError(412, f"Value of limit must be a positive integer, not {limit!r}")
            items = items[: int(limit)]
        return items

    def _listing(
        self, req: ApiRequest, items: list[dict[str, Any]], headers: dict[str, str]
    ) -> Reply:
        items = self._page(req, items)
        if self._json(req):
            return Reply(200, items, headers)
        if not items:
            return Reply(204, None, headers)
        text = "".join(f"{i['name']}\n" for i in items)
        return Reply(
            200, None, {**headers, "Content-Type": "text/plain; charset=utf-8"}, raw=text.encode()
        )

    @staticmethod
    def _meta(req: ApiRequest, kind: str) -> dict[str, str]:
        keep = (
            f"x-{kind}-meta-",
            f"x-remove-{kind}-meta-",
            "content-disposition",
            "content-encoding",
            "x-delete-at",
        )
        if kind == "container":
            keep += tuple(
                f"{remove}x-{name}"
                for remove in ("", "x-remove-")
                for name in (
                    "container-read",
                    "container-write",
                    "container-sync-to",
                    "container-sync-key",
                    "versions-location",
                    "history-location",
                )
            )
        return {k.lower(): v for k, v in req.headers.items() if k.lower().startswith(keep)}

    # --- account ----------------------------------------------------------------------------

    def _account_headers(self) -> dict[str, str]:
        account = self.store.head_account()
        headers = {
            "X-Account-Container-Count": str(account["container_count"]),
            "X-Account-Object-Count": str(account["object_count"]),
            "X-Account-Bytes-Used": str(account["bytes_used"]),
        }
        for key, value in sorted(account["headers"].items()):
            headers["-".join(p.capitalize() for p in key.split("-"))] = value
        return headers

    @route("GET", _A, op=("object_storage", "containers.list", "container"))
    def list_containers(self, req: ApiRequest, account: str) -> Reply:
        """``GET /v1/{account}``: the containers."""
        items = self.store.list_containers(req.args.get("prefix"))
        return self._listing(req, items, self._account_headers())

    @route("HEAD", _A, op=("object_storage", "containers.list", "container"))
    def head_account(self, req: ApiRequest, account: str) -> Reply:
        """``HEAD /v1/{account}``: counts and bytes."""
        return Reply(204, None, self._account_headers())

    @route("POST", _A, op=("object_storage", "account.update", "container"))
    def post_account(self, req: ApiRequest, account: str) -> Reply:
        """``POST /v1/{account}``: merge account metadata (an empty value removes a key)."""
        self.store.post_account(self._meta(req, "account"))
        return Reply(204)

    # --- containers -------------------------------------------------------------------------

    @route("PUT", f"{_A}/<container>", op=("object_storage", "containers.create", "container"))
    def put_container(self, req: ApiRequest, account: str, container: str) -> Reply:
        """Create a container (201) or update its metadata (202)."""
        existed = container in [c["name"] for c in self.store.list_containers()]
        self.store.put_container(container, self._meta(req, "container"))
        return Reply(202 if existed else 201)

    def _container_headers(self, container: str) -> dict[str, str]:
        view = self.store.head_container(container)
        headers = {
            "X-Container-Object-Count": str(view["object_count"]),
            "X-Container-Bytes-Used": str(view["bytes_used"]),
            "X-Timestamp": f"{view['created_at']:.5f}",
        }
        for key, value in sorted(view["headers"].items()):
            headers["-".join(p.capitalize() for p in key.split("-"))] = value
        return headers

    @route("HEAD", f"{_A}/<container>", op=("object_storage", "containers.get", "container"))
    def head_container(self, req: ApiRequest, account: str, container: str) -> Reply:
        """``HEAD``: counts, bytes and metadata."""
        return Reply(204, None, self._container_headers(container))

    @route("GET", f"{_A}/<container>", op=("object_storage", "objects.list", "object"))
    def list_objects(self, req: ApiRequest, account: str, container: str) -> Reply:
        """``GET``: the objects (``prefix``, ``limit``, ``marker``)."""
        items = [
            {**o, "last_modified": iso(o["last_modified"], zulu=False) + ".000000"}
            for o in self.store.list_objects(container, req.args.get("prefix"))
        ]
        return self._listing(req, items, self._container_headers(container))

    @route("POST", f"{_A}/<container>", op=("object_storage", "containers.update", "container"))
    def post_container(self, req: ApiRequest, account: str, container: str) -> Reply:
        """Merge metadata headers."""
        self.store.post_container(container, self._meta(req, "container"))
        return Reply(204)

    @route("DELETE", f"{_A}/<container>", op=("object_storage", "containers.delete", "container"))
    def delete_container(self, req: ApiRequest, account: str, container: str) -> Reply:
        """Delete an empty container (409 otherwise)."""
        self.store.delete_container(container)
        return Reply(204)

    # --- objects ----------------------------------------------------------------------------

    @route("PUT", f"{_A}/<container>/<path:obj>", op=("object_storage", "objects.create", "object"))
    def put_object(self, req: ApiRequest, account: str, container: str, obj: str) -> Reply:
        """Write an object; answers its ``ETag``."""
        view = self.store.put_object(
            container,
            obj,
            req.raw.environ.get(SPOOLED) or req.raw.get_data(),
            req.headers.get("Content-Type"),
            self._meta(req, "object"),
        )
        return Reply(
            201, None, {"ETag": view["etag"], "Last-Modified": _http_date(view["updated_at"])}
        )

    def _object_headers(self, view: dict[str, Any]) -> dict[str, str]:
        headers = {
            "ETag": view["etag"],
            "Content-Type": view["content_type"],
            "Last-Modified": _http_date(view["updated_at"]),
            "X-Timestamp": f"{view['updated_at']:.5f}",
            "Accept-Ranges": "bytes",
        }
        for key, value in sorted(view["headers"].items()):
            headers["-".join(p.capitalize() for p in key.split("-"))] = value
        return headers

    @route("GET", f"{_A}/<container>/<path:obj>", op=("object_storage", "objects.get", "object"))
    def get_object(self, req: ApiRequest, account: str, container: str, obj: str) -> Reply:
        """The object's bytes and headers."""
        view = self.store.get_object(container, obj)
        headers = self._object_headers(view)
        if view.get("blob"):  # a file beside the world: streamed, never read whole
            headers["Content-Length"] = str(view["bytes"])
            return Reply(200, None, headers, raw=self.cloud.blobs.chunks(view["blob"]))
        return Reply(200, None, headers, raw=base64.b64decode(view["data"]))

    @route("HEAD", f"{_A}/<container>/<path:obj>", op=("object_storage", "objects.get", "object"))
    def head_object(self, req: ApiRequest, account: str, container: str, obj: str) -> Reply:
        """The object's headers."""
        view = self.store.get_object(container, obj)
        headers = self._object_headers(view)
        headers["Content-Length"] = str(view["bytes"])
        return Reply(200, None, headers, raw=b"")

    @route(
        "POST", f"{_A}/<container>/<path:obj>", op=("object_storage", "objects.create", "object")
    )
    def post_object(self, req: ApiRequest, account: str, container: str, obj: str) -> Reply:
        """Replace the object's metadata headers (its bytes stay)."""
        view = self.store.get_object(container, obj)
        self.store.put_object(container, obj, view, view["content_type"], self._meta(req, "object"))
        return Reply(202)

    @route(
        "DELETE", f"{_A}/<container>/<path:obj>", op=("object_storage", "objects.delete", "object")
    )
    def delete_object(self, req: ApiRequest, account: str, container: str, obj: str) -> Reply:
        """Delete an object."""
        self.store.delete_object(container, obj)
        return Reply(204)
