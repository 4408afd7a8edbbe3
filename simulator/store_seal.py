"""Secrets sealed at rest: the rows of a world file that hold a hidden value are encrypted.

Heat's ``encrypt_parameters_and_properties`` encrypts hidden parameters and
resource properties in its database. plugsim does the same for everything a
world file keeps, because a hidden value travels further here (into the fake
cloud's entities, its call trace, event reasons, signals, snapshots):

* **By value.** Every text the store writes -- a stack, resource, snapshot or
  signal document, a fake-cloud entity, state or trace entry, a meta value, a
  reason -- is sealed whole when it contains a secret the process remembers
  (:data:`sdk.secrets.BOOK`: hidden parameter values, generated
  ``OS::Heat::RandomString`` strings, at least
  :data:`~sdk.secrets.MIN_SCRUB_LENGTH` characters long).
* **By shape.** A stack or snapshot document whose templates declare a
  ``hidden`` parameter is sealed whatever its values, so a short hidden value
  (``"123"``) is never plain text in its own stack's parameters or environment.

A sealed text is ``sealed:v1:`` followed by a Fernet token made with the user's
world key (:mod:`simulator.world_key`); the world remembers the key's id in
``meta`` (``seal_key``). Reading unseals transparently, so a world opened with
the right key behaves exactly as before. An in-memory world is never sealed
(nothing is at rest).

Worlds written before sealing existed still open: plain text is read as it is,
and the first writer of such a world re-writes every row holding a secret of
its stacks sealed (:meth:`Sealing.seal_existing`, part of its next commit), with
SQLite's ``secure_delete`` on so the freed plain-text cells are zeroed.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sdk.secrets import BOOK
from simulator import world_key

#: What a sealed text starts with.
PREFIX = "sealed:v1:"
#: The meta key holding the id of the key this world's secrets are sealed with.
KEY_META = "seal_key"
#: The meta key saying this world's rows were checked for plain-text secrets.
CHECKED_META = "seal_checked"

#: (table, key columns, sealable text columns) of every row :meth:`Sealing.seal_existing` checks
_TABLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("meta", ("key",), ("value",)),
    ("stacks", ("id",), ("reason", "doc")),
    ("resources", ("stack_id", "rid"), ("reason", "doc")),
    ("events", ("id",), ("reason",)),
    ("snapshots", ("id",), ("reason", "doc")),
    ("signals", ("id",), ("doc",)),
    ("cloud_entities", ("service", "kind", "id"), ("doc",)),
    ("cloud_state", ("key",), ("value",)),
    ("cloud_log", ("id",), ("doc",)),
)


def by_shape(text: str) -> bool:
    """True when a stack or snapshot document's templates may declare a hidden parameter."""
    return "hidden" in text


class Sealing:
    """Sealing and unsealing of a store's texts (a mixin of :class:`simulator.store.Store`)."""

    _db: sqlite3.Connection
    path: str
    _fernet: Any = None

    def seal(self, text: str, *, shaped: bool = False) -> str:
        """*text* as the store keeps it: sealed when it holds a secret (see the module)."""
        if self.path != ":memory:" and (BOOK.found_in(text) or (shaped and by_shape(text))):
            return PREFIX + self._cipher(create=True).encrypt(text.encode()).decode("ascii")
        return text

    def unseal(self, text: str) -> str:
        """The plain text of a stored *text* (unchanged unless sealed)."""
        if type(text) is not str or not text.startswith(PREFIX):
            return text
        from cryptography.fernet import InvalidToken

        try:
            return self._cipher(create=False).decrypt(text[len(PREFIX) :].encode()).decode()
        except InvalidToken:
            raise world_key.MissingWorldKey(
                f"{self.path}: a sealed value does not open with the world key in "
                f"{world_key.key_file()}; the file is damaged or the key was replaced"
            ) from None

    def _cipher(self, *, create: bool) -> Any:
        """The Fernet of this world's key (made and recorded on the first seal)."""
        if self._fernet is not None:
            return self._fernet
        from cryptography.fernet import Fernet

        path = world_key.key_file()
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (KEY_META,)).fetchone()
        wanted = None if row is None else str(row[0]).strip('"')
        key = world_key.read_key(path)
        if wanted is not None:
            if key is None:
                raise world_key.MissingWorldKey(
                    f"{self.path}: its hidden values are sealed with world key {wanted}, but "
                    f"{path} does not exist; set {world_key.KEY_FILE_ENV} to the key file "
                    "this world was made with"
                )
            if world_key.key_id(key) != wanted:
                raise world_key.MissingWorldKey(
                    f"{self.path}: its hidden values are sealed with world key {wanted}, but "
                    f"{path} holds key {world_key.key_id(key)}; set "
                    f"{world_key.KEY_FILE_ENV} to the key file this world was made with"
                )
        elif not create:
            # sealed while the record of the key was rolled back: the user's key is the one
            if key is None:
                raise world_key.MissingWorldKey(
                    f"{self.path}: its hidden values are sealed, but {path} does not exist; "
                    f"set {world_key.KEY_FILE_ENV} to the key file this world was made with"
                )
        else:
            key = key if key is not None else world_key.create_key(path)
            with self.transaction() as db:  # type: ignore[attr-defined]
                db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                    (KEY_META, f'"{world_key.key_id(key)}"'),
                )
        self._fernet = Fernet(key)
        return self._fernet

    def seal_existing(self, *, scan: bool = True) -> int:
        """Seal every plain-text row holding a remembered secret; return how many changed.

        Used once on a world written before sealing (its ``meta`` has no
        :data:`CHECKED_META`), after the caller made the stacks' hidden values
        known. Runs inside the writer's open transaction, so the rows change
        with its next commit; freed cells are zeroed (``secure_delete``).
        """
        if self.path == ":memory:":
            return 0
        changed = 0
        with self.transaction() as db:  # type: ignore[attr-defined]
            if scan:
                # the cells of the plain texts replaced are zeroed as they are freed
                db.execute("PRAGMA secure_delete=ON")
                try:
                    changed = self._seal_rows(db)
                finally:
                    db.execute("PRAGMA secure_delete=OFF")
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (CHECKED_META, "true")
            )
        return changed

    def _seal_rows(self, db: sqlite3.Connection) -> int:
        changed = 0
        for table, keys, columns in _TABLES:
            shaped = table in ("stacks", "snapshots")
            cols = ", ".join((*keys, *columns))
            where = " AND ".join(f"{k}=?" for k in keys)
            for row in db.execute(f"SELECT {cols} FROM {table}").fetchall():
                ident, texts = row[: len(keys)], row[len(keys) :]
                for column, text in zip(columns, texts, strict=True):
                    if table == "meta" and ident[0] in (KEY_META, CHECKED_META):
                        continue
                    if type(text) is not str or text.startswith(PREFIX):
                        continue
                    sealed = self.seal(text, shaped=shaped and column == "doc")
                    if sealed is not text:
                        db.execute(f"UPDATE {table} SET {column}=? WHERE {where}", (sealed, *ident))
                        changed += 1
        return changed

    def seal_checked(self) -> bool:
        """True when this world's rows were already checked for plain-text secrets."""
        row = self._db.execute("SELECT 1 FROM meta WHERE key=?", (CHECKED_META,)).fetchone()
        return row is not None
