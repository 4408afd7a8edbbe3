"""What a stack writes to its store per transition, and when a world commits it."""

import json

import pytest

from sdk import exception
from simulator.resources import Trivial
from simulator.world import World

T = "Plugsim::Test::Trivial"


def tmpl(n, value="v1"):
    resources = {f"r{i}": {"type": T, "properties": {"value": f"{value}-{i}"}} for i in range(n)}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def count_commits(world):
    seen = []
    world.store._db.set_trace_callback(lambda sql: seen.append(sql) if sql == "COMMIT" else None)
    return seen


def rows(world, name="s"):
    stack = world.get_stack(name)
    return {r.name: r for r in world.store.resources(stack.id)}


@pytest.mark.parametrize("phase", ["update", "suspend", "resume", "delete"])
def test_with_transition_durability_each_resource_costs_two_commits_per_action(phase, tmp_path):
    """--durability transition: every transition is its own commit, nothing else per resource."""
    per_size = {}
    for n in (3, 7):
        world = World.open(tmp_path / f"{phase}-{n}.db", durability="transition")
        try:
            world.create_stack("s", tmpl(n))
            if phase in ("resume",):
                world.suspend_stack("s")
            commits = count_commits(world)
            if phase == "update":
                world.update_stack("s", tmpl(n, "v2"))
            else:
                getattr(world, f"{phase}_stack")("s")
            per_size[n] = len(commits)
        finally:
            world.close()
    assert per_size[7] - per_size[3] == 2 * 4


@pytest.mark.parametrize("phase", ["create", "update", "suspend", "resume", "delete"])
def test_by_default_a_world_commits_once_per_virtual_instant(phase, tmp_path):
    """The default group commit: resources acting at the same virtual instants share
    the commits, so more of them cost no more commits."""
    per_size = {}
    for n in (3, 7):
        world = World.open(tmp_path / f"{phase}-{n}.db")
        try:
            if phase != "create":
                world.create_stack("s", tmpl(n))
            if phase in ("resume",):
                world.suspend_stack("s")
            commits = count_commits(world)
            instants = set()
            world.listeners.append(lambda ev, seen=instants: seen.add(ev.time))
            if phase == "create":
                world.create_stack("s", tmpl(n))
            elif phase == "update":
                world.update_stack("s", tmpl(n, "v2"))
            else:
                getattr(world, f"{phase}_stack")("s")
            per_size[n] = len(commits)
            assert len(commits) <= len(instants) + 1
        finally:
            world.close()
    assert per_size[7] == per_size[3]


def test_an_in_place_update_leaves_rows_with_new_template_and_values():
    world = World()
    try:
        world.create_stack("s", tmpl(2))
        stack = world.update_stack("s", tmpl(2, "v2"))
        stored = rows(world)
        assert {n: r.doc["props"] for n, r in stored.items()} == {
            "r0": {"value": "v2-0"},
            "r1": {"value": "v2-1"},
        }
        assert {r.doc["tmpl"] for r in stored.values()} == {stack.source.digest}
        assert {(r.action, r.status) for r in stored.values()} == {("UPDATE", "COMPLETE")}
    finally:
        world.close()


def test_a_no_op_update_still_records_the_new_template(tmp_path):
    """Same properties, new template text: no event for the resource, but its row moves on."""
    path = tmp_path / "w.db"
    world = World.open(path)
    try:
        world.create_stack("s", tmpl(1))
        t2 = tmpl(1)
        t2["description"] = "same resources, another template"
        before = len(world.stack_events("s"))
        stack = world.update_stack("s", t2)
        names = [e.resource_name for e in world.stack_events("s")[before:]]
        assert names == ["s", "s"]
        assert rows(world)["r0"].doc["tmpl"] == stack.source.digest
    finally:
        world.close()


def test_a_plugin_asking_for_replacement_during_update_keeps_the_old_template_on_the_old_row(
    monkeypatch,
):
    """The old resource keeps its template digest, so a rollback can swap it back in."""

    def replace(self, json_snippet=None, tmpl_diff=None, prop_diff=None):
        raise exception.UpdateReplace(self.name)

    world = World()
    try:
        stack = world.create_stack("s", tmpl(1))
        old_digest = stack.source.digest
        old = stack.resources["r0"]
        monkeypatch.setattr(Trivial, "handle_update", replace)
        seen = {}

        def spy(ev):
            if ev.resource_name == "r0" and ev.state == "CREATE_IN_PROGRESS":
                [row] = [r for r in world.store.resources(stack.id) if not r.current]
                seen["old_row"] = (row.rid, row.action, row.status, row.doc["tmpl"])

        world.listeners.append(spy)
        stack = world.update_stack("s", tmpl(1, "v2"))
        assert stack.state == "UPDATE_COMPLETE"
        assert stack.resources["r0"] is not old
        assert seen["old_row"] == (stack.rid(old), "UPDATE", "COMPLETE", old_digest)
        assert stack.source_digest(old) == old_digest
    finally:
        world.close()


