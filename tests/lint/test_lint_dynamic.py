"""Dynamic rules (PS15x): plug-ins driven on a fake cloud, bounded, never on the network."""

import subprocess
import sys
from pathlib import Path

import pytest

from sdk.lint import LintConfig, all_rules, lint_paths, load_config
from sdk.lint import dynamic as dynamic_mod

FIXTURES = Path(__file__).parent / "fixtures" / "dynamic"
D = "tests/lint/fixtures/dynamic"
GENERATED = (
    " (the properties were generated from the schema; give a working map in "
    "[tool.plugsim.lint] properties or a lint_properties class attribute)"
)

EXPECTED = {
    "PS150": [
        f"{D}/ps150_bad.py:6:1: PS150 Widget (Example::Things::Widget): dynamic checks skipped: "
        "creating Example::Things::Widget with properties {'model': ''} ended CREATE_FAILED: "
        "Resource CREATE failed: BadRequest: resources.resource: unknown model ''" + GENERATED
    ],
    "PS151": [
        f"{D}/ps151_bad.py:17:19: PS151 Widget: attribute colour is declared but "
        "_resolve_attribute returned None on a created resource",
        f"{D}/ps151_bad.py:18:18: PS151 Widget: attribute owner is declared but "
        "_resolve_attribute raised KeyError: 'owner' on a created resource",
    ],
    "PS152": [
        f"{D}/ps152_bad.py:16:5: PS152 Widget.handle_create completed without calling "
        "resource_id_set"
    ],
    "PS153": [
        f"{D}/ps153_bad.py:16:9: PS153 Widget: property size is update_allowed but changing it "
        "in place changed nothing observable (fake cloud, show, attributes, resource data)",
        f"{D}/ps153_bad.py:19:9: PS153 Widget: property tags is update_allowed but changing it "
        "in place changed nothing observable (fake cloud, show, attributes, resource data)",
    ],
    "PS154": [
        f"{D}/ps154_bad.py:29:1: PS154 Widget (Example::Things::Widget): handle_update "
        "(ps154_bad.py:29) raised KeyError: 'name' while updating property tier to '0'"
    ],
    "PS155": [
        f"{D}/ps155_bad.py:27:5: PS155 Widget: Widget.handle_update ({D}/ps155_bad.py:27) "
        "replaced the cloud object during an in-place update of name: it deleted entity/widget "
        "26b05828-2fe0-4f01-a229-bfb065e04567 'w' (created at t=0.0990302), made entity/widget "
        "e8e705e2-2adf-4edd-a6fc-fb356536f9ea '0' (created at t=1200.83) and switched "
        "resource_id to it",
        f"{D}/ps155_bad.py:27:5: PS155 Widget: Widget.handle_update ({D}/ps155_bad.py:27) "
        "replaced the cloud object during an in-place update of size: it deleted entity/widget "
        "ae6bd10e-884c-427d-b49c-0c212a4791dd (created at t=1801.48), made entity/widget "
        "e2300877-e8a0-4652-9849-958428964964 'w' (created at t=2402.38) and switched "
        "resource_id to it",
    ],
    "PS156": [
        f"{D}/ps156_bad.py:27:5: PS156 Widget: Widget.handle_update ({D}/ps156_bad.py:27): "
        "updating to the template the resource already has made write calls: "
        "entity.entities.create"
    ],
    "PS157": [
        f"{D}/ps157_bad.py:21:5: PS157 Widget: Widget.handle_create ({D}/ps157_bad.py:21): "
        "a create retried after a transient fault left 2 entity/widget objects where a clean "
        "create leaves 1: entity/widget 26b05828-2fe0-4f01-a229-bfb065e04567 'w' (created at "
        "t=0.0990302) made by call 1 entity.entities.create at t=0s by handle_create "
        "(ps157_bad.py:22); entity/widget e8e705e2-2adf-4edd-a6fc-fb356536f9ea 'w' (created at "
        "t=2.83297) made by call 3 entity.entities.create at t=2.55199s by handle_create "
        "(ps157_bad.py:22)"
    ],
    "PS158": [
        f"{D}/ps158_bad.py:35:5: PS158 Server: Server.handle_suspend ({D}/ps158_bad.py:35): "
        "SUSPEND completed but the cloud object compute/server "
        "e8e705e2-2adf-4edd-a6fc-fb356536f9ea 'srv' (created at t=1253.78) did not change "
        "(status 'ACTIVE')",
        f"{D}/ps158_bad.py:38:5: PS158 Server: Server.handle_resume ({D}/ps158_bad.py:38): "
        "RESUME completed but the cloud object compute/server "
        "e8e705e2-2adf-4edd-a6fc-fb356536f9ea 'srv' (created at t=1253.78) did not change "
        "(status 'ACTIVE')",
    ],
    "PS159": [
        f"{D}/ps159_bad.py:49:5: PS159 Server: Server._resolve_attribute "
        f"({D}/ps159_bad.py:49): after suspend, attribute status reads 'ACTIVE' but the cloud "
        "object compute/server e8e705e2-2adf-4edd-a6fc-fb356536f9ea 'srv' (created at "
        "t=1253.25) has 'SUSPENDED' (a cached value?)",
        f"{D}/ps159_bad.py:49:5: PS159 Server: Server._resolve_attribute "
        f"({D}/ps159_bad.py:49): attribute status reads 'ACTIVE' after the cloud object "
        "compute/server 26b05828-2fe0-4f01-a229-bfb065e04567 'srv' (created at t=0.455911) "
        "went from 'ACTIVE' to 'ERROR' (read afresh, as a new engine request reads it): served "
        "from a value kept earlier, not from the cloud",
    ],
}


