"""``plugsim campaign --plugin``: a plug-in's conformance paths under faults, seed after seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk import exception
from sdk.testing.campaign import parse_seeds, run_campaign
from sdk.testing.campaign.backends import execute
from sdk.testing.campaign.paths import PathSpec
from simulator.cli import main

FIXTURE = Path(__file__).resolve().parent / "paths_plugin"
PLUGIN = str(FIXTURE / "leaky_delete.py")
FAULTS = str(FIXTURE / "faults.yaml")
PATHS = ("test_create", "test_update_replace")
#: how the paths see the leaked network: left behind, or still there after a replace
LEAKS = {
    "leaked fake-cloud entities: network/network <id> (ACTIVE)",
    "the replaced physical resource still exists",
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    out = tmp_path_factory.mktemp("paths")
    spec = PathSpec(PLUGIN, faults=FAULTS, paths=PATHS)
    return run_campaign(spec, parse_seeds("0..29", None), chunk=10, out=out), out


def test_the_planted_delete_bug_is_found_and_shrunk_to_the_one_fault(planted):
    outcome, _ = planted
    assert len(outcome.results) == 30 and 0 < outcome.failures < 15
    assert {f.signature.check for f in outcome.findings} <= set(PATHS)
    assert outcome.findings
    for finding in outcome.findings:
        assert finding.signature.resource_type == "Test::Campaign::LeakyDelete"
        assert finding.signature.error == "AssertionError"
        assert finding.signature.message in LEAKS
        assert not finding.nondeterministic and finding.shrunk.reproduced
        assert [f["rule_name"] for f in finding.shrunk.faults] == ["delete-503"]
    # the harmless poll errors came along in some failing run and were shrunk away
    assert any(len(outcome.results[f.seeds[0]].faults) > 1 for f in outcome.findings)


def test_the_shrunk_replay_line_fails_the_same_way(planted):
    outcome, _ = planted
    finding = outcome.findings[0]
    assert finding.shrunk_replay.startswith(f"plugsim campaign --plugin {PLUGIN} --seeds ")
    result = CliRunner().invoke(main, finding.shrunk_replay.split()[1:])
    assert result.exit_code == 1, result.output
    assert "1 runs, 0 passed, 1 failed" in result.output
    assert finding.signature.key() in result.output


def test_without_faults_every_path_of_the_fixture_passes():
    spec = PathSpec(PLUGIN)
    result = spec.run(3)
    assert result.ok, result.phases
    assert "Test::Campaign::LeakyDelete test_create: passed" in result.phases
    assert "Test::Campaign::LeakyDelete test_suspend_resume: skipped" in result.phases
    assert not any("test_validation_" in p or "fails_at_each" in p for p in result.phases)


@pytest.mark.material
def test_a_process_pool_gives_the_same_results():
    spec = PathSpec(PLUGIN, faults=FAULTS, paths=("test_create",))
    seeds = list(range(6))
    serial = [r for batch in execute(spec, seeds, chunk=3) for r in batch]
    pooled = [r for batch in execute(spec, seeds, jobs=2, chunk=3) for r in batch]
    key = lambda r: (r["seed"], r["digest"], r["signature"])  # noqa: E731
    assert sorted(map(key, pooled)) == sorted(map(key, serial))


def test_an_unknown_path_is_one_line_naming_the_known_ones():
    with pytest.raises(exception.ConfigurationError, match="test_nope is not a conformance path"):
        PathSpec(PLUGIN, paths=("test_nope",)).check()
    result = CliRunner().invoke(main, ["campaign", "--plugin", PLUGIN, "--path", "test_nope"])
    assert result.exit_code == 1
    assert "test_create" in result.output and "Traceback" not in result.output


def test_a_template_and_a_plugin_exclude_each_other(tmp_path):
    both = CliRunner().invoke(main, ["campaign", str(tmp_path / "t.yaml"), "--plugin", PLUGIN])
    assert both.exit_code == 2 and "one of them" in both.output
    neither = CliRunner().invoke(main, ["campaign", "--count", "2"])
    assert neither.exit_code == 2 and "one of them" in neither.output
    stray = CliRunner().invoke(
        main, ["campaign", str(tmp_path / "t.yaml"), "--path", "test_create"]
    )
    assert (
        stray.exit_code == 2
        and "--path, --sequences and --properties need --plugin" in stray.output
    )
