"""A real ``plugsim`` process killed (SIGKILL) at any point leaves a world that is a committed state.

A stack of 200 resources (40 ``OS::Neutron::Net`` and 160
``OS::Heat::TestResource`` in two resource groups) is created, or deleted, by
a ``plugsim`` process that is killed after a seeded random number of printed
events, ten points each. The reopened world must then agree with itself:

* every ``CREATE_COMPLETE`` network's physical id exists in the fake cloud, and
  every fake-cloud entity is the physical resource of some resource (no orphan);
* the virtual clock is not behind the last event;
* a new stack draws a fresh id (nothing is overwritten);
* ``stack update --existing`` (after a killed create) and ``stack delete`` then
  succeed, and the delete leaves nothing in the fake cloud.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from simulator.world import World
from tests.world.conftest import plugsim_argv, run_until_killed

#: Real plugsim processes killed at every point: the material tier (``-m material``).
pytestmark = pytest.mark.material

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  nets:
    type: OS::Heat::ResourceGroup
    properties:
      count: 40
      resource_def:
        type: OS::Neutron::Net
        properties:
          name: net-%index%
  marks:
    type: OS::Heat::ResourceGroup
    properties:
      count: 160
      resource_def:
        type: OS::Heat::TestResource
        properties:
          value: mark-%index%
"""
#: events a whole create (or delete) prints: 2 per resource, 2 per group, 2 per stack
EVENTS = 2 * 200 + 2 * 2 + 2 * 3
SMALL = {
    "heat_template_version": "2018-08-31",
    "resources": {"n": {"type": "OS::Neutron::Net"}},
}
POINTS = random.Random(18).sample(range(1, EVENTS - 1), 10)


def check_world(path: Path) -> World:
    """Reopen the world a killed process left and check that it agrees with itself."""
    world = World.open(path)
    stacks = world.store.list_stacks(nested=True, include_deleted=True)
    physical: dict[str, tuple[str, str, str]] = {}
    for rec in stacks:
        for row in world.store.resources(rec.id):
            if row.physical_id:
                physical[row.physical_id] = (row.type, row.action, row.status)
    entities = {item.id for item in world.cloud.inventory() if not item.preseeded}
    complete = {
        pid
        for pid, state in physical.items()
        if state == ("OS::Neutron::Net", "CREATE", "COMPLETE")
    }
    assert complete <= entities, "a CREATE_COMPLETE network is missing from the cloud"
    assert entities <= set(physical), "a fake-cloud entity belongs to no resource"
    events = world.store.events()
    if events:
        assert world.clock.now() >= max(ev.time for ev in events)
    assert all(rec.status != "IN_PROGRESS" for rec in stacks)
    (lease,) = [ev for ev in world.recovered if ev.action == "LEASE"]
    assert "no longer running" in lease.reason
    return world


def create_fresh_stack(world: World) -> None:
    before = {rec.id for rec in world.store.list_stacks(nested=True, include_deleted=True)}
    other = world.create_stack("other", SMALL)
    assert other.state == "CREATE_COMPLETE"
    assert other.id not in before
    assert world.delete_stack("other").state == "DELETE_COMPLETE"


def delete_leaves_nothing(world: World) -> None:
    if world.store.get_stack("big") is not None and not world.store.get_stack("big").deleted:
        stack = world.delete_stack("big")
        assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert [item for item in world.cloud.inventory() if not item.preseeded] == []


@pytest.fixture(scope="module")
def template_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("kill")
    (path / "big.yaml").write_text(TEMPLATE)
    return path


@pytest.fixture(scope="module")
def created_world(template_dir):
    """A world file holding the complete stack (for the delete kills)."""
    import subprocess

    from tests.world.conftest import plugsim_env

    done = subprocess.run(
        plugsim_argv("--state", "created.db", "stack", "create", "-t", "big.yaml", "big"),
        cwd=template_dir,
        env=plugsim_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return template_dir / "created.db"


@pytest.mark.parametrize("point", POINTS)
def test_a_create_killed_at_any_point_leaves_a_committed_world(template_dir, point):
    db = template_dir / f"create-{point}.db"
    run_until_killed(
        ["--state", db.name, "stack", "create", "-t", "big.yaml", "big"], template_dir, point
    )
    world = check_world(db)
    try:
        create_fresh_stack(world)
        rec = world.store.get_stack("big")
        if rec is not None:
            stack = world.update_stack("big", None)
            assert stack.state == "UPDATE_COMPLETE", stack.status_reason
            assert len(world.get_stack("big").resources) == 2
        delete_leaves_nothing(world)
    finally:
        world.close()


@pytest.mark.parametrize("point", POINTS)
def test_a_delete_killed_at_any_point_leaves_a_committed_world(template_dir, created_world, point):
    db = template_dir / f"delete-{point}.db"
    shutil.copy(created_world, db)
    run_until_killed(["--state", db.name, "stack", "delete", "big"], template_dir, point)
    world = check_world(db)
    try:
        create_fresh_stack(world)
        delete_leaves_nothing(world)
    finally:
        world.close()
