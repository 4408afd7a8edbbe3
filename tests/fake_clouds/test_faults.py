"""Fault rules: matching, effects and the record of injected faults."""

from __future__ import annotations

import pytest
from fake_cloud_helpers import active_server

from fake_clouds import FakeCloud, FaultRule
from sdk import exception


def boot(cloud, name="web"):
    return cloud.client("nova").servers.create(name=name, image="cirros", flavor="m1.tiny")


def test_nth_call_error_with_http_status_and_body():
    rules = [
        {
            "name": "second-boot",
            "service": "compute",
            "operation": "servers.create",
            "nth": 2,
            "effect": {"type": "error", "status": 500, "body": {"x": 1}},
        }
    ]
    cloud = FakeCloud(faults=rules)
    boot(cloud, "a")
    with pytest.raises(exception.ServiceUnavailable) as ex:
        boot(cloud, "b")
    assert (ex.value.code, ex.value.body) == (500, {"x": 1})
    assert str(ex.value) == "Injected ServiceUnavailable (500) on compute.servers.create"
    boot(cloud, "c")
    faults = cloud.injected_faults()
    assert [(f.operation, f.rule_index, f.rule_name, f.effect) for f in faults] == [
        ("servers.create", 0, "second-boot", "error")
    ]
    assert [t.outcome for t in cloud.trace()] == ["ok", "ServiceUnavailable", "ok"]
    assert [s.name for s in cloud.client("nova").servers.list()] == ["a", "c"]


def test_after_and_times_and_typed_error_name():
    cloud = FakeCloud(
        faults=[
            {
                "operation": "flavors.list",
                "after": 1,
                "times": 2,
                "effect": {"type": "error", "error": "Conflict"},
            }
        ]
    )
    nova = cloud.client("nova")
    outcomes = []
    for _ in range(5):
        try:
            nova.flavors.list()
            outcomes.append("ok")
        except exception.Conflict as ex:
            outcomes.append(ex.code)
    assert outcomes == ["ok", 409, 409, "ok", "ok"]


def test_first_match_wins_and_counts_see_every_call():
    rules = [
        {
            "name": "first",
            "operation": "flavors.*",
            "nth": 2,
            "effect": {"type": "error", "status": 400},
        },
        {"name": "second", "operation": "flavors.list", "nth": 2, "effect": "over_limit"},
        {"name": "third", "operation": "flavors.list", "nth": 3, "effect": "over_limit"},
    ]
    cloud = FakeCloud(faults=rules)
    nova = cloud.client("nova")
    nova.flavors.list()
    with pytest.raises(exception.BadRequest):
        nova.flavors.list()
    with pytest.raises(exception.OverLimit, match="Quota exceeded for compute.flavors.list"):
        nova.flavors.list()
    assert [f.rule_name for f in cloud.injected_faults()] == ["first", "third"]


def test_window_and_kind_matching(cloud):
    cloud.set_faults(
        [
            {
                "kind": "volume",
                "window": {"start": 100, "end": 200},
                "effect": {"type": "error", "status": 503},
            }
        ]
    )
    cinder = cloud.client("cinder")
    cinder.volumes.create(size=1)
    boot(cloud)
    cloud.clock.advance_to(150)
    boot(cloud)
    with pytest.raises(exception.ServiceUnavailable):
        cinder.volumes.list()
    cloud.clock.advance_to(200)
    cinder.volumes.list()


def test_probability_is_seeded():
    def run(seed):
        cloud = FakeCloud(
            seed=seed,
            faults=[{"operation": "flavors.list", "probability": 0.5, "effect": "over_limit"}],
        )
        nova = cloud.client("nova")
        out = []
        for _ in range(40):
            try:
                nova.flavors.list()
                out.append(0)
            except exception.OverLimit:
                out.append(1)
        return out

    first = run(3)
    assert first == run(3)
    assert 8 < sum(first) < 32
    assert first != run(4)


def test_timeout_charges_its_time_and_may_apply():
    cloud = FakeCloud(
        faults=[
            {"operation": "servers.create", "nth": 1, "effect": {"type": "timeout", "after": 45}},
            {
                "operation": "servers.create",
                "nth": 2,
                "effect": {"type": "timeout", "after": 10, "applied": True},
            },
        ]
    )
    with pytest.raises(exception.ClientTimeout, match="timed out after 45 s"):
        boot(cloud, "a")
    assert cloud.clock.now() == 45
    with pytest.raises(exception.ClientTimeout):
        boot(cloud, "b")
    assert [s.name for s in cloud.client("nova").servers.list()] == ["b"]
    assert cloud.injected_faults()[1].entity_id == cloud.client("nova").servers.list()[0].id


