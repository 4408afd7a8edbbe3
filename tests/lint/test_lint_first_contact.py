"""The linter as a first-time user meets it (issue #26).

Severity in the text output, SARIF as code scanning reads it, ``--select`` /
``--ignore`` on the command line, bundled ``OS::*`` types known to template
lint, ``--inclusion`` over paths from different trees and with a pinned ruff
rule set, and a plug-in that clashes with an installed one.
"""

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from sdk.lint import LintConfig, Severity, lint_paths, render
from sdk.lint.cli import lint
from sdk.lint.inclusion import find_ruff
from sdk.lint.registry import Finding
from sdk.lint.report import LintReport

HERE = Path(__file__).parent
SCHEMA = json.loads((HERE / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
CONFIGURED = "tests/lint/fixtures/configured"
RUFF = find_ruff("ruff")

WIDGET = '''\
"""A widget plug-in written the way the SDK's guide writes one."""

from sdk import properties, resource, support


class Widget(resource.Resource):
    """A widget kept by the entity service."""

    support_status = support.SupportStatus(support.UNSUPPORTED, version="1.0.0")

    properties_schema = {
        "size": properties.Schema(properties.Schema.INTEGER, "The size.", default=1),
    }

    def handle_create(self):
        """Create the widget."""
        self.resource_id_set("w-1")

    def handle_delete(self):
        """Delete the widget; one already gone is fine."""
        try:
            self.client("entity").delete(self.resource_id)
        except Exception as ex:
            self.client_plugin("entity").ignore_not_found(ex)


def resource_mapping():
    """The types this module provides."""
    return {"{type_name}": Widget}
'''


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --- text output ---------------------------------------------------------------------------


def test_text_output_shows_each_findings_severity():
    lines = render(lint_paths([HERE / "fixtures" / "configured"]), "text").splitlines()
    assert lines == [
        f"{CONFIGURED}/legacy/old.py:4:1: warning PS101 resource class OldVolume has no docstring",
        f"{CONFIGURED}/volume.py:4:1: warning PS101 resource class Volume has no docstring",
        f"{CONFIGURED}/volume.py:6:9: error PS201 Volume: property size has no description",
        "Found 1 error, 2 warnings and 0 infos in 2 files.",
    ]


# --- severity model: errors and warnings fail the run, infos do not ------------------------


@pytest.mark.parametrize(
    ("severities", "code"),
    [
        ((), 0),
        ((Severity.INFO,), 0),
        ((Severity.WARNING,), 1),
        ((Severity.ERROR,), 1),
        ((Severity.INFO, Severity.WARNING), 1),
    ],
)
def test_errors_and_warnings_exit_1_infos_exit_0(severities, code):
    findings = [Finding("a.py", n + 1, 1, "PS101", s, "m") for n, s in enumerate(severities)]
    assert LintReport(findings=findings, files=1).exit_code == code


# --- SARIF -------------------------------------------------------------------------------


def _sarif(report=None):
    log = json.loads(render(report or lint_paths([HERE / "fixtures" / "configured"]), "sarif"))
    jsonschema.validate(log, SCHEMA)
    return log


def test_sarif_rules_have_a_help_uri_to_their_documentation():
    rules = _sarif()["runs"][0]["tool"]["driver"]["rules"]
    by_id = {r["id"]: r for r in rules}
    assert by_id["PS404"]["helpUri"].endswith("lint-rules.html#ps404-unknown-resource-type")
    assert all(r["helpUri"].startswith("https://") for r in rules)


def test_sarif_locations_are_relative_to_a_source_root_base_id():
    run = _sarif()["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}}
    location = run["results"][2]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": f"{CONFIGURED}/volume.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_absolute_paths_outside_the_root_have_no_base_id():
    report = LintReport(
        findings=[Finding("/elsewhere/a.py", 1, 1, "PS101", Severity.ERROR, "x")], files=1
    )
    location = _sarif(report)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "file:///elsewhere/a.py"}


def test_sarif_partial_fingerprints_survive_moved_lines_and_tell_findings_apart():
    def fingerprints(findings):
        results = _sarif(LintReport(findings=findings, files=1))["runs"][0]["results"]
        return [r["partialFingerprints"] for r in results]

    a = Finding("a.py", 3, 1, "PS101", Severity.ERROR, "resource class A has no docstring")
    b = Finding("a.py", 9, 1, "PS101", Severity.ERROR, "resource class B has no docstring")
    moved = Finding("a.py", 30, 5, "PS101", Severity.ERROR, "resource class A has no docstring")
    first, second = fingerprints([a, b])
    assert set(first) == {"plugsimFinding/v1"}
    assert first != second
    assert fingerprints([moved]) == [first]
    # the same finding twice in a file: each keeps its own fingerprint
    twice = fingerprints([a, moved])
    assert twice[0] != twice[1]


def test_sarif_has_an_invocation_with_the_exit_code():
    run = _sarif()["runs"][0]
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]
    clean = _sarif(LintReport())["runs"][0]
    assert clean["invocations"] == [{"executionSuccessful": True, "exitCode": 0}]


# --- --select / --ignore -----------------------------------------------------------------


def test_select_and_ignore_flags_take_ids_and_prefixes():
    result = CliRunner().invoke(lint, [CONFIGURED, "--select", "PS2"])
    assert [line.split()[2] for line in result.output.splitlines()[:-1]] == ["PS201"]
    result = CliRunner().invoke(lint, [CONFIGURED, "--ignore", "PS201", "--ignore", "PS1"])
    assert result.output == "Found 0 errors, 0 warnings and 0 infos in 2 files.\n"
    assert result.exit_code == 0
    result = CliRunner().invoke(lint, [CONFIGURED, "--select", "PS101,PS201", "--ignore", "PS201"])
    assert [line.split()[2] for line in result.output.splitlines()[:-1]] == ["PS101", "PS101"]


def test_select_of_an_unknown_rule_is_a_usage_error():
    result = CliRunner().invoke(lint, [CONFIGURED, "--select", "PS9"])
    assert result.exit_code == 2
    assert result.output == "plugsim lint: error: --select PS9: no rule id starts with PS9\n"


# --- template lint knows what the engine knows -------------------------------------------


def test_bundled_openstack_types_are_not_unknown(tmp_path):
    template = _write(
        tmp_path / "stack.yaml",
        """\
        heat_template_version: 2018-08-31
        resources:
          net:
            type: OS::Neutron::Net
          server:
            type: OS::Nova::Server
            properties: {image: cirros, flavor: m1.small}
          missing:
            type: Example::Nowhere::Thing
        """,
    )
    report = lint_paths([template], config=LintConfig(select=("PS404",)))
    assert [(f.rule_id, f.line) for f in report.findings] == [("PS404", 9)]


# --- plug-in conflicts with the environment ------------------------------------------------


def test_a_plugin_claiming_an_installed_type_is_a_warning_that_fails_the_run(tmp_path):
    plugin = _write(tmp_path / "clash.py", WIDGET.replace("{type_name}", "OS::Heat::None"))
    report = lint_paths([plugin], config=LintConfig(select=("PS307",)))
    assert [(f.rule_id, f.severity, f.line) for f in report.findings] == [
        ("PS307", Severity.WARNING, 29)
    ]
    assert report.findings[0].message.startswith(
        "type name 'OS::Heat::None' is already registered by an installed plug-in ("
    )
    assert report.exit_code == 1
    own = _write(tmp_path / "own.py", WIDGET.replace("{type_name}", "Example::Own::Widget"))
    assert lint_paths([own], config=LintConfig(select=("PS307",))).findings == []


# --- --inclusion ---------------------------------------------------------------------------


def test_inclusion_over_paths_from_different_trees_does_not_crash(tmp_path, monkeypatch):
    first = _write(tmp_path / "one" / "pkg_a" / "a.py", WIDGET.replace("{type_name}", "A::B::C"))
    second = _write(tmp_path / "two" / "pkg_b" / "b.py", WIDGET.replace("{type_name}", "D::E::F"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(lint, ["--inclusion", "--no-dynamic", str(first), str(second)])
    assert "internal error" not in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Inclusion checklist:" in result.output


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed")
def test_inclusion_pins_ruff_rules_so_the_sdks_idioms_pass(tmp_path, monkeypatch):
    root = tmp_path / "pkg"
    _write(root / "widgets" / "widget.py", WIDGET.replace("{type_name}", "Acme::Widget::Thing"))
    _write(root / "tests" / "test_widget.py", '"""Tests."""\n\n\ndef test_nothing():\n    pass\n')
    # a ruff configuration that selects everything, as a user-level default might
    _write(root / "ruff.toml", 'line-length = 100\n[lint]\nselect = ["ALL"]\n')
    monkeypatch.chdir(root)
    report = lint_paths([root], inclusion=True, dynamic=False)
    codes = sorted({f.message.split(":")[0] for f in report.findings if f.rule_id == "PS506"})
    assert codes == []
    # ...while the pinned rules still catch a real problem
    _write(root / "widgets" / "extra.py", '"""Extra."""\n\nimport os\n')
    report = lint_paths([root], inclusion=True, dynamic=False)
    assert [f.message for f in report.findings if f.rule_id == "PS506"] == [
        "ruff F401: `os` imported but unused"
    ]


def test_the_installed_plugins_own_file_is_not_a_conflict_with_itself():
    # plugsim's own built-ins are installed; linting their file imports it under a private name
    report = lint_paths(["simulator/resources/__init__.py"], config=LintConfig(select=("PS307",)))
    assert report.findings == []
