"""Cinder volume types on the wire: list, show, create, update, delete, extra specs,
project access and per-project default types.

A volume type is an entity of kind ``volume_type`` of the world's generic
entity service (:mod:`fake_clouds.entity`), the kind world files declare
under ``volume_types``, so a type a world declares, one Heat creates and one
cinder clients create are the same. Cinder's own ``__DEFAULT__`` type always
exists and cannot be changed. Names are unique (409). Per-project defaults
(``/default-types``, microversion 3.62) are kept by the block storage service.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route

#: The id of cinder's built-in ``__DEFAULT__`` type.
DEFAULT_TYPE_ID = "00000000-0000-4000-8000-000000000001"
_P = "/v3/<project>"
_T = f"{_P}/types/<tid>"
_KIND = "volume_type"
_LIST = ("entity", "entities.list", _KIND)
_BUILTIN = {
    "id": DEFAULT_TYPE_ID,
    "name": "__DEFAULT__",
    "description": "Default Volume Type",
    "is_public": True,
    "extra_specs": {},
    "access": [],
}


class VolumeTypeRoutes:
    """The volume type routes of :class:`~fake_clouds.openstack.block_storage.BlockStorageAPI`."""

    cloud: Any
    storage: Any

    @property
    def entities(self) -> Any:
        """The generic entity service holding the volume types."""
        return self.cloud.service("entity")

    def _writable(self) -> Any:
        """The entity service, with volume types changing at once (cinder's are instant)."""
        entities = self.entities
        instant = {"create": [None, "ACTIVE"], "update": None, "delete": [None, None]}
        spec = entities.counters.get("kinds", {}).get(_KIND) or {}
        if any(spec.get(k) != v for k, v in instant.items()):
            entities.define_kind(_KIND, create=(None, "ACTIVE"), update=None, delete=(None, None))
        return entities

    # --- lookups --------------------------------------------------------------------------

    def volume_types(self) -> list[dict[str, Any]]:
        """Every volume type, ``__DEFAULT__`` first."""
        made = [
            {**_BUILTIN, "extra_specs": {}, "access": [], **e, "name": e["name"]}
            for e in self.entities.list_entities(_KIND)
        ]
        return [dict(_BUILTIN), *made]

    def find_type(self, ref: str) -> dict[str, Any]:
        """A volume type by id or name, or cinder's 404."""
        for vtype in self.volume_types():
            if ref in (vtype["id"], vtype["name"]):
                return vtype
        raise ApiError(404, f"Volume type {ref} could not be found.")

    def _own(self, tid: str) -> dict[str, Any]:
        vtype = self.find_type(tid)
        if vtype["id"] == DEFAULT_TYPE_ID:
            raise ApiError(403, "The __DEFAULT__ volume type cannot be changed or deleted.")
        return vtype

    @staticmethod
    def type_view(vtype: dict[str, Any]) -> dict[str, Any]:
        """Return cinder's volume type body."""
        return {
            "id": vtype["id"],
            "name": vtype["name"],
            "description": vtype.get("description") or None,
            "is_public": bool(vtype.get("is_public", True)),
            "os-volume-type-access:is_public": bool(vtype.get("is_public", True)),
            "extra_specs": dict(vtype.get("extra_specs") or {}),
            "qos_specs_id": vtype.get("qos_specs_id"),
        }

    # --- types ----------------------------------------------------------------------------

    @route("GET", f"{_P}/types", op=_LIST)
    def list_types(self, req: ApiRequest, project: str) -> Reply:
        """``GET /types`` (admins see private types too; others those shared with them)."""
        items = [
            t
            for t in self.volume_types()
            if req.is_admin or t.get("is_public", True) or req.project_id in t.get("access", ())
        ]
        return Reply(200, {"volume_types": [self.type_view(t) for t in items]})

    @route("GET", f"{_P}/types/default", op=_LIST)
    def get_default_type(self, req: ApiRequest, project: str) -> Reply:
        """``GET /types/default``: the caller's project default, else ``__DEFAULT__``."""
        tid = self.storage.default_types.get(req.project_id, DEFAULT_TYPE_ID)
        return Reply(200, {"volume_type": self.type_view(self.find_type(tid))})

    @route("GET", _T, op=_LIST)
    def get_type(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``GET /types/{id}``."""
        return Reply(200, {"volume_type": self.type_view(self.find_type(tid))})

    @route("POST", f"{_P}/types", op=("entity", "entities.create", _KIND))
    def create_type(self, req: ApiRequest, project: str) -> Reply:
        """``POST /types`` with ``{"volume_type": {name, description, is_public, extra_specs}}``."""
        spec = req.member("volume_type")
        name = spec.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise bad("Invalid input for field/attribute name: a string of 1 to 255 characters")
        if any(t["name"] == name for t in self.volume_types()):
            raise ApiError(409, f"Volume Type {name} already exists.")
        public = spec.get("os-volume-type-access:is_public", spec.get("is_public", True))
        if not isinstance(public, bool):
            raise bad("Invalid input for field/attribute is_public: a boolean")
        attrs = {
            "description": spec.get("description") or "",
            "is_public": public,
            "extra_specs": _specs(spec.get("extra_specs") or {}),
            "access": [],
        }
        made = self._writable().create_entity(_KIND, attrs, name=name)
        return Reply(200, {"volume_type": self.type_view(self.find_type(made["id"]))})

    @route("PUT", _T, op=("entity", "entities.update", _KIND))
    def update_type(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``PUT /types/{id}``: name, description, is_public."""
        vtype = self._own(tid)
        spec = req.member("volume_type")
        attrs: dict[str, Any] = {}
        if "description" in spec:
            attrs["description"] = spec["description"] or ""
        if "is_public" in spec:
            if not isinstance(spec["is_public"], bool):
                raise bad("Invalid input for field/attribute is_public: a boolean")
            attrs["is_public"] = spec["is_public"]
        name = spec.get("name")
        if name is not None and name != vtype["name"]:
            if any(t["name"] == name for t in self.volume_types()):
                raise ApiError(409, f"Volume Type {name} already exists.")
        self._writable().update_entity(vtype["id"], attrs, name=name)
        return Reply(200, {"volume_type": self.type_view(self.find_type(vtype["id"]))})

    @route("DELETE", _T, op=("entity", "entities.delete", _KIND))
    def delete_type(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``DELETE /types/{id}`` (400 while a volume uses it, as cinder answers)."""
        vtype = self._own(tid)
        users = [
            v["id"]
            for v in self.storage.list_volumes()
            if v.get("volume_type") in (vtype["id"], vtype["name"])
        ]
        if users:
            raise bad(f"Target volume type is still in use: volume {users[0]} uses it.")
        self._writable().delete_entity(vtype["id"])
        self.storage.default_types = {
            p: t for p, t in self.storage.default_types.items() if t != vtype["id"]
        }
        return Reply(202)

    # --- extra specs ----------------------------------------------------------------------

    @route("GET", f"{_T}/extra_specs", op=_LIST)
    def type_extra_specs(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``GET /types/{id}/extra_specs``."""
        return Reply(200, {"extra_specs": dict(self.find_type(tid)["extra_specs"])})

    @route("POST", f"{_T}/extra_specs", op=("entity", "entities.update", _KIND))
    def set_type_extra_specs(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``POST /types/{id}/extra_specs``: merge; answer the given specs."""
        vtype = self._own(tid)
        given = _specs(req.json().get("extra_specs"))
        merged = {**vtype["extra_specs"], **given}
        self._writable().update_entity(vtype["id"], {"extra_specs": dict(sorted(merged.items()))})
        return Reply(200, {"extra_specs": given})

    @route("GET", f"{_T}/extra_specs/<key>", op=_LIST)
    def type_extra_spec(self, req: ApiRequest, project: str, tid: str, key: str) -> Reply:
        """``GET /types/{id}/extra_specs/{key}``."""
        specs = self.find_type(tid)["extra_specs"]
        if key not in specs:
            raise ApiError(404, f"Volume Type {tid} has no extra specs with key {key}.")
        return Reply(200, {key: specs[key]})

    @route("DELETE", f"{_T}/extra_specs/<key>", op=("entity", "entities.update", _KIND))
    def delete_type_extra_spec(self, req: ApiRequest, project: str, tid: str, key: str) -> Reply:
        """``DELETE /types/{id}/extra_specs/{key}``."""
        vtype = self._own(tid)
        specs = dict(vtype["extra_specs"])
        if key not in specs:
            raise ApiError(404, f"Volume Type {tid} has no extra specs with key {key}.")
        del specs[key]
        self._writable().update_entity(vtype["id"], {"extra_specs": specs})
        return Reply(202)

    # --- per-project defaults (3.62) ------------------------------------------------------

    @staticmethod
    def _default_view(project: str, tid: str) -> dict[str, Any]:
        return {"project_id": project, "volume_type_id": tid}

    @route("PUT", f"{_P}/default-types/<target>", op=_LIST)
    def set_default_type(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``PUT /default-types/{project}`` with ``{"default_type": {"volume_type": ref}}``."""
        spec = req.member("default_type")
        ref = spec.get("volume_type")
        if not isinstance(ref, str):
            raise bad("Invalid input for field/attribute volume_type: a type id or name")
        tid = self.find_type(ref)["id"]
        self.storage.set_default_type(target, tid)
        return Reply(200, {"default_type": self._default_view(target, tid)})

    @route("GET", f"{_P}/default-types/<target>", op=_LIST)
    def show_default_type(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``GET /default-types/{project}`` (404 when the project has none)."""
        tid = self.storage.default_types.get(target)
        if tid is None:
            raise ApiError(404, f"Default type for project {target} could not be found.")
        return Reply(200, {"default_type": self._default_view(target, tid)})

    @route("GET", f"{_P}/default-types", op=_LIST)
    def list_default_types(self, req: ApiRequest, project: str) -> Reply:
        """``GET /default-types``."""
        items = [self._default_view(p, t) for p, t in sorted(self.storage.default_types.items())]
        return Reply(200, {"default_types": items})

    @route("DELETE", f"{_P}/default-types/<target>", op=_LIST)
    def unset_default_type(self, req: ApiRequest, project: str, target: str) -> Reply:
        """``DELETE /default-types/{project}``."""
        self.storage.set_default_type(target, None)
        return Reply(204)


def _specs(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str | int | float) for k, v in value.items()
    ):
        raise bad("Invalid input for field/attribute extra_specs: an object of strings")
    return {k: str(v) for k, v in value.items()}
