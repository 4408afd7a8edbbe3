"""The fake server's config agent reports the signal payloads written in its user_data."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds.agent import AGENT_ENDPOINT_PREFIX, agent_plan
from tests.library.conftest import outputs, tmpl

SERVER = {"image": "cirros", "flavor": "m1.tiny"}


def waiting_on_a_server(script, count=1, metadata=None):
    """Handle h, a server whose user_data is *script* with ``notify`` = h's curl_cli, wait w."""
    props = {
        **SERVER,
        "user_data": {
            "str_replace": {
                "template": script,
                "params": {"notify": {"get_attr": ["h", "curl_cli"]}},
            }
        },
    }
    if metadata:
        props["metadata"] = metadata
    return tmpl(
        {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "server": {"type": "OS::Nova::Server", "properties": props},
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "h"}, "count": count, "timeout": 600},
            },
        },
        outputs={
            "data": {"value": {"get_attr": ["w", "data"]}},
            "endpoint": {"value": {"get_attr": ["h", "endpoint"]}},
        },
    )


def test_two_signals_with_ids_and_data_complete_a_count_of_two(world):
    script = (
        "#!/bin/bash -ex\n"
        'notify --data-binary \'{"status": "SUCCESS", "data": "db ready", "id": "1"}\'\n'
        'notify -d \'{"status": "SUCCESS", "data": "web ready", "id": "2"}\'\n'
    )
    stack = world.create_stack("s", waiting_on_a_server(script, count=2))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert json.loads(outputs(stack)["data"]) == {"1": "db ready", "2": "web ready"}


def test_a_failure_payload_fails_the_wait_with_its_reason(world):
    script = 'notify --data-binary \'{"status": "FAILURE", "reason": "disk full"}\'\n'
    stack = world.create_stack("s", waiting_on_a_server(script))
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["w"].status_reason == "WaitConditionFailure: disk full"


def test_a_command_without_payload_is_a_success_numbered_by_the_server(world):
    stack = world.create_stack("s", waiting_on_a_server("notify\nnotify && echo done\n", count=2))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    server_id = stack.resources["server"].resource_id
    assert json.loads(outputs(stack)["data"]) == {server_id: None, f"{server_id}.2": None}


def test_malformed_json_is_a_success_whose_reason_says_why(world):
    stack = world.create_stack(
        "s", waiting_on_a_server("notify --data-binary '{\"status\": FAIL'\n")
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    server_id = stack.resources["server"].resource_id
    assert json.loads(outputs(stack)["data"]) == {server_id: None}
    problem = "not valid JSON (Expecting value: line 1 column 12 (char 11))"
    name = world.cloud.client("compute").servers.get(server_id).name
    reason = f"Config agent of server {name} completed (signal payload ignored: {problem})"
    endpoint = outputs(stack)["endpoint"]
    reports = world.cloud.service("compute").agent_signals(endpoint)
    assert [(r["status"], r["reason"]) for r in reports] == [("SUCCESS", reason)]
    record = world.cloud.service("compute").agent["servers"][server_id]
    assert [s["problem"] for s in record["signals"]] == [problem]


def test_a_payload_with_an_unknown_key_or_status_is_ignored_with_the_reason(world):
    script = (
        'notify -d \'{"status": "DONE"}\'\n'
        'notify -d \'{"state": "SUCCESS"}\'\n'
        "notify -d '[1, 2]'\n"
    )
    stack = world.create_stack("s", waiting_on_a_server(script, count=3))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    server_id = stack.resources["server"].resource_id
    record = world.cloud.service("compute").agent["servers"][server_id]
    assert [s["problem"] for s in record["signals"]] == [
        "status 'DONE' is not SUCCESS or FAILURE",
        "unknown key(s) state (a signal has status, reason, data, id)",
        "a JSON list, not a map of status, reason, data, id",
    ]


def test_metadata_fail_overrides_a_success_payload(world):
    script = 'notify -d \'{"status": "SUCCESS", "reason": "all good"}\'\n'
    stack = world.create_stack("s", waiting_on_a_server(script, metadata={"plugsim_agent": "fail"}))
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["w"].status_reason.startswith(
        "WaitConditionFailure: Config agent of server"
    )
    assert stack.resources["w"].status_reason.endswith(" failed")


def test_payloads_survive_reopening_the_world(tmp_path):
    from simulator.world import World

    script = 'notify -d \'{"data": "kept", "id": "a"}\'\n'
    path = tmp_path / "w.db"
    with World.open(path) as w:
        assert w.create_stack("s", waiting_on_a_server(script)).state == "CREATE_COMPLETE"
    with World.open(path) as w:
        assert json.loads(outputs(w.get_stack("s"))["data"]) == {"a": "kept"}


ENDPOINT = AGENT_ENDPOINT_PREFIX + "s-h-x"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_user_data_gives_a_plan_without_crashing(text):
    plan = agent_plan(text)
    assert all(p["endpoint"].startswith(AGENT_ENDPOINT_PREFIX) for p in plan)
    assert all(p["payload"] == {} or p["problem"] is None for p in plan)


@settings(max_examples=100, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "status": st.sampled_from(["SUCCESS", "FAILURE"]),
            "reason": st.text(),
            "data": st.one_of(st.none(), st.integers(), st.text()),
            "id": st.text(min_size=1),
        },
    ),
    st.sampled_from(["-d", "--data", "--data-binary", "--data-raw"]),
)
def test_a_valid_payload_is_reported_exactly(payload, option):
    quoted = "'" + json.dumps(payload).replace("'", "'\"'\"'") + "'"
    script = f"curl -X POST {ENDPOINT} {option} {quoted}\n"
    assert agent_plan(script) == [{"endpoint": ENDPOINT, "payload": payload, "problem": None}]


def test_the_compute_module_still_offers_the_agent_plan_and_endpoint_prefix():
    import fake_clouds.agent
    import fake_clouds.compute

    assert fake_clouds.compute.agent_plan is fake_clouds.agent.agent_plan
    assert fake_clouds.compute.AGENT_ENDPOINT_PREFIX == (
        "https://orchestration.plugsim.invalid/v1/signal/"
    )
