"""What a world does with the work of an engine that died (a mixin of :class:`simulator.store.Store`).

A world is only recovered by a process that holds its lease (see
:mod:`simulator.store_lease`), so a stack another live process is working on
is never touched. Whatever a dead engine left ``IN_PROGRESS`` becomes
``<ACTION>_FAILED`` with the reason ``engine restarted during <ACTION>``;
the stack can then be updated, checked or deleted like any failed stack.
"""

from __future__ import annotations

import sqlite3

from simulator.events import STACK_TYPE, Event


class Recovery:
    """Failing what a dead engine left in progress."""

    _db: sqlite3.Connection

    def needs_recovery(self) -> bool:
        """True when a stack or resource row is ``IN_PROGRESS``."""
        for table in ("stacks", "resources"):
            row = self._db.execute(
                f"SELECT 1 FROM {table} WHERE status='IN_PROGRESS' LIMIT 1"
            ).fetchone()
            if row is not None:
                return True
        return False

    def in_progress_stacks(self, *, top_level: bool = False) -> list[tuple[str, str, str]]:
        """``(id, name, action)`` of every stack row left ``IN_PROGRESS``, oldest first."""
        where = " AND parent_id IS NULL" if top_level else ""
        return [
            (str(a), str(b), str(c))
            for a, b, c in self._db.execute(
                f"SELECT id, name, action FROM stacks WHERE status='IN_PROGRESS'{where} ORDER BY seq"
            ).fetchall()
        ]

    def recover(self, now: float, why: str | None = None, *, events: bool = True) -> list[Event]:
        """Fail whatever a dead engine left IN_PROGRESS; return the events written.

        *why* replaces the reason's ``engine restarted`` (``disk full: PATH: ...``
        when the engine's own commit failed, :meth:`simulator.world.World.run`).
        Without *events* only the rows change (updates in place, which a full
        disk still takes) and the events are returned unwritten.
        """
        add = self.add_event if events else (lambda ev: ev)  # type: ignore[attr-defined]
        written: list[Event] = []
        with self.transaction() as db:  # type: ignore[attr-defined]
            rows = db.execute(
                "SELECT stack_id, rid, name, type, action, physical_id FROM resources"
                " WHERE status='IN_PROGRESS' ORDER BY stack_id, rid"
            ).fetchall()
            names = dict(db.execute("SELECT id, name FROM stacks").fetchall())
            for stack_id, rid, name, rtype, action, physical in rows:
                reason = f"{why or 'engine restarted'} during {action}"
                db.execute(
                    "UPDATE resources SET status='FAILED', reason=? WHERE stack_id=? AND rid=?",
                    (reason, stack_id, rid),
                )
                ev = Event(
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
                written.append(add(ev))
            for sid, name, action in self.in_progress_stacks():
                reason = f"{why or 'engine restarted'} during {action}"
                db.execute(
                    "UPDATE stacks SET status='FAILED', reason=?, updated=? WHERE id=?",
                    (reason, now, sid),
                )
                ev = Event(0, sid, name, name, STACK_TYPE, sid, action, "FAILED", reason, now)
                written.append(add(ev))
            if events:
                db.execute("UPDATE runs SET outcome='interrupted' WHERE outcome IS NULL")
        self._docs.clear()  # type: ignore[attr-defined]  # rows changed behind its back
        return written
