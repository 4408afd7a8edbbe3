"""Large objects live as files beside the world file, in step with the world's commits."""

from __future__ import annotations

import hashlib
import json
import sqlite3

from fake_clouds.core.blobs import INLINE_BYTES
from simulator.world import World


def _object_docs(path) -> dict[str, dict]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT id, doc FROM cloud_entities WHERE service='object_storage' AND kind='object'"
        ).fetchall()
    return {oid: json.loads(doc) for oid, doc in rows}


def test_a_large_object_is_a_file_named_by_its_content_and_the_world_names_it(tmp_path):
    big = b"x" * (INLINE_BYTES + 1)
    small = b"tiny"
    with World.open(tmp_path / "w.db", seed=1) as world:
        swift = world.cloud.client("object_storage")
        swift.put_container("c")
        etag = swift.put_object("c", "big", big)
        swift.put_object("c", "small", small)
        world.commit()
    assert etag == hashlib.md5(big, usedforsecurity=False).hexdigest()
    docs = _object_docs(tmp_path / "w.db")
    ref = hashlib.sha256(big).hexdigest()
    assert docs["c/big"]["attrs"]["blob"] == ref
    assert docs["c/big"]["attrs"]["data"] is None  # the world file does not hold the bytes
    assert "blob" not in docs["c/small"]["attrs"]  # small objects stay inline, as before
    assert (tmp_path / "w.db-blobs" / ref).read_bytes() == big
    with World.open(tmp_path / "w.db") as world:
        swift = world.cloud.client("object_storage")
        assert swift.get_object("c", "big")[1] == big
        assert swift.get_object("c", "small")[1] == small


def test_a_file_goes_once_the_delete_is_committed_and_leftovers_go_at_open(tmp_path):
    big = b"y" * (INLINE_BYTES + 10)
    ref = hashlib.sha256(big).hexdigest()
    blobs = tmp_path / "w.db-blobs"
    with World.open(tmp_path / "w.db", seed=1) as world:
        swift = world.cloud.client("object_storage")
        swift.put_container("c")
        swift.put_object("c", "big", big)
        world.commit()
        swift.delete_object("c", "big")
        assert (blobs / ref).exists()  # the delete is not committed yet: the file stays
        world.commit()
        assert not (blobs / ref).exists()
        # what a killed process can leave: an upload cut off, a file no commit named
        (blobs / ".upload-cut-off").write_bytes(b"partial")
        (blobs / ("0" * 64)).write_bytes(b"never committed")
    with World.open(tmp_path / "w.db"):
        assert sorted(p.name for p in blobs.iterdir()) == []


def test_replacing_a_large_object_with_a_small_one_keeps_it_inline(tmp_path):
    big = b"z" * (INLINE_BYTES + 1)
    with World.open(tmp_path / "w.db", seed=1) as world:
        swift = world.cloud.client("object_storage")
        swift.put_container("c")
        swift.put_object("c", "o", big)
        world.commit()
        swift.put_object("c", "o", b"now small")
        world.commit()
        assert swift.get_object("c", "o")[1] == b"now small"
    assert list((tmp_path / "w.db-blobs").iterdir()) == []
    assert _object_docs(tmp_path / "w.db")["c/o"]["attrs"]["blob"] is None
