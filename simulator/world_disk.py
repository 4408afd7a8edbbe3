"""What a world does when its disk is full (SQLite's ``disk is full``, ``ENOSPC``).

An action that cannot be written is stopped and dropped back to the last commit, as a restart
would drop it; what that commit left ``IN_PROGRESS`` becomes ``FAILED`` with the reason
``disk full: PATH: ...``, written as soon as there is room again (by this world's next commit,
not only at the next restart).
"""

from __future__ import annotations

import asyncio
from typing import Any


def disk_full(ex: BaseException) -> BaseException | None:
    """The error in *ex*'s chain saying the disk is full (SQLITE_FULL, ``ENOSPC``), or None."""
    import errno
    import sqlite3

    seen: set[int] = set()
    current: BaseException | None = ex
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sqlite3.OperationalError) and "disk is full" in str(current):
            return current
        if isinstance(current, OSError) and current.errno == errno.ENOSPC:
            return current
        current = current.__cause__ or current.__context__
    return None


class DiskFullRecovery:
    """The full-disk half of :class:`simulator.world.World` (it owns the attributes used here)."""

    loop: Any
    store: Any
    cloud: Any
    clock: Any
    unsaved: Any
    _stacks: dict[str, Any]
    _saved_streams: Any
    _saved_time: Any
    _unwritten_failure: str | None
    _owed_events: list[Any]

    def _after_disk_full(self, error: BaseException) -> None:
        """An action stopped because the world could not be written: fail it (now or later).

        What the action did since the last commit is dropped (as a restart
        would drop it), its tasks are cancelled, and what the last commit left
        ``IN_PROGRESS`` becomes ``FAILED`` with the reason ``disk full: PATH:
        ...``. When even that cannot be written, it is written by this world's
        next commit -- once space returns -- rather than at the next restart.
        """
        # The action's tasks are abandoned where they stand: running them on (even to
        # cancel them) would write to the full disk again; garbage collecting them must
        # not print asyncio's "Task was destroyed but it is pending" for each.
        for task in asyncio.all_tasks(self.loop):
            task._log_destroy_pending = False  # type: ignore[attr-defined]
        self.store.rollback()
        self.unsaved.clear()
        self._stacks.clear()  # rebuilt from the committed rows when next asked for
        if hasattr(self.cloud, "resync"):
            self.cloud.resync()
        self._saved_streams.clear()
        self._saved_time = None
        self._unwritten_failure = f"disk full: {self.store.path}: {error}"
        self._write_failure()

    def _write_failure(self) -> None:
        """Write the ``FAILED`` states :meth:`_after_disk_full` owes; keep owing them if still full."""
        why = self._unwritten_failure
        if why is None:
            return
        store = self.store
        try:
            for ev in self._owed_events:
                store.add_event(ev)
            store.recover(self.clock.now(), why)
            store.commit()
            self._owed_events, self._unwritten_failure = [], None
            return
        except Exception as ex:
            if disk_full(ex) is None:
                raise
            store.rollback()
        try:  # the states at least: rows updated in place need no new page
            owed = store.recover(self.clock.now(), why, events=False)
            store.commit()
            self._owed_events.extend(owed)
        except Exception as ex:
            if disk_full(ex) is None:
                raise
            store.rollback()
