"""Each entity's history: the calls that made and changed it, when, and from which handler."""

import inspect

from fake_clouds.core import FakeCloud


def handle_create(nova):
    return nova.servers.create(name="web", image="cirros", flavor="m1.tiny")


def handle_suspend(nova, server_id):
    nova.servers.suspend(server_id)


def check_create_complete(nova, server_id):
    return nova.servers.get(server_id).status == "ACTIVE"


def handle_delete(nova, server_id):
    nova.servers.delete(server_id)


def line_in(func, text):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_create_change_and_delete_are_recorded_with_their_handler_and_instant():
    cloud = FakeCloud(seed=3)
    nova = cloud.client("compute")
    server = handle_create(nova)
    while not check_create_complete(nova, server.id):  # reads, and the boot settling: not records
        cloud.clock.advance(1.0)
    handle_suspend(nova, server.id)
    handle_delete(nova, server.id)
    records = cloud.entity_history("server", server.id)
    assert [r.op for r in records] == ["create", "update", "delete"]
    create, suspend, delete = records
    assert create.handler == "handle_create"
    assert create.site == f"test_entity_history.py:{line_in(handle_create, 'servers.create')}"
    assert create.operation == "compute.servers.create"
    assert cloud.trace()[create.call - 1].operation == "servers.create"
    assert create.at == cloud.trace()[create.call - 1].time
    assert create.status == "BUILD" and create.outcome == "ok" and create.fault is None
    assert suspend.handler == "handle_suspend" and suspend.at > create.at
    assert delete.handler == "handle_delete"
    assert cloud.history.creator("server", server.id) == create
    assert cloud.entity_history("server", "no-such-id") == []


def test_a_faulted_call_records_its_fault_and_outcome():
    cloud = FakeCloud(
        seed=1,
        faults=[
            {
                "name": "late",
                "service": "compute",
                "operation": "servers.create",
                "effect": {"type": "timeout", "after": 30, "applied": True},
            }
        ],
    )
    nova = cloud.client("compute")
    try:
        handle_create(nova)
    except Exception as ex:  # noqa: BLE001 - the injected timeout
        assert "timed out" in str(ex)
    (made,) = [i for i in cloud.inventory() if i.kind == "server" and not i.preseeded]
    (record,) = cloud.entity_history("server", made.id)
    assert record.op == "create" and record.outcome == "ClientTimeout"
    assert record.fault == "timeout (late)"
    assert record.handler == "handle_create"


def test_a_call_outside_any_handler_names_the_innermost_plugin_function():
    cloud = FakeCloud(seed=2)
    server = (
        cloud.service("compute").client().servers.create(name="x", image="cirros", flavor="m1.tiny")
    )
    (record,) = cloud.entity_history("server", server.id)
    # this test module is plug-in code as far as the cloud can tell: the test function is named
    assert record.handler == "test_a_call_outside_any_handler_names_the_innermost_plugin_function"
