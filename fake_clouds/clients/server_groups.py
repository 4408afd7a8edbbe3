"""novaclient's ``server_groups`` over the generic entity service.

A server group is an entity of kind ``nova_server_group``, the kind plugsim's
own ``OS::Nova::ServerGroup`` keeps, so a group made through this manager and
one made by that type are the same kind of object. Both novaclient forms are
taken: ``policies=[...]`` (before microversion 2.64) and ``policy=`` with
``rules`` (2.64 and later). Groups are made and deleted at once, as nova's
are (using this manager makes the kind so for the whole world). The fake does
not place servers by the policy.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager, id_of
from sdk import exception

_KIND = "nova_server_group"
_INSTANT = {"create": [None, "ACTIVE"], "update": None, "delete": [None, None]}
#: The placement policies nova knows.
POLICIES = ("affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity")


class ServerGroup(ClientObject):
    """A server group (``name``, ``policies``, ``policy``, ``rules``, ``members``)."""


class ServerGroupManager(Manager):
    """``client.server_groups``: create, get, list, delete."""

    resource_class = ServerGroup

    def _entities(self) -> Any:
        """The entity service, server groups made and deleted at once (as nova does)."""
        entities = self.service.world.service("entity")
        spec = entities.counters.get("kinds", {}).get(_KIND) or {}
        if any(spec.get(k) != v for k, v in _INSTANT.items()):
            entities.define_kind(_KIND, create=(None, "ACTIVE"), update=None, delete=(None, None))
        return entities

    @staticmethod
    def _view(entity: dict[str, Any]) -> dict[str, Any]:
        policies = list(entity.get("policies") or [])
        return {
            "id": entity["id"],
            "name": entity["name"],
            "policies": policies,
            "policy": entity.get("policy") or (policies[0] if policies else None),
            "rules": dict(entity.get("rules") or {}),
            "members": list(entity.get("members") or []),
        }

    def create(
        self,
        name: str,
        policies: Any = None,
        policy: str | None = None,
        rules: dict[str, Any] | None = None,
    ) -> ServerGroup:
        """Create a group with one placement policy (given either way)."""
        chosen = list(policies) if policies is not None else [policy] if policy else []
        if len(chosen) != 1 or chosen[0] not in POLICIES:
            raise exception.BadRequest(
                f"Invalid input for field/attribute policies: one of {', '.join(POLICIES)}"
            )
        if rules and chosen[0] != "anti-affinity":
            raise exception.BadRequest("Only the anti-affinity policy takes rules")
        attrs = {"policies": chosen, "policy": chosen[0], "rules": dict(rules or {}), "members": []}
        made = self._entities().create_entity(_KIND, attrs, name=name)
        return self._wrap(self._view(made))  # type: ignore[return-value]

    def get(self, group: Any) -> ServerGroup:
        """One group by id (NotFound for another kind's entity too)."""
        entity = self._entities().get_entity(id_of(group))
        if entity.get("kind", _KIND) != _KIND:
            raise exception.NotFound(f"Server group {id_of(group)} could not be found.")
        return self._wrap(self._view(entity))  # type: ignore[return-value]

    def list(self) -> list[ServerGroup]:
        """Every server group."""
        made = self._entities().list_entities(_KIND)
        return self._wrap_all([self._view(e) for e in made])  # type: ignore[return-value]

    def delete(self, group: Any) -> None:
        """Delete a group."""
        self._entities().delete_entity(self.get(group).id)
