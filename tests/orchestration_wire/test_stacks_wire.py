"""Stacks on the Orchestration API, in-process: asynchronous actions in virtual time,
Heat's name lookup, list filters and paging, update (PUT and PATCH), errors, projects."""

from __future__ import annotations

import copy

import pytest
from heatclient import exc as heat_exc

from tests.orchestration_wire.conftest import TEMPLATE


def _wait(heat, name, action, polls=30):
    for _ in range(polls):
        st = heat.stacks.get(name)
        if st.stack_status != f"{action}_IN_PROGRESS":
            return st
    raise AssertionError(f"{name} still {st.stack_status}")


def test_create_answers_at_once_in_progress_and_ends_in_virtual_time(heat, world):
    body = heat.stacks.create(stack_name="s", template=TEMPLATE, parameters={"value": "a"})
    sid = body["stack"]["id"]
    assert body["stack"]["links"][0]["href"].endswith(f"/stacks/s/{sid}")
    first = heat.stacks.get(sid)
    assert first.stack_status == "CREATE_IN_PROGRESS"
    assert first.stack_status_reason == "Stack CREATE started"
    done = _wait(heat, "s", "CREATE")
    assert done.stack_status == "CREATE_COMPLETE"
    # thing waits 20 virtual seconds, whoever polls: the events say so
    times = {(e.resource_name, e.resource_status): e.event_time for e in heat.events.list("s")}
    assert times[("thing", "CREATE_IN_PROGRESS")] != times[("thing", "CREATE_COMPLETE")]
    own = {(e.resource_name, e.state): e.time for e in world.stack_events("s")}
    assert own[("thing", "CREATE_COMPLETE")] - own[("thing", "CREATE_IN_PROGRESS")] == 20
    outputs = {o["output_key"]: o["output_value"] for o in done.outputs}
    assert outputs == {"out": "a"}
    assert done.parameters["OS::stack_id"] == sid
    # the engine's own record: the same stack the CLI would see
    assert world.get_stack("s").state == "CREATE_COMPLETE"


def test_a_name_is_redirected_to_name_and_id(session, heat, wire):
    heat.stacks.create(stack_name="red", template=TEMPLATE)
    endpoint = session.get_endpoint(service_type="orchestration")
    resp = session.get(f"{endpoint}/stacks/red/resources?x=1", redirect=False)
    assert resp.status_code == 302
    sid = heat.stacks.get("red").id
    assert resp.headers["Location"] == f"{endpoint}/stacks/red/{sid}/resources?x=1"
    by_id = session.get(f"{endpoint}/stacks/{sid}", redirect=False)
    assert by_id.headers["Location"] == f"{endpoint}/stacks/red/{sid}"


def test_errors_carry_heats_fault_document(session, heat):
    endpoint = session.get_endpoint(service_type="orchestration")
    missing = session.get(f"{endpoint}/stacks/nope", raise_exc=False)
    assert missing.status_code == 404
    doc = missing.json()
    assert doc["code"] == 404 and doc["title"] == "Not Found"
    assert doc["error"]["type"] == "EntityNotFound"
    assert doc["error"]["message"] == "The Stack (nope) could not be found."
    assert "explanation" in doc and "traceback" in doc["error"]

    bad = copy.deepcopy(TEMPLATE)
    bad["resources"]["thing"]["type"] = "OS::No::Such"
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.stacks.create(stack_name="bad", template=bad)
    assert "OS::No::Such" in str(info.value)
    assert [s.stack_name for s in heat.stacks.list()] == []

    heat.stacks.create(stack_name="dup", template=TEMPLATE)
    with pytest.raises(heat_exc.HTTPConflict) as info:
        heat.stacks.create(stack_name="dup", template=TEMPLATE)
    assert "already exists" in str(info.value)
    # an action while another runs: ActionInProgress, 409
    heat.stacks.create(stack_name="busy", template=TEMPLATE)
    with pytest.raises(heat_exc.HTTPConflict) as info:
        heat.actions.suspend("busy")
    assert "in progress" in str(info.value)


