"""cinderclient, glanceclient and swiftclient drive create -> show -> delete on the wire.

Each client runs unmodified on a keystoneauth1 session against the in-process
fake; what it creates is the world's entity, seen by the engine's services.
"""

from __future__ import annotations

import io

import pytest


def test_cinderclient_create_show_delete(session, world):
    cinder_client = pytest.importorskip("cinderclient.client")
    cinder = cinder_client.Client("3", session=session)
    volume = cinder.volumes.create(1, name="from-cinderclient")
    assert cinder.volumes.get(volume.id).status == "creating"
    world.clock.advance(600)
    assert cinder.volumes.get(volume.id).status == "available"
    assert world.service("block_storage").get_volume(volume.id)["name"] == "from-cinderclient"
    vtype = cinder.volume_types.create("cinderclient-type")
    vtype.set_keys({"tier": "gold"})
    assert cinder.volume_types.get(vtype.id).get_keys() == {"tier": "gold"}
    cinder.volumes.delete(volume.id)
    world.clock.advance(600)
    assert volume.id not in [v.id for v in cinder.volumes.list()]


def test_glanceclient_create_upload_show_delete(session, world):
    glance_client = pytest.importorskip("glanceclient")
    glance = glance_client.Client("2", session=session)
    image = glance.images.create(
        name="from-glanceclient", disk_format="raw", container_format="bare"
    )
    assert image.status == "queued"
    glance.images.upload(image.id, io.BytesIO(b"x" * 2048))
    world.clock.advance(600)
    shown = glance.images.get(image.id)
    assert (shown.status, shown.size) == ("active", 2048)
    # nova boots what glance registered
    assert world.service("compute").get_image(image.id)["status"] == "active"
    glance.images.delete(image.id)
    assert image.id not in [i.id for i in glance.images.list()]


def test_swiftclient_container_and_object_round_trip(session, world):
    swift_client = pytest.importorskip("swiftclient.client")
    swift = swift_client.Connection(session=session)
    swift.put_container("from-swiftclient", headers={"X-Container-Meta-Team": "a"})
    swift.put_object("from-swiftclient", "hello.txt", contents=b"hello", content_type="text/plain")
    headers, body = swift.get_object("from-swiftclient", "hello.txt")
    assert (body, headers["content-type"]) == (b"hello", "text/plain")
    assert swift.head_container("from-swiftclient")["x-container-meta-team"] == "a"
    store = world.service("object_storage")
    assert [o["name"] for o in store.list_objects("from-swiftclient")] == ["hello.txt"]
    swift.delete_object("from-swiftclient", "hello.txt")
    swift.delete_container("from-swiftclient")
    assert [c["name"] for c in swift.get_account()[1]] == []
