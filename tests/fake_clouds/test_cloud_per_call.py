"""What the fake cloud's cheaper per-call path must keep: copies stay copies, defaults stay live.

Each test pins a behaviour a shortcut of the dispatch path could lose: an entity built
from a caller's dict owns its own containers, a latency model built after
:data:`DEFAULT_LATENCY` changed in place follows the change (the default entries are
parsed once), the idle call is the same one outside every operation, and a client object
has every field of its view as an attribute, as a novaclient resource does.
"""

from __future__ import annotations

import pytest

from fake_clouds import FakeCloud
from fake_clouds.core.entities import Entity, Transition
from fake_clouds.core.latency import DEFAULT_LATENCY, LatencyModel
from fake_clouds.core.tracking import TrackedDict, TrackedList


def test_an_entity_owns_tracked_copies_of_the_containers_it_is_given():
    attrs = {"meta": {"tags": ["a"]}}
    pending = [Transition(5.0, "ACTIVE")]
    ent = Entity("compute", "server", "i", "n", "BUILD", attrs, pending=pending)
    attrs["meta"]["tags"].append("b")
    pending.clear()
    assert ent.attrs == {"meta": {"tags": ["a"]}}
    assert [t.status for t in ent.pending] == ["ACTIVE"]
    assert type(ent.attrs) is TrackedDict and type(ent.attrs["meta"]["tags"]) is TrackedList
    assert type(ent.pending) is TrackedList
    bare = Entity("compute", "server", "j", "m", "ACTIVE")
    assert (bare.attrs, bare.pending, bare.owner) == ({}, [], None)


def test_an_entity_put_in_a_store_reports_its_changes_from_then_on():
    cloud = FakeCloud(seed=1)
    compute = cloud.service("compute")
    server = compute.create_server("s", "cirros", "m1.tiny")
    cloud.state_delta()
    ent = compute._store["server"][server["id"]]
    ent.attrs["metadata"]["k"] = "v"
    keys = [e[:3] for e in cloud.state_delta().entities]
    assert keys == [("compute", "server", server["id"])]


def test_a_model_built_after_a_default_changed_in_place_follows_it(monkeypatch):
    assert LatencyModel().lookup("calls", "compute.servers.create").to_spec()["median"] == 0.8
    spec = dict(DEFAULT_LATENCY["calls"]["compute.servers.create"], median=2.5)
    monkeypatch.setitem(DEFAULT_LATENCY["calls"], "compute.servers.create", spec)
    assert LatencyModel().lookup("calls", "compute.servers.create").to_spec()["median"] == 2.5
    spec["median"] = 4.0  # the same object, changed in place
    assert LatencyModel().lookup("calls", "compute.servers.create").to_spec()["median"] == 4.0
    spec["sigma"] = -1.0
    with pytest.raises(Exception, match="latency.calls.compute.servers.create.sigma"):
        LatencyModel()


def test_the_idle_call_is_one_object_until_the_world_changes_its_streams():
    cloud = FakeCloud(seed=4)
    idle = cloud.call
    cloud.service("compute").list_servers()
    assert cloud.call is idle and idle.effect is None and idle.time_factor == 1.0
    cloud.latency = LatencyModel({"calls": {"*": 0.5}})
    assert cloud.call is not idle and cloud.call.latency is cloud.latency


def test_every_field_of_a_view_is_an_attribute_of_the_client_object():
    cloud = FakeCloud(seed=2)
    nova = cloud.client("nova")
    server = nova.servers.create(name="s", image="cirros", flavor="m1.tiny")
    fetched = nova.servers.get(server.id)
    assert getattr(fetched, "OS-EXT-AZ:availability_zone") == "nova"
    assert fetched.status == fetched.to_dict()["status"]
    fetched.metadata["x"] = "1"  # the object's fields are its own
    assert fetched.to_dict()["metadata"] == {"x": "1"}
    assert nova.servers.get(server.id).metadata == {}


def test_a_world_made_after_the_default_world_changed_in_place_holds_the_change(monkeypatch):
    from fake_clouds import default_world

    first = default_world.seeds("compute")
    first[0].attrs["ram"] = -1  # a caller's seeds are its own
    assert default_world.seeds("compute")[0].attrs["ram"] == 512
    monkeypatch.setitem(default_world.DEFAULT_WORLD["flavors"][0], "ram", 768)
    flavor = FakeCloud(seed=1).client("nova").flavors.get("1")
    assert flavor.ram == 768


def test_a_call_without_fault_rules_still_makes_the_faults_stream():
    cloud = FakeCloud(seed=6)
    assert "faults" not in cloud.rng.draws()
    cloud.service("compute").list_servers()
    assert cloud.rng.draws()["faults"] == 1  # seeded, nothing drawn


def test_trace_entries_and_history_records_are_still_frozen_values():
    import dataclasses

    from fake_clouds.core.history import HistoryRecord
    from fake_clouds.core.world import TraceEntry

    entry = TraceEntry(1.5, "compute", "servers.get", None, "ok", 0.25)
    assert entry == TraceEntry(**entry.to_dict()) and hash(entry) == hash(
        TraceEntry(**entry.to_dict())
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.outcome = "NotFound"
    record = HistoryRecord(
        "compute",
        "server",
        "i",
        1,
        "compute.servers.create",
        "create",
        0.5,
        "handle_create",
        "p.py:3",
        "BUILD",
        "ok",
    )
    assert record.fault is None and record == HistoryRecord(**record.to_dict())
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.status = "ACTIVE"
    cloud = FakeCloud(seed=3)
    server = cloud.service("compute").create_server("s", "cirros", "m1.tiny")
    saved = FakeCloud.from_state(cloud.to_state())
    assert saved.trace() == cloud.trace() and saved.trace()[-1].entity_id == server["id"]
    assert [r.op for r in cloud.entity_history("server", server["id"])] == ["create"]


def test_attributes_given_to_an_entity_later_are_copied_once_and_tracked():
    from fake_clouds.core.tracking import adopt, merge

    class Odd:  # a value that is neither JSON-like nor a container: deep-copied, as plain() does
        def __init__(self):
            self.seen = []

    cloud = FakeCloud(seed=7)
    compute = cloud.service("compute")
    server = compute.create_server("s", "cirros", "m1.tiny")
    ent = compute._store["server"][server["id"]]
    cloud.state_delta()
    given = {"tags": {"a": [1, 2]}, "odd": Odd()}
    compute._set(ent, **given)
    given["tags"]["a"].append(3)
    given["odd"].seen.append("x")
    assert ent.attrs["tags"] == {"a": [1, 2]} and ent.attrs["odd"].seen == []
    assert type(ent.attrs["tags"]["a"]) is TrackedList and ent.attrs["tags"]["a"]._owner is ent
    assert [e[2] for e in cloud.state_delta().entities] == [server["id"]]
    ent.attrs["tags"]["a"].append(4)  # a change in place of what was given is reported
    assert [e[2] for e in cloud.state_delta().entities] == [server["id"]]
    copied = adopt({"x": ({"y": 1},)}, ent)
    assert copied == {"x": ({"y": 1},)} and type(copied) is TrackedDict
    target = {"k": 1}
    merge(target, {"k": [5]})  # not tracked: an ordinary update of a copy
    assert target == {"k": [5]}
