"""The object storage service (swift-like): containers and objects.

A container's id is its name; an object's id is ``<container>/<name>``. Both
are ``ACTIVE`` as soon as they are written. Deleting a non-empty container is
a Conflict (409). Metadata headers merge as swift merges them: a header with
an empty value, or its ``x-remove-`` form, removes the key. The account has
metadata headers of its own (``account.get`` / ``account.update``). Object content is kept as base64 text so the state stays
JSON-able; above :data:`fake_clouds.core.blobs.INLINE_BYTES`, a world with a
blob store keeps it as a file beside the world file and the entity names it
(``blob``). Quotas (defaults): ``containers`` 1000, ``objects`` 10000.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
from typing import Any

from fake_clouds.clients.object_storage import ObjectStorageClient
from fake_clouds.core import scope
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from sdk import exception


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value or (what == "container" and "/" in value):
        raise exception.BadRequest(f"Invalid {what} name {value!r}", body=f"Invalid {what} name")
    return value


def _prefix(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise exception.BadRequest(f"Invalid prefix {value!r}", body="Invalid prefix")
    return value


def _meta(headers: Any) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, dict):
        raise exception.BadRequest("Headers must be a mapping")
    return {str(k).lower(): str(v) for k, v in sorted(headers.items())}


def _merged(current: dict[str, str], headers: Any) -> dict[str, str]:
    """Return *current* updated with *headers*: an empty value or ``x-remove-*`` removes a key."""
    out = dict(current)
    for key, value in _meta(headers).items():
        if key.startswith("x-remove-"):
            out.pop("x-" + key[len("x-remove-") :], None)
        elif value == "":
            out.pop(key, None)
        else:
            out[key] = value
    return dict(sorted(out.items()))


@register_service
class ObjectStorageService(Service):
    """Containers of objects with swift-like semantics."""

    name = "object_storage"
    kinds = {"container": "ERROR", "object": "ERROR"}
    default_quotas = {"containers": 1000, "objects": 10000}
    client_class = ObjectStorageClient

    def __init__(self, world: Any) -> None:
        super().__init__(world)
        #: the account's metadata headers (lower-case names)
        self.account_headers: dict[str, str] = {}

    def to_state(self) -> dict[str, Any]:
        """Return the service's state, the account's headers included."""
        return {**super().to_state(), "account_headers": dict(self.account_headers)}

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the service's state (and the account's headers) with *state*."""
        super().load_state(state)
        self.account_headers = dict(state.get("account_headers") or {})

    @operation("account.get", kind="container")
    def head_account(self) -> dict[str, Any]:
        """Return the account's counts, bytes used and metadata headers."""
        containers = self.list_containers()
        return {
            "container_count": len(containers),
            "object_count": sum(c["count"] for c in containers),
            "bytes_used": sum(c["bytes"] for c in containers),
            "headers": dict(self.account_headers),
        }

    @operation("account.update", kind="container")
    def post_account(self, headers: dict[str, str]) -> dict[str, Any]:
        """Merge metadata *headers* into the account's (an empty value removes a key)."""
        self.account_headers = _merged(self.account_headers, headers)
        return self.head_account()

    def _container(self, name: str) -> Any:
        return self._get("container", _name(name, "container"), label="Container")

    def _objects_in(self, container: str) -> list[Any]:
        return [
            o for o in self._list("object") if o.attrs["container"] == container and not o.deleted
        ]

    @operation("containers.create", kind="container", id_arg="container")
    def put_container(
        self, container: str, headers: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """Create a container, or update its headers if it exists."""
        _name(container, "container")
        self._refresh("container")
        existing = self._store["container"].get(container)
        if existing is not None and not scope.visible(self, existing, scope.current()):
            # one namespace of containers for every account: another project's name is taken
            raise exception.Conflict(f"Container {container} belongs to another account.")
        if existing is not None and not existing.deleted:
            self._set(existing, headers=_merged(existing.attrs["headers"], headers))
            return existing.view()
        self._check_quota("containers", self._count("container"))
        ent = self._create(
            "container", container, "ACTIVE", {"headers": _merged({}, headers)}, entity_id=container
        )
        self._start(ent, "create", None, "ACTIVE")
        return ent.view()

    @operation("containers.get", kind="container", id_arg="container")
    def head_container(self, container: str) -> dict[str, Any]:
        """Return a container with ``object_count`` and ``bytes_used``."""
        ent = self._container(container)
        objs = self._objects_in(ent.id)
        view = ent.view()
        view.update(object_count=len(objs), bytes_used=sum(o.attrs["bytes"] for o in objs))
        return view

    @operation("containers.update", kind="container", id_arg="container")
    def post_container(self, container: str, headers: dict[str, str]) -> dict[str, Any]:
        """Merge *headers* into a container's headers."""
        ent = self._container(container)
        self._set(ent, headers=_merged(ent.attrs["headers"], headers))
        return ent.view()

    @operation("containers.list", kind="container")
    def list_containers(self, prefix: str | None = None) -> list[dict[str, Any]]:
        """Return containers (name order) with counts and sizes."""
        prefix = _prefix(prefix)
        out = []
        for ent in sorted(self._list("container"), key=lambda e: e.id):
            if prefix and not ent.id.startswith(prefix):
                continue
            objs = self._objects_in(ent.id)
            out.append(
                {"name": ent.id, "count": len(objs), "bytes": sum(o.attrs["bytes"] for o in objs)}
            )
        return out

    @operation("containers.delete", kind="container", id_arg="container")
    def delete_container(self, container: str) -> None:
        """Delete an empty container (Conflict when it holds objects)."""
        ent = self._container(container)
        if self._objects_in(ent.id):
            msg = "There was a conflict when trying to complete your request."
            raise exception.Conflict(f"Container {container} is not empty. {msg}", body=msg)
        self._start(ent, "delete", None, None)

    @operation("objects.create", kind="object")
    def put_object(
        self,
        container: str,
        obj: str,
        contents: str | bytes = b"",
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Write an object (replacing any previous one); return it with its ``etag``."""
        cont = self._container(container)
        _name(obj, "object")
        oid = f"{cont.id}/{obj}"
        attrs = {
            "container": cont.id,
            "content_type": content_type or "application/octet-stream",
            "headers": _meta(headers),
            **self._body(contents),
        }
        self._refresh("object")
        existing = self._store["object"].get(oid)
        if existing is not None and not existing.deleted:
            if existing.attrs.get("blob"):
                self._release(existing)
                attrs.setdefault("blob", None)  # inline bytes now: the file is no longer named
            self._set(existing, **attrs)
            return existing.view()
        self._check_quota("objects", self._count("object"))
        ent = self._create("object", obj, "ACTIVE", attrs, entity_id=oid)
        self._start(ent, "create", None, "ACTIVE")
        return ent.view()

    def _body(self, contents: Any) -> dict[str, Any]:
        """The attributes holding an object's bytes: inline (``data``) or a blob file (``blob``).

        *contents* is text, bytes, a body the wire spooled to disk
        (:class:`~fake_clouds.core.blobs.Spooled`) or an existing object's view
        (its bytes are kept). Bodies above :data:`~fake_clouds.core.blobs.INLINE_BYTES`
        become files when the world has a blob store.
        """
        from fake_clouds.core.blobs import INLINE_BYTES, Spooled

        blobs = self.world.blobs
        if isinstance(contents, Spooled):
            if blobs is None:
                data = contents.path.read_bytes()
                os.unlink(contents.path)
                return self._body(data)
            ref = blobs.adopt(contents)
            return {"bytes": contents.size, "etag": contents.md5, "blob": ref, "data": None}
        if isinstance(contents, dict) and "etag" in contents:  # an object's view: keep its bytes
            return {
                key: contents[key] for key in ("bytes", "etag", "blob", "data") if key in contents
            }
        if isinstance(contents, str):
            contents = contents.encode("utf-8")
        if not isinstance(contents, bytes | bytearray):
            raise exception.BadRequest(
                f"Object contents must be str or bytes, got {type(contents).__name__}"
            )
        if blobs is not None and len(contents) > INLINE_BYTES:
            spooled = blobs.spool(io.BytesIO(contents), len(contents), len(contents))
            return self._body(spooled)
        return {
            "bytes": len(contents),
            "etag": hashlib.md5(bytes(contents), usedforsecurity=False).hexdigest(),
            "data": base64.b64encode(bytes(contents)).decode("ascii"),
        }

    def _release(self, ent: Any) -> None:
        """*ent*'s blob (if any) may stop being named: collect after the next commit."""
        if ent.attrs.get("blob") and self.world.blobs is not None:
            self.world.blobs.released = True

    def content(self, view: dict[str, Any]) -> bytes:
        """An object's bytes, from its view (:meth:`get_object`)."""
        if view.get("blob"):
            return self.world.blobs.read(view["blob"])
        return base64.b64decode(view["data"])

    @operation("objects.get", kind="object")
    def get_object(self, container: str, obj: str) -> dict[str, Any]:
        """Return an object's attributes (``data`` is base64)."""
        self._container(container)
        return self._get("object", f"{container}/{obj}", label="Object").view()

    @operation("objects.list", kind="object")
    def list_objects(self, container: str, prefix: str | None = None) -> list[dict[str, Any]]:
        """Return the objects of a container in name order."""
        cont = self._container(container)
        prefix = _prefix(prefix)
        objs = sorted(self._objects_in(cont.id), key=lambda o: o.name)
        return [
            {
                "name": o.name,
                "bytes": o.attrs["bytes"],
                "hash": o.attrs["etag"],
                "content_type": o.attrs["content_type"],
                "last_modified": o.updated_at,
            }
            for o in objs
            if not prefix or o.name.startswith(prefix)
        ]

    @operation("objects.delete", kind="object")
    def delete_object(self, container: str, obj: str) -> None:
        """Delete an object."""
        self._container(container)
        ent = self._get("object", f"{container}/{obj}", label="Object")
        self._release(ent)
        self._start(ent, "delete", None, None)
