"""The iControl REST API of a fake BIG-IP over the ``bigip`` service: routes, replies, errors.

Served at ``https://ADDRESS/mgmt/...`` for every device of the world (the
device is the request's host; :mod:`fake_clouds.bigip.wire` answers hosts
that are no device with a refused connection). Requests log in with HTTP
Basic auth as the device's user; a wrong user or password is a 401.

Replies have BIG-IP's shapes: every object carries its ``kind`` and a
``selfLink`` on ``localhost`` with the ``?ver=`` of the device's TMOS version
(f5-sdk reads the version from ``GET /mgmt/tm/sys``'s link and rebases
links on the address it called); a folder's URL names its full path with
``~`` for ``/`` (``/mgmt/tm/sys/folder/~tenant``, the root ``~``); errors
are ``{"code", "message", "errorStack", "apiError"}`` with BIG-IP's 400,
401, 404 and 409. ``docs/fake-clouds-rest.rst`` lists the endpoints.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

from fake_clouds.rest.dialect import Dialect, Reply, Request, route

#: The host BIG-IP writes in the links it returns (clients substitute the address they called).
LINK_HOST = "https://localhost"


def device_address(req: Request) -> str:
    """The management address a request was sent to (its host)."""
    return urlsplit(req.url).hostname or ""


def basic_credentials(req: Request) -> tuple[str, str] | None:
    """``(user, password)`` of the request's ``Authorization: Basic`` header, or None."""
    header = req.headers.get("Authorization", "")
    if not header.startswith("Basic "):
        return None
    try:
        user, sep, password = base64.b64decode(header[6:]).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (user, password) if sep else None


def folder_path(ref: str) -> str:
    """The full path a folder URL segment names: ``~a~b`` is ``/a/b``, ``~`` is ``/``."""
    path = ref.replace("~", "/")
    return path if path.startswith("/") else "/" + path


def folder_ref(path: str) -> str:
    """The URL segment of the folder at *path* (``/a/b`` is ``~a~b``)."""
    return quote(path.replace("/", "~"), safe="~._-")


class IControlREST(Dialect):
    """BIG-IP's iControl REST API: the system facts and ``sys/folder``."""

    name: ClassVar[str] = "bigip"
    default_base_url: ClassVar[str] = "https://192.0.2.245"

    def service(self) -> Any:
        """The world's ``bigip`` service."""
        return self.cloud.service("bigip")

    def authenticate(self, req: Request) -> bool:
        """True when the Basic credentials log in to the device the request was sent to."""
        found = basic_credentials(req)
        return found is not None and self.service().credentials_match(device_address(req), *found)

    def error_body(self, status: int, message: str, field_name: str | None = None) -> Any:
        """BIG-IP's error object."""
        return {"code": status, "message": message, "errorStack": [], "apiError": 3}

    def unauthorized(self) -> Reply:
        """BIG-IP's answer to a wrong user or password."""
        return Reply(401, self.error_body(401, "Authentication failed."))

    def _link(self, req: Request, path: str) -> str:
        version = self.service().system(device_address(req))["version"]
        return f"{LINK_HOST}{path}?ver={version}"

    def _folder(self, req: Request, view: dict[str, Any]) -> dict[str, Any]:
        attrs = view
        path = attrs["fullPath"]
        # the entity's name is the full path; the folder's own name is kept apart
        return {
            "kind": "tm:sys:folder:folderstate",
            "name": attrs["folderName"],
            "subPath": attrs["subPath"],
            "fullPath": path,
            "generation": 1,
            "selfLink": self._link(req, f"/mgmt/tm/sys/folder/{folder_ref(path)}"),
            "description": attrs["description"] or None,
            "deviceGroup": "none",
            "hidden": "false",
            "inheritedDevicegroup": "true",
            "inheritedTrafficGroup": "true",
            "noRefCheck": attrs["noRefCheck"],
            "trafficGroup": "/Common/traffic-group-1",
        }

    @route("GET", "/mgmt/tm/sys", op=("bigip", "sys.get", "device"))
    def get_sys(self, req: Request) -> Reply:
        """The ``sys`` collection; its ``selfLink`` carries the TMOS version."""
        address = device_address(req)
        self.service().system(address)
        return Reply(
            200,
            {
                "kind": "tm:sys:syscollectionstate",
                "selfLink": self._link(req, "/mgmt/tm/sys"),
                "items": [{"reference": {"link": self._link(req, "/mgmt/tm/sys/folder")}}],
            },
        )

    @route("GET", "/mgmt/tm/sys/folder", op=("bigip", "folders.list", "folder"))
    def list_folders(self, req: Request) -> Reply:
        """Every folder of the device."""
        folders = self.service().list_folders(device_address(req))
        return Reply(
            200,
            {
                "kind": "tm:sys:folder:foldercollectionstate",
                "selfLink": self._link(req, "/mgmt/tm/sys/folder"),
                "items": [self._folder(req, f) for f in folders],
            },
        )

    @route("POST", "/mgmt/tm/sys/folder", op=("bigip", "folders.create", "folder"))
    def create_folder(self, req: Request) -> Reply:
        """Create a folder from ``name`` and ``subPath`` (``/`` by default)."""
        body = req.json(self)
        view = self.service().create_folder(
            device_address(req),
            body.get("name"),
            body.get("subPath", "/"),
            body.get("description", ""),
        )
        req.entity_id = view["id"]
        return Reply(200, self._folder(req, view))

    @route("GET", "/mgmt/tm/sys/folder/{ref}", op=("bigip", "folders.get", "folder"))
    def get_folder(self, req: Request) -> Reply:
        """The folder the URL names."""
        view = self.service().get_folder(device_address(req), folder_path(req.params["ref"]))
        req.entity_id = view["id"]
        return Reply(200, self._folder(req, view))

    @route("DELETE", "/mgmt/tm/sys/folder/{ref}", op=("bigip", "folders.delete", "folder"))
    def delete_folder(self, req: Request) -> Reply:
        """Delete the folder the URL names (an empty 200, as BIG-IP answers)."""
        done = self.service().delete_folder(device_address(req), folder_path(req.params["ref"]))
        req.entity_id = done["id"]
        return Reply(200, None)
