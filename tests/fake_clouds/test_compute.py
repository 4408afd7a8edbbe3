"""Compute service: server state machine in virtual time, errors, quotas."""

from __future__ import annotations

import pytest
from fake_cloud_helpers import active_server, public_net

from fake_clouds import FakeCloud
from sdk import exception
from sdk.clients import ClientPlugin


def test_preseeded_flavors_images_keypair(nova):
    assert [f.name for f in nova.flavors.list()] == [
        "m1.tiny",
        "m1.small",
        "m1.medium",
        "m1.large",
        "m1.xlarge",
    ]
    assert nova.flavors.get("3").vcpus == 2
    assert sorted(i.name for i in nova.images.list()) == ["cirros", "fedora", "ubuntu"]
    assert nova.keypairs.get("default").public_key.startswith("ssh-ed25519 ")


def test_server_build_then_active_after_sampled_boot_time(cloud, nova):
    server = nova.servers.create(name="web", image="cirros", flavor="m1.small")
    assert server.status == "BUILD"
    assert server.to_dict()["flavor"]["id"] == "2"
    boot_done = cloud.service("compute")._store["server"][server.id].pending[0].at
    assert 10 <= boot_done - cloud.clock.now() <= 90
    cloud.clock.advance_to(boot_done - 5)  # a get costs at most 3 s
    assert nova.servers.get(server.id).status == "BUILD"
    cloud.clock.advance_to(boot_done + 1)
    fresh = server.get()
    assert fresh.status == "ACTIVE"
    assert fresh.to_dict()["OS-EXT-STS:task_state"] is None


def test_call_latency_is_charged_to_the_virtual_clock(cloud, nova):
    assert cloud.clock.now() == 0.0
    nova.flavors.list()
    entry = cloud.trace()[-1]
    assert entry.latency > 0
    assert cloud.clock.now() == pytest.approx(entry.latency)


def test_suspend_resume_reboot_cycle(cloud, nova):
    server = active_server(cloud)
    nova.servers.suspend(server)
    got = nova.servers.get(server.id)
    assert (got.status, got.to_dict()["OS-EXT-STS:task_state"]) == ("ACTIVE", "suspending")
    cloud.clock.advance(60)
    assert nova.servers.get(server.id).status == "SUSPENDED"
    with pytest.raises(exception.Conflict, match="Cannot 'suspend' server .* in status SUSPENDED"):
        nova.servers.suspend(server.id)
    nova.servers.resume(server.id)
    cloud.clock.advance(60)
    assert nova.servers.get(server.id).status == "ACTIVE"
    nova.servers.reboot(server.id, "HARD")
    assert nova.servers.get(server.id).status == "HARD_REBOOT"
    cloud.clock.advance(120)
    assert nova.servers.get(server.id).status == "ACTIVE"


def test_resize_confirm_and_revert(cloud, nova):
    server = active_server(cloud)
    nova.servers.resize(server, "m1.small")
    assert nova.servers.get(server).status == "RESIZE"
    cloud.clock.advance(300)
    got = nova.servers.get(server)
    assert (got.status, got.flavor["id"]) == ("VERIFY_RESIZE", "2")
    nova.servers.revert_resize(server)
    cloud.clock.advance(300)
    got = nova.servers.get(server)
    assert (got.status, got.flavor["id"]) == ("ACTIVE", "1")
    nova.servers.resize(server, "m1.small")
    cloud.clock.advance(300)
    nova.servers.confirm_resize(server)
    got = nova.servers.get(server)
    assert (got.status, got.flavor["id"]) == ("ACTIVE", "2")


def test_stop_start_rebuild_update(cloud, nova):
    server = active_server(cloud)
    nova.servers.stop(server)
    cloud.clock.advance(30)
    assert nova.servers.get(server).status == "SHUTOFF"
    nova.servers.start(server)
    cloud.clock.advance(30)
    nova.servers.rebuild(server, "fedora", name="web2")
    got = nova.servers.get(server)
    assert (got.status, got.name) == ("REBUILD", "web2")
    cloud.clock.advance(300)
    got = nova.servers.get(server)
    assert got.status == "ACTIVE"
    assert got.image["id"] == nova.images.find(name="fedora").id
    assert nova.servers.update(server, name="renamed").name == "renamed"
    nova.servers.set_meta(server, {"role": "db"})
    assert nova.servers.get(server).metadata == {"role": "db"}


def test_set_meta_merges_and_delete_meta_removes_keys(cloud, nova):
    server = active_server(cloud)
    nova.servers.set_meta(server, {"role": "db", "tier": "gold"})
    nova.servers.set_meta(server, {"role": "web"})
    assert nova.servers.get(server).metadata == {"role": "web", "tier": "gold"}
    nova.servers.delete_meta(server, ["tier", "absent"])
    assert nova.servers.get(server).metadata == {"role": "web"}


def test_snapshot_to_image(cloud, nova):
    server = active_server(cloud)
    image_id = nova.servers.create_image(server, "web-snap")
    assert nova.images.get(image_id).status == "saving"
    cloud.clock.advance(400)
    image = nova.images.get(image_id)
    assert (image.status, image.instance_uuid) == ("active", server.id)
    nova.images.delete(image_id)
    with pytest.raises(exception.NotFound):
        nova.images.get(image_id)


