"""The stack and resource rows of a world's store (a mixin of :class:`simulator.store.Store`).

A resource row's JSON document is re-serialised only when it changed since
this store last wrote it; otherwise only the state columns are updated. A
changed document is written in place (an upsert keeps the row and its index
entry where they are). A caller that never mutates a document after handing
it over says so (``frozen_doc=True``): the store then keeps that very object
instead of a copy, and a later write passing the same object skips the
comparison. A stack's document may hold megabytes of template source;
*frozen_keys* name the entries serialised once and reused while the same
object comes back.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from json.encoder import encode_basestring_ascii
from typing import Any

from simulator.records import ResourceRecord, StackRecord, _StoredStackRecord
from simulator.store_seal import PREFIX

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
_STACK_INSERT = (
    "INSERT OR REPLACE INTO stacks(id, seq, name, parent_id, action, status, reason,"
    " deleted, created, updated, doc) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
)
_STACK_COLS = "id, seq, name, parent_id, action, status, reason, deleted, created, updated, doc"


def dumps(value: Any) -> str:
    """The store's JSON text of *value* (sorted keys, no spaces).

    A scalar (most meta values, counters, a stack document's flags) is written directly, as the
    encoder would write it, without setting up an encoder; anything else goes through it.
    """
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is float and value - value == 0.0:  # finite: json spells inf and nan its own way
        return float.__repr__(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


_string = encode_basestring_ascii


def same_json(a: Any, b: Any) -> bool:
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
            if type(key) is not str or key not in b or not same_json(value, b[key]):
                return False
        return True
    if kind is list:
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if kind is str or kind is int or kind is bool or a is None:
        return a == b
    if kind is float:
        return a == b and a == a
    return False


class StackRows:
    """Stacks and their resources."""

    _db: sqlite3.Connection
    _docs: dict[tuple[str, int], Any]
    _frozen_text: dict[tuple[str, str], tuple[Any, str]]

    # -- stacks --------------------------------------------------------------

    def save_stack(self, rec: StackRecord, *, frozen_keys: Collection[str] = ()) -> None:
        """Insert or replace a stack row.

        *frozen_keys* name top-level entries of ``rec.doc`` whose values the
        caller never mutates after handing them over (e.g. a stack's template
        source, which can be megabytes): the store serialises such a value
        once and reuses the text while the same object comes back.
        """
        if rec.seq and self.deferred and not self._depth:  # type: ignore[attr-defined]
            # a stored stack's row: written with the instant's buffers (simulator.store_instant)
            self._begin()  # type: ignore[attr-defined]
            self._buffer_stack(self._stack_row(rec, frozen_keys))  # type: ignore[attr-defined]
            return
        with self.transaction() as db:  # type: ignore[attr-defined]
            if not rec.seq:
                rec.seq = self.next_seq("stack")  # type: ignore[attr-defined]
            db.execute(_STACK_INSERT, self._stack_row(rec, frozen_keys))

    def _stack_row(self, rec: StackRecord, frozen_keys: Collection[str]) -> tuple[Any, ...]:
        """The values of *rec*'s row for :data:`_STACK_INSERT` (reason and document sealed)."""
        doc = self.seal(self._stack_doc_text(rec, frozen_keys), shaped=True)  # type: ignore[attr-defined]
        return (
            rec.id,
            rec.seq,
            rec.name,
            rec.parent_id,
            rec.action,
            rec.status,
            self.seal(rec.reason),  # type: ignore[attr-defined]
            int(rec.deleted),
            rec.created,
            rec.updated,
            doc,
        )

    def stack_exists(self, stack_id: str) -> bool:
        """True when a stack row (live or deleted) has this id."""
        return (
            self._db.execute("SELECT 1 FROM stacks WHERE id=?", (stack_id,)).fetchone() is not None
        )

    def _stack_doc_text(self, rec: StackRecord, frozen_keys: Collection[str]) -> str:
        """``dumps(rec.doc)``, reusing the text of frozen values handed over before."""
        doc = rec.doc
        if not frozen_keys or not all(type(k) is str for k in doc):
            return dumps(doc)
        parts = []
        for key in sorted(doc):
            value = doc[key]
            if key in frozen_keys:
                memo = self._frozen_text.get((rec.id, key))
                if memo is not None and memo[0] is value:
                    text = memo[1]
                else:
                    text = dumps(value)
                    self._frozen_text[(rec.id, key)] = (value, text)
            else:
                text = dumps(value)
            parts.append(f"{_string(key)}:{text}")
        return "{" + ",".join(parts) + "}"

    def _stack(self, row: tuple) -> StackRecord:
        sid, seq, name, parent, action, status, reason, deleted, created, updated, doc = row
        rec = _StoredStackRecord.__new__(_StoredStackRecord)
        rec.id, rec.seq, rec.name, rec.parent_id = sid, seq, name, parent
        rec.action, rec.status, rec.reason = action, status, self.unseal(reason)  # type: ignore[attr-defined]
        rec.deleted, rec.created, rec.updated = bool(deleted), created, updated
        rec._doc_text = doc
        if doc.startswith(PREFIX):  # opened only when the document is read
            rec._opener = self.unseal  # type: ignore[attr-defined]
        return rec

    def get_stack(self, name_or_id: str) -> StackRecord | None:
        """Return the live stack with this id or name (a live one wins over deleted)."""
        row = self._db.execute(
            f"SELECT {_STACK_COLS} FROM stacks WHERE id=?", (name_or_id,)
        ).fetchone()
        if row is None:
            row = self._db.execute(
                f"SELECT {_STACK_COLS} FROM stacks WHERE name=? AND parent_id IS NULL"
                " ORDER BY deleted, seq DESC LIMIT 1",
                (name_or_id,),
            ).fetchone()
        return None if row is None else self._stack(row)

    def list_stacks(
        self, *, include_deleted: bool = False, nested: bool = False, parent_id: str | None = None
    ) -> list[StackRecord]:
        """Return stacks in creation order (top-level only unless *nested*)."""
        sql = f"SELECT {_STACK_COLS} FROM stacks WHERE 1=1"
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
        with self.transaction() as db:  # type: ignore[attr-defined]
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
        afterwards (see :meth:`simulator.store.Store.record`).
        """
        if frozen_doc and self.deferred and not self._depth:  # type: ignore[attr-defined]
            # buffered until the instant's commit, like a transition (simulator.store_instant)
            self._begin()  # type: ignore[attr-defined]
            self._buffer_row(rec)  # type: ignore[attr-defined]
            return
        with self.transaction():  # type: ignore[attr-defined]
            self._write_resource(rec, frozen_doc)

    def _write_resource(self, rec: ResourceRecord, frozen: bool = False) -> None:
        key = (rec.stack_id, rec.rid)
        reason = self.seal(rec.reason)  # type: ignore[attr-defined]
        last = self._docs.get(key)
        if last is not None and ((frozen and last is rec.doc) or same_json(rec.doc, last)):
            cur = self._db.execute(
                _RESOURCE_STATE,
                (
                    rec.action,
                    rec.status,
                    reason,
                    rec.physical_id,
                    int(rec.current),
                    rec.stack_id,
                    rec.rid,
                ),
            )
            if cur.rowcount == 1:
                return
        doc = dumps(rec.doc)
        self._db.execute(
            _RESOURCE_INSERT,
            (
                rec.stack_id,
                rec.rid,
                rec.name,
                rec.type,
                rec.action,
                rec.status,
                reason,
                rec.physical_id,
                int(rec.current),
                self.seal(doc),  # type: ignore[attr-defined]
            ),
        )
        # A frozen doc is kept as is; otherwise an independent copy, so a caller
        # mutating its dict later cannot fool the check.
        self._docs[key] = rec.doc if frozen else json.loads(doc)

    def delete_resource(self, stack_id: str, rid: int) -> None:
        """Remove one resource row (buffered until the instant's commit when commits are deferred)."""
        if self.deferred and not self._depth:  # type: ignore[attr-defined]
            self._begin()  # type: ignore[attr-defined]
            self._buffer_delete(stack_id, rid)  # type: ignore[attr-defined]
            return
        with self.transaction() as db:  # type: ignore[attr-defined]
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
                reason=self.unseal(r[6]),  # type: ignore[attr-defined]
                physical_id=r[7],
                current=bool(r[8]),
                doc=json.loads(self.unseal(r[9])),  # type: ignore[attr-defined]
            )
            for r in rows
        ]
