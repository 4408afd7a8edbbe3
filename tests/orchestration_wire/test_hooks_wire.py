"""Breakpoints on the Orchestration API: set in the environment, seen as Heat's events,
cleared with a signal ``{"unset_hook": ...}`` (what ``openstack stack hook clear`` sends)."""

from __future__ import annotations

import copy

from heatclient.common import event_utils, hook_utils

from tests.orchestration_wire.conftest import TEMPLATE
from tests.orchestration_wire.test_stacks_wire import _wait


def _hook_env(name, *hooks):
    return {"resource_registry": {"resources": {name: {"hooks": list(hooks)}}}}


def test_pre_create_pauses_until_cleared(heat, world):
    heat.stacks.create(
        stack_name="h", template=TEMPLATE, environment=_hook_env("thing", "pre-create")
    )
    for _ in range(5):
        assert heat.stacks.get("h").stack_status == "CREATE_IN_PROGRESS"
    assert heat.resources.get("h", "thing").resource_status == "INIT_COMPLETE"
    assert heat.resources.get("h", "secret").resource_status == "CREATE_COMPLETE"
    pending = event_utils.get_hook_events(heat, "h", {"sort_dir": "asc"}, hook_type="pre-create")
    assert [e.resource_name for e in pending] == ["thing"]
    assert world.pending_hooks("h") == [("thing", "pre-create")]
    hook_utils.clear_hook(heat, "h", "thing", "pre-create")
    assert world.pending_hooks("h") == []
    assert _wait(heat, "h", "CREATE").stack_status == "CREATE_COMPLETE"
    reasons = [e.resource_status_reason for e in heat.events.list("h", resource_name="thing")]
    assert reasons[:2] == [
        "CREATE paused until Hook pre-create is cleared",
        "Hook pre-create is cleared",
    ]


def test_pre_update_and_pre_delete_with_a_glob(heat):
    env = {"resource_registry": {"resources": {"th*": {"hooks": ["pre-update", "pre-delete"]}}}}
    heat.stacks.create(stack_name="u", template=TEMPLATE, environment=env)
    _wait(heat, "u", "CREATE")
    changed = copy.deepcopy(TEMPLATE)
    changed["resources"]["thing"]["properties"]["value"] = "changed"
    heat.stacks.update("u", template=changed, environment=env)
    for _ in range(5):
        assert heat.stacks.get("u").stack_status == "UPDATE_IN_PROGRESS"
    heat.resources.signal("u", "thing", data={"unset_hook": "pre-update"})
    assert _wait(heat, "u", "UPDATE").stack_status == "UPDATE_COMPLETE"
    heat.stacks.delete("u")
    for _ in range(5):
        assert heat.stacks.get("u").stack_status == "DELETE_IN_PROGRESS"
    heat.resources.signal("u", "thing", data={"unset_hook": "pre-delete"})
    sid = heat.stacks.get("u").id
    for _ in range(30):
        if heat.stacks.get(sid).stack_status != "DELETE_IN_PROGRESS":
            break
    assert heat.stacks.get(sid).stack_status == "DELETE_COMPLETE"


def test_clearing_a_hook_that_is_not_active_is_an_error(heat):
    import pytest
    from heatclient import exc as heat_exc

    heat.stacks.create(stack_name="n", template=TEMPLATE)
    _wait(heat, "n", "CREATE")
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.resources.signal("n", "thing", data={"unset_hook": "pre-create"})
    assert "not active" in str(info.value)


def test_a_pre_update_hook_stops_an_unchanged_resource_too(heat, world):
    env = {"resource_registry": {"resources": {"thing": {"hooks": "pre-update"}}}}
    heat.stacks.create(stack_name="nc", template=TEMPLATE, environment=env)
    _wait(heat, "nc", "CREATE")
    before = heat.resources.get("nc", "thing").physical_resource_id
    heat.stacks.update("nc", template=TEMPLATE, environment=env)
    for _ in range(5):
        assert heat.stacks.get("nc").stack_status == "UPDATE_IN_PROGRESS"
    reasons = [e.resource_status_reason for e in heat.events.list("nc", resource_name="thing")]
    assert "UPDATE paused until Hook pre-update is cleared" in reasons
    heat.resources.signal("nc", "thing", data={"unset_hook": "pre-update"})
    assert _wait(heat, "nc", "UPDATE").stack_status == "UPDATE_COMPLETE"
    assert heat.resources.get("nc", "thing").physical_resource_id == before


def test_a_hook_on_a_resource_of_a_nested_stack(heat):
    import json

    inner = {
        "heat_template_version": "2015-04-30",
        "resources": {
            "first": {"type": "OS::Heat::RandomString"},
            "second": {"type": "OS::Heat::RandomString", "depends_on": ["first"]},
        },
    }
    outer = {"heat_template_version": "2015-04-30", "resources": {"kid": {"type": "in.yaml"}}}
    env = {"resource_registry": {"resources": {"k*": {"second": {"hooks": "pre-create"}}}}}
    heat.stacks.create(
        stack_name="nh", template=outer, environment=env, files={"in.yaml": json.dumps(inner)}
    )
    for _ in range(5):
        assert heat.stacks.get("nh").stack_status == "CREATE_IN_PROGRESS"
    kid = heat.resources.get("nh", "kid").physical_resource_id
    nested = heat.stacks.get(kid)
    reasons = [
        e.resource_status_reason for e in heat.events.list(nested.id, resource_name="second")
    ]
    assert "CREATE paused until Hook pre-create is cleared" in reasons
    assert heat.resources.get(nested.id, "first").resource_status == "CREATE_COMPLETE"
    heat.resources.signal(nested.id, "second", data={"unset_hook": "pre-create"})
    assert _wait(heat, "nh", "CREATE").stack_status == "CREATE_COMPLETE"
