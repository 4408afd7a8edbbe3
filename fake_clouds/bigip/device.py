"""The ``bigip`` service: F5 BIG-IP devices and their folders (partitions), in virtual time.

A device is an entity of kind ``device`` named by its management address;
it holds the credentials its iControl REST API accepts and its TMOS
version. Every device starts with the two folders a BIG-IP always has, the
root ``/`` and the partition ``/Common``; both are pre-seeded, so leak
checks never count them, and neither can be deleted.

Folders are entities of kind ``folder`` named by their full path
(``/tenant``, ``/tenant/app``); a folder directly under ``/`` is what BIG-IP
calls a partition. A folder is created under an existing one (its
``subPath``); a full path already taken is BIG-IP's 409, a missing folder
its 404, and a folder that still holds folders cannot be deleted (400).
Folders created and not deleted are entities, so the world's leak checks
find them.

The service is optional: the iControl REST API adds it to a world, with
the default device, at its first request (:func:`add_bigip_service` does it
beforehand, e.g. to add devices or write fault rules naming it). Every
operation runs through the world's dispatch path (latency, seeded faults,
the trace), as for any service.
"""

from __future__ import annotations

import re
from typing import Any

from fake_clouds.core.entities import Entity
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from sdk import exception

#: The device every world's BIG-IP service starts with: a documentation address and
#: the credentials a BIG-IP ships with.
DEFAULT_DEVICE = {"address": "192.0.2.245", "username": "admin", "password": "admin"}
#: The TMOS version a device reports unless it is given another.
DEFAULT_VERSION = "13.1.1"
#: The folders every device has, which nothing deletes.
SYSTEM_FOLDERS = ("/", "/Common")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def bigip_error(cls: type[exception.ClientError], status: int, message: str) -> Exception:
    """A typed client error with BIG-IP's error body (``code``, ``message``, ``errorStack``)."""
    body = {"code": status, "message": message, "errorStack": [], "apiError": 3}
    return cls(message, code=status, body=body)


def full_path(sub_path: str, name: str) -> str:
    """The full path of folder *name* under *sub_path* (``/`` + ``a`` is ``/a``)."""
    return f"{sub_path.rstrip('/')}/{name}"


