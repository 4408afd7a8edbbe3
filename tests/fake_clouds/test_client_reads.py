"""What a client read returns is the caller's: changing it changes nothing stored (issue 33).

A read used to copy each entity twice (the service's view, then the client object's own
copy of it); now the client object keeps the service's fresh view. These tests hold the
isolation that both copies were for.
"""

from __future__ import annotations

from fake_clouds import FakeCloud


def _settled(cloud: FakeCloud, seconds: float = 600.0) -> None:
    cloud.clock.advance(seconds)


def test_changing_a_read_server_changes_neither_the_store_nor_the_next_read() -> None:
    cloud = FakeCloud(seed=5)
    nova = cloud.client("nova")
    made = nova.servers.create(name="s", image="cirros", flavor="m1.tiny", metadata={"k": "v"})
    made.metadata["k"] = "changed"
    _settled(cloud)
    first = nova.servers.get(made.id)
    assert first.metadata == {"k": "v"} and first.security_groups == [{"name": "default"}]
    first.metadata["extra"] = "x"
    first.to_dict()["metadata"]["other"] = "y"
    first.security_groups[0]["name"] = "changed"
    first.flavor["id"] = "changed"
    [listed] = nova.servers.list()
    listed.metadata.clear()
    second = nova.servers.get(made.id)
    assert second.metadata == {"k": "v"} and second.security_groups == [{"name": "default"}]
    assert second.flavor["id"] != "changed"
    stored = cloud.service("compute").get_server(made.id)
    assert stored["metadata"] == {"k": "v"} and stored["flavor"] == second.flavor
    assert nova.servers.list()[0].metadata == {"k": "v"}


def test_reloading_a_server_object_keeps_it_apart_from_the_store() -> None:
    cloud = FakeCloud(seed=5)
    nova = cloud.client("nova")
    server = nova.servers.create(name="s", image="cirros", flavor="m1.tiny")
    _settled(cloud)
    assert server.get() is server and server.status == "ACTIVE"
    server.metadata["k"] = "v"
    server.to_dict()["metadata"]["j"] = "w"
    assert nova.servers.get(server.id).metadata == {}
    assert server.metadata == {"k": "v"}


def test_changing_a_read_volume_changes_nothing_stored() -> None:
    cloud = FakeCloud(seed=5)
    cinder = cloud.client("cinder")
    volume = cinder.volumes.create(1, name="v", metadata={"a": "1"})
    volume.metadata["a"] = "2"
    _settled(cloud)
    got = cinder.volumes.get(volume.id)
    assert got.metadata == {"a": "1"}
    got.metadata["b"] = "3"
    got.attachments.append({"server_id": "nowhere"})
    cinder.volumes.list()[0].metadata.clear()
    again = cinder.volumes.get(volume.id)
    assert again.metadata == {"a": "1"} and again.attachments == []
