"""Events, snapshots, engine runs and signal mailboxes in a world's store.

(A mixin of :class:`simulator.store.Store`.)

The events table has no index besides its id, which every query ranges over
(an index of events by stack cost a page written with every transition).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from simulator.events import Event
from simulator.records import RunRecord, SnapshotRecord
from simulator.store_rows import dumps
from simulator.store_seal import PREFIX

_SIGNALS_TABLE = """CREATE TABLE IF NOT EXISTS signals (
    id INTEGER PRIMARY KEY,
    stack_id TEXT NOT NULL,
    resource TEXT NOT NULL,
    doc TEXT NOT NULL
)"""
_INSERT_SIGNAL = "INSERT INTO signals(stack_id, resource, doc) VALUES (?,?,?)"

_EVENT_INSERT = (
    "INSERT INTO events(stack_id, stack_name, resource_name, resource_type,"
    " physical_id, action, status, reason, time) VALUES (?,?,?,?,?,?,?,?,?)"
)


class LogRows:
    """Events, snapshots and runs."""

    _db: sqlite3.Connection

    # -- events --------------------------------------------------------------

    def add_event(self, ev: Event) -> Event:
        """Append an event; returns it with its assigned id."""
        with self.transaction():  # type: ignore[attr-defined]
            return self._insert_event(ev)

    def _insert_event(self, ev: Event) -> Event:
        cur = self._db.execute(
            _EVENT_INSERT,
            (
                ev.stack_id,
                ev.stack_name,
                ev.resource_name,
                ev.resource_type,
                ev.physical_resource_id,
                ev.action,
                ev.status,
                self.seal(ev.reason),  # type: ignore[attr-defined]
                ev.time,
            ),
        )
        event_id = int(cur.lastrowid or 0)
        self._event_inserted(event_id)  # type: ignore[attr-defined]
        return ev.with_id(event_id)

    def events(
        self, stack_id: str | None = None, *, after: int = 0, resource_name: str | None = None
    ) -> list[Event]:
        """Return events in the order they happened (optionally filtered)."""
        sql = (
            "SELECT id, stack_id, stack_name, resource_name, resource_type, physical_id,"
            " action, status, reason, time FROM events WHERE id>?"
        )
        args: list[Any] = [after]
        if stack_id is not None:
            sql += " AND stack_id=?"
            args.append(stack_id)
        if resource_name is not None:
            sql += " AND resource_name=?"
            args.append(resource_name)
        out = []
        for row in self._db.execute(sql + " ORDER BY id", args):
            if row[8].startswith(PREFIX):  # a reason quoting a secret is sealed
                row = (*row[:8], self.unseal(row[8]), row[9])  # type: ignore[attr-defined]
            out.append(Event(*row))
        return out

    def last_event_id(self) -> int:
        """Return the id of the newest event (0 when there is none)."""
        return int(self._db.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])

    # -- snapshots -----------------------------------------------------------

    def save_snapshot(self, rec: SnapshotRecord) -> None:
        """Insert or replace a snapshot row."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            if not rec.seq:
                rec.seq = self.next_seq("snapshot")  # type: ignore[attr-defined]
            db.execute(
                "INSERT OR REPLACE INTO snapshots(id, seq, stack_id, name, status, reason, created,"
                " doc) VALUES (?,?,?,?,?,?,?,?)",
                (
                    rec.id,
                    rec.seq,
                    rec.stack_id,
                    rec.name,
                    rec.status,
                    self.seal(rec.reason),  # type: ignore[attr-defined]
                    rec.created,
                    self.seal(dumps(rec.doc), shaped=True),  # type: ignore[attr-defined]
                ),
            )

    def snapshots(self, stack_id: str) -> list[SnapshotRecord]:
        """Return a stack's snapshots, oldest first."""
        rows = self._db.execute(
            "SELECT id, seq, stack_id, name, status, reason, created, doc FROM snapshots"
            " WHERE stack_id=? ORDER BY seq",
            (stack_id,),
        ).fetchall()
        return [
            SnapshotRecord(
                id=r[0],
                seq=r[1],
                stack_id=r[2],
                name=r[3],
                status=r[4],
                reason=self.unseal(r[5]),  # type: ignore[attr-defined]
                created=r[6],
                doc=json.loads(self.unseal(r[7])),  # type: ignore[attr-defined]
            )
            for r in rows
        ]

    def delete_snapshot(self, snapshot_id: str) -> None:
        """Remove a snapshot row."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            db.execute("DELETE FROM snapshots WHERE id=?", (snapshot_id,))

    # -- runs ----------------------------------------------------------------

    def start_run(self, stack_id: str | None, action: str, seed: Any, started: float) -> int:
        """Record the start of an engine run and return its id."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            cur = db.execute(
                "INSERT INTO runs(stack_id, action, seed, started) VALUES (?,?,?,?)",
                (stack_id, action, str(seed), started),
            )
            return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int, finished: float, outcome: str) -> None:
        """Record how a run ended."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            db.execute(
                "UPDATE runs SET finished=?, outcome=? WHERE id=?", (finished, outcome, run_id)
            )

    def runs(self) -> list[RunRecord]:
        """Return every run, oldest first."""
        rows = self._db.execute(
            "SELECT id, stack_id, action, seed, started, finished, outcome FROM runs ORDER BY id"
        ).fetchall()
        return [RunRecord(*r) for r in rows]

    # -- signals -------------------------------------------------------------

    def _open_signals(self) -> None:
        """Make the signals table (worlds of earlier versions kept signals in ``meta``)."""
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name='signals'").fetchone():
            return
        with self.transaction() as db:  # type: ignore[attr-defined]
            db.execute(_SIGNALS_TABLE)
            old = db.execute(
                "SELECT key, value FROM meta WHERE key LIKE 'signals:%' ORDER BY key"
            ).fetchall()
            for key, value in old:
                stack_id, _, resource = key[len("signals:") :].partition(":")
                for signal in json.loads(value) or []:
                    db.execute(_INSERT_SIGNAL, (stack_id, resource, dumps(signal)))
            db.execute("DELETE FROM meta WHERE key LIKE 'signals:%'")

    def add_signal(self, stack_id: str, resource: str, signal: dict[str, Any]) -> None:
        """Keep *signal* in the mailbox of *resource* of stack *stack_id* (after the others)."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            db.execute(_INSERT_SIGNAL, (stack_id, resource, self.seal(dumps(signal))))  # type: ignore[attr-defined]

    def signals(self, stack_id: str, resource: str) -> list[dict[str, Any]]:
        """Return the signals kept for *resource* of stack *stack_id*, oldest first."""
        rows = self._db.execute(
            "SELECT doc FROM signals WHERE stack_id=? AND resource=? ORDER BY id",
            (stack_id, resource),
        ).fetchall()
        return [json.loads(self.unseal(row[0])) for row in rows]  # type: ignore[attr-defined]

    def clear_signals(self, stack_id: str, resource: str) -> None:
        """Empty the mailbox of *resource* of stack *stack_id*."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            db.execute("DELETE FROM signals WHERE stack_id=? AND resource=?", (stack_id, resource))
