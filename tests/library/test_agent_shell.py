"""The config agent runs user_data's shell loops and functions as a booted server would.

heat-tempest-plugin's ``test_os_wait_condition`` (issue 35 item 6) signals from a
``while`` loop that retries until curl succeeds, and from a shell function started 20
times by ``for i in `seq 1 20`; do _signal & done``: 26 signals, two with the same id,
so a wait condition counting 25 completes. The agent runs a ``while``/``until`` body
once (its signal succeeds, then ``break``), a ``for`` body once per word (``seq``
counted), a function's body where it is called, never where it is defined.
"""

from fake_clouds.agent import AGENT_ENDPOINT_PREFIX, agent_plan
from tests.library.agent_shell_fixture import TEMPEST_STYLE
from tests.library.conftest import outputs, tmpl

URL = AGENT_ENDPOINT_PREFIX + "s-h-1"
CURL = f"curl -i -X POST -H 'X-Auth-Token: t' {URL}"


def _plan(script):
    return agent_plan(script.replace("wc_notify", CURL))


def test_a_retry_loop_sends_once_and_a_for_loop_once_per_word():
    plan = _plan(
        "#!/bin/sh\n"
        'while true; do wc_notify --data-binary \'{"status": "SUCCESS"}\'; '
        "if [ $? -eq 0 ]; then break; else sleep 10; fi; done\n"
        'for n in a b c; do wc_notify -d \'{"id": "x"}\'; done\n'
        "for i in $(seq 2 5); do\n  wc_notify\ndone\n"
    )
    assert [p["payload"].get("id") for p in plan] == [None, "x", "x", "x", None, None, None, None]


def test_a_function_runs_where_it_is_called_not_where_it_is_defined():
    plan = _plan(
        'notify(){ wc_notify -d \'{"reason": "called"}\'; }\n'
        "echo nothing yet\n"
        "notify\nnotify &\nwait\n"
    )
    assert [p["payload"] for p in plan] == [{"reason": "called"}] * 2


def test_a_function_never_called_sends_nothing():
    assert _plan("function quiet {\n  wc_notify\n}\n") == []


def test_heat_tempest_plugins_wait_condition_script_sends_26_signals():
    plan = _plan(TEMPEST_STYLE)
    assert len(plan) == 26
    assert [p["payload"].get("id") for p in plan].count("test5") == 2
    assert all(p["problem"] is None for p in plan)


def test_a_wait_condition_counting_25_completes_from_that_script(world):
    template = tmpl(
        {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "server": {
                "type": "OS::Nova::Server",
                "properties": {
                    "image": "cirros",
                    "flavor": "m1.tiny",
                    "user_data_format": "RAW",
                    "user_data": {
                        "str_replace": {
                            "template": TEMPEST_STYLE,
                            "params": {"wc_notify": {"get_attr": ["h", "curl_cli"]}},
                        }
                    },
                },
            },
            "w": {
                "type": "OS::Heat::WaitCondition",
                "depends_on": "server",
                "properties": {"handle": {"get_resource": "h"}, "count": 25, "timeout": 600},
            },
        },
        outputs={"data": {"value": {"get_attr": ["w", "data"]}}},
    )
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    import json

    data = json.loads(outputs(stack)["data"])
    assert len(data) == 25 and data["test5"] is None
    assert sorted(v for v in data.values() if v) == ["data3", "data4"]


def test_a_powershell_script_is_taken_as_written():
    # heat-templates' Windows templates: braces of PowerShell functions and ifs are no shell
    # blocks; the command naming the endpoint still signals, once
    plan = _plan(
        "function Send-Signal {\n  if ($ok) {\n    Write-Host 'x'\n  }\n}\n"
        "$parameters = @{\n  'ENDPOINT' = 'wc_notify';\n}\n"
    )
    assert len(plan) == 1


def test_an_if_block_runs_its_then_branch_only():
    """A script checks, then signals SUCCESS or FAILURE: a healthy server takes the first branch."""
    plan = _plan(
        "#!/bin/sh\n"
        "if grep -q vdb /proc/partitions\nthen\n"
        '  wc_notify -d \'{"status": "SUCCESS", "id": "ok"}\'\n'
        'elif true; then\n  wc_notify -d \'{"status": "FAILURE", "id": "elif"}\'\n'
        'else\n  wc_notify -d \'{"status": "FAILURE", "id": "else"}\'\nfi\n'
        'if true; then if false; then wc_notify -d \'{"id": "inner"}\'; else wc_notify; fi; fi\n'
    )
    assert [p["payload"].get("id") for p in plan] == ["ok", "inner"]


def test_cfn_signal_keys_are_a_signal_too():
    plan = _plan(
        "curl -X PUT --data-binary "
        '\'{"Status": "SUCCESS", "Reason": "done", "Data": "d", "UniqueId": "i1"}\' '
        f'"{URL}"\n'
    )
    assert plan[0]["problem"] is None
    assert plan[0]["payload"] == {"status": "SUCCESS", "reason": "done", "data": "d", "id": "i1"}