def test_a_template_given_as_text_is_parsed_never_read_as_a_path(session, heat):
    import yaml

    heat.stacks.create(stack_name="txt", template=yaml.safe_dump(TEMPLATE))
    assert _wait(heat, "txt", "CREATE").stack_status == "CREATE_COMPLETE"
    endpoint = session.get_endpoint(service_type="orchestration")
    resp = session.post(
        f"{endpoint}/stacks",
        json={"stack_name": "p", "template": "/etc/passwd"},
        raise_exc=False,
    )
    assert resp.status_code == 400
    assert resp.json()["error"]["type"] == "StackValidationFailed"


def test_list_filters_tags_sort_and_pages(heat):
    for i, tags in enumerate(["a,b", "b", "c"]):
        heat.stacks.create(stack_name=f"t{i}", template=TEMPLATE, tags=tags)
    names = lambda **kw: [s.stack_name for s in heat.stacks.list(**kw)]  # noqa: E731
    assert names(sort_dir="asc", limit=1) == ["t0"]
    assert names() == ["t2", "t1", "t0"]  # newest first, as Heat sorts
    assert names(sort_dir="asc") == ["t0", "t1", "t2"]
    assert names(filters={"name": "t1"}) == ["t1"]
    assert names(tags="b", sort_dir="asc") == ["t0", "t1"]
    assert names(tags="a,b") == ["t0"]
    assert names(tags_any="a,c", sort_dir="asc") == ["t0", "t2"]
    assert names(not_tags="b") == ["t2"]
    first = list(heat.stacks.list(limit=1, sort_dir="asc"))
    assert [s.stack_name for s in first] == ["t0"]
    page = [s.stack_name for s in heat.stacks.list(limit=1, marker=first[0].id, sort_dir="asc")]
    assert page == ["t1"]
    shown = heat.stacks.get("t0")
    assert sorted(shown.tags) == ["a", "b"]


def test_update_put_and_patch_existing(heat, world):
    heat.stacks.create(stack_name="u", template=TEMPLATE, parameters={"value": "one"})
    _wait(heat, "u", "CREATE")
    changed = copy.deepcopy(TEMPLATE)
    changed["outputs"]["extra"] = {"value": "x"}
    heat.stacks.update("u", template=changed, parameters={"value": "two"})
    assert heat.stacks.get("u").stack_status == "UPDATE_IN_PROGRESS"
    done = _wait(heat, "u", "UPDATE")
    assert done.stack_status == "UPDATE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in done.outputs} == {
        "out": "two",
        "extra": "x",
    }
    heat.stacks.update("u", existing=True, parameters={"value": "three"})
    done = _wait(heat, "u", "UPDATE")
    assert {o["output_key"]: o["output_value"] for o in done.outputs}["out"] == "three"
    assert "extra" in heat.stacks.template("u")["outputs"]


def test_delete_goes_on_in_background_then_the_stack_is_gone(heat):
    heat.stacks.create(stack_name="d", template=TEMPLATE)
    sid = _wait(heat, "d", "CREATE").id
    heat.stacks.delete("d")
    st = heat.stacks.get(sid)
    assert st.stack_status in ("DELETE_IN_PROGRESS", "DELETE_COMPLETE")
    for _ in range(10):
        if heat.stacks.get(sid).stack_status == "DELETE_COMPLETE":
            break
    assert heat.stacks.get(sid).stack_status == "DELETE_COMPLETE"  # by id, as Heat shows it
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("d")
    assert [s.stack_name for s in heat.stacks.list()] == []
    assert [s.stack_name for s in heat.stacks.list(show_deleted=True)] == ["d"]


def test_actions_cancel_update_and_export(heat):
    heat.stacks.create(stack_name="a", template=TEMPLATE)
    _wait(heat, "a", "CREATE")
    heat.actions.suspend("a")
    assert _wait(heat, "a", "SUSPEND").stack_status == "SUSPEND_COMPLETE"
    heat.actions.resume("a")
    assert _wait(heat, "a", "RESUME").stack_status == "RESUME_COMPLETE"
    heat.actions.check("a")
    assert _wait(heat, "a", "CHECK").stack_status == "CHECK_COMPLETE"
    slow = copy.deepcopy(TEMPLATE)
    slow["resources"]["thing"]["properties"]["action_wait_secs"] = {"update": 600}
    slow["resources"]["thing"]["properties"]["value"] = "slow"
    heat.stacks.update("a", template=slow)
    heat.actions.cancel_update("a")
    st = _wait(heat, "a", "UPDATE")
    st = _wait(heat, "a", "ROLLBACK")
    assert st.stack_status == "ROLLBACK_COMPLETE"
    exported = heat.stacks.export("a")
    assert exported["name"] == "a" and sorted(exported["resources"]) == ["secret", "thing"]
    assert heat.stacks.get("a").stack_status == "ROLLBACK_COMPLETE"  # export keeps the stack


