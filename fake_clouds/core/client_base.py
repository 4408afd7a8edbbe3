"""Building blocks of the Python clients: result objects and managers.

Manager-style clients (compute, block storage, entity) return
:class:`ClientObject` instances: attribute access to every field,
``to_dict()`` for a plain copy, ``get()`` to reload and ``delete()``.
Methods that take an entity accept either its id or an object with ``.id``.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.tracking import plain


def id_of(value: Any) -> Any:
    """Return ``value.id`` for client objects, *value* itself otherwise."""
    return getattr(value, "id", value)


class ClientObject:
    """A snapshot of one entity as a client sees it."""

    def __init__(self, manager: Any, info: dict[str, Any], *, owned: bool = False) -> None:
        """Keep a copy of *info*, or *info* itself when *owned* (a fresh view nobody else holds)."""
        self.manager = manager
        self._info: dict[str, Any] = {}
        self._load(info, owned=owned)

    def _load(self, info: dict[str, Any], *, owned: bool = False) -> None:
        # plain() is copy.deepcopy for the JSON-like documents services return, at a fraction of
        # the cost; an operation's Entity.view() is such a copy already, made for this caller
        # every field becomes an attribute at once, as a novaclient resource sets each with
        # setattr (keys such as "OS-EXT-STS:task_state" too: getattr() reads them either way)
        self._info = info if owned else plain(info)
        self.__dict__.update(self._info)

    def __getattr__(self, name: str) -> Any:
        info = self.__dict__.get("_info", {})
        if name in info:
            return info[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return a deep copy of every field."""
        return plain(self._info)

    def get(self) -> ClientObject:
        """Reload the fields from the service; return self."""
        fresh = self.manager.get(self._info["id"])
        self._load(fresh._info, owned=fresh is not self)  # fresh is dropped: its fields are ours
        return self

    def delete(self) -> Any:
        """Delete this entity through its manager."""
        return self.manager.delete(self._info["id"])

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ClientObject)
            and type(other) is type(self)
            and other._info == self._info
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._info.get("id")))

    def __repr__(self) -> str:
        label = self._info.get("name") or self._info.get("id")
        return f"<{type(self).__name__} {label}>"


class Manager:
    """Base of a manager: wraps a service and turns result dicts into objects."""

    resource_class: type[ClientObject] = ClientObject

    def __init__(self, service: Any) -> None:
        self.service = service

    def _wrap(self, info: dict[str, Any], *, owned: bool = False) -> ClientObject:
        """A client object of *info*: copied, or kept as is when *owned* (see :class:`ClientObject`)."""
        return self.resource_class(self, info, owned=owned)

    def _wrap_all(self, items: list[dict[str, Any]], *, owned: bool = False) -> list[ClientObject]:
        return [self._wrap(item, owned=owned) for item in items]

    def find(self, **filters: Any) -> ClientObject:
        """Return the one entity whose fields equal *filters* (NotFound/Conflict otherwise)."""
        from sdk import exception

        found = self.findall(**filters)
        if not found:
            raise exception.NotFound(f"No {self._noun()} matching {filters}.")
        if len(found) > 1:
            raise exception.Conflict(f"Multiple {self._noun()}s match {filters}.")
        return found[0]

    def findall(self, **filters: Any) -> list[ClientObject]:
        """Return every entity whose fields equal *filters*."""
        items = self.list()  # type: ignore[attr-defined]
        return [i for i in items if all(i.to_dict().get(k) == v for k, v in filters.items())]

    def _noun(self) -> str:
        return self.resource_class.__name__.lower()
