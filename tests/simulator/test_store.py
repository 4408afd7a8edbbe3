"""The SQLite store: schema, round trips, recovery after a killed engine."""

import sqlite3

import pytest

from sdk import exception
from simulator.events import STACK_TYPE, Event
from simulator.store import SCHEMA_VERSION, ResourceRecord, SnapshotRecord, StackRecord, Store


def _stack(sid="s1", name="web", action="CREATE", status="IN_PROGRESS"):
    return StackRecord(
        id=sid,
        name=name,
        action=action,
        status=status,
        reason="",
        created=0.0,
        doc={"template": {"resources": {}}},
    )


def test_schema_is_versioned_and_wal(tmp_path):
    path = tmp_path / "w.db"
    Store(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "w.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(exception.ConfigurationError, match="newer than this plugsim"):
        Store(path)


def test_foreign_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE x (a)")
    db.commit()
    db.close()
    with pytest.raises(exception.ConfigurationError, match="not a plugsim world"):
        Store(path)


def test_garbage_file_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(exception.ConfigurationError, match="not a plugsim state database"):
        Store(path)


def test_stack_resource_snapshot_round_trip():
    store = Store()
    store.save_stack(_stack())
    rec = store.get_stack("web")
    assert rec is not None and rec.id == "s1" and rec.doc == {"template": {"resources": {}}}
    assert store.get_stack("s1").name == "web"
    store.save_resource(
        ResourceRecord("s1", 1, "a", "T", "CREATE", "COMPLETE", "", "p-1", doc={"data": {"k": "v"}})
    )
    [res] = store.resources("s1")
    assert (res.name, res.physical_id, res.doc) == ("a", "p-1", {"data": {"k": "v"}})
    store.save_snapshot(SnapshotRecord("snap", "s1", "first", "COMPLETE", "", 3.0, doc={"x": 1}))
    assert [s.name for s in store.snapshots("s1")] == ["first"]
    store.delete_snapshot("snap")
    assert store.snapshots("s1") == []


def test_events_keep_order_and_ids():
    store = Store()
    for i in range(3):
        store.add_event(Event(0, "s1", "web", f"r{i}", "T", None, "CREATE", "COMPLETE", "", i))
    events = store.events("s1")
    assert [e.id for e in events] == [1, 2, 3]
    assert [e.resource_name for e in events] == ["r0", "r1", "r2"]
    assert store.events("s1", after=2)[0].resource_name == "r2"


def test_failed_transaction_leaves_nothing_behind():
    store = Store()
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.save_stack(_stack())
            raise RuntimeError("boom")
    assert store.get_stack("web") is None


def test_recover_fails_in_progress_rows_with_reason(tmp_path):
    path = tmp_path / "w.db"
    store = Store(path)
    store.save_stack(_stack(action="UPDATE"))
    store.save_resource(ResourceRecord("s1", 1, "a", "T", "UPDATE", "IN_PROGRESS", "", "p"))
    store.save_resource(ResourceRecord("s1", 2, "b", "T", "CREATE", "COMPLETE", "", "q"))
    # the process dies here: no clean close
    reopened = Store(path)
    written = reopened.recover(now=12.0)
    assert [(e.resource_name, e.state, e.reason) for e in written] == [
        ("a", "UPDATE_FAILED", "engine restarted during UPDATE"),
        ("web", "UPDATE_FAILED", "engine restarted during UPDATE"),
    ]
    assert written[1].resource_type == STACK_TYPE
    rec = reopened.get_stack("web")
    assert (rec.status, rec.reason) == ("FAILED", "engine restarted during UPDATE")
    states = {r.name: (r.action, r.status) for r in reopened.resources("s1")}
    assert states == {"a": ("UPDATE", "FAILED"), "b": ("CREATE", "COMPLETE")}
    assert reopened.recover(now=13.0) == []


def test_runs_record_the_seed():
    store = Store()
    run = store.start_run("s1", "CREATE", 42, 0.0)
    store.finish_run(run, 5.0, "COMPLETE")
    [rec] = store.runs()
    assert (rec.seed, rec.outcome, rec.finished) == ("42", "COMPLETE", 5.0)


def test_meta_and_counters():
    store = Store()
    assert store.get_meta("seed") is None
    store.set_meta("seed", 7)
    assert store.get_meta("seed") == 7
    assert [store.next_seq("x") for _ in range(3)] == [1, 2, 3]


def test_a_stack_row_read_back_has_its_document_and_compares_equal():
    from simulator.store import StackRecord

    store = Store()
    rec = StackRecord("s1", "web", "CREATE", "COMPLETE", "ok", 1.0, doc={"source": {"t": [1]}})
    store.save_stack(rec)
    got = store.get_stack("web")
    assert got == rec and rec == got
    assert got != StackRecord("s1", "web", "CREATE", "FAILED", "ok", 1.0, doc=rec.doc)
    assert got.doc == {"source": {"t": [1]}}
    got.doc["tags"] = ["x"]
    assert got.doc["tags"] == ["x"]
    [listed] = store.list_stacks()
    assert (listed.name, listed.doc) == ("web", {"source": {"t": [1]}})
    assert "doc=" in repr(store.get_stack("s1"))


def test_signals_have_their_own_table_in_order_per_resource():
    store = Store()
    store.add_signal("st", "h", {"id": "1"})
    store.add_signal("st", "other", {"id": "x"})
    store.add_signal("st", "h", {"id": "2"})
    assert store.signals("st", "h") == [{"id": "1"}, {"id": "2"}]
    store.clear_signals("st", "h")
    assert store.signals("st", "h") == []
    assert store.signals("st", "other") == [{"id": "x"}]
    assert store.get_meta("signals:st:h") is None


def test_signals_kept_in_meta_by_an_earlier_version_move_to_the_table(tmp_path):
    path = tmp_path / "w.db"
    store = Store(path)
    with store.transaction() as db:
        db.execute("DROP TABLE signals")
    store.set_meta("signals:st:h", [{"id": "1"}, {"id": "2"}])
    store.close()
    reopened = Store(path)
    assert reopened.signals("st", "h") == [{"id": "1"}, {"id": "2"}]
    assert reopened.get_meta("signals:st:h") is None
    reopened.close()