def test_environment_files_and_template_of_a_stack(heat):
    env = {"parameter_defaults": {"value": "from-env"}}
    files = {"notes.txt": "hello"}
    heat.stacks.create(stack_name="e", template=TEMPLATE, environment=env, files=files)
    _wait(heat, "e", "CREATE")
    shown_env = heat.stacks.environment("e")
    assert shown_env["parameter_defaults"] == {"value": "from-env"}
    assert heat.stacks.files("e") == files
    assert heat.stacks.template("e")["description"] == "two resources and an output"
    assert heat.stacks.output_show("e", "out")["output"]["output_value"] == "from-env"
    assert [o["output_key"] for o in heat.stacks.output_list("e")["outputs"]] == ["out"]


def test_a_token_is_needed_and_projects_do_not_see_each_other(session, heat, other_project):
    import requests

    endpoint = session.get_endpoint(service_type="orchestration")
    anon = requests.get(f"{endpoint}/stacks")
    assert anon.status_code == 401
    heat.stacks.create(stack_name="mine", template=TEMPLATE)
    assert [s.stack_name for s in other_project.stacks.list()] == []
    with pytest.raises(heat_exc.HTTPNotFound):
        other_project.stacks.get("mine")
    other_project.stacks.create(stack_name="theirs", template=TEMPLATE)
    assert [s.stack_name for s in other_project.stacks.list()] == ["theirs"]
    assert [s.stack_name for s in heat.stacks.list()] == ["mine"]
    # the admin's URL with the other project's token: 403
    resp = other_project.http_client.session.get(f"{endpoint}/stacks", raise_exc=False)
    assert resp.status_code == 403
    assert resp.json()["error"]["type"] == "Forbidden"


def test_build_info_and_catalog_entry(session, heat):
    endpoint = session.get_endpoint(service_type="orchestration")
    assert "/heat-api/v1/" in endpoint
    info = heat.build_info.build_info()
    assert set(info) == {"api", "engine"}


def test_preview_and_update_preview_change_nothing(heat, world):
    events_before = len(world.store.events())
    preview = heat.stacks.preview(stack_name="pv", template=TEMPLATE, parameters={"value": "p"})
    assert preview.id == "None"
    res = {r["resource_name"]: r for r in preview.resources}
    assert res["thing"]["resource_type"] == "OS::Heat::TestResource"
    assert res["secret"]["required_by"] == ["thing"]
    assert [s.stack_name for s in heat.stacks.list()] == []
    assert len(world.store.events()) == events_before
    bad = copy.deepcopy(TEMPLATE)
    bad["resources"]["thing"]["properties"]["nonsense"] = 1
    with pytest.raises(heat_exc.HTTPBadRequest):
        heat.stacks.preview(stack_name="pv", template=bad)

    heat.stacks.create(stack_name="pu", template=TEMPLATE, parameters={"value": "a"})
    _wait(heat, "pu", "CREATE")
    changed = copy.deepcopy(TEMPLATE)
    del changed["resources"]["secret"]
    del changed["resources"]["thing"]["depends_on"]
    changed["resources"]["thing"]["properties"]["update_replace_value"] = "new"
    changed["resources"]["extra"] = {"type": "OS::Heat::RandomString"}
    changes = heat.stacks.preview_update("pu", template=changed)["resource_changes"]
    names = {k: [r["resource_name"] for r in v] for k, v in changes.items()}
    assert names == {
        "added": ["extra"],
        "deleted": ["secret"],
        "replaced": ["thing"],
        "unchanged": [],
        "updated": [],
    }
    same = heat.stacks.preview_update("pu", template=TEMPLATE, existing=True)["resource_changes"]
    assert sorted(r["resource_name"] for r in same["unchanged"]) == ["secret", "thing"]
    assert heat.stacks.get("pu").stack_status == "CREATE_COMPLETE"
