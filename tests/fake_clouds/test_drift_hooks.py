"""The fake clouds' drift hooks: an entity left stuck, renamed, and the credential rotated."""

from __future__ import annotations

import pytest

from fake_clouds.core.drift import REVOKED, rename, rotate_credentials, stick, stuck_status
from sdk import exception


def _settle(cloud, seconds=600):
    cloud.clock.advance(seconds)


def test_a_stuck_server_stays_in_build_until_deleted(cloud, nova):
    server = nova.servers.create(name="web", image="cirros", flavor="m1.small")
    _settle(cloud)
    compute = cloud.service("compute")
    entity = compute._get("server", server.id)
    assert stuck_status(compute, "server") == "BUILD"
    assert stick(compute, entity)
    _settle(cloud, 3600)
    assert nova.servers.get(server.id).status == "BUILD" and not entity.pending
    nova.servers.delete(server.id)  # nova deletes a server in BUILD
    _settle(cloud)
    with pytest.raises(exception.NotFound):
        nova.servers.get(server.id)


def test_a_volume_stuck_creating_refuses_a_delete(cloud, cinder):
    volume = cinder.volumes.create(size=1, name="data")
    _settle(cloud)
    storage = cloud.service("block_storage")
    assert stick(storage, storage._get("volume", volume.id))
    assert cinder.volumes.get(volume.id).status == "creating"
    with pytest.raises(exception.Conflict, match="status creating"):
        cinder.volumes.delete(volume.id)


def test_an_entity_mid_transition_or_of_a_kind_without_one_is_not_stuck(cloud, nova, neutron):
    server = nova.servers.create(name="web", image="cirros", flavor="m1.small")
    compute = cloud.service("compute")
    assert not stick(compute, compute._get("server", server.id))  # still booting
    net = neutron.create_network({"network": {"name": "n"}})["network"]
    network = cloud.service("network")
    assert stuck_status(network, "network") is None
    assert not stick(network, network._get("network", net["id"]))


def test_an_entity_kind_is_stuck_in_its_create_status(cloud):
    widgets = cloud.client("entity").entities
    widget = widgets.create("widget", {}, name="w")
    _settle(cloud)
    service = cloud.service("entity")
    assert stick(service, service._find(widget.id))
    assert widgets.get(widget.id).status == "CREATING"


def test_a_rename_changes_only_the_name(cloud, neutron):
    net = neutron.create_network({"network": {"name": "n"}})["network"]
    network = cloud.service("network")
    assert rename(network, network._get("network", net["id"]))
    shown = neutron.show_network(net["id"])["network"]
    assert (shown["name"], shown["status"]) == ("n-renamed", "ACTIVE")


def test_a_rotated_credential_refuses_the_old_client_and_the_plugin_reauthenticates(cloud):
    plugin = cloud.client_plugin("network")
    old = plugin.client()
    net = old.create_network({"network": {"name": "n"}})["network"]
    assert rotate_credentials(cloud) == 1
    with pytest.raises(exception.Unauthorized, match="credential was rotated"):
        old.show_network(net["id"])
    assert cloud.trace()[-1].outcome == "Unauthorized"  # the refused call reached the cloud
    fresh = plugin.client()
    assert fresh is not old and fresh.show_network(net["id"])["network"]["id"] == net["id"]
    assert REVOKED.startswith("The request you have made requires authentication")


def test_a_client_given_without_a_factory_stays_revoked(cloud):
    from sdk.clients import ClientPlugin

    client = cloud.client("nova")
    plugin = ClientPlugin("nova", client=client)
    rotate_credentials(cloud)
    assert plugin.client() is client
    with pytest.raises(exception.Unauthorized):
        plugin.client().servers.list()


def test_rotation_revokes_the_identity_tokens():
    from fake_clouds import FakeCloud

    cloud = FakeCloud(seed=3)
    identity = cloud.add_service("identity")
    user = next(u for u in identity._live("user") if u.name == "admin")
    token = identity.issue_token(user.id, None, ["password"])
    assert identity.token(token["id"]) is not None
    assert rotate_credentials(cloud) >= 1
    assert identity.token(token["id"]) is None
