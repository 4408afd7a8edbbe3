"""Block Storage v3 on the wire: openstacksdk volumes, snapshots and backups."""

from __future__ import annotations

import pytest
import requests

pytest.importorskip("openstack")


def test_openstacksdk_volume_create_show_list_delete(openstack_connection, fake_cloud):
    bs = openstack_connection.block_storage
    vol = bs.create_volume(size=2, name="data")
    vol = bs.wait_for_status(vol, status="available", wait=600)
    assert bs.get_volume(vol.id).size == 2
    assert [v.name for v in bs.volumes()] == ["data"]
    # the engine's Python client sees the same volume
    assert fake_cloud.client("cinder").volumes.get(vol.id).status == "available"
    snap = bs.create_snapshot(volume_id=vol.id, name="s")
    bs.wait_for_status(snap, status="available", wait=600)
    assert [s.name for s in bs.snapshots()] == ["s"]
    bs.delete_snapshot(snap)
    bs.wait_for_delete(snap, wait=600)
    bs.delete_volume(vol)
    bs.wait_for_delete(vol, wait=600)
    assert list(bs.volumes()) == []
    assert openstack_connection.plugsim_wire.bugs() == []


def test_volume_created_by_engine_is_seen_on_the_wire(openstack_connection, fake_cloud):
    made = fake_cloud.client("cinder").volumes.create(size=1, name="eng")
    assert openstack_connection.block_storage.get_volume(made.id).name == "eng"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{bad", "Malformed request body"),
        (b'{"volume": {"size": "big"}}', "size"),
        (b'{"volume": {"size": true}}', "size"),
    ],
)
def test_bad_volume_bodies_are_cinder_400s(wire, token, body, message):
    project = requests.get(
        f"{wire.auth_url}/auth/tokens", headers={"X-Auth-Token": token, "X-Subject-Token": token}
    ).json()["token"]["project"]["id"]
    r = requests.post(
        f"{wire.base_url}/volume/v3/{project}/volumes",
        data=body,
        headers={"X-Auth-Token": token, "Content-Type": "application/json"},
    )
    assert r.status_code == 400
    assert message in r.json()["badRequest"]["message"]
    assert wire.bugs() == []
