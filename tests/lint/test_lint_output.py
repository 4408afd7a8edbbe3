"""Output formats (text, JSON, SARIF 2.1.0, GitHub annotations) and the exit status."""

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from sdk.lint import LintConfig, Severity, all_rules, lint_paths, render
from sdk.lint.cli import lint
from sdk.lint.formatters import format_github
from sdk.lint.registry import Finding
from sdk.lint.runner import LintReport

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
SCHEMA = json.loads((HERE / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
CONFIGURED = "tests/lint/fixtures/configured"


def _report():
    return lint_paths([FIXTURES / "configured"])


def test_text_format_is_path_line_col_id_message_then_a_summary():
    assert render(_report(), "text").splitlines() == [
        f"{CONFIGURED}/legacy/old.py:4:1: PS101 resource class OldVolume has no docstring",
        f"{CONFIGURED}/volume.py:4:1: PS101 resource class Volume has no docstring",
        f"{CONFIGURED}/volume.py:6:9: PS201 Volume: property size has no description",
        "Found 1 error, 2 warnings and 0 infos in 2 files.",
    ]


def test_json_format_shape():
    document = json.loads(render(_report(), "json"))
    assert set(document) == {"tool", "version", "files", "findings", "summary"}
    assert document["tool"] == "plugsim-lint"
    assert document["files"] == 2
    assert document["summary"] == {"error": 1, "warning": 2, "info": 0}
    assert document["findings"][2] == {
        "path": f"{CONFIGURED}/volume.py",
        "line": 6,
        "col": 9,
        "rule": "PS201",
        "severity": "error",
        "message": "Volume: property size has no description",
    }


def test_sarif_output_validates_against_the_sarif_2_1_0_schema():
    log = json.loads(render(_report(), "sarif"))
    jsonschema.validate(log, SCHEMA)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in all_rules()]
    result = run["results"][2]
    assert result["ruleId"] == "PS201"
    assert rules[result["ruleIndex"]]["id"] == "PS201"
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": f"{CONFIGURED}/volume.py"},
        "region": {"startLine": 6, "startColumn": 9},
    }


def test_sarif_rule_descriptors_carry_the_documentation():
    log = json.loads(render(LintReport(), "sarif"))
    jsonschema.validate(log, SCHEMA)
    descriptor = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert descriptor["id"] == "PS001"
    assert descriptor["name"] == "syntax-error"
    assert descriptor["defaultConfiguration"] == {"level": "error"}
    assert "Bad:" in descriptor["help"]["markdown"]
    assert "Good:" in descriptor["help"]["markdown"]


def test_sarif_with_every_severity_and_the_checklist_still_validates():
    from sdk.lint.report import ChecklistItem

    report = LintReport(
        findings=[
            Finding("a.py", 1, 1, "PS101", Severity.ERROR, "x"),
            Finding("a.py", 2, 3, "PS103", Severity.WARNING, "y"),
            Finding("b.py", 1, 1, "PS507", Severity.INFO, "z"),
        ],
        files=2,
        checklist=[ChecklistItem("item", ("PS506", "PS507"), "not checked", "no ruff")],
    )
    log = json.loads(render(report, "sarif"))
    jsonschema.validate(log, SCHEMA)
    assert [r["level"] for r in log["runs"][0]["results"]] == ["error", "warning", "note"]


def test_github_annotations():
    lines = render(_report(), "github").splitlines()
    assert lines[:3] == [
        f"::warning file={CONFIGURED}/legacy/old.py,line=4,col=1,title=PS101::PS101 resource "
        "class OldVolume has no docstring",
        f"::warning file={CONFIGURED}/volume.py,line=4,col=1,title=PS101::PS101 resource class "
        "Volume has no docstring",
        f"::error file={CONFIGURED}/volume.py,line=6,col=9,title=PS201::PS201 Volume: property "
        "size has no description",
    ]


def test_github_annotations_escape_special_characters():
    report = LintReport(
        findings=[Finding("we,ird:path.py", 2, 1, "PS304", Severity.INFO, "50% bad\nnext")],
        files=1,
    )
    assert format_github(report).splitlines()[0] == (
        "::notice file=we%2Cird%3Apath.py,line=2,col=1,title=PS304::PS304 50%25 bad%0Anext"
    )


