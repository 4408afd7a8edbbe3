"""Flavor operations of the compute service (mixed into :class:`fake_clouds.compute.ComputeService`).

A flavor is ``ACTIVE`` from its creation to its deletion (both at once, as
nova does them). Names and ids are unique among live flavors (409 otherwise).
A private flavor (``is_public`` false) lists the projects given access to it
(``access``); a public flavor takes no access list (409, as nova answers).
Extra specs are a string-to-string map. Deleting a flavor leaves the servers
booted from it as they are.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.service import operation
from sdk import exception

#: Numeric flavor attributes: name -> (minimum, required).
_NUMBERS = {"vcpus": (1, True), "ram": (1, True), "disk": (0, True), "ephemeral": (0, False)}


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


def _conflict(message: str) -> exception.Conflict:
    return exception.Conflict(
        message, body={"conflictingRequest": {"code": 409, "message": message}}
    )


def _not_found(message: str) -> exception.NotFound:
    return exception.NotFound(message, body={"itemNotFound": {"code": 404, "message": message}})


def _check_specs(specs: Any) -> dict[str, str]:
    if not isinstance(specs, dict):
        raise _bad("Flavor extra specs must be a mapping")
    for key, value in specs.items():
        if not isinstance(key, str) or not key or len(key) > 255:
            raise _bad(f"Invalid extra spec key {key!r}: a string of 1 to 255 characters")
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise _bad(f"Invalid extra spec value for {key}: expected a string")
    return {str(k): str(v) for k, v in specs.items()}


class FlavorOperations:
    """Flavors: create, list, show, update, delete, extra specs and project access."""

    @operation("flavors.list", kind="flavor")
    def list_flavors(self: Any) -> list[dict[str, Any]]:
        """Return every flavor."""
        return [e.view() for e in self._list("flavor")]

    @operation("flavors.get", kind="flavor", id_arg="flavor_id")
    def get_flavor(self: Any, flavor_id: str) -> dict[str, Any]:
        """Return one flavor by id."""
        return self._get("flavor", flavor_id, label="Flavor").view()

    @operation("flavors.create", kind="flavor")
    def create_flavor(
        self: Any,
        name: str,
        vcpus: int,
        ram: int,
        disk: int,
        *,
        flavor_id: str | None = None,
        ephemeral: int = 0,
        swap: int = 0,
        rxtx_factor: float = 1.0,
        is_public: bool = True,
        description: str | None = None,
    ) -> dict[str, Any]:
        """Create a flavor (its id is drawn from the ``ids`` stream unless given)."""
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise _bad("Invalid flavor name: a string of 1 to 255 characters is required")
        values = {"vcpus": vcpus, "ram": ram, "disk": disk, "ephemeral": ephemeral}
        for key, (low, _required) in _NUMBERS.items():
            value = values[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise _bad(f"Invalid input for field/attribute {key}: an integer >= {low}")
        if isinstance(swap, bool) or not isinstance(swap, int) or swap < 0:
            raise _bad("Invalid input for field/attribute swap: an integer >= 0")
        if not isinstance(is_public, bool):
            raise _bad("Invalid input for field/attribute is_public: a boolean")
        if flavor_id is not None and (not isinstance(flavor_id, str) or not flavor_id.strip()):
            raise _bad(f"Invalid flavor id {flavor_id!r}")
        live = self._live("flavor")
        if any(f.name == name for f in live):
            raise _conflict(f"Flavor with name {name} already exists.")
        if flavor_id is not None and any(f.id == flavor_id for f in live):
            raise _conflict(f"Flavor with ID {flavor_id} already exists.")
        attrs = {
            **values,
            "swap": swap,
            "rxtx_factor": float(rxtx_factor),
            "is_public": is_public,
            "description": description,
            "extra_specs": {},
            "access": [],
        }
        return self._create("flavor", name, "ACTIVE", attrs, entity_id=flavor_id).view()

    @operation("flavors.update", kind="flavor", id_arg="flavor_id")
    def update_flavor(self: Any, flavor_id: str, description: str | None) -> dict[str, Any]:
        """Change a flavor's description (the only mutable field, as in nova)."""
        flavor = self._get("flavor", flavor_id, label="Flavor")
        if description is not None and (
            not isinstance(description, str) or len(description) > 65535
        ):
            raise _bad("Invalid input for field/attribute description: a string")
        self._set(flavor, description=description)
        return flavor.view()

    @operation("flavors.delete", kind="flavor", id_arg="flavor_id")
    def delete_flavor(self: Any, flavor_id: str) -> None:
        """Delete a flavor (at once)."""
        self._start(self._get("flavor", flavor_id, label="Flavor"), "delete", None, None)

    @operation("flavors.set_extra_specs", kind="flavor", id_arg="flavor_id")
    def set_flavor_extra_specs(self: Any, flavor_id: str, specs: dict[str, Any]) -> dict[str, str]:
        """Merge *specs* into the flavor's extra specs; return them all."""
        flavor = self._get("flavor", flavor_id, label="Flavor")
        merged = {**flavor.attrs.get("extra_specs", {}), **_check_specs(specs)}
        self._set(flavor, extra_specs=dict(sorted(merged.items())))
        return dict(flavor.attrs["extra_specs"])

    @operation("flavors.delete_extra_spec", kind="flavor", id_arg="flavor_id")
    def delete_flavor_extra_spec(self: Any, flavor_id: str, key: str) -> None:
        """Remove one extra spec (NotFound when the flavor has no such key)."""
        flavor = self._get("flavor", flavor_id, label="Flavor")
        specs = dict(flavor.attrs.get("extra_specs", {}))
        if key not in specs:
            raise _not_found(f"Flavor {flavor_id} has no extra specs with key {key}.")
        del specs[key]
        self._set(flavor, extra_specs=specs)

    def _private(self: Any, flavor_id: str) -> Any:
        flavor = self._get("flavor", flavor_id, label="Flavor")
        if flavor.attrs.get("is_public", True):
            raise _conflict("Can not add access to a public flavor.")
        return flavor

    @operation("flavors.list_access", kind="flavor", id_arg="flavor_id")
    def list_flavor_access(self: Any, flavor_id: str) -> list[str]:
        """Return the projects given access to a private flavor."""
        flavor = self._get("flavor", flavor_id, label="Flavor")
        if flavor.attrs.get("is_public", True):
            raise _not_found("Access list not available for public flavors.")
        return list(flavor.attrs.get("access", []))

    @operation("flavors.add_access", kind="flavor", id_arg="flavor_id")
    def add_flavor_access(self: Any, flavor_id: str, project_id: str) -> list[str]:
        """Give *project_id* access to a private flavor (409 if it has it already)."""
        flavor = self._private(flavor_id)
        if not isinstance(project_id, str) or not project_id:
            raise _bad("Invalid input for field/attribute tenant: a project id")
        access = list(flavor.attrs.get("access", []))
        if project_id in access:
            raise _conflict(
                f"Flavor access already exists for flavor {flavor_id} and project {project_id}"
            )
        self._set(flavor, access=sorted([*access, project_id]))
        return list(flavor.attrs["access"])

    @operation("flavors.remove_access", kind="flavor", id_arg="flavor_id")
    def remove_flavor_access(self: Any, flavor_id: str, project_id: str) -> list[str]:
        """Take *project_id*'s access to a private flavor away (404 if it had none)."""
        flavor = self._private(flavor_id)
        access = list(flavor.attrs.get("access", []))
        if project_id not in access:
            raise _not_found(f"Flavor access not found for {flavor_id} / {project_id} combination.")
        self._set(flavor, access=[p for p in access if p != project_id])
        return list(flavor.attrs["access"])
