"""The bundled example plug-ins (examples/lifecycle) on real templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_clouds.license import add_license_service
from simulator.world import World

from .conftest import lifecycle_events, resource_events, tmpl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "lifecycle"
SERVER = {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "public"}]}


@pytest.fixture(autouse=True)
def examples_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def servers_with_volumes(n, extra=None):
    res = {}
    for i in range(1, n + 1):
        res[f"srv{i}"] = {"type": "OS::Nova::Server", "properties": dict(SERVER, **(extra or {}))}
        res[f"vol{i}"] = {"type": "OS::Cinder::Volume", "properties": {"size": 1}}
        res[f"att{i}"] = {
            "type": "OS::Cinder::VolumeAttachment",
            "properties": {
                "instance_uuid": {"get_resource": f"srv{i}"},
                "volume_id": {"get_resource": f"vol{i}"},
            },
        }
    return tmpl(res)


def test_rack_affinity_places_each_server_with_its_volume():
    from lifecycle_examples.racks import RackAffinity

    plugin = RackAffinity({"rack-1": 3, "rack-2": 2})
    with World(lifecycle_plugins=[plugin]) as w:
        stack = w.create_stack("s", servers_with_volumes(2))
        assert stack.state == "CREATE_COMPLETE"
        assert plugin.placements[stack.id] == {
            "srv1": "rack-1",
            "vol1": "rack-1",
            "srv2": "rack-2",
            "vol2": "rack-2",
        }
        w.delete_stack("s")
        assert plugin.placements == {}


def test_rack_affinity_unsatisfiable_fails_the_create_touching_nothing():
    from lifecycle_examples.racks import RackAffinity

    plugin = RackAffinity({"rack-1": 1, "rack-2": 1})
    with World(lifecycle_plugins=[plugin]) as w:
        stack = w.create_stack("s", servers_with_volumes(1))
        assert stack.state == "CREATE_FAILED"
        assert stack.status_reason == (
            "Rack affinity unsatisfiable: srv1, vol1 need 2 slots on one rack; "
            "the freest rack has 1"
        )
        assert resource_events(w) == []
        assert plugin.placements == {}


def test_rack_decisions_are_unmade_when_a_later_plugin_vetoes():
    from lifecycle_examples.license_check import LicenseCheck
    from lifecycle_examples.racks import RackAffinity

    racks = RackAffinity()
    with World(lifecycle_plugins=[racks, LicenseCheck()]) as w:
        add_license_service(w.cloud, {"db": 1})
        stack = w.create_stack("s", servers_with_volumes(2), tags=["license=db"])
        assert stack.state == "CREATE_FAILED"
        assert stack.status_reason == "License denied: db needs 2 seat(s), 1 of 1 free"
        assert racks.placements == {}
        assert [s for p, s, _ in lifecycle_events(w) if "racks" in p] == [
            "CREATE_PRE_OP_COMPLETE",
            "CREATE_POST_OP_COMPLETE",
        ]


def test_license_seats_are_taken_and_given_back():
    from lifecycle_examples.license_check import LicenseCheck

    with World(lifecycle_plugins=[LicenseCheck()]) as w:
        svc = add_license_service(w.cloud, {"db": 3})
        a = w.create_stack("a", servers_with_volumes(2), tags=["license=db"])
        assert a.state == "CREATE_COMPLETE"
        assert svc.pool_status("db")["free"] == 1
        b = w.create_stack("b", servers_with_volumes(2), tags=["license=db"])
        assert (b.state, b.status_reason) == (
            "CREATE_FAILED",
            "License denied: db needs 2 seat(s), 1 of 3 free",
        )
        w.delete_stack("a")
        assert svc.pool_status("db")["free"] == 3
        assert w.create_stack("c", servers_with_volumes(1)).state == "CREATE_COMPLETE"


def test_rack_spread_over_n_racks():
    from lifecycle_examples.racks import RackSpread

    plugin = RackSpread({"r1": 2, "r2": 2, "r3": 1})
    three = tmpl({f"s{i}": {"type": "OS::Nova::Server", "properties": SERVER} for i in range(3)})
    with World(lifecycle_plugins=[plugin]) as w:
        stack = w.create_stack("s", three, tags=["spread=2"])
        assert stack.state == "CREATE_COMPLETE"
        assert plugin.placements[stack.id] == {"s0": "r1", "s1": "r2", "s2": "r1"}
        other = w.create_stack("t", three, tags=["spread=3"])
        assert other.state == "CREATE_FAILED"
        assert other.status_reason == "Cannot spread over 3 racks: only 2 have free slots"


def test_security_group_policy():
    from lifecycle_examples.policies import SecurityGroupPolicy

    good = tmpl(
        {
            "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"name": "web-default"}},
            "web": {
                "type": "OS::Nova::Server",
                "properties": dict(SERVER, security_groups=[{"get_resource": "sg"}]),
            },
        }
    )
    bad = tmpl(
        {
            "web": {
                "type": "OS::Nova::Server",
                "properties": dict(SERVER, security_groups=["default"]),
            }
        }
    )
    with World(lifecycle_plugins=[SecurityGroupPolicy()]) as w:
        assert w.create_stack("good", good, tags=["app=web"]).state == "CREATE_COMPLETE"
        refused = w.create_stack("bad", bad, tags=["app=web"])
        assert refused.state == "CREATE_FAILED"
        assert refused.status_reason == (
            "Policy: server web of application web must use security group(s) web-default"
        )
        assert w.create_stack("untagged", bad).state == "CREATE_COMPLETE"


def test_more_than_100_servers_is_a_warning_event():
    from lifecycle_examples.policies import ServerCountWarning

    many = tmpl(
        {f"s{i:03d}": {"type": "OS::Nova::Server", "properties": SERVER} for i in range(101)}
    )
    with World(lifecycle_plugins=[ServerCountWarning()]) as w:
        w.cloud.service("compute").set_quotas({"instances": 1000, "cores": 1000, "ram": 10**7})
        stack = w.create_stack("big", many)
        assert stack.state == "CREATE_COMPLETE"
        warnings = [r for _, s, r in lifecycle_events(w, "big") if s == "CREATE_WARNING"]
        assert warnings == ["stack big has 101 servers (more than 100)"]
        w.create_stack("small", tmpl({"s": {"type": "OS::Nova::Server", "properties": SERVER}}))
        assert [s for _, s, _ in lifecycle_events(w, "small") if s.endswith("WARNING")] == []
