"""OS::Heat::WaitConditionHandle + WaitCondition: signals through the API, the CLI and servers."""

import json

import pytest
from click.testing import CliRunner

from sdk import exception
from simulator.cli import main
from simulator.world import World
from tests.library.conftest import outputs, tmpl


def waiting(count=1, timeout=600, extra=None):
    return tmpl(
        {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "h"}, "count": count, "timeout": timeout},
            },
            **(extra or {}),
        },
        outputs={
            "data": {"value": {"get_attr": ["w", "data"]}},
            "curl": {"value": {"get_attr": ["h", "curl_cli"]}},
            "endpoint": {"value": {"get_attr": ["h", "endpoint"]}},
        },
    )


def signal_when_handle_ready(world, *signals):
    """Send *signals* to h as soon as it is created (from an event listener)."""

    def listener(ev):
        if ev.resource_name == "h" and ev.action == "CREATE" and ev.status == "COMPLETE":
            for data in signals:
                world.signal_resource("s", "h", data)

    world.listeners.append(listener)


def test_wait_condition_completes_on_a_signal_and_exposes_its_data(world):
    signal_when_handle_ready(world, {"status": "SUCCESS", "data": "ok", "id": "a"})
    stack = world.create_stack("s", waiting())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    out = outputs(stack)
    assert json.loads(out["data"]) == {"a": "ok"}
    assert out["endpoint"].startswith("https://orchestration.plugsim.invalid/v1/signal/s-h-")
    assert out["curl"].endswith(out["endpoint"])
    signal_events = [
        (e.resource_name, e.state, e.reason)
        for e in world.stack_events("s")
        if e.action == "SIGNAL"
    ]
    assert signal_events == [("h", "SIGNAL_COMPLETE", "Signal: SUCCESS Signal received")]


def test_count_needs_that_many_successes_and_default_ids_number_them(world):
    signal_when_handle_ready(world, None, {"data": "second"})
    stack = world.create_stack("s", waiting(count=2))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert json.loads(outputs(stack)["data"]) == {"1": None, "2": "second"}


def test_too_few_signals_time_out_with_the_count_received(world):
    signal_when_handle_ready(world, {"status": "SUCCESS"})
    stack = world.create_stack("s", waiting(count=3, timeout=120))
    assert stack.state == "CREATE_FAILED"
    w = stack.resources["w"]
    assert w.state == ("CREATE", "FAILED")
    assert w.status_reason == "WaitConditionTimeout: 1 of 3 received"
    assert 120 <= world.clock.now() < 120 + 31


def test_a_failure_signal_fails_the_wait_with_its_reason(world):
    signal_when_handle_ready(world, {"status": "FAILURE", "reason": "install broke"})
    stack = world.create_stack("s", waiting())
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["w"].status_reason == "WaitConditionFailure: install broke"


def test_bad_signals_are_refused_with_a_clear_message(world):
    world.create_stack("s", tmpl({"h": {"type": "OS::Heat::WaitConditionHandle"}}))
    with pytest.raises(exception.StackValidationFailed, match="Signal status 'DONE' is not one"):
        world.signal_resource("s", "h", {"status": "DONE"})
    with pytest.raises(exception.StackValidationFailed, match="Unknown signal key"):
        world.signal_resource("s", "h", {"colour": "red"})
    with pytest.raises(exception.EntityNotFound):
        world.signal_resource("s", "nope", None)


def test_a_resource_without_signals_refuses_them(world):
    world.create_stack("s", tmpl({"n": {"type": "OS::Heat::None"}}))
    with pytest.raises(exception.NotSupportedAction, match="does not take signals"):
        world.signal_resource("s", "n", None)


