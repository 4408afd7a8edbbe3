"""Resources, events, snapshots, templates and resource types on the Orchestration API."""

from __future__ import annotations

import copy

import pytest
from heatclient import exc as heat_exc

from tests.orchestration_wire.conftest import TEMPLATE
from tests.orchestration_wire.test_stacks_wire import _wait

WAIT_TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "cond": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 600},
        },
    },
    "outputs": {"data": {"value": {"get_attr": ["cond", "data"]}}},
}


@pytest.fixture
def made(heat):
    heat.stacks.create(stack_name="r", template=TEMPLATE, parameters={"value": "a"})
    return _wait(heat, "r", "CREATE")


def test_resource_list_show_metadata(heat, made):
    rows = {r.resource_name: r for r in heat.resources.list("r")}
    assert sorted(rows) == ["secret", "thing"]
    assert rows["thing"].resource_status == "CREATE_COMPLETE"
    assert rows["secret"].required_by == ["thing"]
    assert {link["rel"] for link in rows["thing"].links} == {"self", "stack"}
    shown = heat.resources.get("r", "thing")
    assert shown.attributes["output"] == "a"
    assert shown.physical_resource_id == rows["thing"].physical_resource_id
    assert heat.resources.metadata("r", "thing") == {}
    filtered = heat.resources.list("r", filters={"type": "OS::Heat::RandomString"})
    assert [r.resource_name for r in filtered] == ["secret"]
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.resources.get("r", "nope")


def test_mark_unhealthy_and_back(heat, made, world):
    heat.resources.mark_unhealthy("r", "thing", True, "broken by hand")
    thing = heat.resources.get("r", "thing")
    assert thing.resource_status == "CHECK_FAILED"
    assert thing.resource_status_reason == "broken by hand"
    assert world.get_stack("r").resources["thing"].state == ("CHECK", "FAILED")
    heat.resources.mark_unhealthy("r", "thing", False, "")
    assert heat.resources.get("r", "thing").resource_status == "CHECK_COMPLETE"


def test_nested_depth_lists_a_groups_members(heat):
    group = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "grp": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {"type": "OS::Heat::RandomString"},
                },
            }
        },
    }
    heat.stacks.create(stack_name="g", template=group)
    _wait(heat, "g", "CREATE")
    top = [r.resource_name for r in heat.resources.list("g")]
    assert top == ["grp"]
    deep = heat.resources.list("g", nested_depth=1)
    members = [r for r in deep if getattr(r, "parent_resource", None) == "grp"]
    assert sorted(r.resource_name for r in members) == ["0", "1"]
    grp = next(r for r in deep if r.resource_name == "grp")
    assert "nested" in {link["rel"] for link in grp.links}


def test_events_filters_sort_pages_and_show(heat, made):
    events = heat.events.list("r")
    states = [(e.resource_name, e.resource_status) for e in events]
    assert states[0] == ("r", "CREATE_IN_PROGRESS")
    assert states[-1] == ("r", "CREATE_COMPLETE")
    stack_event = events[-1]
    assert stack_event.physical_resource_id == made.id
    desc = heat.events.list("r", sort_dir="desc")
    assert [e.id for e in desc] == [e.id for e in reversed(events)]
    page = heat.events.list("r", limit=2, marker=events[0].id)
    assert [e.id for e in page] == [e.id for e in events[1:3]]
    only = heat.events.list("r", filters={"resource_status": "COMPLETE", "resource_name": "thing"})
    assert [(e.resource_name, e.resource_status) for e in only] == [("thing", "CREATE_COMPLETE")]
    thing_events = heat.events.list("r", resource_name="thing")
    assert {e.resource_name for e in thing_events} == {"thing"}
    one = heat.events.get("r", "thing", thing_events[0].id)
    assert one.resource_type == "OS::Heat::TestResource"
    assert one.resource_status == "CREATE_IN_PROGRESS"


def test_signal_completes_a_wait_condition(heat):
    heat.stacks.create(stack_name="w", template=WAIT_TEMPLATE)
    assert heat.stacks.get("w").stack_status == "CREATE_IN_PROGRESS"
    heat.resources.signal("w", "handle", data={"status": "SUCCESS", "id": "1", "data": "hi"})
    done = _wait(heat, "w", "CREATE")
    assert done.stack_status == "CREATE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in done.outputs} == {"data": '{"1": "hi"}'}
    reasons = [e.resource_status_reason for e in heat.events.list("w", resource_name="handle")]
    assert any("SUCCESS" in r for r in reasons)


def test_snapshots_create_list_show_restore_delete(heat, made):
    snap = heat.stacks.snapshot("r", "first")
    assert snap["status"] == "COMPLETE" and snap["name"] == "first"
    assert sorted(snap["data"]["resources"]) == ["secret", "thing"]
    changed = copy.deepcopy(TEMPLATE)
    changed["outputs"]["more"] = {"value": "m"}
    heat.stacks.update("r", template=changed, parameters={"value": "b"})
    _wait(heat, "r", "UPDATE")
    listed = heat.stacks.snapshot_list("r")["snapshots"]
    assert [s["id"] for s in listed] == [snap["id"]]
    assert heat.stacks.snapshot_show("r", snap["id"])["snapshot"]["name"] == "first"
    heat.stacks.restore("r", snap["id"])
    restored = _wait(heat, "r", "RESTORE")
    assert restored.stack_status == "RESTORE_COMPLETE"
    assert [o["output_key"] for o in restored.outputs] == ["out"]
    heat.stacks.snapshot_delete("r", snap["id"])
    assert heat.stacks.snapshot_list("r")["snapshots"] == []
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.snapshot_show("r", snap["id"])


def test_validate_versions_functions_and_types(heat):
    described = heat.stacks.validate(template=TEMPLATE)
    assert described["Description"] == "two resources and an output"
    assert "value" in described["Parameters"]
    bad = copy.deepcopy(TEMPLATE)
    bad["resources"]["thing"]["properties"]["nonsense"] = 1
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.stacks.validate(template=bad)
    assert "nonsense" in str(info.value)
    versions = {v.version: v for v in heat.template_versions.list()}
    assert "heat_template_version.2018-08-31" in versions
    assert versions["heat_template_version.2018-08-31"].aliases == ["rocky"]
    assert "AWSTemplateFormatVersion.2010-09-09" in versions
    funcs = [f.functions for f in heat.template_versions.get("heat_template_version.2018-08-31")]
    assert "get_attr" in funcs and "str_replace" in funcs
    types = heat.resource_types.list()
    names = [t.resource_type for t in types]
    assert "OS::Heat::RandomString" in names
    only = [t.resource_type for t in heat.resource_types.list(filters={"name": "OS::Heat::Rand*"})]
    assert only == ["OS::Heat::RandomString"]
    schema = heat.resource_types.get("OS::Heat::RandomString")
    assert schema["resource_type"] == "OS::Heat::RandomString"
    assert "length" in schema["properties"] and "value" in schema["attributes"]
    generated = heat.resource_types.generate_template("OS::Heat::RandomString", "hot")
    assert generated["resources"]["RandomString"]["type"] == "OS::Heat::RandomString"
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.resource_types.get("OS::No::Such")
