"""The command line through click's CliRunner."""

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli import main

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"v": {"type": "string", "default": "one"}},
    "resources": {
        "a": {
            "type": "Plugsim::Test::Trivial",
            "properties": {"value": {"get_param": "v"}, "delay": 20},
        }
    },
    "outputs": {"out": {"value": {"get_attr": ["a", "value"]}}},
}


@pytest.fixture
def env(tmp_path):
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(TEMPLATE))
    state = tmp_path / "world.db"

    def run(*args):
        return CliRunner().invoke(main, ["--state", str(state), *args])

    return run, tpl


def test_create_show_update_delete_across_invocations(env):
    run, tpl = env
    res = run("stack", "create", "-t", str(tpl), "--parameter", "v=two", "web")
    assert res.exit_code == 0, res.output
    assert "web CREATE_COMPLETE: Stack CREATE completed successfully" in res.output
    shown = json.loads(run("stack", "show", "web", "-f", "json").output)
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert shown["stack_status_reason"] == "Stack CREATE completed successfully"
    assert shown["parameters"]["v"] == "two"
    assert shown["outputs"] == [
        {"output_key": "out", "output_value": "two", "description": "No description given"}
    ]
    res = run("stack", "update", "web", "--existing", "--parameter", "v=three")
    assert res.exit_code == 0, res.output
    out = json.loads(run("stack", "output", "show", "web", "out", "-f", "json").output)
    assert out["output_value"] == "three"
    events = json.loads(run("stack", "event", "list", "web", "-f", "json").output)
    assert [e["status"] for e in events if e["resource_name"] == "a"][:2] == [
        "IN_PROGRESS",
        "COMPLETE",
    ]
    resources = json.loads(run("stack", "resource", "list", "web", "-f", "json").output)
    assert resources[0]["resource_status"] == "UPDATE_COMPLETE"
    listed = yaml.safe_load(run("stack", "list", "-f", "yaml").output)
    assert [s["stack_name"] for s in listed] == ["web"]
    assert run("stack", "delete", "web").exit_code == 0
    assert json.loads(run("stack", "list", "-f", "json").output) == []


def test_lifecycle_verbs_and_snapshots(env):
    run, tpl = env
    assert run("stack", "create", "-t", str(tpl), "web").exit_code == 0
    for verb in ("suspend", "resume", "check"):
        res = run("stack", verb, "web")
        assert res.exit_code == 0 and f"{verb.upper()}_COMPLETE" in res.output
    snap = json.loads(
        run("stack", "snapshot", "create", "web", "--name", "s1", "-f", "json").output
    )
    assert snap["status"] == "COMPLETE"
    assert [
        s["name"] for s in json.loads(run("stack", "snapshot", "list", "web", "-f", "json").output)
    ] == ["s1"]
    assert "RESTORE_COMPLETE" in run("stack", "restore", "web", "s1").output
    assert run("stack", "snapshot", "delete", "web", "s1").exit_code == 0


def test_abandon_and_adopt(env, tmp_path):
    run, tpl = env
    run("stack", "create", "-t", str(tpl), "web")
    res = run("stack", "abandon", "web")
    data = json.loads(res.output)
    assert data["resources"]["a"]["resource_id"]
    adopt_file = tmp_path / "adopt.json"
    adopt_file.write_text(res.output)
    res = run("stack", "adopt", "--adopt-file", str(adopt_file), "web2")
    assert res.exit_code == 0 and "ADOPT_COMPLETE" in res.output


def test_user_errors_are_one_line_and_exit_1(env, tmp_path):
    run, tpl = env
    res = run("stack", "show", "nope")
    assert res.exit_code == 1
    assert res.output.strip() == "plugsim: error: The Stack (nope) could not be found."
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources: [1, 2\n")
    res = run("stack", "create", "-t", str(bad), "x")
    assert res.exit_code == 1
    assert res.output.count("\n") == 1 and "not valid YAML" in res.output
    res = run("stack", "cancel", "nope")
    assert res.exit_code == 1


def test_debug_shows_the_traceback(env):
    run, _ = env
    res = CliRunner().invoke(main, ["--state", ":memory:", "--debug", "stack", "show", "x"])
    assert res.exit_code == 1 and res.exception is not None
    assert type(res.exception).__name__ == "EntityNotFound"


def test_failed_stack_exits_1(env, tmp_path):
    run, _ = env
    t = tmp_path / "f.yaml"
    t.write_text(
        yaml.safe_dump(
            {
                "heat_template_version": "2018-08-31",
                "resources": {"f": {"type": "Plugsim::Test::Fail"}},
            }
        )
    )
    res = run("stack", "create", "-t", str(t), "bad")
    assert res.exit_code == 1
    assert "bad CREATE_FAILED: Resource CREATE failed: ValueError: resources.f" in res.output


def test_template_validate_and_inventory(env):
    run, tpl = env
    res = run("template", "validate", "-t", str(tpl), "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["Resources"] == ["a"]
    res = run("cloud", "inventory", "-f", "json")
    assert res.exit_code == 0 and json.loads(res.output) == []


def test_seed_of_an_existing_world_cannot_change(env):
    run, tpl = env
    assert run("stack", "create", "-t", str(tpl), "--seed", "3", "a").exit_code == 0
    res = run("stack", "create", "-t", str(tpl), "--seed", "4", "b")
    assert res.exit_code == 1 and "created with seed 3" in res.output


def test_plugin_dir_option(tmp_path):
    plugins = Path(__file__).resolve().parents[2] / "examples" / "three-tier" / "plugins"
    t = tmp_path / "v.yaml"
    t.write_text(
        yaml.safe_dump(
            {
                "heat_template_version": "2018-08-31",
                "resources": {"v": {"type": "Example::Storage::Volume"}},
            }
        )
    )
    res = CliRunner().invoke(
        main,
        ["--state", ":memory:", "--plugin-dir", str(plugins), "template", "validate", "-t", str(t)],
    )
    assert res.exit_code == 0, res.output
