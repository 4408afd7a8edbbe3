"""The generic entity service: typed entities for services plugsim does not model.

A plug-in author describes a kind once and then creates entities of it::

    svc = cloud.service("entity")
    svc.define_kind("dns_zone", create=("PENDING", "ACTIVE"), delete=("PENDING_DELETE", None),
                    actions={"disable": {"from": ["ACTIVE"], "via": None, "to": "DISABLED"}})
    zone = cloud.client("entity").entities.create("dns_zone", {"ttl": 300}, name="example.org")

A kind that was never defined gets the defaults: ``CREATING`` -> ``ACTIVE``,
``UPDATING`` -> ``ACTIVE`` on update, ``DELETING`` -> gone, error status
``ERROR``. Transition durations use the latency keys
``entity.<kind>.<phase>`` (phase ``create``, ``update``, ``delete`` or an
action name). Quota (default): ``entities`` 1000.
"""

from __future__ import annotations

import re
from typing import Any

from fake_clouds import default_world
from fake_clouds.clients.entity import EntityClient
from fake_clouds.core.registry import register_service
from fake_clouds.core.service import Service, operation
from sdk import exception

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,62}$")

DEFAULT_KIND: dict[str, Any] = {
    "create": ["CREATING", "ACTIVE"],
    "update": ["UPDATING", "ACTIVE"],
    "delete": ["DELETING", None],
    "error_status": "ERROR",
    "actions": {},
}


#: Kinds a service deletes with the entity they belong to: for each kind, pairs of a
#: dependent kind and the dependent's attribute naming the owner's id. cinder's
#: ``volume_type_destroy`` deletes the type's encryption (and extra specs) with the type.
DELETED_WITH: dict[str, tuple[tuple[str, str], ...]] = {
    "volume_type": (("volume_encryption", "volume_type_id"),),
}


def _pair(value: Any, where: str) -> list[Any]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(v is None or isinstance(v, str) for v in value)
    ):
        raise exception.ConfigurationError(
            f"{where}: expected (transitional status or None, final status or None), got {value!r}"
        )
    return list(value)


