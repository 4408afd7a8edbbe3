"""The fake cloud and the random streams in a world's store (a mixin of :class:`simulator.store.Store`).

The fake cloud is stored in pieces, so a commit writes only what changed
(:meth:`fake_clouds.core.world.FakeCloud.state_delta`): one row per entity in
``cloud_entities`` (``seq`` keeps each store's creation order), the services'
own state and the fault bookkeeping in ``cloud_state``, and the call trace and
injected faults appended to ``cloud_log``. Random streams (the world's and the
cloud's) are rows of ``streams``: a Mersenne Twister state packed as 625
unsigned 32-bit words, written only when the stream moved.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Mapping
from typing import Any

from simulator.store_rows import dumps


def _pack(state: tuple[Any, ...]) -> tuple[int, float | None, bytes]:
    version, internal, gauss = state
    return int(version), gauss, array("I", internal).tobytes()


class CloudRows:
    """The fake cloud's rows and the random streams."""

    _db: sqlite3.Connection
    #: the largest ``cloud_entities.seq`` written (None: not known, ask the table)
    _cloud_top: int | None = None

    # -- random streams -------------------------------------------------------

    def save_streams(self, owner: str, states: Mapping[str, tuple[Any, ...]]) -> None:
        """Store the given streams' states (``random.Random.getstate()``) of *owner*."""
        if not states:
            return
        with self.transaction() as db:  # type: ignore[attr-defined]
            db.executemany(
                "INSERT OR REPLACE INTO streams(owner, name, version, gauss, state)"
                " VALUES (?,?,?,?,?)",
                [(owner, name, *_pack(state)) for name, state in sorted(states.items())],
            )

    def load_streams(self, owner: str) -> dict[str, object] | None:
        """Return *owner*'s streams as :meth:`simulator.rng.SeededRNG.setstate` takes them."""
        rows = self._db.execute(
            "SELECT name, version, gauss, state FROM streams WHERE owner=? ORDER BY name",
            (owner,),
        ).fetchall()
        if not rows:
            return None
        out: dict[str, object] = {}
        for name, version, gauss, blob in rows:
            words = array("I")
            words.frombytes(blob)
            out[name] = [version, list(words), gauss]
        return out

    # -- the fake cloud -------------------------------------------------------

    def has_cloud(self) -> bool:
        """True when the fake cloud is stored in pieces (not as a legacy blob)."""
        return (
            self._db.execute("SELECT 1 FROM cloud_state WHERE key='header'").fetchone() is not None
        )

    def save_cloud(self, delta: Any) -> None:
        """Write a :class:`fake_clouds.core.world.CloudDelta`."""
        with self.transaction() as db:  # type: ignore[attr-defined]
            if delta.full:
                db.execute("DELETE FROM cloud_entities")
                db.execute("DELETE FROM cloud_state")
                db.execute("DELETE FROM cloud_log")
            if delta.header is not None:
                self._cloud_state(db, "header", delta.header)
            if delta.faults is not None:
                self._cloud_state(db, "faults", delta.faults)
            if delta.faults_reset and not delta.full:
                db.execute("DELETE FROM cloud_log WHERE kind='fault'")
            for name, own in delta.services.items():
                self._cloud_state(db, f"service:{name}", own)
            if delta.entities:
                self._save_entities(db, delta.entities)
            seal = self.seal  # type: ignore[attr-defined]
            logged = [("trace", seal(dumps(t))) for t in delta.trace]
            logged += [("fault", seal(dumps(f))) for f in delta.injected]
            if logged:
                db.executemany("INSERT INTO cloud_log(kind, doc) VALUES (?,?)", logged)
            self.save_streams("cloud", delta.rng)

    def _cloud_state(self, db: sqlite3.Connection, key: str, value: Any) -> None:
        db.execute(
            "INSERT OR REPLACE INTO cloud_state(key, value) VALUES (?,?)",
            (key, self.seal(dumps(value))),  # type: ignore[attr-defined]
        )

    def _save_entities(self, db: sqlite3.Connection, entities: list[Any]) -> None:
        gone = [(s, k, i) for s, k, i, doc, _ in entities if doc is None]
        if gone:
            db.executemany("DELETE FROM cloud_entities WHERE service=? AND kind=? AND id=?", gone)
        placed = sorted((e for e in entities if e[3] is not None and e[4]), key=lambda e: e[4])
        changed = [e for e in entities if e[3] is not None and not e[4]]
        if not placed and not changed:
            return
        seal = self.seal  # type: ignore[attr-defined]
        top = self._cloud_top
        if top is None:
            top = db.execute("SELECT coalesce(max(seq), 0) FROM cloud_entities").fetchone()[0]
        self._cloud_top = top + len(placed) + len(changed)
        if placed:  # a new place in creation order: a new seq
            db.executemany(
                "INSERT INTO cloud_entities(service, kind, id, seq, doc) VALUES (?,?,?,?,?)"
                " ON CONFLICT(service, kind, id) DO UPDATE SET seq=excluded.seq,"
                " doc=excluded.doc",
                [
                    (s, k, i, top + n, seal(dumps(doc)))
                    for n, (s, k, i, doc, _) in enumerate(placed, 1)
                ],
            )
        if changed:  # changed in place: the seq stays
            top += len(placed)
            db.executemany(
                "INSERT INTO cloud_entities(service, kind, id, seq, doc) VALUES (?,?,?,?,?)"
                " ON CONFLICT(service, kind, id) DO UPDATE SET doc=excluded.doc",
                [
                    (s, k, i, top + n, seal(dumps(doc)))
                    for n, (s, k, i, doc, _) in enumerate(changed, 1)
                ],
            )

    def load_cloud(self, time: float) -> dict[str, Any] | None:
        """Return the stored cloud as :meth:`FakeCloud.from_state` takes it (None: none stored)."""
        unseal = self.unseal  # type: ignore[attr-defined]
        states = {
            key: unseal(value)
            for key, value in self._db.execute("SELECT key, value FROM cloud_state").fetchall()
        }
        if "header" not in states:
            return None
        header = json.loads(states["header"])
        services: dict[str, dict[str, Any]] = {}
        for key, value in sorted(states.items()):
            if key.startswith("service:"):
                own = json.loads(value)
                own["entities"] = {kind: [] for kind in own.pop("entity_kinds", [])}
                services[key[len("service:") :]] = own
        for service, kind, doc in self._db.execute(
            "SELECT service, kind, doc FROM cloud_entities ORDER BY service, kind, seq"
        ):
            svc = services.get(service)
            if svc is not None:
                svc["entities"].setdefault(kind, []).append(json.loads(unseal(doc)))
        faults = json.loads(states.get("faults") or "null") or {
            "source": None,
            "rules": [],
            "seen": [],
            "hits": [],
            "buckets": {},
        }
        faults["injected"] = []
        trace: list[Any] = []
        for kind, doc in self._db.execute("SELECT kind, doc FROM cloud_log ORDER BY id"):
            (trace if kind == "trace" else faults["injected"]).append(json.loads(unseal(doc)))
        return {
            **header,
            "time": time,
            "rng": self.load_streams("cloud") or {},
            "faults": faults,
            "services": services,
            "trace": trace,
        }
