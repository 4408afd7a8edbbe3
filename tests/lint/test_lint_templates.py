"""Template rules (PS4xx), run through the engine's template layer."""

from pathlib import Path

import pytest

from sdk.lint import LintConfig, all_rules, lint_paths
from simulator.template.definition import TYPE_HINT

FIXTURES = Path(__file__).parent / "fixtures"
T = "tests/lint/fixtures/templates"


def _lines(*paths):
    report = lint_paths([FIXTURES / p for p in paths], config=LintConfig(select=("PS4",)))
    return [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]


E = f"{T}/env"

EXPECTED = {
    "ps401_bad.yaml": [
        f"{T}/ps401_bad.yaml:6:15: PS401 resources.a.properties.value.get_resource: The resource "
        '"nowhere" does not exist in the template'
    ],
    "ps402_bad.yaml": [
        f"{T}/ps402_bad.yaml:3:3: PS402 parameter flavor is declared but never used"
    ],
    "ps403_bad.yaml": [
        f"{T}/ps403_bad.yaml:13:13: PS403 output pw exposes hidden parameter password"
    ],
    "ps404_bad.yaml": [
        f"{T}/ps404_bad.yaml:4:5: PS404 resources.a.type: The Resource Type "
        f"(Example::Nowhere::Thing) could not be found. {TYPE_HINT}."
    ],
    "ps405_bad.yaml": [
        f"{T}/ps405_bad.yaml:8:15: PS405 get_attr of attribute 'colour' of resource a "
        "(Plugsim::Test::Trivial), which declares only show, size, value",
        f"{T}/ps405_bad.yaml:13:13: PS405 get_attr of attribute 'weight' of resource a "
        "(Plugsim::Test::Trivial), which declares only show, size, value",
    ],
    "ps406_bad.yaml": [
        f"{T}/ps406_bad.yaml:3:3: PS406 resources.a: Circular dependency found: a -> b -> a"
    ],
    "ps407_bad.yaml": [
        f"{T}/ps407_bad.yaml:6:15: PS407 resources.a.properties.value.map_merge: The function "
        '"map_merge" is not supported in heat_template_version 2015-04-30 (it was added in '
        "2016-04-08)"
    ],
    "env/ps408_bad.yaml": [
        f"{E}/ps408_bad.yaml:1:1: PS408 environment section 'parameter_default' is not one of "
        "parameters, parameter_defaults, resource_registry, event_sinks, encrypted_param_names, "
        "requires",
        f"{E}/ps408_bad.yaml:5:1: PS408 environment section 'event_sink' is not one of "
        "parameters, parameter_defaults, resource_registry, event_sinks, encrypted_param_names, "
        "requires",
    ],
    "env/ps409_bad.yaml": [
        f"{E}/ps409_bad.yaml:2:3: PS409 resource_registry maps My::Server to "
        "'no_such_server.yaml', which is not a file next to ps409_bad.yaml",
        f"{E}/ps409_bad.yaml:3:3: PS409 resource_registry maps My::Volume to "
        "'Example::Nowhere::Volume', which is neither a known resource type nor mapped in this "
        "registry",
        f"{E}/ps409_bad.yaml:4:29: PS409 resource_registry maps My::Choice to "
        "'missing/choice.yaml', which is not a file next to ps409_bad.yaml",
        f"{E}/ps409_bad.yaml:8:7: PS409 resource_registry maps My::Server to 'gone.yaml', which "
        "is not a file next to ps409_bad.yaml",
    ],
    "ps410_bad.yaml": [
        f"{T}/ps410_bad.yaml:3:3: PS410 capabilities.deployment: The capability deployment must "
        "be a non-empty string, not list ['puppet']",
        f"{T}/ps410_bad.yaml:4:3: PS410 capabilities.version: The capability version must be a "
        'non-empty string, not number 2 (quote it: "..." in YAML)',
    ],
    "env/ps411_bad.yaml": [
        f"{E}/ps411_bad.yaml:2:3: PS411 requires.deployment: A required capability must be a "
        "non-empty string, not list ['docker']",
        f"{E}/ps411_bad.yaml:3:3: PS411 requires.version: A required capability must be a "
        "non-empty string, not null",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_template_rule_fires(name):
    assert _lines(f"templates/{name}") == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_template_rule_is_quiet_on_the_passing_example(name):
    assert _lines(f"templates/{name.replace('_bad', '_good')}") == []


def test_every_template_rule_has_a_failing_and_a_passing_example():
    ids = {r.id for r in all_rules() if r.family == "template"}
    covered = {line.split(": ")[1].split()[0] for lines in EXPECTED.values() for line in lines}
    assert covered == ids


def test_a_malformed_capabilities_section_is_reported_once_by_ps410_not_ps401(tmp_path):
    path = tmp_path / "caps.yaml"
    path.write_text(
        "heat_template_version: 2018-08-31\ncapabilities: [puppet]\n"
        "resources:\n  a: {type: OS::Heat::None}\n"
    )
    report = lint_paths([path], config=LintConfig(select=("PS4",)))
    assert [(f.rule_id, f.line, f.message) for f in report.findings] == [
        (
            "PS410",
            2,
            "capabilities: The capabilities section must be a map of names to values "
            "(e.g. deployment: puppet), not a list",
        )
    ]


def test_a_yaml_file_with_only_parameters_is_not_taken_for_an_environment(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text("parameters: {a: 1}\nsomething_else: 2\n")
    assert lint_paths([path], config=LintConfig()).findings == []


def test_types_of_the_linted_plugins_are_known_to_templates():
    assert _lines("templates/ps404_plugin_type.yaml", "good_plugin.py") == []
    assert _lines("templates/ps404_plugin_type.yaml") == [
        f"{T}/ps404_plugin_type.yaml:4:5: PS404 resources.vol.type: The Resource Type "
        f"(Example::Storage::Volume) could not be found. {TYPE_HINT}."
    ]


def test_yaml_that_is_not_a_template_is_ignored(tmp_path):
    other = tmp_path / "ci.yaml"
    other.write_text("jobs: {test: {runs-on: ubuntu}}\n")
    broken = tmp_path / "broken.yaml"
    broken.write_text("key: [unclosed\n")
    assert lint_paths([other, broken], config=LintConfig()).findings == []
