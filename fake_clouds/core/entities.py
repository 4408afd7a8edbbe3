"""Entities: the things a fake cloud holds, with lifecycles in virtual time.

An :class:`Entity` has a current ``status`` and a queue of pending
:class:`Transition` objects, each due at a virtual instant. State is computed
lazily: :meth:`Entity.advance` applies every transition due at or before
``now``. A transition whose status is ``None`` removes the entity (a
``DELETING`` entity is *gone* once its transition is due).

An entity put into a service's store is attached to the fake cloud's
:class:`~fake_clouds.core.tracking.ChangeLog`: from then on every attribute
it is given and every change made in place to its ``attrs`` or ``pending``
is logged, so the world's store writes only the entities that changed.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

from fake_clouds.core.tracking import (
    UNKNOWN,
    ChangeLog,
    EntityKey,
    KindStore,
    adopt,
    merge,
    plain,
    track,
)


@dataclass
class Transition:
    """A status change due at virtual time ``at`` (``status=None``: the entity goes away)."""

    at: float
    status: str | None
    attrs: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict."""
        return {"at": self.at, "status": self.status, "attrs": copy.deepcopy(self.attrs)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transition:
        """Rebuild from :meth:`to_dict` output."""
        return cls(data["at"], data["status"], copy.deepcopy(data["attrs"]))


@dataclass(init=False)
class Entity:
    """One live (or lingering) object in a fake cloud service."""

    service: str
    kind: str
    id: str
    name: str
    status: str
    attrs: dict[str, Any] = field(default_factory=dict)
    created_at: float = 0.0
    updated_at: float = 0.0
    preseeded: bool = False
    #: Reads and lists miss the entity before this instant (eventual consistency).
    visible_at: float = 0.0
    #: A deleted entity still shows in lists until this instant.
    linger_until: float = 0.0
    #: Set once the entity is gone but still lingering in lists.
    deleted: bool = False
    pending: list[Transition] = field(default_factory=list)
    #: The project the entity belongs to (:mod:`fake_clouds.core.scope`); None: everyone's.
    owner: str | None = None

    def __init__(
        self,
        service: str,
        kind: str,
        id: str,  # noqa: A002 - the field's name
        name: str,
        status: str,
        attrs: dict[str, Any] | None = None,
        created_at: float = 0.0,
        updated_at: float = 0.0,
        preseeded: bool = False,
        visible_at: float = 0.0,
        linger_until: float = 0.0,
        deleted: bool = False,
        pending: list[Transition] | None = None,
        owner: str | None = None,
    ) -> None:
        # What the dataclass's own __init__ did through __setattr__ field by field, at once:
        # a new entity is attached to no log yet, so only its containers need tracking (its
        # attributes are copied, as plain() copies: other values too, not only dicts and lists).
        self.__dict__.update(
            service=service,
            kind=kind,
            id=id,
            name=name,
            status=status,
            attrs=adopt({} if attrs is None else attrs, self),  # a tracked copy, made once
            created_at=created_at,
            updated_at=updated_at,
            preseeded=preseeded,
            visible_at=visible_at,
            linger_until=linger_until,
            deleted=deleted,
            pending=track([] if pending is None else pending, self),
            owner=owner,
        )

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "attrs" or name == "pending":
            value = track(value, self)
        object.__setattr__(self, name, value)
        state = self.__dict__
        log = state.get("_log")
        if log is not None:
            state["_home"].due = UNKNOWN
            log.touch(state["_key"])

    def _touch(self) -> None:
        """Log a change made in place (called by the tracked ``attrs`` and ``pending``)."""
        state = self.__dict__
        log = state.get("_log")
        if log is not None:
            state["_home"].due = UNKNOWN
            log.touch(state["_key"])

    def _attach(self, log: ChangeLog, key: EntityKey, home: KindStore) -> None:
        """Report every later change of this entity to *log* under *key*, and to *home*.

        *home* is the store holding the entity: a change makes its next-due index
        unknown (:attr:`~fake_clouds.core.tracking.KindStore.due`).
        """
        state = self.__dict__
        state["_log"] = log
        state["_key"] = key
        state["_home"] = home

    def next_change(self) -> float:
        """The instant this entity next changes on its own (``inf``: never, as it stands).

        A pending transition comes due at its instant (:meth:`advance` applies the first
        one only once it is due); a deleted entity goes when it stops lingering.
        """
        at = self.pending[0].at if self.pending else math.inf
        if self.deleted and self.linger_until < at:
            return self.linger_until
        return at

    def advance(self, now: float) -> bool:
        """Apply transitions due by *now*; return False once the entity is gone for good.

        What a due transition changes is the entity settling in time, not the doing of the
        call in progress: the call's history recorder is told so (``settling``).
        """
        if self.pending and self.pending[0].at <= now:
            log = self.__dict__.get("_log")
            recorder = log.recorder if log is not None else None
            if recorder is not None:
                recorder.settling += 1
            try:
                self._apply_due(now)
            finally:
                if recorder is not None:
                    recorder.settling -= 1
        if self.deleted:
            return self.linger_until > now
        return True

    def _apply_due(self, now: float) -> None:
        while self.pending and self.pending[0].at <= now:
            step = self.pending.pop(0)
            self.updated_at = step.at
            merge(self.attrs, step.attrs)
            if step.status is None:
                self.deleted = True
                self.pending.clear()
                break
            self.status = step.status

    @property
    def transitional(self) -> bool:
        """True while a transition is pending."""
        return bool(self.pending)

    def view(self) -> dict[str, Any]:
        """Return a JSON-able copy of what a client sees."""
        out = plain(self.attrs)
        out["id"] = self.id
        out["name"] = self.name
        out["status"] = self.status
        out["created_at"] = self.created_at
        out["updated_at"] = self.updated_at
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return the full JSON-able state of the entity."""
        return {
            "service": self.service,
            "kind": self.kind,
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "attrs": plain(self.attrs),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "preseeded": self.preseeded,
            "visible_at": self.visible_at,
            "linger_until": self.linger_until,
            "deleted": self.deleted,
            "pending": [t.to_dict() for t in self.pending],
            **({"owner": self.owner} if self.owner is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entity:
        """Rebuild from :meth:`to_dict` output."""
        fields = dict(data)
        fields["attrs"] = copy.deepcopy(fields["attrs"])
        fields["pending"] = [Transition.from_dict(t) for t in fields["pending"]]
        return cls(**fields)