def test_output_is_deterministic():
    assert render(_report(), "sarif") == render(_report(), "sarif")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_cli_formats_exit_1_when_errors_are_found(fmt):
    result = CliRunner().invoke(lint, [CONFIGURED, "--format", fmt])
    assert result.exit_code == 1
    assert result.output == render(_report(), fmt)


def test_cli_exits_0_when_only_warnings_are_found():
    result = CliRunner().invoke(lint, ["tests/lint/fixtures/rules/ps103_bad.py"])
    assert result.exit_code == 0
    assert "PS103 resource class Volume does not set support_status" in result.output


def test_cli_exits_0_on_a_clean_plugin():
    result = CliRunner().invoke(lint, ["tests/lint/fixtures/good_plugin.py"])
    assert result.exit_code == 0
    assert result.output == "Found 0 errors, 0 warnings and 0 infos in 1 file.\n"


def test_cli_exits_2_on_a_missing_path():
    result = CliRunner().invoke(lint, ["no/such/plugin.py"])
    assert result.exit_code == 2
    assert "plugsim lint: error: no/such/plugin.py: no such file or directory" in result.output


def test_cli_exits_2_on_an_unreadable_file(tmp_path):
    bad = tmp_path / "latin1.py"
    bad.write_bytes(b"# \xff\xfe not utf-8\n")
    result = CliRunner().invoke(lint, [str(bad)])
    assert result.exit_code == 2
    assert f"{bad}: cannot be read" in result.output


def test_cli_exits_2_on_a_file_that_is_not_python(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    result = CliRunner().invoke(lint, [str(other)])
    assert result.exit_code == 2
    assert "not a Python file, a YAML template or a directory" in result.output


def test_cli_exits_2_on_bad_arguments():
    assert CliRunner().invoke(lint, []).exit_code == 2
    assert CliRunner().invoke(lint, [CONFIGURED, "--format", "xml"]).exit_code == 2


def test_cli_list_rules_prints_the_catalogue():
    result = CliRunner().invoke(lint, ["--list-rules"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert len(lines) == len(all_rules())
    assert lines[1].split()[:3] == ["PS101", "error", "resource-docstring-missing"]


def test_cli_explain_prints_one_rule_with_examples():
    result = CliRunner().invoke(lint, ["--explain", "ps209"])
    assert result.exit_code == 0
    assert result.output.startswith("PS209 update-allowed-and-immutable (error, schema)\n")
    assert "Bad:" in result.output and "update_allowed=True, immutable=True" in result.output
    assert "Good:" in result.output


def test_cli_explain_unknown_rule_exits_2():
    result = CliRunner().invoke(lint, ["--explain", "PS999"])
    assert result.exit_code == 2
    assert "unknown rule id 'PS999'" in result.output


def test_python_dash_m_entry_point(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "sdk.lint", "tests/lint/fixtures/rules/ps101_bad.py"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == (
        "tests/lint/fixtures/rules/ps101_bad.py:5:1: PS101 resource class Volume has no docstring"
    )


def test_the_default_config_is_used_when_none_is_found(tmp_path):
    plugin = tmp_path / "p.py"
    plugin.write_text((FIXTURES / "rules" / "ps103_bad.py").read_text())
    report = lint_paths([plugin])
    assert [f.rule_id for f in report.findings] == ["PS103"]
    assert lint_paths([plugin], config=LintConfig(ignore=("PS1",))).findings == []


def test_docs_rule_reference_is_in_sync_with_the_catalogue():
    from sdk.lint.docs import render_rules_rst

    checked_in = (HERE.parents[1] / "docs" / "lint-rules.rst").read_text(encoding="utf-8")
    assert checked_in == render_rules_rst(), (
        "docs/lint-rules.rst is stale: python -m sdk.lint --write-docs docs/lint-rules.rst"
    )


def test_every_rule_is_documented_with_a_bad_and_a_good_example():
    for rule in all_rules():
        assert rule.doc and rule.bad and rule.good and rule.summary, rule.id
        assert rule.bad != rule.good, rule.id
        assert rule.name == rule.name.lower() and " " not in rule.name, rule.id
