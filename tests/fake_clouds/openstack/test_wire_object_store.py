"""Object Storage on the wire: openstacksdk containers, objects and metadata."""

from __future__ import annotations

import pytest
import requests

pytest.importorskip("openstack")


def test_openstacksdk_container_and_object_lifecycle(openstack_connection, fake_cloud):
    store = openstack_connection.object_store
    store.create_container(name="c1")
    store.upload_object(container="c1", name="dir/a.txt", data=b"hello")
    assert store.download_object("dir/a.txt", container="c1") == b"hello"
    assert [o.name for o in store.objects("c1")] == ["dir/a.txt"]
    store.set_container_metadata("c1", colour="blue")
    assert store.get_container_metadata("c1").metadata == {"colour": "blue"}
    # the engine's Python client sees the same object
    assert fake_cloud.client("swift").get_object("c1", "dir/a.txt")[1] == b"hello"
    store.delete_object("dir/a.txt", container="c1")
    store.delete_container("c1")
    assert [c.name for c in store.containers()] == []
    assert openstack_connection.plugsim_wire.bugs() == []


def test_non_empty_container_delete_is_409_text(wire, token, world):
    world.client("swift").put_container("full")
    world.client("swift").put_object("full", "o", "x")
    project = requests.get(
        f"{wire.auth_url}/auth/tokens", headers={"X-Auth-Token": token, "X-Subject-Token": token}
    ).json()["token"]["project"]["id"]
    r = requests.delete(
        f"{wire.base_url}/object-store/v1/AUTH_{project}/full", headers={"X-Auth-Token": token}
    )
    assert r.status_code == 409
    assert r.text.startswith("Conflict:")
