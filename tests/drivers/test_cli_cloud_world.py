"""plugsim cloud --world: a new world starts from the world file or preset, as other commands do."""

from __future__ import annotations

import json

from click.testing import CliRunner

from simulator.cli.main import main


def _networks(result) -> set[str]:
    assert result.exit_code == 0, result.output
    return {i["name"] for i in json.loads(result.stdout) if i["kind"] == "network"}


def test_cloud_world_option_and_the_global_one(tmp_path) -> None:
    runner = CliRunner()
    own = ["cloud", "--state", ":memory:", "--world", "devstack"]
    assert "private" in _networks(runner.invoke(main, [*own, "inventory", "--all", "-f", "json"]))
    glob = ["--world", "devstack", "cloud", "--state", ":memory:"]
    assert "private" in _networks(runner.invoke(main, [*glob, "inventory", "--all", "-f", "json"]))
