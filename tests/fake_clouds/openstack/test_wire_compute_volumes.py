"""Nova's os-volume_attachments on the wire: attach, show, update, detach through nova."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


def _server_and_volume(conn, world):
    image = next(i for i in world.service("compute").list_images() if i["name"] == "cirros")
    server = conn.compute.create_server(
        name="vm", image_id=image["id"], flavor_id="1", networks="none"
    )
    server = conn.compute.wait_for_server(server, wait=600)
    volume = conn.block_storage.create_volume(name="data", size=1)
    volume = conn.block_storage.wait_for_status(volume, status="available", wait=600)
    return server, volume


def test_openstacksdk_attaches_and_detaches_a_volume_through_nova(openstack_connection, fake_cloud):
    conn = openstack_connection
    server, volume = _server_and_volume(conn, fake_cloud)
    attachment = conn.compute.create_volume_attachment(server, volume)
    assert attachment.volume_id == volume.id
    conn.block_storage.wait_for_status(volume, status="in-use", wait=600)
    assert [a.volume_id for a in conn.compute.volume_attachments(server)] == [volume.id]
    conn.compute.update_volume_attachment(server, volume, delete_on_termination=True)
    assert conn.compute.get_volume_attachment(server, volume).delete_on_termination is True
    # the block storage service holds the same attachment
    attached = fake_cloud.service("block_storage").get_volume(volume.id)["attachments"]
    assert [a["server_id"] for a in attached] == [server.id]
    conn.compute.delete_volume_attachment(server, volume, ignore_missing=False)
    conn.block_storage.wait_for_status(volume, status="available", wait=600)
    assert list(conn.compute.volume_attachments(server)) == []
    with pytest.raises(openstack.exceptions.NotFoundException):
        conn.compute.get_volume_attachment(server, volume)


def test_a_volume_attached_with_delete_on_termination_goes_with_its_server(
    openstack_connection, fake_cloud
):
    conn = openstack_connection
    server, volume = _server_and_volume(conn, fake_cloud)
    keep = conn.block_storage.create_volume(name="keep", size=1)
    keep = conn.block_storage.wait_for_status(keep, status="available", wait=600)
    conn.compute.create_volume_attachment(server, volume, delete_on_termination=True)
    conn.compute.create_volume_attachment(server, keep)
    conn.block_storage.wait_for_status(keep, status="in-use", wait=600)
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=600)
    conn.block_storage.wait_for_delete(volume, wait=600)
    assert conn.block_storage.get_volume(keep.id).status == "available"


def test_attaching_an_unknown_volume_is_a_nova_404(openstack_connection, fake_cloud):
    conn = openstack_connection
    server, _ = _server_and_volume(conn, fake_cloud)
    answer = conn.compute.post(
        f"/servers/{server.id}/os-volume_attachments",
        json={"volumeAttachment": {"volumeId": "no-such-volume"}},
    )
    assert answer.status_code == 404
    assert "no-such-volume" in answer.json()["itemNotFound"]["message"]


def test_a_server_booted_with_a_volume_mapping_has_it_attached(openstack_connection, fake_cloud):
    conn = openstack_connection
    image = next(i for i in conn.compute.images() if i.name == "cirros")
    volume = conn.block_storage.create_volume(size=1)
    volume = conn.block_storage.wait_for_status(volume, status="available", wait=600)
    mapping = {
        "uuid": volume.id,
        "source_type": "volume",
        "destination_type": "volume",
        "boot_index": 0,
        "delete_on_termination": True,
    }
    server = conn.compute.create_server(
        name="bfv",
        image_id=image.id,
        flavor_id="1",
        networks="none",
        block_device_mapping=[mapping],
    )
    server = conn.compute.wait_for_server(server, wait=600)
    shown = conn.compute.get_server(server.id)
    attached = [(a["id"], a["device"], a["delete_on_termination"]) for a in shown.attached_volumes]
    assert attached == [(volume.id, "/dev/vda", True)]
    assert conn.block_storage.get_volume(volume.id).status == "in-use"
    conn.compute.delete_server(server)
    conn.block_storage.wait_for_delete(volume, wait=600)
