"""Host aggregates of the compute service (mixed into :class:`fake_clouds.compute.ComputeService`).

Written from nova's ``os-aggregates`` API reference: an aggregate has a name
unique among live aggregates (409), an optional availability zone (kept in
its metadata too, as nova does), metadata (``set_metadata``: a ``None`` value
removes the key) and hosts. A host must be one where ``nova-compute`` runs
(404), at most once per aggregate (409); removing a host it lacks is a 404.
An aggregate that still has hosts cannot be deleted (400, as nova answers).
Ids are integers drawn in order, as nova's are; aggregates change at once.
"""

from __future__ import annotations

import copy
from typing import Any

from fake_clouds.core.service import operation
from sdk import exception


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 255:
        raise _bad("Invalid input for field/attribute name: a string of 1 to 255 characters")
    return value


def _zone(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 255:
        raise _bad(
            "Invalid input for field/attribute availability_zone: a string of 1 to 255 characters"
        )
    return value


class AggregateOperations:
    """Aggregates: create, list, show, update, delete, hosts and metadata."""

    _store: dict[str, Any]
    _get: Any
    _list: Any
    _live: Any
    _create: Any
    _start: Any
    _set: Any
    counters: dict[str, Any]
    daemon_hosts: Any

    def _aggregate(self, ident: Any) -> Any:
        key = str(ident) if isinstance(ident, int | str) and not isinstance(ident, bool) else None
        try:
            return self._get("aggregate", key, label="Aggregate")
        except exception.NotFound:
            msg = f"Aggregate {ident} could not be found."
            raise exception.NotFound(
                msg, body={"itemNotFound": {"code": 404, "message": msg}}
            ) from None

    def _aggregate_view(self, ent: Any) -> dict[str, Any]:
        view = ent.view()
        return {
            "id": int(ent.id),
            "uuid": view["uuid"],
            "name": ent.name,
            "availability_zone": view["availability_zone"],
            "hosts": list(view["hosts"]),
            "metadata": dict(view["metadata"]),
            "created_at": view["created_at"],
            "updated_at": view["updated_at"],
            "deleted": False,
        }

    def _unique_name(self, name: str, skip: str | None = None) -> None:
        if any(a.name == name and a.id != skip for a in self._live("aggregate")):
            msg = f"Aggregate {name} already exists."
            raise exception.Conflict(
                msg, body={"conflictingRequest": {"code": 409, "message": msg}}
            )

    def compute_hosts(self) -> list[str]:
        """The hosts where ``nova-compute`` runs (those an aggregate may hold)."""
        return sorted({host for binary, host in self.daemon_hosts if binary == "nova-compute"})

    @operation("aggregates.create", kind="aggregate")
    def create_aggregate(self, name: str, availability_zone: str | None = None) -> dict[str, Any]:
        """Create an aggregate (409 when the name is taken)."""
        self._unique_name(_name(name))
        zone = _zone(availability_zone)
        number = int(self.counters.get("aggregate_id", 0)) + 1
        self.counters["aggregate_id"] = number
        attrs = {
            "uuid": self.world.new_id(),  # type: ignore[attr-defined]
            "availability_zone": zone,
            "hosts": [],
            "metadata": {"availability_zone": zone} if zone else {},
        }
        ent = self._create("aggregate", name, "ACTIVE", attrs, entity_id=str(number))
        return self._aggregate_view(ent)

    @operation("aggregates.list", kind="aggregate")
    def list_aggregates(self) -> list[dict[str, Any]]:
        """Every aggregate."""
        return [self._aggregate_view(e) for e in self._list("aggregate") if not e.deleted]

    @operation("aggregates.get", kind="aggregate", id_arg="aggregate_id")
    def get_aggregate(self, aggregate_id: Any) -> dict[str, Any]:
        """One aggregate (404 for an unknown id)."""
        return self._aggregate_view(self._aggregate(aggregate_id))

    @operation("aggregates.update", kind="aggregate", id_arg="aggregate_id")
    def update_aggregate(self, aggregate_id: Any, values: Any) -> dict[str, Any]:
        """Rename an aggregate or change its availability zone."""
        ent = self._aggregate(aggregate_id)
        if not isinstance(values, dict) or not values:
            raise _bad("An aggregate update needs name or availability_zone")
        unknown = sorted(set(values) - {"name", "availability_zone"})
        if unknown:
            raise _bad(f"Additional properties are not allowed ({', '.join(unknown)})")
        if "name" in values:
            self._unique_name(_name(values["name"]), skip=ent.id)
            ent.name = values["name"]
        if "availability_zone" in values:
            zone = _zone(values["availability_zone"])
            metadata = {k: v for k, v in ent.attrs["metadata"].items() if k != "availability_zone"}
            if zone:
                metadata["availability_zone"] = zone
            self._set(ent, availability_zone=zone, metadata=metadata)
        self._set(ent)
        return self._aggregate_view(ent)

    @operation("aggregates.delete", kind="aggregate", id_arg="aggregate_id")
    def delete_aggregate(self, aggregate_id: Any) -> None:
        """Delete an aggregate (400 while it has hosts)."""
        ent = self._aggregate(aggregate_id)
        if ent.attrs["hosts"]:
            raise _bad(
                f"Cannot delete aggregate {ent.id}: it still has hosts "
                f"({', '.join(ent.attrs['hosts'])})."
            )
        self._start(ent, "delete", None, None)

    @operation("aggregates.add_host", kind="aggregate", id_arg="aggregate_id")
    def add_aggregate_host(self, aggregate_id: Any, host: str) -> dict[str, Any]:
        """Add a compute host (404 unknown host, 409 already there)."""
        ent = self._aggregate(aggregate_id)
        if host not in self.compute_hosts():
            msg = f"Compute host {host} could not be found."
            raise exception.NotFound(msg, body={"itemNotFound": {"code": 404, "message": msg}})
        if host in ent.attrs["hosts"]:
            msg = f"Aggregate {ent.id} already has host {host}."
            raise exception.Conflict(
                msg, body={"conflictingRequest": {"code": 409, "message": msg}}
            )
        self._set(ent, hosts=[*ent.attrs["hosts"], host])
        return self._aggregate_view(ent)

    @operation("aggregates.remove_host", kind="aggregate", id_arg="aggregate_id")
    def remove_aggregate_host(self, aggregate_id: Any, host: str) -> dict[str, Any]:
        """Remove a host (404 when the aggregate lacks it)."""
        ent = self._aggregate(aggregate_id)
        if host not in ent.attrs["hosts"]:
            msg = f"Cannot remove host {host} in aggregate {ent.id}: not found."
            raise exception.NotFound(msg, body={"itemNotFound": {"code": 404, "message": msg}})
        self._set(ent, hosts=[h for h in ent.attrs["hosts"] if h != host])
        return self._aggregate_view(ent)

    @operation("aggregates.set_metadata", kind="aggregate", id_arg="aggregate_id")
    def set_aggregate_metadata(self, aggregate_id: Any, metadata: Any) -> dict[str, Any]:
        """Merge *metadata* in (a ``None`` value removes its key)."""
        ent = self._aggregate(aggregate_id)
        if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and 0 < len(k) <= 255 for k in metadata
        ):
            raise _bad("Invalid input for field/attribute metadata: keys of 1 to 255 characters")
        merged = copy.deepcopy(ent.attrs["metadata"])
        for key, value in metadata.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = str(value)
        zone = merged.get("availability_zone")
        self._set(ent, metadata=merged, availability_zone=zone)
        return self._aggregate_view(ent)
