"""The fake cloud is committed in pieces: what the store holds is always the whole cloud.

After every commit of a world (one per virtual instant, or per transition),
the cloud rebuilt from the store's rows equals the live cloud, entity for
entity and in the same order, with the same random streams, trace and fault
bookkeeping; and a commit writes only the entities that changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_clouds.core.world import FakeCloud
from simulator.world import World

LIBRARY = Path(__file__).parents[1] / "library" / "templates"
#: The first template runs in the default tier; the other three (2-3 CPU seconds each per
#: durability, a full reload of the cloud after every commit) run in the material tier.
TEMPLATES = [
    "web_server_with_volume.yaml",
    *(
        pytest.param(name, marks=pytest.mark.material)
        for name in (
            "private_net_floating_ips.yaml",
            "app_software_deployment.yaml",
            "autoscaling_web.yaml",
        )
    ),
]


def stored_cloud(world):
    state = world.store.load_cloud(world.clock.now())
    return FakeCloud.from_state(state).to_state()


def watch_commits(world):
    """Compare the stored cloud with the live one after every commit."""
    checked = []
    commit = world.commit

    def checking_commit():
        commit()
        if not world.store.in_block:
            assert stored_cloud(world) == world.cloud.to_state()
            checked.append(world.clock.now())

    world.commit = checking_commit
    world.clock.before_jump = checking_commit
    return checked


@pytest.mark.parametrize("name", TEMPLATES)
@pytest.mark.parametrize("durability", ["instant", "transition"])
def test_the_stored_cloud_equals_the_live_cloud_after_every_commit(tmp_path, name, durability):
    world = World.open(tmp_path / "w.db", seed=3, faults="slow", durability=durability)
    if durability == "transition":
        world.store.on_transition = lambda: world.commit()
    checked = watch_commits(world)
    try:
        template = str(LIBRARY / name)
        world.create_stack("s", template)
        world.suspend_stack("s")
        world.resume_stack("s")
        world.delete_stack("s")
    finally:
        world.close()
    assert len(checked) > 5
    again = World.open(tmp_path / "w.db", readonly=True)
    try:
        assert again.cloud.to_state() == stored_cloud(again)
        assert again.cloud.leaks() == []
    finally:
        again.close()


def test_a_commit_writes_only_the_entities_that_changed(tmp_path):
    world = World.open(tmp_path / "w.db", seed=1)
    try:
        world.commit()
        net = world.cloud.client("network")
        created = [
            net.create_network({"network": {"name": f"n{i}"}})["network"]["id"] for i in range(20)
        ]
        delta = world.cloud.state_delta()
        assert sorted(e[2] for e in delta.entities) == sorted(created)
        assert all(stamp for *_, stamp in delta.entities)  # each took a new place
        world.store.save_cloud(delta)
        world.store.commit()
        net.update_network(created[3], {"network": {"name": "renamed"}})
        delta = world.cloud.state_delta()
        assert [(e[2], e[3]["name"], e[4]) for e in delta.entities] == [(created[3], "renamed", 0)]
        world.store.save_cloud(delta)
        world.store.commit()
        net.delete_network(created[5])
        world.clock.advance(3600)
        net.list_networks()
        delta = world.cloud.state_delta()
        assert [(e[2], e[3]) for e in delta.entities] == [(created[5], None)]
        world.store.save_cloud(delta)
        world.store.commit()
        assert stored_cloud(world) == world.cloud.to_state()
    finally:
        world.close()


def test_nested_values_changed_in_place_are_tracked(tmp_path):
    world = World.open(tmp_path / "w.db", seed=1)
    try:
        world.commit()
        net = world.cloud.client("network")
        nid = net.create_network({"network": {"name": "n"}})["network"]["id"]
        world.commit()
        ent = world.cloud.service("network")._store["network"][nid]
        ent.attrs.setdefault("tags", []).append("a")
        ent.attrs["tags"].append({"k": [1]})
        ent.attrs["tags"][1]["k"].append(2)
        world.commit()
        assert stored_cloud(world) == world.cloud.to_state()
        stored = {
            e["id"]: e for e in stored_cloud(world)["services"]["network"]["entities"]["network"]
        }
        assert stored[nid]["attrs"]["tags"] == ["a", {"k": [1, 2]}]
        view = net.show_network(nid)["network"]
        view["tags"].append("not the entity's")  # a view is a copy, not the entity
        assert ent.attrs["tags"] == ["a", {"k": [1, 2]}]
    finally:
        world.close()
