"""Persistence: one SQLite file holds a whole simulated world.

Tables: ``meta`` (seed, virtual time, id counters, mailboxes), ``stacks``,
``resources``, ``events``, ``snapshots``, ``runs``, ``signals`` (each
resource's signal mailbox), the fake cloud in pieces
(``cloud_entities``, ``cloud_state``, ``cloud_log``), the random streams
(``streams``) and the writer's ``lease``. The schema version lives in
``PRAGMA user_version``. The rows of each concept are read and written by a
mixin: :mod:`simulator.store_rows` (stacks, resources),
:mod:`simulator.store_log` (events, snapshots, runs, signals),
:mod:`simulator.store_cloud` (fake cloud, random streams),
:mod:`simulator.store_lease` (one writer per world) and
:mod:`simulator.store_recovery` (what a dead engine left in progress).

Commits. A bare :class:`Store` commits every write block at once. A world
that holds the lease switches it to *deferred* commits (``store.deferred =
True``): writes join one open transaction and :meth:`Store.commit` ends it, so
the world decides what one commit holds -- every change of the world since the
previous commit, the fake cloud, the clock and the random streams included
(see :class:`simulator.world.World`). A write block inside a deferred
transaction is a savepoint, so a failing block still leaves nothing behind.

Durability. The database runs in WAL mode with ``synchronous=NORMAL``: a
``COMMIT`` appends the transaction's pages to the write-ahead log with a
``write()`` before it returns, so a committed transaction survives the process
being killed at any instant, and the database always opens consistent (a
killed process's uncommitted pages are ignored). Only a power cut or kernel
crash can lose the last commits before the next checkpoint (when ``NORMAL``
syncs). New worlds use 1 KiB pages and the log is checkpointed every
:data:`WAL_CHECKPOINT_BYTES` rather than SQLite's default of 1,000 pages, so
the checkpoint's ``fsync`` pair is rare.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.events import Event
from simulator.records import (  # re-exported: callers import the records from here
    ResourceRecord,
    RunRecord,
    SnapshotRecord,
    StackRecord,
    _StoredStackRecord,
)
from simulator.store_cloud import CloudRows
from simulator.store_instant import BufferedConnection, InstantWrites
from simulator.store_lease import LeaseHolder, LeaseRows, WorldBusy
from simulator.store_log import LogRows
from simulator.store_recovery import Recovery
from simulator.store_rows import StackRows, dumps
from simulator.store_seal import Sealing

__all__ = [
    "LeaseHolder",
    "ResourceRecord",
    "RunRecord",
    "SnapshotRecord",
    "StackRecord",
    "Store",
    "WorldBusy",
    "_StoredStackRecord",
]

#: The schema version this module writes (``PRAGMA user_version``).
SCHEMA_VERSION = 2

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
CREATE TABLE IF NOT EXISTS cloud_entities (
    service TEXT NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (service, kind, id)
);
CREATE TABLE IF NOT EXISTS cloud_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cloud_log (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS streams (
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    gauss REAL,
    state BLOB NOT NULL,
    PRIMARY KEY (owner, name)
);
CREATE TABLE IF NOT EXISTS lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    command TEXT NOT NULL,
    started REAL NOT NULL
);
"""


#: Meta keys that carry a message for the world's writer (a cancel request), however written.
MESSAGE_KEYS = ("cancel:",)


