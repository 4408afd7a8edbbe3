"""Every part's command is reachable through the one ``plugsim`` entry point."""

import json

from click.testing import CliRunner

from simulator.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_top_level_help_lists_every_command():
    out = run("--help").output
    for name in (
        "stack",
        "template",
        "simulate",
        "bench",
        "cloud",
        "lint",
        "new",
        "capabilities",
        "conformance",
    ):
        assert f"  {name} " in out, name


def test_lint_is_served_through_plugsim():
    res = run("lint", "--explain", "PS101")
    assert res.exit_code == 0
    assert "PS101" in res.output


def test_cloud_inventory_keeps_engine_and_salt_cloud_options(tmp_path):
    state = str(tmp_path / "w.db")
    res = run("--state", state, "cloud", "inventory", "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == []
    res = run("--state", state, "cloud", "inventory", "--all", "-f", "json")
    kinds = {(i["service"], i["kind"]) for i in json.loads(res.output)}
    assert ("compute", "image") in kinds  # the pre-seeded default world shows with --all


def test_bench_vs_heat_without_heat_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PLUGSIM_HEAT_PYTHON", str(tmp_path / "no-such-python"))
    res = CliRunner().invoke(main, ["bench", "--vs-heat", "--resources", "5"])
    assert res.exit_code == 1
    assert res.output.strip().startswith("plugsim: error: --vs-heat needs openstack-heat")


def test_the_state_option_names_its_environment_variable_in_help():
    out = run("--help").output
    state_entry = out[out.index("--state") : out.index("--plugin-dir")]
    assert "env var: PLUGSIM_STATE" in state_entry
