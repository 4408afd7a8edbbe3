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
