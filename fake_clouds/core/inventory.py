"""Inventory and leaks: what is alive in a world and what a run left behind."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field


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


def leaks(
    before: InventorySnapshot | Iterable[InventoryItem], after: Iterable[InventoryItem]
) -> list[InventoryItem]:
    """Return the entities in *after* that were not in *before*, pre-seeded ones excluded."""
    if isinstance(before, InventorySnapshot):
        known = before.keys
    else:
        known = frozenset(item.key for item in before)
    return sorted(item for item in after if item.key not in known and not item.preseeded)
