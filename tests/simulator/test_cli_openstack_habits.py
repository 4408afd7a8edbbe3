"""The stack verbs, columns and formats the OpenStack client's users reach for."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"
STACK, ENV = str(EXAMPLE / "stack.yaml"), str(EXAMPLE / "env.yaml")


@pytest.fixture
def state(tmp_path):
    return str(tmp_path / "w.db")


def run(state, *args, code=0):
    result = CliRunner().invoke(main, ["--state", state, *args])
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def created(state):
    run(state, "stack", "create", "s1", "-t", STACK, "-e", ENV)
    return state


def test_resource_show_has_the_fields_the_openstack_client_shows(created):
    data = json.loads(run(created, "stack", "resource", "show", "s1", "net", "-f", "json"))
    assert data["resource_status"] == "CREATE_COMPLETE"
    assert data["required_by"] == ["db", "web1", "web2"]
    assert set(data) >= {"physical_resource_id", "resource_type", "attributes"}
    assert data["attributes"]["subnet_id"]
    run(created, "stack", "resource", "show", "s1", "nope", code=1)


def test_event_show_finds_an_event_by_the_id_event_list_shows(created):
    rows = list(
        csv.DictReader(io.StringIO(run(created, "stack", "event", "list", "s1", "-f", "csv")))
    )
    db = next(r for r in rows if r["resource_name"] == "db" and r["status"] == "COMPLETE")
    shown = yaml.safe_load(
        run(created, "stack", "event", "show", "s1", "db", db["id"], "-f", "yaml")
    )
    assert shown["action"] == "CREATE" and shown["status"] == "COMPLETE"
    assert shown["time_iso"] == "1970-01-01T00:00:38.036Z"


def test_template_show_prints_the_stored_template(created):
    template = yaml.safe_load(run(created, "stack", "template", "show", "s1"))
    expected = json.loads(json.dumps(yaml.safe_load(Path(STACK).read_text()), default=str))
    assert template == expected  # heat_template_version stays text, as plugsim reads it
    assert json.loads(run(created, "stack", "template", "show", "s1", "-f", "json")) == template


def test_failures_list_walks_into_nested_stacks(state):
    run(
        state,
        "stack",
        "create",
        "bad",
        "-t",
        STACK,
        "-e",
        ENV,
        "--seed",
        "3",
        "--faults",
        "flaky",
        code=1,
    )
    rows = json.loads(run(state, "stack", "failures", "list", "bad", "-f", "json"))
    failed = {r["resource"]: r["resource_status_reason"] for r in rows}
    assert {"web1", "web1.data", "web2", "web2.server"} <= set(failed)
    assert "Injected ServiceUnavailable" in failed["web2.server"]


def test_create_dry_run_validates_and_changes_nothing(state):
    out = run(state, "stack", "create", "s1", "-t", STACK, "-e", ENV, "--dry-run", "-f", "value")
    assert out.splitlines()[0] == "net Example::Net::Network"
    assert json.loads(run(state, "stack", "list", "-f", "json")) == []


def test_update_dry_run_says_what_would_happen(created, tmp_path):
    template = yaml.safe_load(Path(STACK).read_text())
    template["resources"]["db"]["properties"]["name"] = "db2"
    template["resources"]["net"]["properties"]["cidr"] = "10.99.0.0/24"
    del template["resources"]["web2"]
    template["resources"]["cache"] = {"type": "Example::Storage::Volume", "properties": {"size": 1}}
    template["outputs"]["web_servers"] = {"value": [{"get_attr": ["web1", "server_id"]}]}
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(template))
    out = run(
        created, "stack", "update", "s1", "-t", str(new), "-e", ENV, "--dry-run", "-f", "json"
    )
    plan = {r["resource_name"]: r["change"] for r in json.loads(out)}
    assert plan["cache"] == "added" and plan["web2"] == "deleted" and plan["web1"] == "unchanged"
    assert plan["db"] in ("updated", "replaced") and plan["net"] in ("updated", "replaced")
    events = json.loads(run(created, "stack", "event", "list", "s1", "-f", "json"))
    assert not [e for e in events if e["action"] == "UPDATE"]  # nothing ran


def test_parameter_file_reads_the_value_from_a_file(state, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nparameters:\n  key: {type: string}\n"
        "resources: {}\noutputs:\n  key: {value: {get_param: key}}\n"
    )
    key = tmp_path / "id_rsa.pub"
    key.write_text("ssh-rsa AAAA test@host\n")
    run(state, "stack", "create", "s", "-t", str(template), "--parameter-file", f"key={key}")
    assert (
        run(state, "stack", "output", "show", "s", "key", "-f", "value", "-c", "output_value")
        == "ssh-rsa AAAA test@host\n\n"
    )  # the value as the file holds it; value format does not quote
    bad = CliRunner().invoke(
        main,
        [
            "--state",
            state,
            "stack",
            "create",
            "t",
            "-t",
            str(template),
            "--parameter-file",
            "key=/no/such/file",
        ],
    )
    assert bad.exit_code == 2 and "/no/such/file: cannot read" in bad.output


def test_columns_and_flat_formats(created):
    assert run(created, "stack", "list", "-f", "value", "-c", "stack_name,stack_status") == (
        "s1 CREATE_COMPLETE\n"
    )
    shell = run(created, "stack", "show", "s1", "-f", "shell", "-c", "stack_status")
    assert shell == "stack_status=CREATE_COMPLETE\n"
    bad = CliRunner().invoke(main, ["--state", created, "stack", "list", "-c", "nope"])
    assert bad.exit_code == 2 and "no column nope" in bad.output


def test_global_options_work_after_the_command(created):
    result = CliRunner().invoke(
        main, ["stack", "list", "--state", created, "-f", "value", "-c", "stack_name"]
    )
    assert result.exit_code == 0 and result.output == "s1\n"


def test_output_show_all_prints_json_values(created):
    rows = json.loads(run(created, "stack", "output", "show", "s1", "--all", "-f", "json"))
    assert isinstance(rows[1]["output_value"], list)
    table = run(created, "stack", "output", "show", "s1", "--all")
    assert "['" not in table  # no Python repr in the table


def test_tables_into_a_pipe_are_not_padded_to_a_fixed_width(created):
    lines = run(created, "stack", "list").splitlines()
    assert max(len(line) for line in lines) < 160