class BigIPService(Service):
    """F5 BIG-IP devices (entities) and the folders on each (entities)."""

    name = "bigip"
    kinds = {"device": "offline", "folder": "error"}  # noqa: RUF012 - kind -> status in error
    default_quotas = {"folders": 1000}

    # --- devices --------------------------------------------------------------------

    def add_device(
        self,
        address: str,
        username: str = "admin",
        password: str = "admin",
        *,
        version: str = DEFAULT_VERSION,
        port: int = 443,
    ) -> dict[str, Any]:
        """Add a device at *address* (its API on *port*) with credentials, version and system folders.

        The device and its system folders are pre-seeded (part of the world, not of
        a run). A second device at the same address is a ConfigurationError.
        """
        if not isinstance(address, str) or not address or "/" in address:
            raise exception.ConfigurationError(f"bigip device address: bad value {address!r}")
        if self.find_device(address) is not None:
            raise exception.ConfigurationError(f"bigip: a device at {address} already exists")
        attrs = {"username": username, "password": password, "version": version, "port": port}
        device = self._create("device", address, "online", attrs, preseeded=True)
        for path in SYSTEM_FOLDERS:
            self._new_folder(device, path, preseeded=True)
        return device.view()

    def find_device(self, address: str) -> Entity | None:
        """The live device whose management address is *address*, or None."""
        for ent in self._live("device"):
            if ent.name == address:
                return ent
        return None

    def _device(self, address: str) -> Entity:
        ent = self.find_device(address)
        if ent is None:
            raise bigip_error(exception.NotFound, 404, f"No BIG-IP device at {address}")
        return ent

    def credentials_match(self, address: str, username: str, password: str) -> bool:
        """True when *username*/*password* log in to the device at *address*."""
        ent = self.find_device(address)
        return ent is not None and (ent.attrs["username"], ent.attrs["password"]) == (
            username,
            password,
        )

    @operation("sys.get", kind="device")
    def system(self, address: str) -> dict[str, Any]:
        """The device's ``/mgmt/tm/sys`` facts: its address and TMOS version."""
        ent = self._device(address)
        return {"address": ent.name, "version": ent.attrs["version"]}

    # --- folders --------------------------------------------------------------------

    def _new_folder(self, device: Entity, path: str, *, preseeded: bool = False) -> Entity:
        parent, _, leaf = path.rpartition("/")
        attrs = {
            "device": device.id,
            "fullPath": path,
            "folderName": leaf or "/",
            "subPath": parent or "/",
            "description": "",
            "noRefCheck": "false",
        }
        return self._create("folder", path, "active", attrs, preseeded=preseeded)

    def _folders(self, device: Entity) -> list[Entity]:
        return [e for e in self._live("folder") if e.attrs["device"] == device.id]

    def _folder(self, device: Entity, path: str) -> Entity:
        for ent in self._folders(device):
            if ent.name == path:
                return ent
        raise bigip_error(
            exception.NotFound, 404, f"01020036:3: The requested folder ({path}) was not found."
        )

    @operation("folders.create", kind="folder")
    def create_folder(
        self, address: str, name: Any, sub_path: Any = "/", description: Any = ""
    ) -> dict[str, Any]:
        """Create folder *name* under *sub_path* on the device at *address*."""
        device = self._device(address)
        if not isinstance(name, str) or not _NAME.match(name):
            raise bigip_error(
                exception.BadRequest,
                400,
                f"Invalid folder name {name!r}: a name starts with a letter or _ and holds "
                "letters, digits, _ . and -",
            )
        if not isinstance(sub_path, str) or not sub_path.startswith("/"):
            raise bigip_error(
                exception.BadRequest,
                400,
                f"subPath must be an absolute folder path, got {sub_path!r}",
            )
        parent = self._folder(device, sub_path.rstrip("/") or "/")
        path = full_path(parent.name, name)
        if any(e.name == path for e in self._folders(device)):
            raise bigip_error(
                exception.Conflict,
                409,
                f"01020066:3: The requested folder ({path}) already exists.",
            )
        self._check_quota("folders", self._count("folder"))
        folder = self._new_folder(device, path)
        if isinstance(description, str) and description:
            self._set(folder, description=description)
        return folder.view()

    @operation("folders.get", kind="folder")
    def get_folder(self, address: str, path: str) -> dict[str, Any]:
        """The folder at *path* on the device; BIG-IP's 404 when there is none."""
        return self._folder(self._device(address), path).view()

    @operation("folders.list", kind="folder")
    def list_folders(self, address: str) -> list[dict[str, Any]]:
        """Every folder of the device, by full path."""
        return [e.view() for e in sorted(self._folders(self._device(address)), key=_path_key)]

    @operation("folders.delete", kind="folder")
    def delete_folder(self, address: str, path: str) -> dict[str, Any]:
        """Delete the folder at *path*; the system folders and non-empty folders stay (400)."""
        device = self._device(address)
        folder = self._folder(device, path)
        if folder.name in SYSTEM_FOLDERS:
            raise bigip_error(
                exception.BadRequest,
                400,
                f"The folder ({folder.name}) is a system folder and cannot be deleted.",
            )
        inner = [e.name for e in self._folders(device) if e.attrs["subPath"] == folder.name]
        if inner:
            raise bigip_error(
                exception.BadRequest,
                400,
                f"Cannot delete folder ({folder.name}): it contains {sorted(inner)[0]}.",
            )
        self._start(folder, "delete", None, None)
        return {"id": folder.id, "fullPath": folder.name}


def _path_key(ent: Entity) -> str:
    return ent.name


register_service(BigIPService)


def add_bigip_service(cloud: Any) -> BigIPService:
    """Add the ``bigip`` service with its default device to *cloud* (once) and return it."""
    if "bigip" in cloud.service_names():
        return cloud.service("bigip")  # type: ignore[no-any-return]
    service: BigIPService = cloud.add_service(BigIPService)
    device = DEFAULT_DEVICE
    service.add_device(device["address"], device["username"], device["password"])
    return service
