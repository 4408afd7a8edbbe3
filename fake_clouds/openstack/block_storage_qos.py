"""Cinder's QoS specs and volume type encryption on the wire, a mixin of
:class:`~fake_clouds.openstack.block_storage.BlockStorageAPI`.

The same objects cinderclient's managers of the in-process client keep
(:mod:`fake_clouds.clients.volume_type_extras`): ``/qos-specs`` (list,
create with the specs beside ``name`` and ``consumer``, show, ``PUT`` to set
keys, ``delete_keys``, delete with ``force``, ``associations``, and the
``GET`` calls ``associate`` / ``disassociate?vol_type_id=`` and
``disassociate_all``) and ``/types/{id}/encryption`` (show, create, update,
delete). Answers and status codes are cinder's (202 for the calls that
return nothing).
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route

_P = "/v3/<project>"
_Q = f"{_P}/qos-specs/<qid>"
_E = f"{_P}/types/<tid>/encryption"
_OP = ("entity", "entities.list", "qos_specs")
_WRITE = ("entity", "entities.update", "qos_specs")
_ENC = ("entity", "entities.update", "volume_encryption")


def _qos_view(item: Any) -> dict[str, Any]:
    return {"id": item.id, "name": item.name, "consumer": item.consumer, "specs": item.specs}


class QoSSpecsRoutes:
    """``/qos-specs`` and ``/types/{id}/encryption``."""

    storage: Any

    @property
    def _qos(self) -> Any:
        return self.storage.client().qos_specs

    @route("GET", f"{_P}/qos-specs", op=_OP)
    def list_qos_specs(self, req: ApiRequest, project: str) -> Reply:
        """``GET /qos-specs``."""
        return Reply(200, {"qos_specs": [_qos_view(q) for q in self._qos.list()]})

    @route("POST", f"{_P}/qos-specs", op=("entity", "entities.create", "qos_specs"))
    def create_qos_specs(self, req: ApiRequest, project: str) -> Reply:
        """``POST /qos-specs`` with ``{"qos_specs": {"name", "consumer", key: value ...}}``."""
        spec = dict(req.member("qos_specs"))
        if "name" not in spec:
            raise bad("Invalid input for field/attribute qos_specs: 'name' is a required property")
        name = spec.pop("name")
        return Reply(200, {"qos_specs": _qos_view(self._qos.create(name, spec)), "links": []})

    @route("GET", _Q, op=_OP)
    def show_qos_specs(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``GET /qos-specs/{id}``."""
        return Reply(200, {"qos_specs": _qos_view(self._qos.get(qid))})

    @route("PUT", _Q, op=_WRITE)
    def set_qos_keys(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``PUT /qos-specs/{id}``: add or change keys."""
        keys = dict(req.member("qos_specs"))
        self._qos.set_keys(qid, keys)
        return Reply(200, {"qos_specs": keys})

    @route("PUT", f"{_Q}/delete_keys", op=_WRITE)
    def delete_qos_keys(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``PUT /qos-specs/{id}/delete_keys`` with ``{"keys": [...]}``."""
        keys = req.json().get("keys")
        if not isinstance(keys, list):
            raise bad("Invalid input for field/attribute keys: a list is required")
        self._qos.unset_keys(qid, keys)
        return Reply(202)

    @route("DELETE", _Q, op=("entity", "entities.delete", "qos_specs"))
    def delete_qos_specs(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``DELETE /qos-specs/{id}[?force=true]`` (400 while associated without force)."""
        self._qos.delete(qid, force=req.args.get("force", "").lower() in ("true", "1"))
        return Reply(202)

    @route("GET", f"{_Q}/associations", op=_OP)
    def qos_associations(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``GET /qos-specs/{id}/associations``."""
        found = [a.to_dict() for a in self._qos.get_associations(qid)]
        return Reply(200, {"qos_associations": found})

    def _vol_type(self, req: ApiRequest) -> str:
        ref = req.args.get("vol_type_id")
        if not ref:
            raise bad("Missing required parameter vol_type_id")
        return ref

    @route("GET", f"{_Q}/associate", op=_WRITE)
    def associate_qos(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``GET /qos-specs/{id}/associate?vol_type_id=``."""
        self._qos.associate(qid, self._vol_type(req))
        return Reply(202)

    @route("GET", f"{_Q}/disassociate", op=_WRITE)
    def disassociate_qos(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``GET /qos-specs/{id}/disassociate?vol_type_id=``."""
        self._qos.disassociate(qid, self._vol_type(req))
        return Reply(202)

    @route("GET", f"{_Q}/disassociate_all", op=_WRITE)
    def disassociate_all_qos(self, req: ApiRequest, project: str, qid: str) -> Reply:
        """``GET /qos-specs/{id}/disassociate_all``."""
        self._qos.disassociate_all(qid)
        return Reply(202)

    # --- encryption -------------------------------------------------------------------

    @property
    def _encryption(self) -> Any:
        return self.storage.client().volume_encryption_types

    @route("GET", _E, op=("entity", "entities.list", "volume_encryption"))
    def show_encryption(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``GET /types/{id}/encryption`` (``{}`` when the type has none)."""
        return Reply(200, self._encryption.get(tid).to_dict())

    @route("POST", _E, op=("entity", "entities.create", "volume_encryption"))
    def create_encryption(self, req: ApiRequest, project: str, tid: str) -> Reply:
        """``POST /types/{id}/encryption`` with ``{"encryption": {...}}``."""
        made = self._encryption.create(tid, dict(req.member("encryption")))
        return Reply(200, {"encryption": made.to_dict()})

    @route("PUT", f"{_E}/<eid>", op=_ENC)
    def update_encryption(self, req: ApiRequest, project: str, tid: str, eid: str) -> Reply:
        """``PUT /types/{id}/encryption/{encryption_id}``."""
        changes = self._encryption.update(tid, dict(req.member("encryption")))
        return Reply(200, {"encryption": changes})

    @route("DELETE", f"{_E}/<eid>", op=("entity", "entities.delete", "volume_encryption"))
    def delete_encryption(self, req: ApiRequest, project: str, tid: str, eid: str) -> Reply:
        """``DELETE /types/{id}/encryption/{encryption_id}``."""
        self._encryption.delete(tid)
        return Reply(202)