def test_applied_values_are_plain_json_copies():
    """The remembered property values are JSON data, not the template's own objects."""
    t = tmpl(1)
    t["resources"]["r0"]["properties"]["depends"] = {"a": [1, 2.5, True, None], "b": "x"}
    world = World()
    try:
        stack = world.create_stack("s", t)
        stored = rows(world)["r0"].doc["props"]
        assert json.dumps(stored, sort_keys=True) == json.dumps(
            {"depends": {"a": [1, 2.5, True, None], "b": "x"}, "value": "v1-0"}, sort_keys=True
        )
        applied = stack.before_definition(stack.resources["r0"]).properties
        assert applied["depends"] == {"a": [1, 2.5, True, None], "b": "x"}
        assert applied["depends"] is not t["resources"]["r0"]["properties"]["depends"]
    finally:
        world.close()


def test_data_changed_between_transitions_reaches_the_row_with_its_exact_type(monkeypatch):
    """A value stored through data_set and changed afterwards is written with the next transition."""
    held = []
    original = Trivial.handle_create

    def create(self):
        held.append([1])
        self.data_set("items", held[-1])
        self.data_set("flag", 1)
        return original(self)

    def suspend(self):
        held[-1].append(2)  # mutated after data_set: only the next transition can notice
        self._data["flag"] = True

    monkeypatch.setattr(Trivial, "handle_create", create)
    monkeypatch.setattr(Trivial, "handle_suspend", suspend, raising=False)
    world = World()
    try:
        world.create_stack("s", tmpl(1))
        assert rows(world)["r0"].doc["data"] == {"items": "[1]", "flag": 1}
        world.suspend_stack("s")
        data = rows(world)["r0"].doc["data"]
        assert data == {"items": "[1, 2]", "flag": True}
        assert data["flag"] is True
    finally:
        world.close()


def test_the_actions_of_one_template_share_one_dependency_graph(monkeypatch):
    from simulator.template.definition import StackDefinition as Definition

    calls = []
    real = Definition.dependencies
    monkeypatch.setattr(Definition, "dependencies", lambda self: calls.append(self) or real(self))
    world = World()
    try:
        world.create_stack("s", tmpl(3))
        created = len(calls)
        world.suspend_stack("s")
        world.resume_stack("s")
        world.delete_stack("s")
        assert len(calls) == created
    finally:
        world.close()


def test_data_set_mid_action_is_written_with_the_next_transition(tmp_path):
    """resource_id_set during CREATE costs no commit of its own; the COMPLETE row has it."""
    per_size = {}
    for n in (3, 7):
        world = World.open(tmp_path / f"{n}.db", durability="transition")
        try:
            commits = count_commits(world)
            world.create_stack("s", tmpl(n))
            per_size[n] = len(commits)
            stack = world.get_stack("s")
            stored = rows(world)
            assert {name: r.physical_id for name, r in stored.items()} == {
                name: res.resource_id for name, res in stack.resources.items()
            }
            assert all(r.physical_id for r in stored.values())
        finally:
            world.close()
    assert per_size[7] - per_size[3] == 2 * 4


def test_an_interrupted_run_still_writes_data_set_mid_action():
    """A run that ends without the action's next transition (interrupted) writes the row
    when the world saves, together with the fake cloud's state."""

    world = World()
    try:
        stack_tmpl = {
            "heat_template_version": "2018-08-31",
            "resources": {"r": {"type": T, "properties": {"value": "a", "delay": 50}}},
        }

        def stop_after_in_progress(ev):
            if ev.resource_name == "r" and ev.status == "IN_PROGRESS":
                world.loop.call_later(10, _raise)

        def _raise():
            raise KeyboardInterrupt

        world.listeners.append(stop_after_in_progress)
        with pytest.raises(KeyboardInterrupt):
            world.create_stack("s", stack_tmpl)
        stack = world.store.get_stack("s")
        (row,) = world.store.resources(stack.id)
        assert row.status == "IN_PROGRESS"
        assert row.physical_id and row.physical_id.endswith("-r")
    finally:
        world.listeners.clear()
        world.loop.close()
        world.store.close()


def test_a_plugin_overriding_data_has_its_data_written_although_its_own_store_is_empty(
    monkeypatch,
):
    """The row document follows ``data()``, also for a class that keeps its data elsewhere."""
    kept = {}
    monkeypatch.setattr(Trivial, "data", lambda self: dict(kept), raising=False)

    def suspend(self):
        kept["where"] = "elsewhere"

    monkeypatch.setattr(Trivial, "handle_suspend", suspend, raising=False)
    world = World()
    try:
        world.create_stack("s", tmpl(1))
        assert rows(world)["r0"].doc["data"] == {}
        world.suspend_stack("s")
        assert rows(world)["r0"].doc["data"] == {"where": "elsewhere"}
    finally:
        world.close()


def test_data_first_set_after_data_less_transitions_reaches_the_row(monkeypatch):
    """A row written without data gets its first data with the next transition."""

    def suspend(self):
        self._data["first"] = 1

    monkeypatch.setattr(Trivial, "handle_suspend", suspend, raising=False)
    world = World()
    try:
        world.create_stack("s", tmpl(1))
        first = rows(world)["r0"].doc
        world.suspend_stack("s")
        assert first["data"] == {}
        assert rows(world)["r0"].doc["data"] == {"first": 1}
    finally:
        world.close()
