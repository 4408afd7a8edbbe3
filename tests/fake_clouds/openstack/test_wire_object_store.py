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


def test_account_metadata_is_set_merged_and_removed(openstack_connection, fake_cloud):
    store = openstack_connection.object_store
    assert not store.get_account_metadata().metadata
    store.set_account_metadata(k1="v1")
    store.set_account_metadata(k2="v2", k0="")
    assert store.get_account_metadata().metadata == {"k1": "v1", "k2": "v2"}
    store.delete_account_metadata(["k1"])
    assert store.get_account_metadata().metadata == {"k2": "v2"}
    # the account's headers are the object storage service's state
    account = fake_cloud.service("object_storage").head_account()
    assert account["headers"] == {"x-account-meta-k2": "v2"}


def test_container_metadata_empty_value_removes_and_system_keys_are_kept(openstack_connection):
    store = openstack_connection.object_store
    container = store.create_container(name="meta")
    store.set_container_metadata(container, k0="v0", sync_key="1234", read_ACL=".r:*")
    shown = store.get_container_metadata("meta")
    assert (shown.metadata, shown.sync_key, shown.read_ACL) == ({"k0": "v0"}, "1234", ".r:*")
    store.set_container_metadata(container, k0="")
    store.delete_container_metadata(container, ["sync_key"])
    shown = store.get_container_metadata("meta")
    assert (shown.metadata, shown.sync_key, shown.read_ACL) == ({}, None, ".r:*")
