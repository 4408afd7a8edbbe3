"""``self.rpc_client()`` of a Heat plug-in: the engine calls Heat's config plug-ins make.

Heat's software-config plug-ins (``OS::Heat::SoftwareConfig``, ``CloudConfig``,
``MultipartMime``, ``SoftwareComponent`` ...) do not keep their configs
themselves: they ask Heat's engine over RPC to create, show and delete them.
plugsim keeps software configs as entities of kind ``software_config`` in the
fake cloud's generic entity service (as its own ``OS::Heat::SoftwareConfig``
does), so :class:`HeatRpcClient` answers those calls there: a config made by
Heat's plug-in can be read by plugsim's types and the other way round, a
config left behind is a leak, and the world's store keeps them. Software
deployments are :mod:`simulator.heat_compat.rpc_software`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sdk import exception
from simulator.heat_compat.rpc_software import SoftwareDeploymentCalls

#: The entity kind software configs are kept as.
KIND = "software_config"
#: The fields of a software config besides its id and name.
FIELDS = ("group", "config", "inputs", "outputs", "options")


def _body(entity: Any) -> dict[str, Any]:
    """Heat's view of a stored config: id, name and its fields."""
    out = {"id": entity.id, "name": getattr(entity, "name", None)}
    for field in FIELDS:
        out[field] = getattr(entity, field, None)
    return out


def _io_list(field: str, value: Any) -> list[Any]:
    """The *field* list of a config (TypeError for anything but a list of maps, as Heat)."""
    if value is None:
        return []
    if not isinstance(value, list | tuple) or not all(isinstance(i, dict) for i in value):
        raise TypeError(f"Software Config I/O Schema {field} must be a list of maps")
    return list(value)


def _io_config(field: str, io: dict[str, Any]) -> dict[str, Any]:
    """One input or output as Heat's engine keeps it: no null keys, ``type`` String by default.

    An input's ``replace_on_change`` is kept only when true, an output's
    ``error_output`` always (false by default), as Heat's engine keeps them.
    """
    out = {k: v for k, v in io.items() if v is not None}
    out.setdefault("type", "String")
    if field == "inputs" and not out.get("replace_on_change"):
        out.pop("replace_on_change", None)
    if field == "outputs":
        out.setdefault("error_output", False)
    return out


class HeatRpcClient(SoftwareDeploymentCalls):
    """The part of Heat's engine RPC API that Heat's resource plug-ins call."""

    def __init__(self, resource: Any) -> None:
        self._resource = resource

    def _entities(self) -> Any:
        return self._resource.client_plugin("entity").client().entities

    def create_software_config(self, cnxt: Any, **config: Any) -> dict[str, Any]:
        """Store a config (``group``, ``name``, ``config``, ``inputs`` ...); return Heat's view."""
        body = {field: config.get(field) for field in FIELDS}
        body["group"] = body["group"] or "Heat::Ungrouped"
        for field in ("inputs", "outputs"):
            body[field] = [_io_config(field, io) for io in _io_list(field, body[field])]
        body["options"] = dict(body["options"] or {})
        created = self._entities().create(KIND, body, name=config.get("name"))
        return _body(created)

    def show_software_config(self, cnxt: Any, config_id: str) -> dict[str, Any]:
        """Heat's view of the config *config_id*.

        :raises sdk.exception.NotFound: no software config has that id.
        """
        try:
            entity = self._entities().get(config_id)
        except (exception.NotFound, exception.EntityNotFound):
            entity = None
        if entity is None or getattr(entity, "kind", KIND) != KIND:
            raise exception.NotFound(f"Software config {config_id} could not be found")
        return _body(entity)

    def delete_software_config(self, cnxt: Any, config_id: str) -> None:
        """Delete the config *config_id* (:class:`sdk.exception.NotFound` when there is none)."""
        self.show_software_config(cnxt, config_id)
        self._entities().delete(config_id)

    @contextlib.contextmanager
    def ignore_error_by_name(self, name: str) -> Iterator[None]:
        """Swallow an error whose class is named *name* (or derives from one so named)."""
        try:
            yield
        except Exception as ex:
            if name not in {cls.__name__ for cls in type(ex).__mro__}:
                raise


__all__ = ["FIELDS", "KIND", "HeatRpcClient"]
