"""Store.new_messages: whether a world's writer must read its cancel requests again."""

from simulator.store import Store


def test_in_memory_store_sees_its_own_messages_only():
    store = Store()
    assert store.new_messages()  # the first look always reads
    assert not store.new_messages()
    store.set_meta("virtual_time", 5.0)  # not a message
    assert not store.new_messages()
    store.set_meta("cancel:abc", True)  # a cancel request, however written
    assert store.new_messages()
    assert not store.new_messages()
    with store.message():
        store.set_meta("signal", 1)
    assert store.new_messages()
    store.close()


def test_rollback_means_read_again():
    store = Store()
    store.deferred = True
    assert store.new_messages()
    store.set_meta("seed", 1)
    store.rollback()
    assert store.new_messages()
    store.close()


def test_file_store_sees_another_connection_commit(tmp_path):
    path = str(tmp_path / "w.db")
    writer, other = Store(path), Store(path)
    assert writer.new_messages()
    assert not writer.new_messages()
    with other.message():
        other.set_meta("cancel:abc", "no-rollback")
    assert writer.new_messages()
    assert writer.get_meta("cancel:abc") == "no-rollback"
    assert not writer.new_messages()
    other.set_meta("anything", 1)  # any commit of another connection may hold a message
    assert writer.new_messages()
    other.close()
    writer.close()
