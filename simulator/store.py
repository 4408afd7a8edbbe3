"""Persistence: one SQLite file holds a whole simulated world.

Tables: ``meta`` (seed, virtual time, RNG and fake-cloud state, engine lease),
``stacks``, ``resources``, ``events``, ``snapshots``, ``runs`` and ``signals``
(each resource's signal mailbox). The schema
version lives in ``PRAGMA user_version``.

Durability. The database runs in WAL mode with ``synchronous=NORMAL``. A
``COMMIT`` appends the transaction's pages to the write-ahead log with a
``write()`` before it returns, so once :meth:`Store.record` returns the
transition is in the operating system's hands: it survives the engine process
being killed at any instant, and the database always opens consistent (WAL is
never corrupted by a lost tail). Only a power cut or kernel crash can lose the
last transitions before the next checkpoint (which is when ``NORMAL`` syncs);
``synchronous=FULL`` would pay an ``fsync`` per transition to cover that, which
a simulator does not need. New worlds use 1 KiB pages (a transition rewrites
two or three: the resource row's leaf, the events leaf and, when that is
full, its parent; smaller pages mean fewer bytes per commit, and 1 KiB
measured fastest of 512 B to 4 KiB) and the log is checkpointed every
:data:`WAL_CHECKPOINT_BYTES` rather than SQLite's default of 1,000 pages, so
the checkpoint's ``fsync`` pair is rare.

Every state transition is written and committed in one transaction
(:meth:`Store.record`: the event row and the resource or stack row) before the
engine moves on. A resource row's JSON document is re-serialised only when it
changed since this store last wrote it; otherwise only the state columns are
updated. A changed document is written in place (an upsert keeps the row and
its index entry where they are). The events table has no index besides its
id, which every query ranges over. A caller that never mutates a document
after handing it over says so (``frozen_doc=True``): the store then keeps
that very object instead of a copy, and a later write passing the same
object skips the comparison. When a world is opened after an engine died
mid-action, :meth:`Store.recover` turns whatever was left ``IN_PROGRESS`` into
``<ACTION>_FAILED`` with the reason ``engine restarted during <ACTION>``.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.events import STACK_TYPE, Event
from simulator.records import (  # re-exported: callers import the records from here
    ResourceRecord,
    RunRecord,
    SnapshotRecord,
    StackRecord,
    _StoredStackRecord,
)

#: The schema version this module writes (``PRAGMA user_version``).
SCHEMA_VERSION = 1

#: The page size of a newly created world (an existing file keeps its own).
PAGE_SIZE = 1024

#: How much write-ahead log accumulates before SQLite checkpoints it.
WAL_CHECKPOINT_BYTES = 8 * 1024 * 1024

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stacks (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    parent_id TEXT,
    action TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL,
    doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS stacks_name ON stacks(name);
CREATE TABLE IF NOT EXISTS resources (
    stack_id TEXT NOT NULL,
    rid INTEGER NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    action TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    physical_id TEXT,
    current INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (stack_id, rid)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    stack_id TEXT NOT NULL,
    stack_name TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    physical_id TEXT,
    action TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    time REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS snapshots (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    stack_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    created REAL NOT NULL,
    doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    stack_id TEXT,
    action TEXT NOT NULL,
    seed TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    outcome TEXT
);
"""


_SIGNALS_TABLE = """CREATE TABLE IF NOT EXISTS signals (
    id INTEGER PRIMARY KEY,
    stack_id TEXT NOT NULL,
    resource TEXT NOT NULL,
    doc TEXT NOT NULL
)"""
_INSERT_SIGNAL = "INSERT INTO signals(stack_id, resource, doc) VALUES (?,?,?)"


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _same_json(a: Any, b: Any) -> bool:
    """True when *a* and *b* serialise to the same JSON (types compared strictly).

    ``1 == True == 1.0`` in Python but not in JSON, so types must match
    exactly; anything unusual (tuples, NaN, odd keys) simply compares unequal
    and gets re-serialised.
    """
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if type(key) is not str or key not in b or not _same_json(value, b[key]):
                return False
        return True
    if kind is list:
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    if kind is str or kind is int or kind is bool or a is None:
        return a == b
    if kind is float:
        return a == b and a == a
    return False


