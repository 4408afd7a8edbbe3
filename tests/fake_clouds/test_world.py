"""Seed determinism, state round-trips, inventory and leaks, backends and clients."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

import fake_clouds
from fake_clouds import FakeCloud, Service, backend, load_backend, operation
from fake_clouds.core import registry
from sdk import exception
from sdk.context import LocalContext


def scenario(cloud: FakeCloud, start: int = 0, count: int = 4) -> None:
    """A small mixed workload, tolerant of injected faults."""
    nova, cinder, neutron = cloud.client("nova"), cloud.client("cinder"), cloud.client("neutron")
    for i in range(start, start + count):
        try:
            server = nova.servers.create(name=f"s{i}", image="cirros", flavor="m1.tiny")
            vol = cinder.volumes.create(size=1 + i)
            cloud.clock.advance(60)
            nova.servers.get(server.id)
            neutron.create_network({"network": {"name": f"n{i}"}})
            cinder.volumes.extend(vol.id, 10 + i)
            nova.flavors.list()
        except exception.ClientError:
            cloud.clock.advance(5)


def trace_of(cloud):
    return [t.to_dict() for t in cloud.trace()]


def test_same_seed_same_trace_and_ids():
    a, b = FakeCloud(seed=42, faults="flaky"), FakeCloud(seed=42, faults="flaky")
    scenario(a, count=8)
    scenario(b, count=8)
    assert trace_of(a) == trace_of(b)
    assert a.inventory() == b.inventory()
    assert [f.to_dict() for f in a.injected_faults()] == [f.to_dict() for f in b.injected_faults()]
    c = FakeCloud(seed=43, faults="flaky")
    scenario(c, count=8)
    assert trace_of(a) != trace_of(c)


def test_adding_a_fault_rule_does_not_shift_ids():
    plain = FakeCloud(seed=5)
    faulty = FakeCloud(
        seed=5,
        faults=[
            {"operation": "flavors.list", "probability": 0.5, "effect": "over_limit"},
            {"operation": "servers.create", "effect": {"type": "delay", "factor": 2}},
        ],
    )
    scenario(plain)
    scenario(faulty)
    ids = lambda c: [(i.kind, i.id) for i in c.leaks()]  # noqa: E731
    assert ids(plain) == ids(faulty)
    assert faulty.injected_faults()


def test_state_round_trip_is_exact():
    original = FakeCloud(seed=9, faults="chaos")
    scenario(original, count=5)
    state = json.loads(json.dumps(original.to_state()))
    restored = FakeCloud.from_state(state)
    assert restored.to_state() == state
    assert restored.inventory() == original.inventory()
    scenario(original, start=5, count=5)
    scenario(restored, start=5, count=5)
    assert trace_of(restored) == trace_of(original)
    assert restored.to_state() == original.to_state()


def test_bad_state_is_a_configuration_error():
    with pytest.raises(exception.ConfigurationError, match="unsupported or missing format"):
        FakeCloud.from_state({"format": 99})


def test_inventory_and_leaks(cloud):
    nova = cloud.client("nova")
    assert cloud.leaks() == []
    assert all(item.preseeded for item in cloud.inventory())
    snap = cloud.snapshot_inventory()
    server = nova.servers.create(name="web", image="cirros", flavor="1")
    vol = cloud.client("cinder").volumes.create(size=1, name="data")
    leaked = cloud.leaks(since=snap)
    assert [(i.service, i.kind, i.name, i.status) for i in leaked] == [
        ("block_storage", "volume", "data", "creating"),
        ("compute", "server", "web", "BUILD"),
    ]
    assert fake_clouds.leaks(snap, cloud.inventory()) == leaked
    nova.servers.delete(server)
    cloud.clock.advance(60)
    cloud.client("cinder").volumes.delete(vol)
    assert [i.name for i in cloud.leaks(since=snap)] == ["data"]
    cloud.clock.advance(60)
    assert cloud.leaks(since=snap) == []


def test_client_names_and_plugins(cloud):
    assert cloud.client("nova") is cloud.client("compute")
    plugins = cloud.client_plugins()
    assert sorted(plugins) == [
        "block_storage",
        "cinder",
        "compute",
        "entity",
        "network",
        "neutron",
        "nova",
        "object_storage",
        "swift",
    ]
    ctx = LocalContext(plugins)
    assert ctx.client_plugin("neutron").client() is cloud.client("network")
    with pytest.raises(exception.ConfigurationError, match="No fake cloud service 'glance'"):
        cloud.client("glance")


def test_load_backend_default_and_entry_points(monkeypatch):
    cloud = load_backend(seed=3)
    assert isinstance(cloud, FakeCloud) and cloud.seed == 3
    monkeypatch.setattr(
        backend.metadata,
        "entry_points",
        lambda group: [metadata.EntryPoint("tiny", "tests_fc_backend:factory", group)],
    )
    import sys
    import types

    module = types.ModuleType("tests_fc_backend")
    module.factory = lambda **kw: [registry.service_class("compute")]
    monkeypatch.setitem(sys.modules, "tests_fc_backend", module)
    tiny = load_backend("tiny", seed=1)
    assert tiny.service_names() == ["compute"]
    assert backend.available_backends() == ["default", "tiny"]
    with pytest.raises(exception.ConfigurationError, match="No fake cloud backend 'nope'"):
        load_backend("nope")
    assert backend.ENTRY_POINT_GROUP == "plugsim.fake_clouds"


def test_broken_backend_is_a_plugin_load_error(monkeypatch):
    monkeypatch.setattr(
        backend.metadata,
        "entry_points",
        lambda group: [metadata.EntryPoint("broken", "no_such_module_xyz:factory", group)],
    )
    with pytest.raises(exception.PluginLoadError, match="'broken' .* failed to load"):
        load_backend("broken")


def test_world_without_optional_services():
    cloud = FakeCloud(services=["compute", "entity"])
    server = cloud.client("nova").servers.create(
        name="a", image="cirros", flavor="1", networks=[{"uuid": "x"}]
    )
    assert server.addresses == {}
    with pytest.raises(exception.ConfigurationError, match="No fake cloud service type 'dns'"):
        FakeCloud(services=["dns"])


class _Probe(Service):
    """Reports the call it runs in."""

    name = "probe"
    kinds = {"thing": "BROKEN"}

    @operation("things.look", kind="thing")
    def look(self):
        call = self.world.call
        return {"effect": call.effect, "factor": call.time_factor, "reason": call.reason}


def test_the_call_object_carries_the_fault_of_the_running_operation_only():
    rules = [
        {"operation": "things.look", "times": 1, "effect": {"type": "delay", "factor": 3}},
        {"operation": "things.look", "effect": {"type": "error_state", "reason": "disk gone"}},
    ]
    cloud = FakeCloud(seed=2, services=[_Probe], faults=rules)
    idle = cloud.call
    assert (idle.effect, idle.time_factor, idle.reason) == (None, 1.0, "")
    probe = cloud.service("probe")
    assert probe.look() == {"effect": "delay", "factor": 3, "reason": "Injected fault"}
    assert probe.look() == {"effect": "error_state", "factor": 1.0, "reason": "disk gone"}
    assert cloud.call.effect is None


def test_a_trace_entry_as_a_dict_is_every_field_in_order():
    import dataclasses

    from fake_clouds.core.world import TraceEntry

    entry = TraceEntry(1.5, "compute", "servers.get", None, "NotFound", 0.25)
    assert entry.to_dict() == dataclasses.asdict(entry)
    assert list(entry.to_dict()) == [f.name for f in dataclasses.fields(TraceEntry)]


def test_a_client_object_is_a_copy_the_caller_and_the_cloud_cannot_change():
    cloud = FakeCloud(seed=1)
    nova = cloud.client("nova")
    info = {"id": "x", "metadata": {"a": [1, {"b": 2}]}}
    obj = nova.servers.resource_class(nova.servers, info)
    info["metadata"]["a"][1]["b"] = 99
    assert obj.metadata == {"a": [1, {"b": 2}]}
    copy = obj.to_dict()
    copy["metadata"]["a"].append(3)
    assert obj.to_dict() == {"id": "x", "metadata": {"a": [1, {"b": 2}]}}
    server = nova.servers.create(name="s", image="cirros", flavor="m1.tiny")
    server.metadata["k"] = "v"
    assert "k" not in nova.servers.get(server.id).metadata


def test_arguments_are_checked_and_ids_traced_however_a_call_passes_them():
    cloud = FakeCloud(seed=3)
    compute = cloud.service("compute")
    server = compute.create_server("s", "cirros", "m1.tiny")
    for _ in range(2):  # the second round takes the remembered shapes
        compute.get_server(server["id"])
        compute.get_server(server_id=server["id"])
        calls = len(cloud.trace())
        with pytest.raises(exception.BadRequest, match="compute.servers.get: .*argument"):
            compute.get_server(server["id"], "extra")
        with pytest.raises(exception.BadRequest, match="compute.servers.get: .*argument"):
            compute.get_server(nope=server["id"])
        with pytest.raises(exception.BadRequest, match="compute.servers.get: .*argument"):
            compute.get_server()
        assert len(cloud.trace()) == calls  # a call that does not bind never reaches the cloud
    traced = [t.entity_id for t in cloud.trace() if t.operation == "servers.get"]
    assert traced == [server["id"]] * 4
