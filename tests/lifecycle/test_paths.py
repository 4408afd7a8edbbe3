"""Post-ops on every path: resource failure, timeout, cancel, engine error, nested, rollback."""

from __future__ import annotations

import pytest

from simulator import stack_actions
from simulator.world import World

from .conftest import Recorder, lifecycle_events, simple, tmpl


@pytest.fixture
def log(world):
    entries: list = []
    world.lifecycle.register(Recorder("A", entries, 10), "A")
    return entries


def test_resource_failure_reaches_post_op_as_stack_failure(world, log):
    stack = world.create_stack("s", tmpl({"bad": {"type": "Plugsim::Test::Fail"}}))
    assert stack.state == "CREATE_FAILED"
    assert log == [("A", "pre", "CREATE", None), ("A", "post", "CREATE", True)]


def test_create_rollback_gets_its_own_pre_and_post(world, log):
    t = tmpl({"ok": {"type": "Plugsim::Test::Trivial"}, "bad": {"type": "Plugsim::Test::Fail"}})
    stack = world.create_stack("s", t, disable_rollback=False)
    assert stack.state == "ROLLBACK_COMPLETE"
    assert log == [
        ("A", "pre", "CREATE", None),
        ("A", "post", "CREATE", True),
        ("A", "pre", "ROLLBACK", None),
        ("A", "post", "ROLLBACK", False),
    ]


def test_vetoed_create_does_not_roll_back(world):
    entries: list = []
    world.lifecycle.register(Recorder("A", entries, fail_pre={"CREATE"}), "A")
    stack = world.create_stack("s", simple(), disable_rollback=False)
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason == "A refuses CREATE"
    assert [e[2] for e in entries] == ["CREATE"]
    assert all(r.state == "INIT_COMPLETE" for r in stack.resources.values())


def test_timeout_runs_post_ops_with_failure(world, log):
    stack = world.create_stack("s", tmpl({"h": {"type": "Plugsim::Test::Hang"}}), timeout_mins=2)
    assert stack.state == "CREATE_FAILED" and stack.status_reason == "Create timed out"
    assert log[-1] == ("A", "post", "CREATE", True)
    post = [e for e in world.stack_events("s") if e.state == "CREATE_POST_OP_COMPLETE"]
    assert [e.time for e in post] == [120.0]
    assert post[0].reason == "is_stack_failure=True"


def test_user_cancel_post_ops_update_failed_then_cancel_then_rollback(world, log):
    world.create_stack("s", simple())
    log.clear()

    async def scenario():
        world.loop.call_later(7, world.cancel_update, "s")
        return await world.aupdate_stack(
            "s", tmpl({"a": {"type": "Plugsim::Test::Trivial", "properties": {"delay": 60}}})
        )

    stack = world.run(scenario)
    assert stack.state == "ROLLBACK_COMPLETE"
    assert log == [
        ("A", "pre", "UPDATE", None),
        ("A", "pre", "CANCEL", None),
        ("A", "post", "UPDATE", True),
        ("A", "post", "CANCEL", False),
        ("A", "pre", "ROLLBACK", None),
        ("A", "post", "ROLLBACK", False),
    ]
    times = {
        s: t
        for _, s, t in [
            (e.resource_name, e.state, e.time)
            for e in world.stack_events("s")
            if e.resource_name == "A"
        ]
    }
    assert times["CANCEL_PRE_OP_COMPLETE"] == times["UPDATE_PRE_OP_COMPLETE"] + 7


def test_cancel_left_in_the_store_by_another_process_runs_cancel_hooks(world, log):
    world.create_stack("s", simple())
    log.clear()

    async def scenario():
        def other_process():
            world.store.set_meta(f"cancel:{world.get_stack('s').id}", True)

        world.loop.call_later(3, other_process)
        return await world.aupdate_stack(
            "s", tmpl({"a": {"type": "Plugsim::Test::Trivial", "properties": {"delay": 60}}})
        )

    stack = world.run(scenario)
    assert stack.state == "ROLLBACK_COMPLETE"
    assert ("A", "post", "CANCEL", False) in log


def test_engine_error_runs_post_ops_and_propagates(world, log, monkeypatch):
    world.create_stack("s", simple())
    log.clear()

    async def broken(*args, **kwargs):
        raise RuntimeError("scheduler exploded")

    monkeypatch.setattr(stack_actions, "run_graph", broken)
    with pytest.raises(RuntimeError, match="scheduler exploded"):
        world.suspend_stack("s")
    assert log == [("A", "pre", "SUSPEND", None), ("A", "post", "SUSPEND", True)]


def test_nested_stacks_call_plug_ins_for_the_child_too(tmp_path):
    child = tmp_path / "child.yaml"
    child.write_text(
        "heat_template_version: 2018-08-31\nresources:\n  x: {type: Plugsim::Test::Trivial}\n"
    )
    entries: list = []
    with World(entry_points=False, lifecycle_plugins=[Recorder("A", entries)]) as w:
        parent = tmp_path / "parent.yaml"
        parent.write_text(
            "heat_template_version: 2018-08-31\nresources:\n  inner: {type: child.yaml}\n"
        )
        stack = w.create_stack("s", str(parent))
        assert stack.state == "CREATE_COMPLETE"
        stacks = [e.stack_name for e in w.store.events() if e.state == "CREATE_PRE_OP_COMPLETE"]
        assert stacks[0] == "s" and len(stacks) == 2


def test_post_op_sees_final_state_and_update_gets_new_definition(world):
    seen = []

    class Spy(Recorder):
        def do_pre_op(self, context, stack, current_stack=None, action=None):
            seen.append(
                (
                    "pre",
                    stack.status,
                    stack.resources["a"].properties.get("value"),
                    current_stack and current_stack.resources["a"].properties["value"],
                )
            )

        def do_post_op(
            self, context, stack, current_stack=None, action=None, is_stack_failure=False
        ):
            seen.append(
                (
                    "post",
                    stack.status,
                    stack.resources["a"].properties.get("value"),
                    current_stack and current_stack.resources["a"].properties["value"],
                )
            )

    world.create_stack("s", simple("v1"))
    world.lifecycle.register(Spy("spy", []), "spy")
    world.update_stack("s", simple("v2"))
    assert seen == [("pre", "COMPLETE", "v1", "v2"), ("post", "COMPLETE", "v2", "v2")]


def test_events_are_deterministic():
    def run():
        with World(entry_points=False, seed=3) as w:
            w.lifecycle.register(Recorder("A", [], fail_post={"DELETE"}), "A")
            w.lifecycle.register(Recorder("B", []), "B")
            w.create_stack("s", simple())
            w.update_stack("s", simple("v2"))
            w.delete_stack("s")
            return [e.to_line() for e in w.store.events()]

    assert run() == run()


def test_lifecycle_events_name_plugin_action_outcome(world, log):
    world.create_stack("s", simple())
    assert lifecycle_events(world) == [
        ("A", "CREATE_PRE_OP_COMPLETE", ""),
        ("A", "CREATE_POST_OP_COMPLETE", "is_stack_failure=False"),
    ]
