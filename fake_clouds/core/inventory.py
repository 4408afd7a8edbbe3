"""Inventory and leaks: what is alive in a world and what a run left behind."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Protocol


@dataclass(frozen=True, order=True)
class InventoryItem:
    """One live entity as the inventory shows it (sorted by service, kind, name, id)."""

    service: str
    kind: str
    name: str
    id: str
    status: str
    preseeded: bool = field(default=False, compare=False)

    @property
    def key(self) -> tuple[str, str, str]:
        """The identity of the entity: (service, kind, id)."""
        return (self.service, self.kind, self.id)

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-able dict."""
        return asdict(self)


@dataclass(frozen=True)
class InventorySnapshot:
    """The identities alive at one virtual instant (see :meth:`FakeCloud.snapshot_inventory`)."""

    time: float
    keys: frozenset[tuple[str, str, str]]


class InventoryMark(Protocol):
    """Anything that remembers which identities were alive (an :class:`InventorySnapshot`)."""

    @property
    def keys(self) -> frozenset[tuple[str, str, str]]:
        """``(service, kind, id)`` of every entity alive then."""


@dataclass(frozen=True)
class ServerView:
    """A live server as the simulated deployment of the driver harness sees it."""

    id: str
    status: str
    #: the virtual instant the status last changed
    updated_at: float
    #: the fault message of a server in error ('' when there is none)
    fault: str = ""


def leaks(
    before: InventoryMark | Iterable[InventoryItem], after: Iterable[InventoryItem]
) -> list[InventoryItem]:
    """Return the entities in *after* that were not in *before*, pre-seeded ones excluded."""
    keys = getattr(before, "keys", None)
    if isinstance(keys, frozenset):
        known = keys
    else:
        known = frozenset(item.key for item in before)  # type: ignore[union-attr]
    return sorted(item for item in after if item.key not in known and not item.preseeded)
