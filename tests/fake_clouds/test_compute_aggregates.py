"""Host aggregates of the fake compute (nova's ``os-aggregates``) through novaclient's calls."""

from __future__ import annotations

import pytest

from sdk import exception


def test_an_aggregate_holds_compute_hosts_and_metadata(cloud, nova):
    agg = nova.aggregates.create("rack-1", availability_zone="az-1")
    assert (agg.name, agg.availability_zone, agg.hosts) == ("rack-1", "az-1", [])
    assert agg.metadata == {"availability_zone": "az-1"}
    assert isinstance(agg.id, int)
    agg.add_host("plugsim")
    agg.set_metadata({"ssd": "true"})
    fresh = nova.aggregates.get(agg.id)
    assert fresh.hosts == ["plugsim"]
    assert fresh.metadata == {"availability_zone": "az-1", "ssd": "true"}
    fresh.set_metadata({"ssd": None})
    assert nova.aggregates.get(str(agg.id)).metadata == {"availability_zone": "az-1"}
    fresh.update({"name": "rack-2"})
    assert [a.name for a in nova.aggregates.list()] == ["rack-2"]


def test_aggregate_conflicts_and_unknowns_are_nova_s(cloud, nova):
    agg = nova.aggregates.create("rack")
    with pytest.raises(exception.Conflict, match="Aggregate rack already exists"):
        nova.aggregates.create("rack")
    with pytest.raises(exception.BadRequest, match="name"):
        nova.aggregates.create("")
    with pytest.raises(exception.NotFound, match="Compute host nowhere could not be found"):
        agg.add_host("nowhere")
    agg.add_host("plugsim")
    with pytest.raises(exception.Conflict, match="already has host plugsim"):
        agg.add_host("plugsim")
    with pytest.raises(exception.BadRequest, match="still has hosts"):
        agg.delete()
    with pytest.raises(exception.NotFound, match="Aggregate 99 could not be found"):
        nova.aggregates.get(99)
    agg.remove_host("plugsim")
    with pytest.raises(exception.NotFound):
        agg.remove_host("plugsim")
    mark = cloud.snapshot_inventory()
    other = nova.aggregates.create("left-behind")
    assert [(i.kind, i.id) for i in cloud.leaks(mark)] == [("aggregate", str(other.id))]
    agg.delete()
    other.delete()
    assert cloud.leaks() == []
    assert [h.host_name for h in nova.hosts.list()] == ["plugsim"]
