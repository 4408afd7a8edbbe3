"""The world's projects and users are keystone's (issue 35, item 2).

Heat's ``OS::Nova::Quota`` / ``OS::Cinder::Quota`` take ``project: demo``; under
``--world devstack`` (which declares ``demo``) Heat's ``keystone.project``
constraint and keystone client plug-in find it, as they find DevStack's demo
project in Heat.
"""

from __future__ import annotations

import pytest
from _heat_diff import requires_heat

from simulator.world import World


def _world() -> World:
    return World(seed=3, world_file="devstack")


def test_keystone_holds_the_worlds_projects_and_users_with_their_roles():
    world = _world()
    try:
        keystone = world.client_plugin("keystone").client()
        names = sorted(p.name for p in keystone.projects.list())
        assert {"admin", "demo", "alt_demo", "service", "invisible_to_admin"} <= set(names)
        assert names.count("admin") == 1
        demo = keystone.projects.find(name="demo")
        # the same project the world file's entity holds: one id everywhere
        held = {e.name: e.id for e in world.cloud.service("entity")._live("project")}
        assert demo.id == held["demo"]
        user = keystone.users.find(name="demo")
        identity = world.cloud.service("identity")
        role_names = {r.id: r.name for r in identity._live("role")}
        roles = {
            role_names[a.attrs["role_id"]]
            for a in identity._live("role_assignment")
            if a.attrs.get("user_id") == user.id and a.attrs.get("project_id") == demo.id
        }
        assert roles == {"member", "anotherrole"}
    finally:
        world.close()


def test_the_default_world_has_only_keystones_bootstrap():
    world = World(seed=3)
    try:
        keystone = world.client_plugin("keystone").client()
        assert sorted(p.name for p in keystone.projects.list()) == ["admin", "service"]
    finally:
        world.close()


@requires_heat
@pytest.mark.parametrize(
    ("module", "type_name"),
    [("nova.quota", "OS::Nova::Quota"), ("cinder.quota", "OS::Cinder::Quota")],
)
def test_heats_quota_on_the_devstack_demo_project(module: str, type_name: str) -> None:
    from simulator.heat_compat import use_heat_plugins

    world = _world()
    try:
        report = use_heat_plugins(world, "heat.engine.resources.openstack." + module)
        assert not report.errors, report.errors
        limit = "instances" if "Nova" in type_name else "volumes"
        template = {
            "heat_template_version": "2018-08-31",
            "resources": {"q": {"type": type_name, "properties": {"project": "demo", limit: 7}}},
        }
        world.validate_template(template)
        stack = world.create_stack("q", template)
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        demo = world.client_plugin("keystone").client().projects.find(name="demo").id
        service = "compute" if "Nova" in type_name else "block_storage"
        assert world.cloud.service(service).project_quotas[demo][limit] == 7
        stack = world.delete_stack("q")
        assert stack.status == "COMPLETE", stack.status_reason
    finally:
        world.close()
