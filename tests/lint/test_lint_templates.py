"""Template rules (PS4xx), run through the engine's template layer."""

from pathlib import Path

import pytest

from sdk.lint import LintConfig, lint_paths

FIXTURES = Path(__file__).parent / "fixtures"
T = "tests/lint/fixtures/templates"


def _lines(*paths):
    report = lint_paths([FIXTURES / p for p in paths], config=LintConfig(select=("PS4",)))
    return [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "ps401_bad.yaml",
            f"{T}/ps401_bad.yaml:6:15: PS401 resources.a.properties.value.map_merge: The function "
            '"map_merge" is not supported in heat_template_version 2015-04-30 (it was added in '
            "2016-04-08)",
        ),
        (
            "ps401_bad_type.yaml",
            f"{T}/ps401_bad_type.yaml:4:5: PS401 resources.a.type: The Resource Type "
            "(Example::Nowhere::Thing) could not be found.",
        ),
        (
            "ps401_cycle.yaml",
            f"{T}/ps401_cycle.yaml:3:3: PS401 resources.a: Circular dependency found: a -> b -> a",
        ),
        (
            "ps402_bad.yaml",
            f"{T}/ps402_bad.yaml:3:3: PS402 parameter flavor is declared but never used",
        ),
        (
            "ps403_bad.yaml",
            f"{T}/ps403_bad.yaml:13:13: PS403 output pw exposes hidden parameter password",
        ),
    ],
)
def test_template_rule_fires(name, expected):
    assert _lines(f"templates/{name}") == [expected]


@pytest.mark.parametrize("name", ["ps401_good.yaml", "ps402_good.yaml", "ps403_good.yaml"])
def test_template_rule_is_quiet_on_the_passing_example(name):
    assert _lines(f"templates/{name}") == []


def test_types_of_the_linted_plugins_are_known_to_templates():
    assert _lines("templates/ps401_plugin_type.yaml", "good_plugin.py") == []
    assert _lines("templates/ps401_plugin_type.yaml") == [
        f"{T}/ps401_plugin_type.yaml:4:5: PS401 resources.vol.type: The Resource Type "
        "(Example::Storage::Volume) could not be found."
    ]


def test_yaml_that_is_not_a_template_is_ignored(tmp_path):
    other = tmp_path / "ci.yaml"
    other.write_text("jobs: {test: {runs-on: ubuntu}}\n")
    broken = tmp_path / "broken.yaml"
    broken.write_text("key: [unclosed\n")
    assert lint_paths([other, broken], config=LintConfig()).findings == []
