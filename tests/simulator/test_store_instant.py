"""Write once per instant (issue 33, item 3): a deferred store's transitions, written in bulk."""

from __future__ import annotations

import pytest

from simulator.events import Event
from simulator.store import ResourceRecord, Store


class Spy:
    """The raw connection, counting the statements the store hands it."""

    def __init__(self, raw):
        self.raw = raw
        self.calls: list[tuple[str, str, int]] = []

    def execute(self, sql, params=()):
        self.calls.append(("execute", " ".join(sql.split()[:3]), 1))
        return self.raw.execute(sql, params)

    def executemany(self, sql, seq):
        seq = list(seq)
        self.calls.append(("executemany", " ".join(sql.split()[:3]), len(seq)))
        return self.raw.executemany(sql, seq)

    def __getattr__(self, name):
        return getattr(self.raw, name)


def _rec(status, doc, action="CREATE", rid=1, name="a"):
    return ResourceRecord("s1", rid, name, "T", action, status, "", f"p-{rid}", doc=doc)


def _ev(status, action="CREATE", name="a", reason=""):
    return Event(0, "s1", "web", name, "T", "p-1", action, status, reason, 1.0)


@pytest.fixture
def store():
    store = Store()
    store.deferred = True
    yield store
    store.close()


def _spy(store: Store) -> Spy:
    spy = Spy(store._raw)
    store._raw = spy
    store._db._raw = spy
    return spy


def test_an_instants_transitions_are_written_at_its_commit_one_executemany_per_table(store):
    docs = [{"data": {}, "props": {"v": i}} for i in range(3)]
    for i, doc in enumerate(docs, 1):
        store.save_resource(_rec("IN_PROGRESS", doc, rid=i, name=f"r{i}"), frozen_doc=True)
    store.commit()
    spy = _spy(store)
    ids = []
    for i, doc in enumerate(docs, 1):
        ev = store.record(
            _ev("COMPLETE", name=f"r{i}"),
            resource=_rec("COMPLETE", doc, rid=i, name=f"r{i}"),
            frozen_doc=True,
        )
        ids.append(ev.id)
    # the third resource changes twice in the instant: its row is written once, with its last state
    again = store.record(
        _ev("IN_PROGRESS", "UPDATE", "r3"),
        resource=_rec("IN_PROGRESS", docs[2], "UPDATE", 3, "r3"),
        frozen_doc=True,
    )
    assert ids == [1, 2, 3] and again.id == 4  # ids as SQLite would give them, at once
    assert [c for c in spy.calls if c[0] == "executemany"] == []
    assert store.commit()
    writes = [c for c in spy.calls if c[1].split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert writes == [
        ("executemany", "INSERT INTO events(id,", 4),
        ("executemany", "UPDATE resources SET", 3),
    ]
    rows = {r.name: (r.action, r.status) for r in store.resources("s1")}
    assert rows == {
        "r1": ("CREATE", "COMPLETE"),
        "r2": ("CREATE", "COMPLETE"),
        "r3": ("UPDATE", "IN_PROGRESS"),
    }
    assert [e.id for e in store.events("s1")] == [1, 2, 3, 4]


def test_a_changed_document_is_encoded_once_per_instant(store, monkeypatch):
    import simulator.store_instant as instant

    encoded = []
    real = instant.dumps
    monkeypatch.setattr(instant, "dumps", lambda v: encoded.append(v) or real(v))
    first, second = {"v": 1}, {"v": 2}
    store.record(_ev("IN_PROGRESS"), resource=_rec("IN_PROGRESS", first), frozen_doc=True)
    store.record(_ev("COMPLETE"), resource=_rec("COMPLETE", second), frozen_doc=True)
    store.commit()
    assert encoded == [second]
    [row] = store.resources("s1")
    assert (row.status, row.doc) == ("COMPLETE", {"v": 2})


def test_a_read_in_the_same_instant_sees_the_buffered_transitions(store):
    store.record(_ev("IN_PROGRESS"), resource=_rec("IN_PROGRESS", {"v": 1}), frozen_doc=True)
    store.record(_ev("COMPLETE"), resource=_rec("COMPLETE", {"v": 1}), frozen_doc=True)
    assert [e.state for e in store.events("s1")] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert store.resources("s1")[0].status == "COMPLETE"


def test_a_rollback_drops_the_buffers_and_ids_continue_as_sqlite_would(store):
    store.record(_ev("IN_PROGRESS"), resource=_rec("IN_PROGRESS", {"v": 1}), frozen_doc=True)
    store.commit()
    store.record(_ev("COMPLETE"), resource=_rec("COMPLETE", {"v": 1}), frozen_doc=True)
    store.rollback()
    assert [e.state for e in store.events("s1")] == ["CREATE_IN_PROGRESS"]
    assert store.resources("s1")[0].status == "IN_PROGRESS"
    ev = store.record(_ev("FAILED"), resource=_rec("FAILED", {"v": 1}), frozen_doc=True)
    assert ev.id == 2
    store.commit()
    assert [(e.id, e.state) for e in store.events("s1")] == [
        (1, "CREATE_IN_PROGRESS"),
        (2, "CREATE_FAILED"),
    ]


def test_a_row_deleted_and_written_again_in_one_instant_comes_back(store):
    doc = {"v": 1}
    store.record(_ev("COMPLETE"), resource=_rec("COMPLETE", doc), frozen_doc=True)
    store.commit()
    store.delete_resource("s1", 1)
    store.delete_resource("s1", 1)
    assert store.resources("s1") == []
    store.delete_resource("s1", 1)
    store.record(_ev("IN_PROGRESS", "CREATE"), resource=_rec("IN_PROGRESS", doc), frozen_doc=True)
    store.commit()
    [row] = store.resources("s1")
    assert (row.status, row.doc) == ("IN_PROGRESS", doc)


def test_an_event_written_directly_keeps_the_buffered_ids_in_order(store):
    a = store.record(_ev("IN_PROGRESS"), resource=_rec("IN_PROGRESS", {"v": 1}), frozen_doc=True)
    b = store.add_event(_ev("COMPLETE", reason="direct"))
    c = store.record(_ev("COMPLETE"), resource=_rec("COMPLETE", {"v": 1}), frozen_doc=True)
    store.commit()
    assert (a.id, b.id, c.id) == (1, 2, 3)
    assert [e.reason for e in store.events("s1")] == ["", "direct", ""]


def test_events_another_process_added_between_commits_are_not_overwritten(tmp_path):
    writer, other = Store(tmp_path / "w.db"), Store(tmp_path / "w.db")
    writer.deferred = True
    try:
        assert (
            writer.record(
                _ev("IN_PROGRESS"), resource=_rec("IN_PROGRESS", {"v": 1}), frozen_doc=True
            ).id
            == 1
        )
        writer.commit()
        assert other.add_event(_ev("INIT", reason="hook cleared")).id == 2  # its own transaction
        ev = writer.record(_ev("COMPLETE"), resource=_rec("COMPLETE", {"v": 1}), frozen_doc=True)
        writer.commit()
        assert ev.id == 3
        assert [e.reason for e in writer.events("s1")] == ["", "hook cleared", ""]
    finally:
        writer.close()
        other.close()
