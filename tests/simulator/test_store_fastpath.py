"""The store's transition fast path: what it writes, what it skips, and durability."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.events import Event
from simulator.store import PAGE_SIZE, WAL_CHECKPOINT_BYTES, ResourceRecord, Store


def _res(doc, status="COMPLETE", action="CREATE", pid="p-1", rid=1):
    return ResourceRecord("s1", rid, "a", "T", action, status, "", pid, doc=doc)


def _ev(status="COMPLETE", action="CREATE"):
    return Event(0, "s1", "web", "a", "T", "p-1", action, status, "", 1.0)


def _row(store, rid=1):
    [row] = [r for r in store.resources("s1") if r.rid == rid]
    return row


def test_a_new_world_uses_small_pages_and_rare_checkpoints(tmp_path):
    store = Store(tmp_path / "w.db")
    db = store._db
    assert db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WAL_CHECKPOINT_BYTES // 1024


def test_record_writes_event_and_state_and_keeps_an_unchanged_doc():
    store = Store()
    store.save_resource(_res({"data": {"k": "v"}, "props": {"value": "x"}}, "IN_PROGRESS"))
    ev = store.record(_ev(), resource=_res({"data": {"k": "v"}, "props": {"value": "x"}}))
    assert ev.id == 1
    row = _row(store)
    assert (row.action, row.status, row.physical_id) == ("CREATE", "COMPLETE", "p-1")
    assert row.doc == {"data": {"k": "v"}, "props": {"value": "x"}}
    assert [e.state for e in store.events("s1")] == ["CREATE_COMPLETE"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"x": 1}, {"x": True}),
        ({"x": 1}, {"x": 1.0}),
        ({"x": [1, 2]}, {"x": [1, 2, 3]}),
        ({"x": {"a": None}}, {"x": {"a": 0}}),
        ({"x": "1"}, {"x": 1}),
    ],
)
def test_a_doc_that_changes_only_in_json_type_is_rewritten(old, new):
    store = Store()
    store.save_resource(_res(old))
    store.record(_ev(), resource=_res(new))
    assert json.dumps(_row(store).doc) == json.dumps(new)


def test_a_doc_mutated_in_place_after_saving_is_rewritten():
    store = Store()
    doc = {"data": {"k": "v"}}
    store.save_resource(_res(doc))
    doc["data"]["k"] = "w"
    store.record(_ev(), resource=_res(doc))
    assert _row(store).doc == {"data": {"k": "w"}}


def test_a_rolled_back_transaction_does_not_leave_the_store_believing_its_doc():
    store = Store()
    store.save_resource(_res({"v": 1}))
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.save_resource(_res({"v": 2}))
            raise RuntimeError("boom")
    assert _row(store).doc == {"v": 1}
    store.record(_ev(), resource=_res({"v": 2}))
    assert _row(store).doc == {"v": 2}


def test_a_failing_record_rolls_back_both_rows():
    store = Store()
    store.save_resource(_res({"v": 1}, "IN_PROGRESS"))
    bad = Event(0, "s1", "web", "a", "T", "p-1", "CREATE", "COMPLETE", None, 1.0)  # reason NOT NULL
    with pytest.raises(sqlite3.IntegrityError):
        store.record(bad, resource=_res({"v": 2}))
    row = _row(store)
    assert (row.status, row.doc) == ("IN_PROGRESS", {"v": 1})
    assert store.events("s1") == []
    store.record(_ev(), resource=_res({"v": 2}))
    assert (_row(store).status, _row(store).doc) == ("COMPLETE", {"v": 2})


def test_a_deleted_row_is_inserted_again_with_its_doc():
    store = Store()
    store.save_resource(_res({"v": 1}))
    store.delete_resource("s1", 1)
    store.record(_ev(), resource=_res({"v": 1}))
    assert _row(store).doc == {"v": 1}
    store.purge_stack("s1")
    store.record(_ev(), resource=_res({"v": 1}))
    assert _row(store).doc == {"v": 1}


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(_json, min_size=1, max_size=6))
def test_the_stored_doc_is_always_the_last_one_recorded(docs):
    store = Store()
    for i, doc in enumerate(docs):
        status = "IN_PROGRESS" if i % 2 == 0 else "COMPLETE"
        store.record(_ev(status), resource=_res({"d": doc}, status))
        row = _row(store)
        assert json.dumps(row.doc, sort_keys=True) == json.dumps({"d": doc}, sort_keys=True)
        assert row.status == status
    assert len(store.events("s1")) == len(docs)


_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from simulator.events import Event
    from simulator.store import ResourceRecord, Store
    store = Store(sys.argv[1])
    for i in range(1, 401):
        store.record(
            Event(0, "s1", "web", "a", "T", None, "UPDATE", "COMPLETE", str(i), float(i)),
            resource=ResourceRecord("s1", 1, "a", "T", "UPDATE", "COMPLETE", str(i), None,
                                    doc={"n": i}),
        )
        print(i, flush=True)
        if i == 250:
            os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_every_recorded_transition_survives_the_process_being_killed(tmp_path):
    path = tmp_path / "w.db"
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        cwd=os.getcwd(),
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL
    last = int(proc.stdout.split()[-1])
    assert last == 250
    store = Store(path)
    events = store.events("s1")
    assert len(events) == 250 and events[-1].reason == "250"
    row = _row(store)
    assert (row.reason, row.doc) == ("250", {"n": 250})


def _statements(store):
    seen = []
    store._db.set_trace_callback(seen.append)
    return seen


def test_a_frozen_doc_handed_over_again_only_updates_the_state_columns():
    store = Store()
    doc = {"data": {}, "tmpl": "t1", "props": {"value": "x"}}
    store.save_resource(_res(doc, "IN_PROGRESS"), frozen_doc=True)
    seen = _statements(store)
    store.record(_ev(), resource=_res(doc), frozen_doc=True)
    assert [s.split()[0] for s in seen] == ["BEGIN", "UPDATE", "INSERT", "COMMIT"]
    row = _row(store)
    assert (row.status, row.doc) == ("COMPLETE", doc)


def test_a_new_frozen_doc_is_written_and_a_lost_row_comes_back():
    store = Store()
    store.save_resource(_res({"v": 1}), frozen_doc=True)
    new = {"v": 2}
    store.record(_ev(), resource=_res(new), frozen_doc=True)
    assert _row(store).doc == {"v": 2}
    store.delete_resource("s1", 1)
    store.record(
        _ev("IN_PROGRESS", "DELETE"), resource=_res(new, "IN_PROGRESS", "DELETE"), frozen_doc=True
    )
    row = _row(store)
    assert (row.action, row.status, row.doc) == ("DELETE", "IN_PROGRESS", {"v": 2})


def test_a_rolled_back_frozen_doc_is_written_again():
    store = Store()
    store.save_resource(_res({"v": 1}), frozen_doc=True)
    new = {"v": 2}
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.save_resource(_res(new), frozen_doc=True)
            raise RuntimeError("boom")
    assert _row(store).doc == {"v": 1}
    store.record(_ev(), resource=_res(new), frozen_doc=True)
    assert _row(store).doc == {"v": 2}


def _stack_rec(doc):
    from simulator.store import StackRecord

    return StackRecord("s1", "web", "CREATE", "COMPLETE", "", 0.0, doc=doc)


def _stack_doc_text(store):
    return store._db.execute("SELECT doc FROM stacks WHERE id='s1'").fetchone()[0]


@settings(max_examples=60, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=3), _json, max_size=4), frozen=st.sets(st.text(max_size=3))
)
def test_a_stack_doc_with_frozen_keys_is_stored_byte_for_byte_as_without(doc, frozen):
    from simulator.store_rows import dumps as _dumps

    store = Store()
    store.save_stack(_stack_rec(doc), frozen_keys=frozen)
    store.save_stack(_stack_rec(doc), frozen_keys=frozen)
    assert _stack_doc_text(store) == _dumps(doc)


def test_a_frozen_stack_value_is_serialised_once_while_the_same_object_comes_back(monkeypatch):
    import simulator.store_rows as store_mod

    big = {"template": {"resources": {f"r{i}": {"type": "T"} for i in range(50)}}}
    store = Store()
    rec = _stack_rec({"source": big, "n": 1})
    calls = []
    real = store_mod.dumps
    monkeypatch.setattr(store_mod, "dumps", lambda v: calls.append(v) or real(v))
    store.save_stack(rec, frozen_keys={"source"})
    rec.doc["n"] = 2
    store.record(_ev(), stack=rec, frozen_keys={"source"})
    assert sum(1 for v in calls if v is big) == 1
    assert json.loads(_stack_doc_text(store)) == {"source": big, "n": 2}
    rec.doc["source"] = {"template": {}}  # a new object is serialised again
    store.save_stack(rec, frozen_keys={"source"})
    assert json.loads(_stack_doc_text(store)) == {"source": {"template": {}}, "n": 2}


def _rowid(store, rid=1):
    return store._db.execute("SELECT rowid FROM resources WHERE rid=?", (rid,)).fetchone()[0]


def test_a_changed_doc_is_rewritten_in_place_not_deleted_and_inserted_again():
    store = Store()
    store.save_resource(_res({"props": {"value": "a"}}, "IN_PROGRESS"))
    first = _rowid(store)
    store.save_resource(_res({"props": {"value": "a"}}, "IN_PROGRESS", rid=2))
    store.record(_ev(), resource=_res({"props": {"value": "b"}, "data": {"id": "x"}}))
    assert _rowid(store) == first  # the same row, so its index entry is untouched
    assert _row(store).doc == {"props": {"value": "b"}, "data": {"id": "x"}}
    assert [r.rid for r in store.resources("s1")] == [1, 2]


def _wal_commits(path):
    """Pages written per committed transaction, read from the write-ahead log."""
    data = path.with_name(path.name + "-wal").read_bytes()
    commits, pages, offset = [], 0, 32
    while offset + 24 <= len(data):
        pages += 1
        if int.from_bytes(data[offset + 4 : offset + 8], "big"):  # a commit frame
            commits.append(pages)
            pages = 0
        offset += 24 + PAGE_SIZE
    return commits


def test_a_transition_writes_two_pages_unless_a_page_fills(tmp_path):
    path = tmp_path / "w.db"
    store = Store(path)
    for rid in range(1, 21):
        store.save_resource(_res({"props": {"v": rid}}, "IN_PROGRESS", rid=rid))
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for n in range(40):
        store.record(_ev(), resource=_res({"props": {"v": n}}, rid=1 + n % 20))
    commits = _wal_commits(path)
    assert len(commits) == 40
    # the resource's leaf and the events leaf; a full events page adds a few
    assert sorted(commits)[len(commits) // 2] == 2
    assert max(commits) <= 5


def test_an_events_index_left_by_an_earlier_version_is_dropped(tmp_path):
    path = tmp_path / "w.db"
    store = Store(path)
    store.record(_ev(), resource=_res({}))
    store.record(Event(0, "s2", "db", "b", "T", None, "CREATE", "COMPLETE", "", 2.0))
    store._db.execute("CREATE INDEX events_stack ON events(stack_id)")
    store.close()
    store = Store(path)
    names = [n for (n,) in store._db.execute("SELECT name FROM sqlite_master")]
    assert "events_stack" not in names
    assert [(e.stack_id, e.id) for e in store.events("s2")] == [("s2", 2)]
    assert len(store.events()) == 2


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(_JSON)
def test_the_store_s_json_is_the_encoder_s_sorted_compact_text(value):
    from simulator.store_rows import dumps

    assert dumps(value) == json.dumps(value, sort_keys=True, separators=(",", ":"))
