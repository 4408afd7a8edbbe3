"""Nova's host aggregates on the wire: openstacksdk and python-novaclient against the fake."""

from __future__ import annotations

import pytest

pytest.importorskip("openstack")


def test_openstacksdk_aggregate_hosts_and_metadata(openstack_connection, fake_cloud):
    from openstack import exceptions

    compute = openstack_connection.compute
    agg = compute.create_aggregate(name="rack", availability_zone="az-1")
    compute.add_host_to_aggregate(agg, "plugsim")
    compute.set_aggregate_metadata(agg, {"ssd": "true"})
    fresh = compute.get_aggregate(agg.id)
    assert (fresh.hosts, fresh.metadata) == (
        ["plugsim"],
        {"availability_zone": "az-1", "ssd": "true"},
    )
    with pytest.raises(exceptions.ConflictException):
        compute.create_aggregate(name="rack")
    with pytest.raises(exceptions.BadRequestException):
        compute.delete_aggregate(agg)  # it still has a host
    with pytest.raises(exceptions.NotFoundException):
        compute.add_host_to_aggregate(agg, "nowhere")
    assert fake_cloud.client("nova").aggregates.get(agg.id).hosts == ["plugsim"]
    compute.remove_host_from_aggregate(agg, "plugsim")
    compute.update_aggregate(agg, name="rack-2")
    assert [a.name for a in compute.aggregates()] == ["rack-2"]
    compute.delete_aggregate(agg)
    assert fake_cloud.leaks() == []
    assert openstack_connection.plugsim_wire.bugs() == []


def test_novaclient_aggregate_lifecycle(session, world):
    from novaclient import client as nova_client

    nova = nova_client.Client("2.1", session=session)
    agg = nova.aggregates.create("rack", None)
    agg = nova.aggregates.add_host(agg, "plugsim")
    assert agg.hosts == ["plugsim"]
    nova.aggregates.remove_host(agg, "plugsim")
    nova.aggregates.delete(agg)
    assert world.leaks() == []