def test_delete_goes_away_after_a_while(cloud, nova):
    server = active_server(cloud)
    nova.servers.delete(server)
    got = nova.servers.get(server)
    assert got.to_dict()["OS-EXT-STS:task_state"] == "deleting"
    cloud.clock.advance(30)
    with pytest.raises(exception.NotFound, match=f"Instance {server.id} could not be found."):
        nova.servers.get(server)
    assert nova.servers.list() == []


def test_networks_give_addresses_and_ports_are_released(cloud, nova, neutron):
    net = public_net(cloud)
    server = nova.servers.create(
        name="web", image="cirros", flavor="m1.tiny", networks=[{"uuid": net}]
    )
    assert server.networks == {"public": ["172.24.4.2"]}
    ports = neutron.list_ports(device_id=server.id)["ports"]
    assert len(ports) == 1
    nova.servers.delete(server)
    assert neutron.list_ports(device_id=server.id)["ports"] == []


def test_bad_arguments_are_bad_requests(nova):
    with pytest.raises(exception.BadRequest, match="Image nope could not be found."):
        nova.servers.create(name="x", image="nope", flavor="m1.tiny")
    with pytest.raises(exception.BadRequest, match="Flavor m9 could not be found."):
        nova.servers.create(name="x", image="cirros", flavor="m9")
    with pytest.raises(exception.BadRequest, match="Unknown server argument"):
        nova.servers.create(name="x", image="cirros", flavor="1", colour="red")
    with pytest.raises(exception.BadRequest, match="compute.servers.reboot: "):
        nova.servers.service.reboot_server()
    with pytest.raises(exception.BadRequest, match="Network missing could not be found"):
        nova.servers.create(name="x", image="cirros", flavor="1", networks=[{"uuid": "missing"}])


def test_typed_errors_are_classified_by_client_plugin(cloud):
    plugin = cloud.client_plugin("nova")
    assert isinstance(plugin, ClientPlugin)
    nova = plugin.client()
    with pytest.raises(exception.NotFound) as nf:
        nova.servers.get("missing")
    assert plugin.is_not_found(nf.value) and not plugin.is_conflict(nf.value)
    plugin.ignore_not_found(nf.value)
    server = active_server(cloud)
    with pytest.raises(exception.Conflict) as cf:
        nova.servers.resume(server)
    assert plugin.is_conflict(cf.value) and cf.value.code == 409


def test_instance_and_core_quotas():
    cloud = FakeCloud(seed=1, quotas={"compute": {"instances": 2, "cores": 2}})
    nova = cloud.client("nova")
    nova.servers.create(name="a", image="cirros", flavor="m1.tiny")
    with pytest.raises(exception.OverLimit, match="Quota exceeded for cores: requested 2"):
        nova.servers.create(name="b", image="cirros", flavor="m1.medium")
    nova.servers.create(name="b", image="cirros", flavor="m1.tiny")
    with pytest.raises(exception.OverLimit) as ex:
        nova.servers.create(name="c", image="cirros", flavor="m1.tiny")
    assert cloud.client_plugin("nova").is_over_limit(ex.value)
    assert str(ex.value) == "Quota exceeded for instances: requested 1, already used 2 of 2"


def test_bad_quota_configuration():
    with pytest.raises(exception.ConfigurationError, match=r"quotas.compute.gpus: unknown quota"):
        FakeCloud(quotas={"compute": {"gpus": 1}})
    with pytest.raises(exception.ConfigurationError, match="quotas.dns: unknown service"):
        FakeCloud(quotas={"dns": {"zones": 1}})


def test_keypairs(nova):
    kp = nova.keypairs.create("mine")
    assert kp.private_key.startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert "private_key" not in nova.keypairs.get("mine").to_dict()
    with pytest.raises(exception.Conflict, match="Key pair 'mine' already exists."):
        nova.keypairs.create("mine")
    with pytest.raises(exception.BadRequest, match="not an SSH key"):
        nova.keypairs.create("bad", public_key="hello")
    nova.keypairs.delete("mine")
    assert [k.name for k in nova.keypairs.list()] == ["default"]


def test_a_security_group_given_by_id_is_listed_by_name(cloud, nova):
    neutron = cloud.client("neutron")
    group = neutron.create_security_group({"security_group": {"name": "the_sg"}})
    gid = group["security_group"]["id"]
    server = nova.servers.create(
        name="sg", image="cirros", flavor="m1.tiny", security_groups=[gid, "default"]
    )
    assert nova.servers.get(server.id).to_dict()["security_groups"] == [
        {"name": "the_sg"},
        {"name": "default"},
    ]


def test_keypair_create_takes_novaclient_key_type_and_user(nova):
    """novaclient's keypairs.create takes key_type (2.2) and user_id (2.10); nova's schema
    allows the types ssh and x509 only."""
    made = nova.keypairs.create("k-typed", key_type="ssh", user_id="u1")
    assert made.name == "k-typed"
    with pytest.raises(exception.BadRequest, match="'rsa' is not one of"):
        nova.keypairs.create("k-bad", key_type="rsa")
