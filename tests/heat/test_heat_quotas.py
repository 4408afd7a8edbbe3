"""Heat's own quota plug-ins (OS::Nova::Quota, OS::Cinder::Quota, OS::Neutron::Quota)
over the fake clouds' per-project quota sets: create, update in place, delete."""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from simulator.store import Store
from simulator.world import World

CASES = [
    # module, type, service, first limits, changed limits
    ("nova.quota", "OS::Nova::Quota", "compute", {"instances": 20}, {"instances": 30, "cores": 40}),
    (
        "cinder.quota",
        "OS::Cinder::Quota",
        "block_storage",
        {"volumes": 20},
        {"volumes": 30, "gigabytes": 500},
    ),
    (
        "neutron.quota",
        "OS::Neutron::Quota",
        "network",
        {"network": 20},
        {"network": 30, "port": 70},
    ),
]


def _world(module: str) -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5)
    report = use_heat_plugins(world, "heat.engine.resources.openstack." + module)
    assert not report.errors, report.errors
    return world


def _template(type_name: str, limits: dict[str, int]) -> dict[str, Any]:
    props = {"project": "admin", **limits}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"q": {"type": type_name, "properties": props}},
    }


def _admin_quotas(world: World, service: str) -> dict[str, int]:
    admin = world.client_plugin("keystone").client().projects.find(name="admin").id
    return dict(world.cloud.service(service).project_quotas.get(admin, {}))


@requires_heat
@pytest.mark.parametrize(("module", "type_name", "service", "first", "changed"), CASES)
def test_heats_quota_sets_the_admin_projects_limits_and_updates_them_in_place(
    module: str, type_name: str, service: str, first: dict, changed: dict
) -> None:
    world = _world(module)
    stack = world.create_stack("s", _template(type_name, first))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert _admin_quotas(world, service) == first
    resource_id = stack.resources["q"].resource_id
    stack = world.update_stack("s", _template(type_name, changed))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["q"].resource_id == resource_id  # in place: no replacement
    assert _admin_quotas(world, service) == changed
    q_events = [(e.action, e.status) for e in world.stack_events("s") if e.resource_name == "q"]
    assert q_events[-2:] == [("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE")]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    if type_name == "OS::Neutron::Quota":
        # Heat 27 deletes the neutron quota of the resource's physical name, not of its
        # project (heat/engine/resources/openstack/neutron/quota.py), so the project keeps them
        assert _admin_quotas(world, service) == changed
    else:
        assert _admin_quotas(world, service) == {}  # back to the service's defaults
        svc = world.cloud.service(service)
        admin = world.client_plugin("keystone").client().projects.find(name="admin").id
        assert svc.project_quota(admin) == dict(sorted(svc.quotas.items()))
    world.close()


@requires_heat
def test_a_limit_the_fake_cloud_does_not_keep_fails_in_one_line() -> None:
    world = _world("nova.quota")
    stack = world.create_stack("s", _template("OS::Nova::Quota", {"floating_ips": 3}))
    assert stack.state == "CREATE_FAILED"
    assert "Bad key 'floating_ips'" in stack.status_reason
    assert "\n" not in stack.status_reason
    world.close()