def test_error_state_and_stuck():
    cloud = FakeCloud(
        faults=[
            {
                "operation": "servers.create",
                "nth": 1,
                "effect": {"type": "error_state", "reason": "No valid host"},
            },
            {"operation": "servers.create", "nth": 2, "effect": "stuck"},
        ]
    )
    nova = cloud.client("nova")
    bad, stuck = boot(cloud, "bad"), boot(cloud, "stuck")
    cloud.clock.advance(10_000)
    got = nova.servers.get(bad)
    assert (got.status, got.fault["message"]) == ("ERROR", "No valid host")
    assert nova.servers.get(stuck).status == "BUILD"
    assert [(f.effect, f.entity_id) for f in cloud.injected_faults()] == [
        ("error_state", bad.id),
        ("stuck", stuck.id),
    ]


def test_error_state_on_delete_leaves_volume_in_error():
    cloud = FakeCloud(faults=[{"operation": "volumes.delete", "effect": "error_state"}])
    cinder = cloud.client("cinder")
    vol = cinder.volumes.create(size=1)
    cloud.clock.advance(30)
    cinder.volumes.delete(vol)
    cloud.clock.advance(30)
    assert cinder.volumes.get(vol).status == "error"


def test_throttle_token_bucket_with_retry_after():
    cloud = FakeCloud(
        faults=[
            {
                "name": "rl",
                "operation": "flavors.list",
                "effect": {"type": "throttle", "rate": 0.5, "burst": 2},
            }
        ],
        latency={"calls": {"*": 0}},
    )
    nova = cloud.client("nova")
    nova.flavors.list()
    nova.flavors.list()
    with pytest.raises(exception.OverLimit) as ex:
        nova.flavors.list()
    assert (ex.value.code, ex.value.retry_after) == (429, 2.0)
    assert cloud.client_plugin("nova").is_over_limit(ex.value)
    cloud.clock.advance(2.0)
    nova.flavors.list()
    assert [f.rule_name for f in cloud.injected_faults()] == ["rl"]


def test_eventual_consistency_hides_new_and_keeps_deleted():
    cloud = FakeCloud(
        faults=[
            {
                "operation": "volumes.*",
                "effect": {"type": "eventual_consistency", "lag": 20, "linger": 50},
            }
        ]
    )
    cinder = cloud.client("cinder")
    vol = cinder.volumes.create(size=1)
    with pytest.raises(exception.NotFound):
        cinder.volumes.get(vol)
    assert cinder.volumes.list() == []
    cloud.clock.advance(30)
    assert [v.id for v in cinder.volumes.list()] == [vol.id]
    cinder.volumes.delete(vol)
    cloud.clock.advance(40)
    with pytest.raises(exception.NotFound):
        cinder.volumes.get(vol)
    assert [v.id for v in cinder.volumes.list()] == [vol.id]
    assert cloud.leaks() == []
    cloud.clock.advance(100)
    assert cinder.volumes.list() == []


def test_delay_stretches_latency_and_transitions():
    slow = FakeCloud(faults="slow")
    fast = FakeCloud()
    a, b = boot(slow), boot(fast)
    done = {
        c: c.service("compute")._store["server"][s.id].pending[0].at
        for c, s in ((slow, a), (fast, b))
    }
    assert slow.trace()[0].latency > fast.trace()[0].latency * 4
    assert done[slow] - slow.clock.now() == pytest.approx(4 * (done[fast] - fast.clock.now()))


def test_python_rule_objects_and_state_effects_on_entity_service():
    rule = FaultRule.from_spec({"service": "entity", "kind": "zone", "effect": "error_state"})
    cloud = FakeCloud(faults=[rule])
    client = cloud.client("entity")
    zone = client.create("zone")
    other = client.create("record")
    cloud.clock.advance(10)
    assert (client.entities.get(zone).status, client.entities.get(other).status) == (
        "ERROR",
        "ACTIVE",
    )


def test_latency_inside_an_engine_task_becomes_debt(cloud):
    from simulator.clock import run

    async def main():
        server = active_server_async(cloud)
        before = cloud.clock.now()
        assert cloud.clock.debt() > 0
        await cloud.clock.settle()
        return server, before

    def active_server_async(c):
        return c.client("nova").servers.create(name="x", image="cirros", flavor="1")

    server, before = run(main(), cloud.clock)
    assert before == 0.0
    assert cloud.clock.now() == pytest.approx(cloud.trace()[-1].latency)
    assert server.status == "BUILD"
    active_server(cloud, "y")
