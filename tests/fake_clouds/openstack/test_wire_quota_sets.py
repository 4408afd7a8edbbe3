"""Per-project quota sets of nova, cinder and neutron on the wire (state of the services)."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


@pytest.fixture
def project(openstack_connection):
    return openstack_connection.identity.create_project(name="quota-p", domain_id="default")


def test_nova_quota_set_update_defaults_revert(openstack_connection, fake_cloud, project):
    compute = openstack_connection.compute
    assert compute.update_quota_set(project.id, key_pairs=123).key_pairs == 123
    assert compute.get_quota_set(project.id).key_pairs == 123
    assert compute.get_quota_set_defaults(project.id).key_pairs == 100
    assert fake_cloud.service("compute").project_quota(project.id)["key_pairs"] == 123
    with pytest.raises(openstack.exceptions.BadRequestException, match="integer >= -1"):
        compute.update_quota_set(project.id, cores=-5)
    compute.revert_quota_set(project.id)
    assert compute.get_quota_set(project.id).key_pairs == 100


def test_cinder_quota_set_update_defaults_revert(openstack_connection, fake_cloud, project):
    storage = openstack_connection.block_storage
    assert storage.update_quota_set(project.id, volumes=123).volumes == 123
    assert storage.get_quota_set(project.id).volumes == 123
    assert storage.get_quota_set_defaults(project.id).volumes == 10
    storage.revert_quota_set(project.id)
    assert storage.get_quota_set(project.id).volumes == 10
    assert fake_cloud.service("block_storage").project_quotas == {}


def test_neutron_quota_update_list_default_delete(openstack_connection, fake_cloud, project):
    network = openstack_connection.network
    assert network.update_quota(project.id, networks=1234).networks == 1234
    assert network.get_quota(project.id).networks == 1234
    assert network.get_quota_default(project.id).networks == 100
    assert project.id in [q.project_id for q in network.quotas()]
    with pytest.raises(openstack.exceptions.BadRequestException, match="Bad key"):
        network.update_quota(project.id, widgets=3)
    network.delete_quota(project.id)
    assert list(network.quotas()) == []


def test_quota_sets_survive_a_saved_world(fake_cloud):
    from fake_clouds import FakeCloud

    fake_cloud.service("network").set_project_quota("p1", {"router": 2})
    again = FakeCloud.from_state(fake_cloud.to_state())
    assert again.service("network").project_quota("p1")["router"] == 2