def test_wait_condition_naming_something_else_than_a_handle_fails_naming_the_property(world):
    t = tmpl(
        {
            "n": {"type": "OS::Heat::None"},
            "w": {"type": "OS::Heat::WaitCondition", "properties": {"handle": "n", "timeout": 60}},
        }
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert "resources.w.properties.handle" in stack.resources["w"].status_reason


def test_cli_signal_reaches_a_wait_condition_added_by_a_later_update(tmp_path):
    state = str(tmp_path / "w.db")
    handle_only = tmpl({"h": {"type": "OS::Heat::WaitConditionHandle"}})
    with World.open(state) as w:
        assert w.create_stack("s", handle_only).state == "CREATE_COMPLETE"
    runner = CliRunner()
    sent = runner.invoke(
        main,
        ["--state", state, "stack", "resource", "signal", "s", "h", "--data", '{"data": "v"}'],
    )
    assert sent.exit_code == 0, sent.output
    assert json.loads(sent.output) == {
        "data": "v",
        "id": "1",
        "reason": "Signal received",
        "status": "SUCCESS",
    }
    bad = runner.invoke(
        main, ["--state", state, "stack", "resource", "signal", "s", "h", "--data", "{"]
    )
    assert bad.exit_code == 2
    assert "not valid JSON" in bad.output
    with World.open(state) as w:
        stack = w.update_stack("s", waiting(timeout=60))
        assert stack.state == "UPDATE_COMPLETE", stack.status_reason
        assert json.loads(outputs(stack)["data"]) == {"1": "v"}
        w.delete_stack("s")


def test_wait_condition_runs_are_deterministic():
    def run():
        with World() as w:
            signal_when_handle_ready(w, {"id": "x"})
            w.create_stack("s", waiting(count=2, timeout=90))
            return [(e.time, e.resource_name, e.state, e.reason) for e in w.stack_events("s")]

    assert run() == run()


def test_deleting_the_handle_forgets_its_signals(world):

    stack = world.create_stack("s", tmpl({"h": {"type": "OS::Heat::WaitConditionHandle"}}))
    world.signal_resource("s", "h", {"data": 1})
    assert [s["data"] for s in world.store.signals(stack.id, "h")] == [1]
    world.delete_stack("s")
    assert world.store.signals(stack.id, "h") == []


UPDATE_HANDLE_SCRIPT = """#!/bin/sh
if grep -q vdb /proc/partitions
then
  curl -X PUT -H 'Content-Type:' --data-binary '{"Status": "SUCCESS", "Reason": "Test Complete", "Data": "VERSION", "UniqueId": "instance1"}' "wc_url"
else
  curl -X PUT -H 'Content-Type:' --data-binary '{"Status": "FAILURE", "Reason": "Test Failed", "Data": "no disk", "UniqueId": "instance1"}' "wc_url"
fi
"""


def _update_handle_stack(version):
    """heat-tempest-plugin's test_volumes_delete_snapshot shape: the handle's URL in user_data."""
    return tmpl(
        {
            "h": {"type": "OS::Heat::UpdateWaitConditionHandle"},
            "server": {
                "type": "OS::Nova::Server",
                "properties": {
                    "image": "cirros",
                    "flavor": "m1.tiny",
                    "user_data_format": "RAW",
                    "user_data": {
                        "str_replace": {
                            "template": UPDATE_HANDLE_SCRIPT.replace("VERSION", version),
                            "params": {"wc_url": {"get_resource": "h"}},
                        }
                    },
                },
            },
            "w": {
                "type": "OS::Heat::WaitCondition",
                "depends_on": "server",
                "properties": {"handle": {"get_resource": "h"}, "timeout": 600},
            },
        },
        outputs={
            "data": {"value": {"get_attr": ["w", "data"]}},
            "url": {"value": {"get_resource": "h"}},
        },
    )


def test_an_update_wait_condition_handle_is_signalled_at_its_url_and_replaced_on_update(world):
    stack = world.create_stack("s", _update_handle_stack("one"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    first = outputs(stack)
    assert first["url"].startswith("https://")
    assert json.loads(first["data"]) == {"instance1": "one"}
    handle_id = stack.resources["h"].resource_id
    stack = world.update_stack("s", _update_handle_stack("one"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["h"].resource_id != handle_id  # replaced though nothing changed
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
