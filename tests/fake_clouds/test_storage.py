"""Block storage and object storage state machines."""

from __future__ import annotations

import pytest
from fake_cloud_helpers import active_server

from fake_clouds import FakeCloud
from sdk import exception


def test_volume_create_extend_delete(cloud, cinder):
    vol = cinder.volumes.create(size=1, name="data")
    assert vol.status == "creating"
    cloud.clock.advance(30)
    assert cinder.volumes.get(vol).status == "available"
    cinder.volumes.extend(vol, 5)
    got = cinder.volumes.get(vol)
    assert (got.status, got.size) == ("extending", 1)
    cloud.clock.advance(30)
    got = cinder.volumes.get(vol)
    assert (got.status, got.size) == ("available", 5)
    with pytest.raises(exception.BadRequest, match="must be greater than current size"):
        cinder.volumes.extend(vol, 2)
    cinder.volumes.delete(vol)
    assert cinder.volumes.get(vol).status == "deleting"
    cloud.clock.advance(30)
    assert cinder.volumes.list() == []


def test_attach_detach_and_conflicting_delete(cloud, cinder, nova):
    server = active_server(cloud)
    vol = cinder.volumes.create(size=2)
    cloud.clock.advance(30)
    attachment = nova.volumes.create_server_volume(server.id, vol.id)
    assert attachment.device == "/dev/vdb"
    assert cinder.volumes.get(vol).status == "attaching"
    cloud.clock.advance(30)
    got = cinder.volumes.get(vol)
    assert (got.status, got.attachments[0]["server_id"]) == ("in-use", server.id)
    assert [
        v["id"] for v in nova.servers.get(server).to_dict()["os-extended-volumes:volumes_attached"]
    ] == [vol.id]
    with pytest.raises(exception.Conflict, match=r"Invalid volume: .*\(status in-use\)") as ex:
        cinder.volumes.delete(vol)
    assert cloud.client_plugin("cinder").is_conflict(ex.value)
    cinder.volumes.detach(vol)
    assert cinder.volumes.get(vol).status == "detaching"
    cloud.clock.advance(30)
    got = cinder.volumes.get(vol)
    assert (got.status, got.attachments) == ("available", [])
    assert nova.servers.get(server).to_dict()["os-extended-volumes:volumes_attached"] == []


def test_deleting_a_server_detaches_its_volumes(cloud, cinder, nova):
    server = active_server(cloud)
    vol = cinder.volumes.create(size=1)
    cloud.clock.advance(30)
    cinder.volumes.attach(vol, server.id, "/dev/vdc")
    cloud.clock.advance(30)
    nova.servers.delete(server)
    assert cinder.volumes.get(vol).status == "available"


def test_snapshots_backups_restore(cloud, cinder):
    vol = cinder.volumes.create(size=3)
    cloud.clock.advance(30)
    snap = cinder.volume_snapshots.create(vol.id, name="s1")
    assert snap.status == "creating"
    cloud.clock.advance(30)
    assert cinder.volume_snapshots.get(snap).status == "available"
    with pytest.raises(exception.Conflict, match="still has dependent snapshots"):
        cinder.volumes.delete(vol)
    clone = cinder.volumes.create(snapshot_id=snap.id)
    assert clone.size == 3
    backup = cinder.backups.create(vol.id, name="b1")
    cloud.clock.advance(200)
    assert cinder.backups.get(backup).status == "available"
    restore = cinder.restores.restore(backup.id)
    assert cinder.volumes.get(restore.volume_id).status == "restoring-backup"
    assert cinder.backups.get(backup).status == "restoring"
    cloud.clock.advance(200)
    assert cinder.volumes.get(restore.volume_id).status == "available"
    cinder.volume_snapshots.delete(snap)
    cinder.backups.delete(backup)
    cloud.clock.advance(30)
    assert cinder.volume_snapshots.list() == [] and cinder.backups.list() == []


def test_volume_quotas_and_bad_sizes():
    cloud = FakeCloud(quotas={"block_storage": {"gigabytes": 10}})
    cinder = cloud.client("cinder")
    cinder.volumes.create(size=8)
    with pytest.raises(exception.OverLimit, match="Quota exceeded for gigabytes: requested 3"):
        cinder.volumes.create(size=3)
    with pytest.raises(exception.BadRequest, match="Invalid volume size: 0"):
        cinder.volumes.create(size=0)
    with pytest.raises(exception.BadRequest, match="Invalid volume size: 'big'"):
        cinder.volumes.create(size="big")


def test_object_storage_containers_and_objects(cloud):
    swift = cloud.client("swift")
    swift.put_container("logs", headers={"X-Container-Meta-Env": "test"})
    etag = swift.put_object("logs", "a.txt", "hello", content_type="text/plain")
    assert etag == "5d41402abc4b2a76b9719d911017c592"
    headers, body = swift.get_object("logs", "a.txt")
    assert (body, headers["content-type"], headers["content-length"]) == (
        b"hello",
        "text/plain",
        "5",
    )
    headers, objects = swift.get_container("logs")
    assert headers["x-container-object-count"] == "1"
    assert headers["x-container-meta-env"] == "test"
    assert [o["name"] for o in objects] == ["a.txt"]
    with pytest.raises(exception.Conflict, match="Container logs is not empty"):
        swift.delete_container("logs")
    swift.delete_object("logs", "a.txt")
    with pytest.raises(exception.NotFound):
        swift.head_object("logs", "a.txt")
    swift.delete_container("logs")
    assert swift.get_account()[1] == []
    with pytest.raises(exception.NotFound, match="Container logs could not be found."):
        swift.head_container("logs")
