"""Per-project quota sets through the clients' calls: novaclient's and cinderclient's
``quotas`` managers and python-neutronclient's quota calls."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from sdk import exception


def test_nova_quotas_update_get_defaults_and_delete(cloud, nova):
    defaults = nova.quotas.defaults("p1")
    assert (defaults.id, defaults.instances, defaults.cores) == ("p1", 10, 20)
    changed = nova.quotas.update("p1", instances=4, cores=None, ram=2048)
    assert (changed.id, changed.instances, changed.cores, changed.ram) == ("p1", 4, 20, 2048)
    assert cloud.service("compute").project_quotas == {"p1": {"instances": 4, "ram": 2048}}
    assert nova.quotas.get("p1").to_dict() == changed.to_dict()
    assert nova.quotas.get("p2").instances == 10  # another project keeps the service's
    again = changed.update(instances=5)  # a quota set updates its own project
    assert again.instances == 5
    nova.quotas.delete("p1")
    assert nova.quotas.get("p1").to_dict() == defaults.to_dict()
    assert cloud.service("compute").project_quotas == {}


def test_nova_quota_errors_name_the_key_or_what_is_not_kept(nova):
    with pytest.raises(exception.BadRequest, match="Bad key 'floating_ips'"):
        nova.quotas.update("p1", floating_ips=3)
    with pytest.raises(exception.BadRequest, match="instances must be an integer >= -1"):
        nova.quotas.update("p1", instances=-2)
    with pytest.raises(exception.BadRequest, match="Per-user quota sets"):
        nova.quotas.update("p1", user_id="u1", instances=3)
    with pytest.raises(exception.BadRequest, match="A project id is required"):
        nova.quotas.get("")


def test_cinder_quotas_update_get_and_delete(cloud, cinder):
    changed = cinder.quotas.update("p1", volumes=3, gigabytes=50, skip_validation=False)
    assert (changed.tenant_id, changed.volumes, changed.gigabytes, changed.snapshots) == (
        "p1",
        3,
        50,
        10,
    )
    assert cloud.service("block_storage").project_quotas == {"p1": {"gigabytes": 50, "volumes": 3}}
    got = cinder.quotas.get("p1")
    assert got.to_dict() == changed.to_dict()
    assert cinder.quotas.defaults("p1").volumes == 10
    cinder.quotas.delete(got)  # cinderclient takes a quota set as well as an id
    assert cinder.quotas.get("p1").volumes == 10
    with pytest.raises(exception.BadRequest, match="Bad key 'widgets'"):
        cinder.quotas.update("p1", widgets=1)


def test_neutron_quota_calls_are_dict_in_dict_out(cloud, neutron):
    default = neutron.show_quota_default("p1")["quota"]
    assert neutron.show_quota("p1") == {"quota": default}
    updated = neutron.update_quota("p1", {"quota": {"network": 3, "port": 7}})["quota"]
    assert (updated["network"], updated["port"]) == (3, 7)
    assert updated["subnet"] == default["subnet"]
    assert neutron.show_quota("p1")["quota"] == updated
    listed = neutron.list_quotas()["quotas"]
    assert [(q["project_id"], q["network"]) for q in listed] == [("p1", 3)]
    assert neutron.delete_quota("p1") is None
    assert neutron.show_quota("p1")["quota"] == default
    assert neutron.list_quotas() == {"quotas": []}
    with pytest.raises(exception.BadRequest, match=r"\{'quota'"):
        neutron.update_quota("p1", {"network": 3})


def test_quota_sets_survive_a_state_round_trip(cloud, nova, neutron):
    nova.quotas.update("p1", instances=2)
    neutron.update_quota("p1", {"quota": {"network": 1}})
    other = FakeCloud(seed=7)
    other.service("compute").load_state(cloud.service("compute").to_state())
    other.service("network").load_state(cloud.service("network").to_state())
    assert other.client("nova").quotas.get("p1").instances == 2
    assert other.client("neutron").show_quota("p1")["quota"]["network"] == 1


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.sampled_from(["volumes", "snapshots", "backups"]), st.integers(-1, 99)))
def test_the_last_cinder_update_wins_and_delete_restores_the_defaults(limits):
    cinder = FakeCloud(seed=7).client("cinder")
    before = cinder.quotas.get("p").to_dict()
    cinder.quotas.update("p", volumes=1)
    after = cinder.quotas.update("p", **limits).to_dict()
    assert after == {**before, "volumes": 1, **limits}
    cinder.quotas.delete("p")
    assert cinder.quotas.get("p").to_dict() == before


def test_neutron_quota_set_takes_rbac_policy(neutron):
    """Neutron keeps a quota of RBAC policies per project (quota_rbac_policy, default 10)."""
    assert neutron.show_quota_default("p1")["quota"]["rbac_policy"] == 10
    updated = neutron.update_quota("p1", {"quota": {"rbac_policy": 0}})["quota"]
    assert updated["rbac_policy"] == 0


def test_nova_quota_set_takes_server_group_and_metadata_quotas(nova):
    """Nova's quota set keeps metadata_items (128), server_groups and their members (10 each)."""
    defaults = nova.quotas.defaults("p1")
    assert (defaults.metadata_items, defaults.server_groups, defaults.server_group_members) == (
        128,
        10,
        10,
    )
    assert nova.quotas.update("p1", server_groups=3).server_groups == 3
    with pytest.raises(exception.BadRequest, match="Bad key 'fixed_ips'"):
        nova.quotas.update("p1", fixed_ips=3)
