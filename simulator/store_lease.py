"""One writer per world: the lease (a mixin of :class:`simulator.store.Store`).

A process that changes a world holds its lease for as long as it has the
world open: an exclusive ``flock`` on ``<world>-lease`` beside the SQLite
file (the operating system drops it when the process dies, however it dies)
and a row in the ``lease`` table saying who holds it (pid, host, command,
wall-clock start), which is what a second writer is told::

    world .plugsim/world.db is busy: `stack create big` (pid 4242) since
    2026-11-25 19:30:01 UTC; use `plugsim --wait-lock ...` to queue

A lease row whose lock is free belongs to a process that died holding it: the
next holder takes it over and says so. Readers never take the lease (except
for a moment to recover a world whose writer died), so they never change a
live stack. An in-memory world has no lease (one connection, one process).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from sdk import exception

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]


class WorldBusy(exception.PlugsimError):
    """Another process holds the world's lease."""


@dataclass(frozen=True)
class LeaseHolder:
    """Who holds (or held) a world's lease."""

    pid: int
    host: str
    command: str
    started: float

    def describe(self) -> str:
        """```stack create big` (pid 4242) since 2026-11-25 19:30:01 UTC``."""
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.started))
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"`{self.command}` (pid {self.pid}{where}) since {since}"


class LeaseRows:
    """The lease of a file-backed world."""

    path: str
    _db: sqlite3.Connection
    _lease_fd: int | None = None
    _lease_mine: LeaseHolder | None = None

    @property
    def lease_path(self) -> str | None:
        """The lock file of this world (None in memory)."""
        return None if self.path == ":memory:" else self.path + "-lease"

    @property
    def holds_lease(self) -> bool:
        """True when this store holds its world's lease (always for an in-memory world)."""
        return self.path == ":memory:" or self._lease_fd is not None

    def lease_holder(self) -> LeaseHolder | None:
        """The holder written in the lease row (it may be dead)."""
        row = self._db.execute("SELECT pid, host, command, started FROM lease").fetchone()
        return None if row is None else LeaseHolder(int(row[0]), str(row[1]), str(row[2]), row[3])

    def acquire_lease(
        self, command: str, *, wait: bool = False, on_wait: Any = None
    ) -> LeaseHolder | None:
        """Take the lease for *command*; return the dead holder it took over, if any.

        A lease held by a live process is :class:`WorldBusy` with one line saying
        who holds it, unless *wait*: then this blocks until the holder lets go
        (``on_wait(holder_text)`` is called once first).
        """
        if self.holds_lease:
            return None
        fd = self._lock(wait=False)
        if fd is None:
            text = self._busy_text()
            if not wait:
                raise WorldBusy(f"{text}; use `plugsim --wait-lock ...` to queue")
            if on_wait is not None:
                on_wait(text)
            fd = self._lock(wait=True)
        self._lease_fd = fd
        try:
            return self._write_lease(command)
        except BaseException:
            self._unlock()
            raise

    def try_lease(self, command: str) -> tuple[bool, LeaseHolder | None]:
        """Take the lease if nobody holds it: ``(taken, dead holder taken over)``."""
        if self.holds_lease:
            return True, None
        fd = self._lock(wait=False)
        if fd is None:
            return False, None
        self._lease_fd = fd
        try:
            return True, self._write_lease(command)
        except BaseException:
            self._unlock()
            raise

    def release_lease(self) -> None:
        """Give the lease back (the row goes, then the lock)."""
        if self._lease_fd is None:
            return
        try:
            mine = self._lease_mine
            if mine is not None and not self._closed() and not self._db.in_transaction:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute(
                        "DELETE FROM lease WHERE pid=? AND started=?", (mine.pid, mine.started)
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
        finally:
            self._unlock()

    # -- plumbing -------------------------------------------------------------

    def _closed(self) -> bool:
        try:
            self._db.total_changes  # noqa: B018 - raises on a closed connection
        except sqlite3.ProgrammingError:
            return True
        return False

    def _busy_text(self) -> str:
        holder = self.lease_holder()
        who = holder.describe() if holder is not None else "another plugsim process"
        return f"world {self.path} is busy: {who}"

    def _write_lease(self, command: str) -> LeaseHolder | None:
        previous = self.lease_holder()
        mine = LeaseHolder(os.getpid(), socket.gethostname(), command, time.time())
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("DELETE FROM lease")
            self._db.execute(
                "INSERT INTO lease(id, pid, host, command, started) VALUES (1,?,?,?,?)",
                (mine.pid, mine.host, mine.command, mine.started),
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._lease_mine = mine
        return previous

    def _lock(self, *, wait: bool) -> int | None:
        path = self.lease_path
        if path is None or fcntl is None:
            return -1
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as ex:
            raise exception.ConfigurationError(
                f"{path}: cannot open the world's lease file: {ex.strerror or ex}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _unlock(self) -> None:
        fd, self._lease_fd = self._lease_fd, None
        self._lease_mine = None
        if fd is not None and fd >= 0:
            os.close(fd)  # closing the descriptor drops the flock
