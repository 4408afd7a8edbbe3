"""Introspection: find and summary through the Python API and ``plugsim capabilities``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk.exception import PlugsimError, StackValidationFailed
from simulator.capabilities import find_templates, parse_filters, summarize
from simulator.cli import main
from simulator.cli.capabilities import capabilities

TRIPLEO = Path(__file__).parent / "capabilities" / "tripleo"

if "capabilities" not in main.commands:
    main.add_command(capabilities)


@pytest.fixture
def in_tripleo(monkeypatch):
    monkeypatch.chdir(TRIPLEO)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["capabilities", *args])
    return result.exit_code, result.stdout, result.stderr


# --- find ------------------------------------------------------------------------------


def test_find_by_type_recursively(in_tripleo):
    found = find_templates(["."], {"resource_type": "OS::TripleO::Controller"}, recursive=True)
    assert found == ["docker/controller.yaml", "puppet/controller.yaml"]


def test_find_matches_a_type_inside_a_list(in_tripleo):
    wanted = {"resource_type": "OS::TripleO::ComputePostDeployment"}
    assert find_templates(["."], wanted, recursive=True) == ["puppet/post-deploy.yaml"]


def test_find_needs_every_filter(in_tripleo):
    both = {"deployment": "puppet", "resource_type": "OS::TripleO::Controller"}
    assert find_templates(["puppet", "docker"], both) == ["puppet/controller.yaml"]
    assert find_templates(["puppet", "docker"], {"deployment": "puppet"}) == [
        "puppet/controller.yaml",
        "puppet/post-deploy.yaml",
    ]
    assert find_templates(["."], {"deployment": "chef"}, recursive=True) == []


def test_find_without_recursion_stays_in_the_directory(in_tripleo):
    assert find_templates(["."], {"deployment": "puppet"}) == []
    assert find_templates(["./puppet/../puppet"], {"deployment": "puppet"}) == [
        "puppet/controller.yaml",
        "puppet/post-deploy.yaml",
    ]


def test_find_without_filters_lists_every_template(in_tripleo):
    assert find_templates(["."], {}, recursive=True) == [
        "docker/controller.yaml",
        "extraconfig/noop.yaml",
        "overcloud.yaml",
        "puppet/controller.yaml",
        "puppet/post-deploy.yaml",
    ]


def test_find_keeps_explicit_files_in_order_without_duplicates(in_tripleo):
    files = ["puppet/controller.yaml", "docker/controller.yaml", "./puppet/controller.yaml"]
    assert find_templates(files, {"resource_type": "OS::TripleO::Controller"}) == [
        "puppet/controller.yaml",
        "docker/controller.yaml",
    ]


def test_find_skips_non_templates_in_directories_but_not_named_ones(tmp_path):
    (tmp_path / "notes.yaml").write_text("just: [data]\n")
    (tmp_path / "broken.yaml").write_text("a: [unclosed\n")
    (tmp_path / "readme.txt").write_text("heat_template_version: 2015-10-15\n")
    (tmp_path / "t.yaml").write_text("heat_template_version: 2015-10-15\ncapabilities: {a: b}\n")
    assert find_templates([tmp_path], {"a": "b"}) == [f"{tmp_path}/t.yaml"]
    with pytest.raises(StackValidationFailed) as err:
        find_templates([tmp_path / "notes.yaml"], {"a": "b"})
    assert str(err.value) == (
        f"{tmp_path}/notes.yaml: is not a HOT template (it has no heat_template_version)"
    )


def test_find_reports_a_malformed_annotation(tmp_path):
    (tmp_path / "bad.yaml").write_text(
        "heat_template_version: 2015-10-15\ncapabilities: {replicas: 3}\n"
    )
    with pytest.raises(StackValidationFailed) as err:
        find_templates([tmp_path], {"a": "b"}, recursive=True)
    assert str(err.value).startswith(
        f"{tmp_path}/bad.yaml: capabilities.replicas: The capability replicas must be a "
        "non-empty string, not number 3"
    )


def test_parse_filters():
    assert parse_filters(["deployment=puppet", "resource_type=OS::A=B"]) == {
        "deployment": "puppet",
        "resource_type": "OS::A=B",
    }
    for bad in ("deployment", "=puppet", "deployment="):
        with pytest.raises(PlugsimError, match=f"capability filter '{bad}' is not KEY=VALUE"):
            parse_filters([bad])


# --- summary ---------------------------------------------------------------------------


def test_summary_of_tag_and_type_annotations(in_tripleo):
    assert summarize(["puppet/controller.yaml", "docker/controller.yaml"]) == {
        "capabilities": {"deployment": ["puppet", "docker"]},
        "resource_types": {
            "OS::TripleO::Controller": ["puppet/controller.yaml", "docker/controller.yaml"]
        },
    }


def test_summary_with_an_environment_closes_the_choice(in_tripleo):
    out = summarize(
        ["puppet/controller.yaml", "docker/controller.yaml", "extraconfig/noop.yaml"],
        ["overcloud-resource-registry.yaml"],
    )
    assert out["requires"] == {"deployment": "puppet"}
    assert out["open"] == {}
    assert out["choices"] == {
        "OS::TripleO::Controller": {
            "candidates": ["puppet/controller.yaml", "docker/controller.yaml"],
            "remaining": ["puppet/controller.yaml"],
            "chosen": "puppet/controller.yaml",
        }
    }
    assert out["registry"]["OS::TripleO::Controller"]["chosen"] == "puppet/controller.yaml"


def test_summary_shows_what_is_still_open(in_tripleo):
    out = summarize(
        ["puppet/controller.yaml", "docker/controller.yaml", "puppet/post-deploy.yaml"],
        ["environments/choices.yaml"],
    )
    assert out["requires"] == {}
    assert out["open"] == {"deployment": ["puppet", "docker"]}
    assert out["choices"]["OS::TripleO::Controller"] == {
        "candidates": ["../puppet/controller.yaml", "../docker/controller.yaml"],
        "remaining": ["../puppet/controller.yaml", "../docker/controller.yaml"],
        "chosen": None,
    }
    assert out["choices"]["OS::TripleO::ComputePostDeployment"] == {
        "candidates": ["puppet/post-deploy.yaml"],
        "remaining": ["puppet/post-deploy.yaml"],
        "chosen": "puppet/post-deploy.yaml",
    }
    assert out["registry"]["OS::TripleO::Controller"]["error"].startswith(
        "2 candidate templates satisfy an empty requires section"
    )


# --- the command line ---------------------------------------------------------------------


def test_cli_find_prints_json(in_tripleo):
    code, out, _ = run("find", "-r", "-c", "resource_type=OS::TripleO::Controller", ".")
    assert code == 0
    assert json.loads(out) == ["docker/controller.yaml", "puppet/controller.yaml"]
    code, out, _ = run(
        "find", "-c", "deployment=docker", "-c", "resource_type=OS::TripleO::Controller",
        "puppet", "docker",
    )  # fmt: skip
    assert (code, json.loads(out)) == (0, ["docker/controller.yaml"])


def test_cli_summary_prints_json(in_tripleo):
    code, out, _ = run(
        "summary", "-f", "puppet/controller.yaml", "-f", "docker/controller.yaml",
        "-e", "overcloud-resource-registry.yaml", "-e", "environments/docker.yaml",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["capabilities"] == {"deployment": ["puppet", "docker"]}
    assert data["requires"] == {"deployment": "docker"}
    assert data["choices"]["OS::TripleO::Controller"]["chosen"] == "docker/controller.yaml"


def test_cli_errors_are_one_line(in_tripleo):
    code, out, err = run("find", "-c", "deployment", ".")
    assert (code, out) == (1, "")
    assert err == (
        "plugsim: error: capability filter 'deployment' is not KEY=VALUE (e.g. "
        "deployment=puppet or resource_type=OS::TripleO::Controller)\n"
    )
    code, _, err = run("summary", "-f", "missing.yaml")
    assert (code, err) == (1, "plugsim: error: missing.yaml: no such file or directory\n")


def test_cli_requires_a_filter_and_a_path(in_tripleo):
    code, _, err = run("find", ".")
    assert code == 2
    assert "Missing option '-c'" in err
    code, _, err = run("find", "-c", "a=b")
    assert code == 2
    assert "Missing argument 'PATHS...'" in err
