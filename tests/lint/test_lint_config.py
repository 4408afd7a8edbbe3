"""Configuration from [tool.plugsim.lint] and inline ``# plugsim: ignore[ID]`` suppression."""

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from sdk.exception import ConfigurationError
from sdk.lint import LintConfig, LintUsageError, Severity, find_config, lint_paths, load_config
from sdk.lint.cli import lint
from sdk.lint.config import config_from_table
from sdk.lint.suppress import suppressed_ids

FIXTURES = Path(__file__).parent / "fixtures"
CONFIGURED = FIXTURES / "configured"


def _ids(report):
    return [(Path(f.path).name, f.line, f.rule_id, f.severity.value) for f in report.findings]


def test_config_is_found_by_walking_up_from_the_linted_path():
    config = find_config(CONFIGURED / "legacy" / "old.py")
    assert config.source == (CONFIGURED / "pyproject.toml").resolve()
    assert config.ignore == ("PS103",)
    assert config.severity == {"PS201": Severity.ERROR, "PS101": Severity.WARNING}
    assert config.per_file_ignores == {"legacy/*.py": ("PS2",)}


def test_ignore_per_file_ignores_severity_and_inline_suppression_together():
    # Without configuration: PS101/PS103 on every class, PS201 and PS203 on the properties.
    raw = lint_paths([CONFIGURED], config=LintConfig())
    assert _ids(raw) == [
        ("old.py", 4, "PS101", "error"),
        ("old.py", 4, "PS103", "warning"),
        ("old.py", 6, "PS201", "warning"),
        ("volume.py", 4, "PS101", "error"),
        ("volume.py", 4, "PS103", "warning"),
        ("volume.py", 6, "PS201", "warning"),
    ]
    # The suppressed lines (Disk's class line, the 'name' property) never show up.
    configured = lint_paths([CONFIGURED])
    assert _ids(configured) == [
        ("old.py", 4, "PS101", "warning"),
        ("volume.py", 4, "PS101", "warning"),
        ("volume.py", 6, "PS201", "error"),
    ]


def test_select_limits_the_rules_that_run():
    report = lint_paths([CONFIGURED], config=LintConfig(select=("PS201",)))
    assert {f.rule_id for f in report.findings} == {"PS201"}


def test_severity_override_decides_the_exit_status():
    quiet = LintConfig(severity={"PS101": Severity.INFO})
    assert lint_paths([FIXTURES / "rules" / "ps101_bad.py"], config=quiet).exit_code == 0
    loud = LintConfig(severity={"PS103": Severity.ERROR})
    assert lint_paths([FIXTURES / "rules" / "ps103_bad.py"], config=loud).exit_code == 1


def test_cli_config_option(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.plugsim.lint]\nignore = ["PS1", "PS2"]\n')
    result = CliRunner().invoke(lint, [str(CONFIGURED), "--config", str(pyproject)])
    assert result.exit_code == 0
    assert result.output == "Found 0 errors, 0 warnings and 0 infos in 2 files.\n"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"selct": ["PS1"]}, "[tool.plugsim.lint] selct: unknown key; valid keys are select"),
        ({"select": "PS1"}, "[tool.plugsim.lint] select must be a list of rule ids"),
        ({"ignore": ["PS9"]}, "[tool.plugsim.lint] ignore: unknown rule id or prefix 'PS9'"),
        ({"severity": {"PS101": "fatal"}}, "unknown severity 'fatal' (valid: error, warning"),
        ({"severity": {"XX1": "error"}}, "[tool.plugsim.lint] severity.XX1: unknown rule id"),
        ({"per-file-ignores": ["a"]}, "per-file-ignores must be a table of glob = [rule ids]"),
        ({"per-file-ignores": {"*.py": "PS1"}}, "per-file-ignores.'*.py' must be a list"),
    ],
)
def test_bad_configuration_names_the_key(table, message):
    with pytest.raises(ConfigurationError) as info:
        config_from_table(table, source=Path("pyproject.toml"))
    assert message in str(info.value)
    assert str(info.value).startswith("pyproject.toml: ")


def test_broken_pyproject_makes_the_linter_exit_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.plugsim.lint\nselect = 1\n")
    plugin = tmp_path / "p.py"
    plugin.write_text("x = 1\n")
    with pytest.raises(LintUsageError, match="not valid TOML"):
        lint_paths([plugin])
    result = CliRunner().invoke(lint, [str(plugin)])
    assert result.exit_code == 2
    assert "pyproject.toml: not valid TOML" in result.output


def test_load_config_without_the_table_gives_defaults(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n')
    config = load_config(pyproject)
    assert (config.select, config.ignore, config.severity) == ((), (), {})


def test_suppression_comment_forms():
    assert suppressed_ids("# plugsim: ignore[PS101]") == ("PS101",)
    assert suppressed_ids("#plugsim:ignore[ps101, PS2 ]") == ("PS101", "PS2")
    assert suppressed_ids("# plugsim: ignore") == ()
    assert suppressed_ids("# noqa: E501") == ()


def test_suppression_only_applies_on_the_offending_line(tmp_path):
    plugin = tmp_path / "p.py"
    plugin.write_text(
        "from sdk import resource\n"
        "# plugsim: ignore[PS101]\n"
        "class A(resource.Resource):\n"
        "    support_status = None\n"
        "class B(resource.Resource):  # plugsim: ignore[PS101]\n"
        "    support_status = None\n"
        "def resource_mapping():\n"
        "    return {'X::Y::A': A, 'X::Y::B': B}\n"
    )
    report = lint_paths([plugin], config=LintConfig(select=("PS101",)))
    assert [(f.line, f.rule_id) for f in report.findings] == [(3, "PS101")]


def test_a_suppression_inside_a_string_is_not_a_comment(tmp_path):
    plugin = tmp_path / "p.py"
    plugin.write_text(
        "from sdk import resource\n"
        "class A(resource.Resource): x = '# plugsim: ignore[PS101]'\n"
        "def resource_mapping():\n"
        "    return {'X::Y::A': A}\n"
    )
    report = lint_paths([plugin], config=LintConfig(select=("PS101",)))
    assert [(f.line, f.rule_id) for f in report.findings] == [(2, "PS101")]


@given(st.lists(st.sampled_from(["PS101", "PS2", "ps103", "PS30"]), min_size=1, max_size=4))
def test_suppressed_ids_round_trip(ids):
    comment = "# plugsim: ignore[" + ", ".join(ids) + "]"
    assert suppressed_ids(comment) == tuple(i.upper() for i in ids)
