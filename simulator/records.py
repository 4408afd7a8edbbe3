"""The rows of a world's store: stacks, resources, snapshots and engine runs.

Plain records :class:`simulator.store.Store` reads and writes (the store
re-exports them). A stack row read back from the store parses its JSON
document only when it is first used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class StackRecord:
    """A stack row: identity, state and a JSON document with everything else."""

    id: str
    name: str
    action: str
    status: str
    reason: str
    created: float
    parent_id: str | None = None
    updated: float | None = None
    deleted: bool = False
    seq: int = 0
    doc: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResourceRecord:
    """A resource row. ``current`` is False for a replaced resource awaiting cleanup."""

    stack_id: str
    rid: int
    name: str
    type: str
    action: str
    status: str
    reason: str
    physical_id: str | None
    current: bool = True
    doc: dict[str, Any] = field(default_factory=dict)


class _StoredStackRecord(StackRecord):
    """A stack row read from the store; its JSON document is parsed on first use.

    A stack's document holds its template sources (megabytes for a big
    stack), and most lookups (by name, for the state) never read it.
    """

    _doc_text: str

    def __getattr__(self, name: str) -> Any:
        if name == "doc":
            text = self.__dict__.pop("_doc_text")
            opener = self.__dict__.pop("_opener", None)
            doc = json.loads(text if opener is None else opener(text))
            self.doc = doc
            return doc
        raise AttributeError(name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StackRecord):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(StackRecord))

    __hash__ = None  # type: ignore[assignment]  # mutable, like StackRecord


@dataclass
class SnapshotRecord:
    """A stack snapshot row; ``doc`` holds the template and per-resource data."""

    id: str
    stack_id: str
    name: str
    status: str
    reason: str
    created: float
    seq: int = 0
    doc: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunRecord:
    """One engine run of a stack action, with the seed it ran under."""

    id: int
    stack_id: str | None
    action: str
    seed: str
    started: float
    finished: float | None
    outcome: str | None
