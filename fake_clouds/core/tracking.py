"""Change tracking of a fake cloud's entities, so a world commits only what changed.

A world's store writes the fake cloud incrementally: at each commit only the
entities that changed since the previous one are written. The entities learn
of their own changes:

* :class:`ChangeLog` collects the keys ``(service, kind, id)`` of entities
  touched since it was last drained, and the names of services whose own state
  (quotas, counters, anything a service keeps besides entities) may have
  changed;
* an :class:`~fake_clouds.core.entities.Entity` attached to a log reports every
  attribute it is given, and its ``attrs`` and ``pending`` are
  :class:`TrackedDict` / :class:`TrackedList` containers (nested containers
  too) that report every change made in place;
* a service's entity store is a :class:`ServiceStore` of :class:`KindStore`
  maps, which attach the entities put into them and report insertions (an
  entity that takes a new place in creation order) and removals.

Tracked containers behave as plain ``dict``/``list`` everywhere else; a deep
or shallow copy of one is a plain container, so views handed to clients are
not tied to the entity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

EntityKey = tuple[str, str, str]


class ChangeLog:
    """What changed in one fake cloud since the log was last drained."""

    def __init__(self) -> None:
        #: entity key -> 0 when it changed in place, or a stamp (1, 2 ...) when it
        #: (re)entered its store: stamps order the entities that took a new place
        self.entities: dict[EntityKey, int] = {}
        #: services whose non-entity state may have changed
        self.services: set[str] = set()
        self._stamp = 0
        #: the recorder of the fake-cloud call in progress (:mod:`fake_clouds.core.history`),
        #: told of every entity the call touches; None between calls
        self.recorder: Any = None

    def touch(self, key: EntityKey, inserted: bool = False) -> None:
        """Note that the entity under *key* changed (or was inserted or removed)."""
        recorder = self.recorder
        if recorder is not None:
            recorder.note(key, inserted)
        if inserted:
            self._stamp += 1
            self.entities[key] = self._stamp
        elif key not in self.entities:
            self.entities[key] = 0

    def drain(self) -> tuple[dict[EntityKey, int], set[str]]:
        """Return and forget what changed."""
        entities, services = self.entities, self.services
        self.entities, self.services = {}, set()
        return entities, services


#: Value types :func:`plain` shares instead of copying (immutable).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """A deep copy of *value* made of plain dicts and lists (what ``copy.deepcopy`` gives).

    Every client read copies an entity, so scalars are copied inline, without a call each.
    """
    kind = type(value)
    if kind is dict or kind is TrackedDict:
        return {k: v if type(v) in _SCALARS else plain(v) for k, v in value.items()}
    if kind is list or kind is TrackedList:
        return [v if type(v) in _SCALARS else plain(v) for v in value]
    if kind in _SCALARS:
        return value
    import copy

    return copy.deepcopy(value)


def track(value: Any, owner: Any) -> Any:
    """Return *value* with every dict and list in it tracked for *owner*."""
    kind = type(value)
    if kind is TrackedDict or kind is TrackedList:
        if value._owner is owner:
            return value
        value = plain(value)
        kind = type(value)
    if kind is dict:
        out = TrackedDict()
        for key, item in value.items():
            dict.__setitem__(out, key, track(item, owner))
        out._owner = owner
        return out
    if kind is list:
        out_list = TrackedList(track(item, owner) for item in value)
        out_list._owner = owner
        return out_list
    return value


def adopt(value: Any, owner: Any) -> Any:
    """A deep copy of *value* tracked for *owner*: ``track(plain(value), owner)`` in one pass.

    What a service gives an entity (new attributes, a transition's) is copied once, into
    the tracked containers the entity keeps, rather than copied by :func:`plain` and then
    again by :func:`track`.
    """
    kind = type(value)
    if kind is dict or kind is TrackedDict:
        out = TrackedDict()
        for key, item in value.items():
            dict.__setitem__(out, key, item if type(item) in _SCALARS else adopt(item, owner))
        out._owner = owner
        return out
    if kind is list or kind is TrackedList:
        out_list = TrackedList([v if type(v) in _SCALARS else adopt(v, owner) for v in value])
        out_list._owner = owner
        return out_list
    return plain(value)  # a scalar, or another type's deep copy (neither is tracked)


def merge(target: Any, values: Any) -> None:
    """``target.update(plain(values))`` for an entity's tracked ``attrs``, copying once."""
    if type(target) is not TrackedDict:
        target.update(plain(values))
        return
    owner = target._owner
    for key, item in values.items():
        dict.__setitem__(target, key, item if type(item) in _SCALARS else adopt(item, owner))
    owner._touch()


class TrackedDict(dict):
    """A dict that tells its owner (``owner._touch()``) about every change."""

    __slots__ = ("_owner",)

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, track(value, self._owner))
        self._owner._touch()

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self._owner._touch()

    def __ior__(self, other: Any) -> TrackedDict:  # type: ignore[override,misc]
        self.update(other)
        return self

    def update(self, *args: Any, **kwargs: Any) -> None:
        """As ``dict.update``; the new values are tracked."""
        for key, value in dict(*args, **kwargs).items():
            dict.__setitem__(self, key, track(value, self._owner))
        self._owner._touch()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        """As ``dict.setdefault``; an inserted default is tracked."""
        if key not in self:
            dict.__setitem__(self, key, track(default, self._owner))
            self._owner._touch()
        return dict.__getitem__(self, key)

    def pop(self, *args: Any) -> Any:
        """As ``dict.pop``."""
        out = dict.pop(self, *args)
        self._owner._touch()
        return out

    def popitem(self) -> tuple[Any, Any]:
        """As ``dict.popitem``."""
        out = dict.popitem(self)
        self._owner._touch()
        return out

    def clear(self) -> None:
        """As ``dict.clear``."""
        dict.clear(self)
        self._owner._touch()

    def __copy__(self) -> dict[Any, Any]:
        return plain(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return plain(self)

    def __reduce__(self) -> Any:
        return (dict, (plain(self),))


def _list_mutator(name: str) -> Any:
    method = getattr(list, name)

    def mutate(self: TrackedList, *args: Any) -> Any:
        out = method(self, *args)
        if name in ("__setitem__", "append", "insert", "extend", "__iadd__"):
            list.__setitem__(self, slice(None), [track(v, self._owner) for v in self])
        self._owner._touch()
        return self if name in ("__iadd__", "__imul__") else out

    mutate.__name__ = name
    mutate.__doc__ = f"As ``list.{name}``; the owner is told."
    return mutate


class TrackedList(list):
    """A list that tells its owner (``owner._touch()``) about every change."""

    __slots__ = ("_owner",)

    def append(self, value: Any) -> None:
        """As ``list.append``; the value is tracked."""
        list.append(self, track(value, self._owner))
        self._owner._touch()

    def pop(self, *args: Any) -> Any:
        """As ``list.pop``."""
        out = list.pop(self, *args)
        self._owner._touch()
        return out

    def clear(self) -> None:
        """As ``list.clear``."""
        list.clear(self)
        self._owner._touch()

    __setitem__ = _list_mutator("__setitem__")
    __delitem__ = _list_mutator("__delitem__")
    __iadd__ = _list_mutator("__iadd__")
    __imul__ = _list_mutator("__imul__")
    insert = _list_mutator("insert")
    extend = _list_mutator("extend")
    remove = _list_mutator("remove")
    sort = _list_mutator("sort")
    reverse = _list_mutator("reverse")

    def __copy__(self) -> list[Any]:
        return plain(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return plain(self)

    def __reduce__(self) -> Any:
        return (list, (plain(self),))


#: A :attr:`KindStore.due` that any instant reaches: the store's entities must be walked.
UNKNOWN = -math.inf


class KindStore(dict):
    """The entities of one kind of one service (id -> entity), attached to a change log.

    ``due`` is the next-due index of the store: no entity in it changes on its own (a
    transition comes due, a lingering deleted entity goes) before that instant, so a
    service reading the store at an earlier instant need not walk its entities
    (:meth:`fake_clouds.core.service.Service._refresh`). It is :data:`UNKNOWN` once an
    entity of the store is put in or changed (every change of an attached entity is
    reported, see :meth:`~fake_clouds.core.entities.Entity._touch`): a removal only
    makes the earliest instant later, so ``due`` stays a lower bound.
    """

    __slots__ = ("_log", "_service", "_kind", "due")

    def _attach(self, eid: Any, ent: Any, inserted: bool) -> None:
        key = (self._service, self._kind, eid)
        attach = getattr(ent, "_attach", None)
        if attach is not None:
            attach(self._log, key, self)
        self._log.touch(key, inserted)

    def __setitem__(self, eid: Any, ent: Any) -> None:
        inserted = eid not in self
        dict.__setitem__(self, eid, ent)
        self.due = UNKNOWN
        self._attach(eid, ent, inserted)

    def __delitem__(self, eid: Any) -> None:
        dict.__delitem__(self, eid)
        self._log.touch((self._service, self._kind, eid))

    def pop(self, eid: Any, *default: Any) -> Any:
        """As ``dict.pop``; a removal is logged."""
        present = eid in self
        out = dict.pop(self, eid, *default)
        if present:
            self._log.touch((self._service, self._kind, eid))
        return out

    def popitem(self) -> tuple[Any, Any]:
        """As ``dict.popitem``; the removal is logged."""
        eid, ent = dict.popitem(self)
        self._log.touch((self._service, self._kind, eid))
        return eid, ent

    def clear(self) -> None:
        """As ``dict.clear``; every removal is logged."""
        for eid in list(self):
            self._log.touch((self._service, self._kind, eid))
        dict.clear(self)

    def setdefault(self, eid: Any, default: Any = None) -> Any:
        """As ``dict.setdefault``."""
        if eid not in self:
            self[eid] = default
        return dict.__getitem__(self, eid)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """As ``dict.update``; each entity is attached."""
        for eid, ent in dict(*args, **kwargs).items():
            self[eid] = ent


def kind_store(log: ChangeLog, service: str, kind: str, items: Any = ()) -> KindStore:
    """Return a :class:`KindStore` holding *items*, each entity attached and logged as inserted."""
    out = KindStore()
    out._log, out._service, out._kind, out.due = log, service, kind, UNKNOWN
    for eid, ent in dict(items).items():
        out[eid] = ent
    return out


class ServiceStore(dict):
    """A service's entity stores by kind; a store put in is converted and attached."""

    __slots__ = ("_log", "_service", "_hidden")

    def _convert(self, kind: Any, value: Any) -> KindStore:
        if type(value) is KindStore and value._log is self._log:
            return value
        return kind_store(self._log, self._service, kind, value)

    def __setitem__(self, kind: Any, value: Any) -> None:
        old = self.get(kind)
        if old is not None:
            for eid in old:
                self._log.touch((self._service, kind, eid))
        dict.__setitem__(self, kind, self._convert(kind, value))
        self._log.services.add(self._service)  # its list of kinds changed

    def setdefault(self, kind: Any, default: Any = None) -> Any:
        """As ``dict.setdefault``; a new kind's store is converted."""
        if kind not in self:
            self[kind] = default if default is not None else {}
        return dict.__getitem__(self, kind)

    def __delitem__(self, kind: Any) -> None:
        for eid in self[kind]:
            self._log.touch((self._service, kind, eid))
        dict.__delitem__(self, kind)
        self._log.services.add(self._service)

    def items(self) -> Any:
        """As ``dict.items`` (empty while the entities are hidden, see :func:`without_entities`)."""
        if self._hidden:
            return {}.items()
        return dict.items(self)


def service_store(log: ChangeLog, service: str, stores: Any) -> ServiceStore:
    """Return a :class:`ServiceStore` holding *stores* (kind -> entities), all attached."""
    out = ServiceStore()
    out._log, out._service, out._hidden = log, service, False
    for kind, items in dict(stores).items():  # each kind new: nothing replaced to log
        dict.__setitem__(out, kind, out._convert(kind, items))
    log.services.add(service)
    return out


class without_entities:  # noqa: N801 - used as a context manager, like contextlib's
    """Hide a :class:`ServiceStore`'s entities while a service describes its own state."""

    def __init__(self, store: ServiceStore) -> None:
        self.store = store

    def __enter__(self) -> ServiceStore:
        self.store._hidden = True
        return self.store

    def __exit__(self, *exc: Any) -> None:
        self.store._hidden = False


def keys_of(store: ServiceStore) -> Iterable[EntityKey]:
    """Every entity key of a service store, in kind then creation order."""
    for kind, entities in dict.items(store):
        for eid in entities:
            yield (store._service, kind, eid)