@register_service
class EntityService(Service):
    """Entities of author-defined kinds with configurable transitions."""

    name = "entity"
    kinds: dict[str, str] = {}  # noqa: RUF012 - kinds are defined per world
    default_quotas = {"entities": 1000}
    client_class = EntityClient

    def define_kind(
        self,
        kind: str,
        *,
        create: tuple[str | None, str] = ("CREATING", "ACTIVE"),
        update: tuple[str | None, str] | None = ("UPDATING", "ACTIVE"),
        delete: tuple[str | None, None] = ("DELETING", None),
        error_status: str = "ERROR",
        actions: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        """Describe a kind's transitions; ``actions`` maps a name to ``{from, via, to}``."""
        if not isinstance(kind, str) or not _KIND.match(kind):
            raise exception.ConfigurationError(
                f"entity kind {kind!r}: use lowercase letters, digits and underscores"
            )
        spec = {
            "create": _pair(create, f"entity kind {kind}: create"),
            "update": _pair(update, f"entity kind {kind}: update") if update else None,
            "delete": _pair(delete, f"entity kind {kind}: delete"),
            "error_status": str(error_status),
            "actions": {},
        }
        for name, action in sorted((actions or {}).items()):
            where = f"entity kind {kind}: actions.{name}"
            if not isinstance(action, dict) or not {"from", "to"} <= set(action):
                raise exception.ConfigurationError(
                    f"{where}: expected {{from: [...], via: ..., to: ...}}"
                )
            spec["actions"][name] = {
                "from": list(action["from"]),
                "via": action.get("via"),
                "to": action["to"],
            }
        self.counters.setdefault("kinds", {})[kind] = spec
        self._store.setdefault(kind, {})

    def seed_defaults(self, world: Any = None) -> None:
        """Add the volume types, projects and users a world file declares (kinds of their own)."""
        for seed in default_world.seeds(self.name, world):
            self._spec(seed.kind)
            self._create(
                seed.kind, seed.name, seed.status, seed.attrs, entity_id=seed.id, preseeded=True
            )

    def _spec(self, kind: str) -> dict[str, Any]:
        if kind not in self.counters.get("kinds", {}):
            self.define_kind(kind)
        return self.counters["kinds"][kind]

    def _error_status(self, kind: str) -> str:
        return self._spec(kind)["error_status"]

    def _stuck_status(self, kind: str) -> str | None:
        return self._spec(kind)["create"][0]

    def catalog_kinds(self) -> list[str]:
        """Any kind may be named by a fault rule (kinds are defined at run time)."""
        return ["*", *self.entity_kinds()]

    def _dispatch_kind(self, arguments: dict[str, Any]) -> str | None:
        if isinstance(arguments.get("kind"), str):
            return arguments["kind"]
        ent = self._find(arguments.get("entity_id"), quiet=True)
        return ent.kind if ent is not None else None

    def _find(self, entity_id: Any, quiet: bool = False) -> Any:
        for kind in list(self._store):
            self._refresh(kind)
            ent = self._store[kind].get(entity_id) if isinstance(entity_id, str) else None
            if ent is not None and not ent.deleted and ent.visible_at <= self._now():
                return ent
        if quiet:
            return None
        raise exception.NotFound(
            f"Entity {entity_id} could not be found.",
            body={"message": f"Entity {entity_id} could not be found."},
        )

    @operation("entities.create")
    def create_entity(
        self, kind: str, attrs: dict[str, Any] | None = None, name: str | None = None
    ) -> dict[str, Any]:
        """Create an entity of *kind*; it moves through the kind's create transition."""
        if not isinstance(kind, str) or not _KIND.match(kind):
            raise exception.BadRequest(f"Invalid entity kind {kind!r}")
        if attrs is not None and not isinstance(attrs, dict):
            raise exception.BadRequest("Entity attributes must be a mapping")
        spec = self._spec(kind)
        total = sum(self._count(k) for k in list(self._store))
        self._check_quota("entities", total)
        via, final = spec["create"]
        ent = self._create(kind, name or "", via or final, {"kind": kind, **(attrs or {})})
        self._start(ent, "create", via, final)
        return ent.view()

    @operation("entities.get", id_arg="entity_id")
    def get_entity(self, entity_id: str) -> dict[str, Any]:
        """Return one entity."""
        return self._find(entity_id).view()

    @operation("entities.list")
    def list_entities(self, kind: str | None = None, **filters: Any) -> list[dict[str, Any]]:
        """Return entities (of *kind*, if given) whose fields equal *filters*."""
        if kind is not None and not isinstance(kind, str):
            raise exception.BadRequest(f"Invalid entity kind {kind!r}")
        kinds = [kind] if kind is not None else sorted(self._store)
        return [e.view() for k in kinds if k in self._store for e in self._list(k, **filters)]

    @operation("entities.update", id_arg="entity_id")
    def update_entity(
        self, entity_id: str, attrs: dict[str, Any] | None = None, name: str | None = None
    ) -> dict[str, Any]:
        """Change attributes (and run the kind's update transition, if any)."""
        ent = self._find(entity_id)
        if ent.pending:
            raise exception.Conflict(f"Entity {ent.id} is busy (status {ent.status})")
        if attrs is not None and not isinstance(attrs, dict):
            raise exception.BadRequest("Entity attributes must be a mapping")
        if name is not None:
            ent.name = name
        self._set(ent, **(attrs or {}))
        spec = self._spec(ent.kind)
        if spec["update"]:
            self._start(ent, "update", *spec["update"])
        return ent.view()

    @operation("entities.action", id_arg="entity_id")
    def entity_action(self, entity_id: str, action: str) -> dict[str, Any]:
        """Run a kind-defined action (Conflict from a status it does not allow)."""
        ent = self._find(entity_id)
        spec = self._spec(ent.kind)["actions"].get(action)
        if spec is None:
            known = ", ".join(sorted(self._spec(ent.kind)["actions"])) or "none"
            raise exception.BadRequest(f"Kind {ent.kind} has no action {action!r} (known: {known})")
        self._require_status(ent, tuple(spec["from"]), action)
        self._start(ent, action, spec["via"], spec["to"])
        return ent.view()

    @operation("entities.delete", id_arg="entity_id")
    def delete_entity(self, entity_id: str) -> None:
        """Delete an entity through the kind's delete transition."""
        ent = self._find(entity_id)
        via, final = self._spec(ent.kind)["delete"]
        if via is not None and ent.status == via and ent.pending:
            return
        self._start(ent, "delete", via, final)
        for kind, key in DELETED_WITH.get(ent.kind, ()):
            for dependent in self._list(kind, **{key: ent.id}) if kind in self._store else ():
                d_via, d_final = self._spec(kind)["delete"]
                busy = d_via is not None and dependent.status == d_via and dependent.pending
                if not (dependent.deleted or busy):
                    self._start(dependent, "delete", d_via, d_final)