def _lines(path, config=None, **kwargs):
    report = lint_paths([path], config=config or LintConfig(), **kwargs)
    return [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_dynamic_rule_fires_on_its_failing_example(rule_id):
    assert _lines(FIXTURES / f"{rule_id.lower()}_bad.py") == EXPECTED[rule_id]


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_passing_example_has_no_finding_at_all(rule_id):
    assert _lines(FIXTURES / f"{rule_id.lower()}_good.py") == []


def test_every_dynamic_rule_has_examples():
    assert {r.id for r in all_rules() if r.family == "dynamic"} == set(EXPECTED)


def test_no_dynamic_runs_nothing_on_the_fake_cloud(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a plug-in was driven although dynamic=False")

    monkeypatch.setattr("sdk.lint.dynamic_rules.drive_class", forbidden)
    for rule_id in EXPECTED:
        assert _lines(FIXTURES / f"{rule_id.lower()}_bad.py", dynamic=False) == []


@pytest.mark.material
def test_the_cli_flag_no_dynamic_switches_the_dynamic_rules_off():
    def run(*flags):
        return subprocess.run(
            [sys.executable, "-m", "sdk.lint", *flags, f"{D}/ps152_bad.py"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[2],
            check=False,
        )

    with_dynamic = run()
    assert with_dynamic.returncode == 1
    assert "PS152 Widget.handle_create completed without calling resource_id_set" in (
        with_dynamic.stdout
    )
    without = run("--no-dynamic")
    assert (without.returncode, without.stdout) == (
        0,
        "Found 0 errors, 0 warnings and 0 infos in 1 file.\n",
    )


def test_properties_from_the_configuration_replace_the_generated_guess():
    config = LintConfig(properties={"Example::Things::Widget": {"model": "w-100"}})
    assert _lines(FIXTURES / "ps150_bad.py", config) == []


def test_properties_table_in_pyproject_is_read_and_checked(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.plugsim.lint.properties]\n"Example::Things::Widget" = { model = "w-100" }\n'
    )
    assert load_config(pyproject).properties == {"Example::Things::Widget": {"model": "w-100"}}
    pyproject.write_text('[tool.plugsim.lint.properties]\n"Example::Things::Widget" = 3\n')
    from sdk.exception import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        load_config(pyproject)
    assert str(info.value) == (
        f"{pyproject}: [tool.plugsim.lint] properties.'Example::Things::Widget' must be a table "
        "of property values, got 3"
    )


def test_a_lint_properties_attribute_that_is_not_a_dict_skips_with_the_reason(tmp_path):
    source = (FIXTURES / "ps150_good.py").read_text()
    bad = tmp_path / "widget.py"
    bad.write_text(source.replace('lint_properties = {"model": "w-100"}', 'lint_properties = "x"'))
    report = lint_paths([bad], config=LintConfig(select=("PS150",)))
    assert [f.message for f in report.findings] == [
        "Widget (Example::Things::Widget): dynamic checks skipped: Widget.lint_properties is "
        "str, not a dict"
    ]


def test_a_create_that_never_completes_stops_at_the_virtual_time_limit():
    """Issue 30: the message names the polling handler, the virtual time and the last statuses,
    and does not blame the generated property values."""
    assert _lines(FIXTURES / "never_done.py") == [
        f"{D}/never_done.py:4:1: PS150 Slow (Example::Things::Slow): dynamic checks skipped: "
        "check_create_complete (never_done.py:12) never reported the create complete: the stack "
        "timed out after 60 virtual minutes (t=3600s; resource CREATE_FAILED; cloud entity "
        "slow-1 (no fake-cloud entity))"
    ]


def test_a_blocking_handler_is_stopped_by_the_wall_clock_watchdog(monkeypatch):
    monkeypatch.setattr(dynamic_mod, "HANDLER_WALL_LIMIT", 0.3)
    lines = _lines(FIXTURES / "blocking.py")
    assert len(lines) == 1
    assert lines[0].startswith(
        f"{D}/blocking.py:6:1: PS150 Stuck (Example::Things::Stuck): dynamic checks skipped: "
        "driving Example::Things::Stuck with properties {} failed: HandlerBlocked: handler "
        "Stuck.handle_create of resource 'resource' (Example::Things::Stuck) blocked the event "
        "loop for more than 0.3 s of wall time"
    )


def test_a_run_over_its_wall_budget_is_abandoned_and_reported(monkeypatch):
    monkeypatch.setattr(dynamic_mod, "HANDLER_WALL_LIMIT", 30.0)
    monkeypatch.setattr(dynamic_mod, "CLASS_WALL_LIMIT", 0.3)
    from sdk.lint.dynamic import drive_class
    from sdk.lint.loading import import_file

    module = import_file(FIXTURES / "blocking.py").module
    run = drive_class("Example::Things::Stuck", module.Stuck, wall_limit=0.3)
    assert run.skipped == (
        "driving Example::Things::Stuck did not finish within 0.3 s of wall time" + GENERATED
    )


def test_network_access_during_a_dynamic_run_is_blocked():
    assert _lines(FIXTURES / "network.py") == [
        f"{D}/network.py:6:1: PS150 Caller (Example::Things::Caller): dynamic checks skipped: "
        "creating Example::Things::Caller with properties {} ended CREATE_FAILED: Resource "
        "CREATE failed: NetworkBlocked: resources.resource: plugsim lint: network access is "
        "blocked while driving a plug-in on a fake cloud" + GENERATED
    ]


@pytest.mark.material
def test_dynamic_findings_are_the_same_on_every_run():
    paths = [FIXTURES / "ps151_bad.py", FIXTURES / "ps153_bad.py"]
    first = lint_paths(paths, config=LintConfig()).findings
    assert lint_paths(paths, config=LintConfig()).findings == first


def test_an_update_seen_only_in_an_attribute_is_not_ignored():
    assert _lines(FIXTURES / "attribute_only.py") == []


def test_a_generated_value_the_plugin_refuses_is_skipped_and_probing_goes_on():
    assert _lines(FIXTURES / "refuses_generated.py") == [
        f"{D}/refuses_generated.py:17:9: PS153 Gate: property size is update_allowed but "
        "changing it in place changed nothing observable (fake cloud, show, attributes, "
        "resource data)"
    ]


def test_companions_are_created_beside_the_type_that_needs_them():
    assert _lines(FIXTURES / "companion.py") == []


def test_without_its_companion_the_type_is_skipped_with_the_reason(tmp_path):
    source = (FIXTURES / "companion.py").read_text()
    bad = tmp_path / "tag.py"
    bad.write_text(
        source.replace('    lint_companions = {"w": {"type": "Example::Things::Widget"}}\n', "")
    )
    [finding] = lint_paths([bad], config=LintConfig(select=("PS150",))).findings
    assert finding.message == (
        "Tag (Example::Things::Tag): dynamic checks skipped: driving Example::Things::Tag with "
        "properties {'widget': {'get_resource': 'w'}} failed: FunctionError: "
        'resources.resource.properties.widget.get_resource: The resource "w" does not exist '
        "in the template"
    )


def test_companions_from_the_configuration_replace_the_class_attribute(tmp_path):
    source = (FIXTURES / "companion.py").read_text()
    plain = tmp_path / "tag.py"
    plain.write_text(
        source.replace('    lint_companions = {"w": {"type": "Example::Things::Widget"}}\n', "")
    )
    config = LintConfig(
        companions={"Example::Things::Tag": {"w": {"type": "Example::Things::Widget"}}}
    )
    assert lint_paths([plain], config=config).findings == []


def test_companions_table_in_pyproject_is_read_and_checked(tmp_path):
    from sdk.exception import ConfigurationError

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.plugsim.lint.companions]\n"Example::Things::Tag" = '
        '{ w = { type = "Example::Things::Widget" } }\n'
    )
    assert load_config(pyproject).companions == {
        "Example::Things::Tag": {"w": {"type": "Example::Things::Widget"}}
    }
    pyproject.write_text('[tool.plugsim.lint.companions]\n"Example::Things::Tag" = { w = 1 }\n')
    with pytest.raises(ConfigurationError) as info:
        load_config(pyproject)
    assert str(info.value) == (
        f"{pyproject}: [tool.plugsim.lint] companions.'Example::Things::Tag'.w must be a table "
        "with a 'type', got 1"
    )


def test_a_companion_may_not_take_the_name_of_the_resource_under_test():
    from sdk.exception import ConfigurationError
    from sdk.testing.harness import PlugsimEnv

    env = PlugsimEnv(0)
    try:
        with pytest.raises(ConfigurationError, match="may not be called 'resource'"):
            env.harness(object, {}, companions={"resource": {"type": "OS::Heat::None"}})
    finally:
        env.close()


@pytest.mark.material
def test_a_handler_crash_makes_lint_exit_non_zero_naming_handler_and_exception():
    """Issue 30: the crash was an info (PS150, dynamic checks skipped) and lint exited 0."""
    proc = subprocess.run(
        [sys.executable, "-m", "sdk.lint", f"{D}/ps154_bad.py"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error PS154" in proc.stdout and "handle_update (ps154_bad.py:29)" in proc.stdout
    assert "KeyError: 'name'" in proc.stdout and "PS150" not in proc.stdout
