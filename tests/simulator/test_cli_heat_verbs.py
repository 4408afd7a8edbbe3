"""The ``openstack stack`` verbs ``plugsim stack`` gained with the Orchestration API (issue 31):
tags, nested listing, hooks, mark-unhealthy, metadata, snapshot show, environment, files, export,
``--wait`` with Heat's meaning and the world lock's ``--wait-lock``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli import main

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "secret": {"type": "OS::Heat::RandomString", "metadata": {"role": "key"}},
        "thing": {"type": "OS::Heat::TestResource", "properties": {"value": "v"}},
    },
}
GROUP = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "grp": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {"count": 1, "resource_def": {"type": "OS::Heat::None"}},
        }
    },
}


@pytest.fixture
def state(tmp_path):
    return str(tmp_path / "w.db")


@pytest.fixture
def tpl(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(TEMPLATE))
    return str(path)


def run(state, *args, code=0):
    result = CliRunner().invoke(main, ["--state", state, *args])
    assert result.exit_code == code, result.output
    return result.output


def test_tags_in_show_and_list_by_tag_mode_and_nested(state, tpl, tmp_path):
    run(state, "stack", "create", "a", "-t", tpl, "--tag", "web", "--tag", "prod", "--wait")
    run(state, "stack", "create", "b", "-t", tpl, "--tag", "web")
    group = tmp_path / "g.yaml"
    group.write_text(yaml.safe_dump(GROUP))
    run(state, "stack", "create", "g", "-t", str(group))
    assert json.loads(run(state, "stack", "show", "a", "-f", "json"))["tags"] == ["web", "prod"]

    def names(*args):
        return [
            r["stack_name"] for r in json.loads(run(state, "stack", "list", *args, "-f", "json"))
        ]

    assert names() == ["a", "b", "g"]
    assert names("--tags", "web,prod") == ["a"]
    assert names("--tags", "prod,x", "--tag-mode", "any") == ["a"]
    assert names("--tags", "prod", "--tag-mode", "not") == ["b", "g"]
    assert names("--tags", "web", "--tag-mode", "not-any") == ["g"]
    nested = json.loads(run(state, "stack", "list", "--nested", "-f", "json"))
    child = [r for r in nested if r["parent"]]
    assert len(child) == 1 and child[0]["stack_name"].startswith("g-grp")


def test_mark_unhealthy_metadata_snapshot_environment_files_export(state, tpl, tmp_path):
    env = tmp_path / "env.yaml"
    env.write_text(yaml.safe_dump({"parameter_defaults": {"unused": 1}}))
    run(state, "stack", "create", "s", "-t", tpl, "-e", str(env))
    out = run(state, "stack", "resource", "mark-unhealthy", "s", "thing", "disk gone")
    assert out.strip() == "thing CHECK_FAILED: disk gone"
    rows = json.loads(run(state, "stack", "resource", "list", "s", "-f", "json"))
    assert {r["resource_name"]: r["resource_status"] for r in rows}["thing"] == "CHECK_FAILED"
    run(state, "stack", "resource", "mark-unhealthy", "--reset", "s", "thing")
    rows = json.loads(run(state, "stack", "resource", "list", "s", "-f", "json"))
    assert {r["resource_name"]: r["resource_status"] for r in rows}["thing"] == "CHECK_COMPLETE"

    assert json.loads(run(state, "stack", "resource", "metadata", "s", "secret")) == {"role": "key"}
    snap = json.loads(run(state, "stack", "snapshot", "create", "s", "--name", "one", "-f", "json"))
    shown = json.loads(run(state, "stack", "snapshot", "show", "s", "one", "-f", "json"))
    assert shown["id"] == snap["id"]
    assert sorted(shown["data"]["resources"]) == ["secret", "thing"]
    environment = yaml.safe_load(run(state, "stack", "environment", "show", "s"))
    assert environment["parameter_defaults"] == {"unused": 1}
    assert yaml.safe_load(run(state, "stack", "file", "list", "s")) == {}
    exported = json.loads(run(state, "stack", "export", "s"))
    assert exported["name"] == "s" and sorted(exported["resources"]) == ["secret", "thing"]
    assert json.loads(run(state, "stack", "show", "s", "-f", "json"))["stack_status"] == (
        "SNAPSHOT_COMPLETE"
    )  # export leaves the stack as it was
    run(state, "stack", "delete", "-y", "s", "--wait")
    assert json.loads(run(state, "stack", "list", "-f", "json")) == []


def test_old_wait_spelling_still_queues_with_a_note(state, tpl):
    result = CliRunner().invoke(
        main, ["--state", state, "--wait", "stack", "create", "s", "-t", tpl]
    )
    assert result.exit_code == 0, result.output
    assert "deprecated" in result.output and "--wait-lock" in result.output
    result = CliRunner().invoke(main, ["--state", state, "--wait-lock", "stack", "list"])
    assert result.exit_code == 0 and "deprecated" not in result.output


def _plugsim(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("plugsim")), *args]


@pytest.mark.material
def test_a_breakpoint_stops_the_command_until_another_process_clears_it(state, tpl):
    creating = subprocess.Popen(
        _plugsim("--state", state, "stack", "create", "h", "-t", tpl, "--pre-create", "thing"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    try:
        deadline = time.monotonic() + 120
        pending: list = []
        while time.monotonic() < deadline and not pending:
            polled = subprocess.run(
                _plugsim("--state", state, "stack", "hook", "poll", "h", "-f", "json"),
                capture_output=True,
                text=True,
                check=False,
            )
            pending = json.loads(polled.stdout) if polled.returncode == 0 else []
            if not pending:
                assert creating.poll() is None, creating.communicate()
                time.sleep(0.3)
        assert pending == [{"resource_name": "thing", "hook_type": "pre-create"}]
        cleared = subprocess.run(
            _plugsim("--state", state, "stack", "hook", "clear", "--pre-create", "h", "thing"),
            capture_output=True,
            text=True,
            check=False,
        )
        assert cleared.returncode == 0, cleared.stderr
        assert "Hook pre-create of thing cleared" in cleared.stdout
        out, err = creating.communicate(timeout=120)
    finally:
        if creating.poll() is None:
            creating.kill()
    assert creating.returncode == 0, err
    assert "h CREATE_COMPLETE" in out
    events = json.loads(run(state, "stack", "event", "list", "h", "-f", "json"))
    reasons = [e["reason"] for e in events if e["resource_name"] == "thing"]
    assert reasons[:2] == [
        "CREATE paused until Hook pre-create is cleared",
        "Hook pre-create is cleared",
    ]


def test_show_columns_pick_fields_in_the_table_as_openstack_show_does(state, tpl):
    run(state, "stack", "create", "a", "-t", tpl, "--tag", "demo")

    table = run(state, "stack", "show", "a", "-c", "tags")

    assert "tags" in table and '["demo"]' in table
    assert "stack_name" not in table
    assert "no column" in run(state, "stack", "show", "a", "-c", "nope", code=2)
