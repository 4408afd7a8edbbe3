"""Write once per instant: a deferred store buffers transitions and writes them in bulk.

With deferred commits (a world holding the lease, see :mod:`simulator.store`) the resources'
transitions of one virtual instant are not written statement by statement. Each transition's
event goes into a list and its resource row into a *dirty set* keyed by the row; the next
statement of any other kind, and at the latest the instant's commit, writes them with one
``executemany`` per table. A row changed several times in one instant is written once, with its
last state, and its document is encoded to JSON at most once.

Nothing can tell the difference from outside:

* event ids are assigned here, in order, as SQLite would assign them (the highest id + 1), so a
  recorded event carries its final id at once;
* every statement the store runs goes through :class:`BufferedConnection`, which writes the
  buffers first, so a read in the same instant sees every transition before it;
* a rollback drops the buffers with the transaction, and the next event id is read again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from simulator.events import Event
from simulator.records import ResourceRecord
from simulator.store_rows import _RESOURCE_INSERT, _RESOURCE_STATE, _STACK_INSERT, dumps, same_json

_EVENT_INSERT_WITH_ID = (
    "INSERT INTO events(id, stack_id, stack_name, resource_name, resource_type,"
    " physical_id, action, status, reason, time) VALUES (?,?,?,?,?,?,?,?,?,?)"
)


class BufferedConnection:
    """The store's connection: any statement first writes the buffered transitions.

    Everything else (``in_transaction``, ``set_trace_callback``, ``close`` ...) is the
    :class:`sqlite3.Connection` itself.
    """

    __slots__ = ("_raw", "_owner")

    def __init__(self, raw: sqlite3.Connection, owner: InstantWrites) -> None:
        self._raw = raw
        self._owner = owner

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        """Write what is buffered, then run *sql*."""
        if self._owner._dirty:
            self._owner._flush()
        return self._raw.execute(sql, parameters)

    def executemany(self, sql: str, seq: Any) -> sqlite3.Cursor:
        """Write what is buffered, then run *sql* for each parameter set."""
        if self._owner._dirty:
            self._owner._flush()
        return self._raw.executemany(sql, seq)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class InstantWrites:
    """The buffers of a deferred store (a mixin of :class:`simulator.store.Store`)."""

    _raw: sqlite3.Connection
    _docs: dict[tuple[str, int], Any]

    def _init_buffers(self) -> None:
        #: something is buffered (checked before every statement)
        self._dirty = False
        self._dirty_events: list[tuple[Any, ...]] = []
        #: (stack_id, rid) -> (the row's last record, whether its document must be written)
        self._dirty_rows: dict[tuple[str, int], tuple[ResourceRecord, bool]] = {}
        #: stack id -> the values of its row's last write (reason and document sealed)
        self._dirty_stacks: dict[str, tuple[Any, ...]] = {}
        #: rows to delete (none of them is in ``_dirty_rows``)
        self._dirty_deletes: dict[tuple[str, int], None] = {}
        #: the id the next buffered event gets (None: read it from the table first)
        self._next_event: int | None = None

    def _buffer_transition(self, ev: Event, rec: ResourceRecord | None) -> Event:
        """Buffer a transition whose resource document the caller never mutates."""
        if rec is not None:
            self._buffer_row(rec)
        event_id = self._next_event
        if event_id is None:
            event_id = self._raw.execute("SELECT coalesce(max(id), 0) + 1 FROM events").fetchone()[
                0
            ]
        self._next_event = event_id + 1
        self._dirty_events.append(
            (
                event_id,
                ev.stack_id,
                ev.stack_name,
                ev.resource_name,
                ev.resource_type,
                ev.physical_resource_id,
                ev.action,
                ev.status,
                ev.reason,  # sealed when written (the key may not be loaded yet)
                ev.time,
            )
        )
        self._dirty = True
        return ev.with_id(event_id)

    def _buffer_row(self, rec: ResourceRecord) -> None:
        """Buffer a resource row whose document the caller never mutates (its last state wins)."""
        key = (rec.stack_id, rec.rid)
        if key in self._dirty_deletes:
            self._flush()  # the row comes back: delete it first, as SQLite would
        last = self._docs.get(key)
        full = last is None or (last is not rec.doc and not same_json(rec.doc, last))
        pending = self._dirty_rows.get(key)
        if pending is not None and pending[1]:
            full = True
        self._dirty_rows[key] = (rec, full)
        self._docs[key] = rec.doc
        self._dirty = True

    def _buffer_stack(self, row: tuple[Any, ...]) -> None:
        """Buffer a stack row (the values of ``_STACK_INSERT``; its last write wins)."""
        self._dirty_stacks[row[0]] = row
        self._dirty = True

    def _buffer_delete(self, stack_id: str, rid: int) -> None:
        """Buffer the deletion of a resource row."""
        key = (stack_id, rid)
        self._dirty_rows.pop(key, None)
        self._docs.pop(key, None)
        self._dirty_deletes[key] = None
        self._dirty = True

    def _event_inserted(self, event_id: int) -> None:
        """An event was inserted directly: buffered ones follow it."""
        self._next_event = event_id + 1

    def _flush(self) -> None:
        """Write the buffered events and rows: one ``executemany`` per table and kind."""
        self._dirty = False
        raw = self._raw
        events, self._dirty_events = self._dirty_events, []
        rows, self._dirty_rows = self._dirty_rows, {}
        deletes, self._dirty_deletes = self._dirty_deletes, {}
        stacks, self._dirty_stacks = self._dirty_stacks, {}
        try:
            if stacks:
                raw.executemany(_STACK_INSERT, list(stacks.values()))
            if deletes:
                raw.executemany("DELETE FROM resources WHERE stack_id=? AND rid=?", list(deletes))
            if events:
                # an instant's reasons repeat ("state changed"): each distinct one is sealed once
                seal = self.seal  # type: ignore[attr-defined]
                sealed = {text: seal(text) for text in {e[8] for e in events}}
                raw.executemany(
                    _EVENT_INSERT_WITH_ID, [(*e[:8], sealed[e[8]], e[9]) for e in events]
                )
            if rows:
                self._flush_rows(raw, list(rows.values()), self.seal)  # type: ignore[attr-defined]
        except BaseException:
            self._drop_buffers()
            self._docs.clear()
            raise

    @staticmethod
    def _flush_rows(
        raw: sqlite3.Connection,
        rows: list[tuple[ResourceRecord, bool]],
        seal: Callable[[str], str],
    ) -> None:
        """Write rows, sealing their reasons and documents as :mod:`simulator.store_seal` says."""
        reasons = {text: seal(text) for text in {r.reason for r, _ in rows}}
        states = [
            (
                r.action,
                r.status,
                reasons[r.reason],
                r.physical_id,
                int(r.current),
                r.stack_id,
                r.rid,
            )
            for r, full in rows
            if not full
        ]
        whole = [r for r, full in rows if full]
        if states and raw.executemany(_RESOURCE_STATE, states).rowcount != len(states):
            # a row this store believed written is gone: write the documents of all of them
            whole += [r for r, full in rows if not full]
        if whole:
            raw.executemany(
                _RESOURCE_INSERT,
                [
                    (
                        r.stack_id,
                        r.rid,
                        r.name,
                        r.type,
                        r.action,
                        r.status,
                        reasons[r.reason],
                        r.physical_id,
                        int(r.current),
                        seal(dumps(r.doc)),
                    )
                    for r in whole
                ],
            )

    def _drop_buffers(self) -> None:
        """Forget what is buffered (its transaction is rolled back)."""
        self._dirty = False
        self._dirty_events = []
        self._dirty_rows = {}
        self._dirty_deletes = {}
        self._dirty_stacks = {}
        self._next_event = None