_RESOURCE_INSERT = (
    "INSERT INTO resources(stack_id, rid, name, type, action, status, reason,"
    " physical_id, current, doc) VALUES (?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT(stack_id, rid) DO UPDATE SET name=excluded.name, type=excluded.type,"
    " action=excluded.action, status=excluded.status, reason=excluded.reason,"
    " physical_id=excluded.physical_id, current=excluded.current, doc=excluded.doc"
)
_RESOURCE_STATE = (
    "UPDATE resources SET action=?, status=?, reason=?, physical_id=?, current=?"
    " WHERE stack_id=? AND rid=?"
)
_EVENT_INSERT = (
    "INSERT INTO events(stack_id, stack_name, resource_name, resource_type,"
    " physical_id, action, status, reason, time) VALUES (?,?,?,?,?,?,?,?,?)"
)


class Store:
    """The SQLite store of one world (``':memory:'`` keeps it in memory)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.path = str(path)
        self._depth = 0
        #: (stack_id, rid) -> the resource doc as this store last wrote it
        self._docs: dict[tuple[str, int], Any] = {}
        #: (stack_id, key) -> (frozen value of a stack doc, its JSON text)
        self._frozen_text: dict[tuple[str, str], tuple[Any, str]] = {}
        if self.path != ":memory:":
            parent = Path(self.path).parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as ex:
                raise exception.ConfigurationError(
                    f"Cannot create the state directory {parent}: {ex.strerror or ex}"
                ) from None
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # no effect on an existing file
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=OFF")
            page = self._db.execute("PRAGMA page_size").fetchone()[0]
            self._db.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_BYTES // page}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as ex:
            raise exception.ConfigurationError(
                f"{self.path}: not a plugsim state database ({ex})"
            ) from None
        if version > SCHEMA_VERSION:
            self._db.close()
            raise exception.ConfigurationError(
                f"{self.path}: state schema version {version} is newer than this plugsim "
                f"supports ({SCHEMA_VERSION}); upgrade plugsim or use another --state"
            )
        if version == 0:
            tables = self._db.execute(
                "SELECT count(*) FROM sqlite_master WHERE type='table'"
            ).fetchone()[0]
            if tables:
                self._db.close()
                raise exception.ConfigurationError(
                    f"{self.path}: an SQLite database that is not a plugsim world"
                )
            with self.transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif self._db.execute("SELECT 1 FROM sqlite_master WHERE name='events_stack'").fetchone():
            # Worlds written by earlier versions carry an index of events by stack: it cost
            # a page written with every transition and no query needs it (events
            # are read by id range), so it goes; an older plugsim opens the world
            # just as well without it.
            with self.transaction():
                self._db.execute("DROP INDEX events_stack")
        self._open_signals()

    # -- plumbing ------------------------------------------------------------

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run a block in one transaction (nested blocks join the outer one)."""
        depth = self._depth
        if depth:
            self._depth = depth + 1
            try:
                yield self._db
            finally:
                self._depth -= 1
            return
        self._depth = 1
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException:
            self._abort()
            raise
        finally:
            self._depth = 0

    def _abort(self) -> None:
        """Roll back the open transaction; what this store remembers of rows may be stale."""
        self._docs.clear()
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    # -- meta ----------------------------------------------------------------

    def get_meta(self, key: str, default: Any = None) -> Any:
        """Return the JSON value stored under *key* (or *default*)."""
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value under *key*."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, _dumps(value))
            )

    def next_seq(self, name: str) -> int:
        """Return the next value of the named counter (1, 2, ...)."""
        with self.transaction():
            value = int(self.get_meta(f"seq:{name}", 0)) + 1
            self.set_meta(f"seq:{name}", value)
        return value

    # -- signals -------------------------------------------------------------

    def _open_signals(self) -> None:
        """Make the signals table (worlds of earlier versions kept signals in ``meta``)."""
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name='signals'").fetchone():
            return
        with self.transaction() as db:
            db.execute(_SIGNALS_TABLE)
            old = db.execute(
                "SELECT key, value FROM meta WHERE key LIKE 'signals:%' ORDER BY key"
            ).fetchall()
            for key, value in old:
                stack_id, _, resource = key[len("signals:") :].partition(":")
                for signal in json.loads(value) or []:
                    db.execute(_INSERT_SIGNAL, (stack_id, resource, _dumps(signal)))
            db.execute("DELETE FROM meta WHERE key LIKE 'signals:%'")

    def add_signal(self, stack_id: str, resource: str, signal: dict[str, Any]) -> None:
        """Keep *signal* in the mailbox of *resource* of stack *stack_id* (after the others)."""
        with self.transaction() as db:
            db.execute(_INSERT_SIGNAL, (stack_id, resource, _dumps(signal)))

    def signals(self, stack_id: str, resource: str) -> list[dict[str, Any]]:
        """Return the signals kept for *resource* of stack *stack_id*, oldest first."""
        rows = self._db.execute(
            "SELECT doc FROM signals WHERE stack_id=? AND resource=? ORDER BY id",
            (stack_id, resource),
        ).fetchall()
        return [json.loads(row[0]) for row in rows]

    def clear_signals(self, stack_id: str, resource: str) -> None:
        """Empty the mailbox of *resource* of stack *stack_id*."""
        with self.transaction() as db:
            db.execute("DELETE FROM signals WHERE stack_id=? AND resource=?", (stack_id, resource))

    # -- stacks --------------------------------------------------------------

    def save_stack(self, rec: StackRecord, *, frozen_keys: Collection[str] = ()) -> None:
        """Insert or replace a stack row.

        *frozen_keys* name top-level entries of ``rec.doc`` whose values the
        caller never mutates after handing them over (e.g. a stack's template
        source, which can be megabytes): the store serialises such a value
        once and reuses the text while the same object comes back.
        """
        doc = self._stack_doc_text(rec, frozen_keys)
        with self.transaction() as db:
            if not rec.seq:
                rec.seq = self.next_seq("stack")
            db.execute(
                "INSERT OR REPLACE INTO stacks(id, seq, name, parent_id, action, status, reason,"
                " deleted, created, updated, doc) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rec.id,
                    rec.seq,
                    rec.name,
                    rec.parent_id,
                    rec.action,
                    rec.status,
                    rec.reason,
                    int(rec.deleted),
                    rec.created,
                    rec.updated,
                    doc,
                ),
            )

    def _stack_doc_text(self, rec: StackRecord, frozen_keys: Collection[str]) -> str:
        """``_dumps(rec.doc)``, reusing the text of frozen values handed over before."""
        doc = rec.doc
        if not frozen_keys or not all(type(k) is str for k in doc):
            return _dumps(doc)
        parts = []
        for key in sorted(doc):
            value = doc[key]
            if key in frozen_keys:
                memo = self._frozen_text.get((rec.id, key))
                if memo is not None and memo[0] is value:
                    text = memo[1]
                else:
                    text = _dumps(value)
                    self._frozen_text[(rec.id, key)] = (value, text)
            else:
                text = _dumps(value)
            parts.append(f"{json.dumps(key)}:{text}")
        return "{" + ",".join(parts) + "}"

    @staticmethod
    def _stack(row: tuple) -> StackRecord:
        sid, seq, name, parent, action, status, reason, deleted, created, updated, doc = row
        rec = _StoredStackRecord.__new__(_StoredStackRecord)
        rec.id, rec.seq, rec.name, rec.parent_id = sid, seq, name, parent
        rec.action, rec.status, rec.reason = action, status, reason
        rec.deleted, rec.created, rec.updated = bool(deleted), created, updated
        rec._doc_text = doc
        return rec

    _STACK_COLS = "id, seq, name, parent_id, action, status, reason, deleted, created, updated, doc"

    def get_stack(self, name_or_id: str) -> StackRecord | None:
        """Return the live stack with this id or name (a live one wins over deleted)."""
        row = self._db.execute(
            f"SELECT {self._STACK_COLS} FROM stacks WHERE id=?", (name_or_id,)
        ).fetchone()
        if row is None:
            row = self._db.execute(
                f"SELECT {self._STACK_COLS} FROM stacks WHERE name=? AND parent_id IS NULL"
                " ORDER BY deleted, seq DESC LIMIT 1",
                (name_or_id,),
            ).fetchone()
        return None if row is None else self._stack(row)

    def list_stacks(
        self, *, include_deleted: bool = False, nested: bool = False, parent_id: str | None = None
    ) -> list[StackRecord]:
        """Return stacks in creation order (top-level only unless *nested*)."""
        sql = f"SELECT {self._STACK_COLS} FROM stacks WHERE 1=1"
        args: list[Any] = []
        if parent_id is not None:
            sql += " AND parent_id=?"
            args.append(parent_id)
        elif not nested:
            sql += " AND parent_id IS NULL"
        if not include_deleted:
            sql += " AND deleted=0"
        rows = self._db.execute(sql + " ORDER BY seq", args).fetchall()
        return [self._stack(r) for r in rows]

    def purge_stack(self, stack_id: str) -> None:
        """Remove a stack's rows (stack, resources, snapshots); events stay."""
        with self.transaction() as db:
            db.execute("DELETE FROM resources WHERE stack_id=?", (stack_id,))
            db.execute("DELETE FROM snapshots WHERE stack_id=?", (stack_id,))
            db.execute("DELETE FROM stacks WHERE id=?", (stack_id,))
        for key in [k for k in self._docs if k[0] == stack_id]:
            del self._docs[key]
        for frozen in [k for k in self._frozen_text if k[0] == stack_id]:
            del self._frozen_text[frozen]

    # -- resources -----------------------------------------------------------

    def save_resource(self, rec: ResourceRecord, *, frozen_doc: bool = False) -> None:
        """Insert or replace a resource row.

        With *frozen_doc* the caller promises never to mutate ``rec.doc``
        afterwards (see :meth:`record`).
        """
        with self.transaction():
            self._write_resource(rec, frozen_doc)

    def _write_resource(self, rec: ResourceRecord, frozen: bool = False) -> None:
        key = (rec.stack_id, rec.rid)
        last = self._docs.get(key)
        if last is not None and ((frozen and last is rec.doc) or _same_json(rec.doc, last)):
            cur = self._db.execute(
                _RESOURCE_STATE,
                (
                    rec.action,
                    rec.status,
                    rec.reason,
                    rec.physical_id,
                    int(rec.current),
                    rec.stack_id,
                    rec.rid,
                ),
            )
            if cur.rowcount == 1:
                return
        doc = _dumps(rec.doc)
        self._db.execute(
            _RESOURCE_INSERT,
            (
                rec.stack_id,
                rec.rid,
                rec.name,
                rec.type,
                rec.action,
                rec.status,
                rec.reason,
                rec.physical_id,
                int(rec.current),
                doc,
            ),
        )
        # A frozen doc is kept as is; otherwise an independent copy, so a caller
        # mutating its dict later cannot fool the check.
        self._docs[key] = rec.doc if frozen else json.loads(doc)

    def delete_resource(self, stack_id: str, rid: int) -> None:
        """Remove one resource row."""
        with self.transaction() as db:
            db.execute("DELETE FROM resources WHERE stack_id=? AND rid=?", (stack_id, rid))
        self._docs.pop((stack_id, rid), None)

    def resources(self, stack_id: str) -> list[ResourceRecord]:
        """Return a stack's resource rows in insertion order."""
        rows = self._db.execute(
            "SELECT stack_id, rid, name, type, action, status, reason, physical_id, current, doc"
            " FROM resources WHERE stack_id=? ORDER BY rid",
            (stack_id,),
        ).fetchall()
        return [
            ResourceRecord(
                stack_id=r[0],
                rid=r[1],
                name=r[2],
                type=r[3],
                action=r[4],
                status=r[5],
                reason=r[6],
                physical_id=r[7],
                current=bool(r[8]),
                doc=json.loads(r[9]),
            )
            for r in rows
        ]

    # -- events --------------------------------------------------------------

    def add_event(self, ev: Event) -> Event:
        """Append an event; returns it with its assigned id."""
        with self.transaction():
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
                ev.reason,
                ev.time,
            ),
        )
        return ev.with_id(int(cur.lastrowid or 0))

    def record(
        self,
        ev: Event,
        *,
        resource: ResourceRecord | None = None,
        stack: StackRecord | None = None,
        frozen_doc: bool = False,
        frozen_keys: Collection[str] = (),
    ) -> Event:
        """Persist a transition (event + new resource/stack row) in one transaction.

        The transaction is committed before this returns, so the transition
        is durable before the engine starts the next one. With *frozen_doc*
        the caller promises never to mutate ``resource.doc`` afterwards: the
        store keeps the object itself, and when the next write of the row
        passes the very same object only the state columns are updated.
        *frozen_keys* are passed on to :meth:`save_stack`.
        """
        if self._depth or stack is not None:
            with self.transaction():
                if resource is not None:
                    self._write_resource(resource, frozen_doc)
                if stack is not None:
                    self.save_stack(stack, frozen_keys=frozen_keys)
                return self._insert_event(ev)
        # The hot path (one resource transition): the same transaction without
        # the context-manager machinery.
        db = self._db
        self._depth = 1
        db.execute("BEGIN IMMEDIATE")
        try:
            if resource is not None:
                self._write_resource(resource, frozen_doc)
            written = self._insert_event(ev)
            db.execute("COMMIT")
        except BaseException:
            self._abort()
            raise
        finally:
            self._depth = 0
        return written

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
        return [Event(*row) for row in self._db.execute(sql + " ORDER BY id", args)]

    def last_event_id(self) -> int:
        """Return the id of the newest event (0 when there is none)."""
        return int(self._db.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])

    # -- snapshots -----------------------------------------------------------

    def save_snapshot(self, rec: SnapshotRecord) -> None:
        """Insert or replace a snapshot row."""
        with self.transaction() as db:
            if not rec.seq:
                rec.seq = self.next_seq("snapshot")
            db.execute(
                "INSERT OR REPLACE INTO snapshots(id, seq, stack_id, name, status, reason, created,"
                " doc) VALUES (?,?,?,?,?,?,?,?)",
                (
                    rec.id,
                    rec.seq,
                    rec.stack_id,
                    rec.name,
                    rec.status,
                    rec.reason,
                    rec.created,
                    _dumps(rec.doc),
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
                reason=r[5],
                created=r[6],
                doc=json.loads(r[7]),
            )
            for r in rows
        ]

    def delete_snapshot(self, snapshot_id: str) -> None:
        """Remove a snapshot row."""
        with self.transaction() as db:
            db.execute("DELETE FROM snapshots WHERE id=?", (snapshot_id,))

    # -- runs ----------------------------------------------------------------

    def start_run(self, stack_id: str | None, action: str, seed: Any, started: float) -> int:
        """Record the start of an engine run and return its id."""
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO runs(stack_id, action, seed, started) VALUES (?,?,?,?)",
                (stack_id, action, str(seed), started),
            )
            return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int, finished: float, outcome: str) -> None:
        """Record how a run ended."""
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET finished=?, outcome=? WHERE id=?", (finished, outcome, run_id)
            )

    def runs(self) -> list[RunRecord]:
        """Return every run, oldest first."""
        rows = self._db.execute(
            "SELECT id, stack_id, action, seed, started, finished, outcome FROM runs ORDER BY id"
        ).fetchall()
        return [RunRecord(*r) for r in rows]

    # -- recovery ------------------------------------------------------------

    def recover(self, now: float) -> list[Event]:
        """Fail whatever a dead engine left IN_PROGRESS; return the events written."""
        written: list[Event] = []
        with self.transaction() as db:
            rows = db.execute(
                "SELECT stack_id, rid, name, type, action, physical_id FROM resources"
                " WHERE status='IN_PROGRESS' ORDER BY stack_id, rid"
            ).fetchall()
            names = dict(db.execute("SELECT id, name FROM stacks").fetchall())
            for stack_id, rid, name, rtype, action, physical in rows:
                reason = f"engine restarted during {action}"
                db.execute(
                    "UPDATE resources SET status='FAILED', reason=? WHERE stack_id=? AND rid=?",
                    (reason, stack_id, rid),
                )
                written.append(
                    self.add_event(
                        Event(
                            0,
                            stack_id,
                            names.get(stack_id, ""),
                            name,
                            rtype,
                            physical,
                            action,
                            "FAILED",
                            reason,
                            now,
                        )
                    )
                )
            for sid, name, action in db.execute(
                "SELECT id, name, action FROM stacks WHERE status='IN_PROGRESS' ORDER BY seq"
            ).fetchall():
                reason = f"engine restarted during {action}"
                db.execute(
                    "UPDATE stacks SET status='FAILED', reason=?, updated=? WHERE id=?",
                    (reason, now, sid),
                )
                written.append(
                    self.add_event(
                        Event(0, sid, name, name, STACK_TYPE, sid, action, "FAILED", reason, now)
                    )
                )
            db.execute("UPDATE runs SET outcome='interrupted' WHERE outcome IS NULL")
        return written