class Store(StackRows, LogRows, CloudRows, LeaseRows, Recovery, Sealing, InstantWrites):
    """The SQLite store of one world (``':memory:'`` keeps it in memory)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.path = str(path)
        self._depth = 0
        #: deferred commits: writes join one open transaction until :meth:`commit`
        self.deferred = False
        #: called before this store opens a write transaction (a read-only world refuses)
        self.write_gate: Callable[[], None] | None = None
        #: called after each recorded transition (a world committing per transition)
        self.on_transition: Callable[[], None] | None = None
        self._savepoints = 0
        #: messages left through this store object (:meth:`message`), and how many were seen
        self._messages = 0
        self._messages_seen = -1
        #: ``PRAGMA data_version`` when :meth:`new_messages` last looked (other connections' commits)
        self._data_version: int | None = None
        #: (stack_id, rid) -> the resource doc as this store last wrote it
        self._docs: dict[tuple[str, int], Any] = {}
        #: (stack_id, key) -> (frozen value of a stack doc, its JSON text)
        self._frozen_text: dict[tuple[str, str], tuple[Any, str]] = {}
        self._init_buffers()
        if self.path != ":memory:":
            parent = Path(self.path).parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as ex:
                raise exception.ConfigurationError(
                    f"Cannot create the state directory {parent}: {ex.strerror or ex}"
                ) from None
        try:
            self._raw = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            # every statement through it writes the buffered transitions first
            # (simulator.store_instant)
            self._db: Any = BufferedConnection(self._raw, self)
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
        if version < SCHEMA_VERSION:
            # A new world, or one written by an earlier version: every table is
            # created if missing (version 2 added the fake cloud in pieces, the
            # random streams and the lease).
            with self.transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name='events_stack'").fetchone():
            # Worlds written by earlier versions carry an index of events by stack: it cost
            # a page written with every transition and no query needs it (events
            # are read by id range), so it goes.
            with self.transaction():
                self._db.execute("DROP INDEX events_stack")
        self._open_signals()

    # -- plumbing ------------------------------------------------------------

    def close(self) -> None:
        """Close the database connection (an uncommitted transaction is lost) and the lease."""
        self._drop_buffers()
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        self._unlock()
        self._db.close()

    def _begin(self) -> None:
        """Open the write transaction if none is open (the write gate may refuse)."""
        if not self._raw.in_transaction:  # nothing is buffered outside a transaction
            if self.write_gate is not None:
                self.write_gate()
            self._raw.execute("BEGIN IMMEDIATE")
            # another process may have added events since (a message): read the next id again
            self._next_event = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run a block in one transaction (nested blocks join the outer one).

        With deferred commits the block joins the open transaction as a
        savepoint and :meth:`commit` makes it durable.
        """
        depth = self._depth
        if depth:
            self._depth = depth + 1
            try:
                yield self._db
            finally:
                self._depth -= 1
            return
        self._depth = 1
        if self.deferred:
            self._begin()
            self._db.execute("SAVEPOINT block")
            try:
                yield self._db
                self._db.execute("RELEASE block")
            except BaseException:
                self._docs.clear()
                self._cloud_top = None
                self._fernet = None
                self._next_event = None
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK TO block")
                    self._db.execute("RELEASE block")
                raise
            finally:
                self._depth = 0
            return
        self._begin()
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
        self._drop_buffers()
        self._messages += 1  # the meta rows may be back as they were: read messages again
        self._docs.clear()
        self._cloud_top = None
        self._fernet = None  # the record of the world key may have been rolled back
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        """True while a write transaction is open (changes not yet committed)."""
        return self._db.in_transaction

    @property
    def in_block(self) -> bool:
        """True inside a :meth:`transaction` block (no commit may happen there)."""
        return self._depth > 0

    def commit(self) -> bool:
        """Commit the open deferred transaction; return True when there was one."""
        if self._depth or not self._db.in_transaction:
            return False
        try:
            self._db.execute("COMMIT")
        except BaseException:
            self._abort()
            raise
        return True

    def rollback(self) -> None:
        """Drop the open deferred transaction (everything since the last commit)."""
        if not self._depth:
            self._abort()

    # -- meta ----------------------------------------------------------------

    def get_meta(self, key: str, default: Any = None) -> Any:
        """Return the JSON value stored under *key* (or *default*)."""
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else json.loads(self.unseal(row[0]))

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value under *key* (a key of :data:`MESSAGE_KEYS` counts as a message)."""
        if key.startswith(MESSAGE_KEYS):
            self._messages += 1
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                (key, self.seal(dumps(value))),
            )

    def delete_meta(self, key: str) -> None:
        """Remove *key*."""
        with self.transaction() as db:
            db.execute("DELETE FROM meta WHERE key=?", (key,))

    @contextmanager
    def message(self) -> Iterator[sqlite3.Connection]:
        """Run a block that leaves a message for the world's writer (a cancel, a signal).

        A message needs no lease: in a read-only world the block is one short
        transaction of its own, committed between the writer's commits; in the
        writer's own world it is part of the writer's next commit.
        """
        gate, self.write_gate = self.write_gate, None
        self._messages += 1
        try:
            with self.transaction() as db:
                yield db
        finally:
            self.write_gate = gate

    def new_messages(self) -> bool:
        """Whether a message may have arrived since the last call (True on the first).

        Messages come through :meth:`message` of this store object or from another connection's
        commit, which SQLite's ``PRAGMA data_version`` shows; an in-memory database has no other
        connection. A false answer means the meta rows are as this store last left them, so a
        world's writer need not read its cancel requests again.
        """
        seen, self._messages_seen = self._messages_seen, self._messages
        changed = seen != self._messages
        if self.path != ":memory:":
            version = self._raw.execute("PRAGMA data_version").fetchone()[0]
            changed = changed or version != self._data_version
            self._data_version = version
        return changed

    def next_seq(self, name: str) -> int:
        """Return the next value of the named counter (1, 2, ...)."""
        with self.transaction():
            value = int(self.get_meta(f"seq:{name}", 0)) + 1
            self.set_meta(f"seq:{name}", value)
        return value

    # -- transitions -----------------------------------------------------------

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

        A bare store commits it before this returns; with deferred commits it
        joins the world's open transaction (and ``on_transition`` may commit).
        With *frozen_doc* the caller promises never to mutate ``resource.doc``
        afterwards: the store keeps the object itself, and when the next write
        of the row passes the very same object only the state columns are
        updated. *frozen_keys* are passed on to :meth:`save_stack`.
        """
        if (
            stack is not None
            and resource is None
            and self.deferred
            and stack.seq
            and not self._depth
        ):
            # a stored stack's transition: its row joins the instant's buffers like a resource's
            self._begin()
            self._buffer_stack(self._stack_row(stack, frozen_keys))
            written = self._buffer_transition(ev, None)
        elif self._depth or stack is not None:
            with self.transaction():
                if resource is not None:
                    self._write_resource(resource, frozen_doc)
                if stack is not None:
                    self.save_stack(stack, frozen_keys=frozen_keys)
                written = self._insert_event(ev)
        elif self.deferred:
            # The hot path with deferred commits: buffered until the instant's commit
            # (simulator.store_instant), or plain statements in the open transaction.
            self._begin()
            if frozen_doc or resource is None:
                written = self._buffer_transition(ev, resource)
                if self.on_transition is not None:
                    self.on_transition()
                return written
            try:
                if resource is not None:
                    self._write_resource(resource, frozen_doc)
                written = self._insert_event(ev)
            except BaseException:
                self._docs.clear()
                raise
        else:
            # The hot path of a bare store: the same transaction without the
            # context-manager machinery.
            db = self._db
            self._depth = 1
            self._begin()
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
        if self.on_transition is not None and not self._depth:
            self.on_transition()
        return written
