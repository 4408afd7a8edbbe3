"""Campaigns: many seeds, failures confirmed, deduplicated, shrunk, reported and resumable."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk import exception
from sdk.testing.campaign import RunSpec, parse_seeds, run_campaign, run_one, write_reports
from sdk.testing.campaign.backends import execute
from sdk.testing.campaign.shrink import ddmin
from sdk.testing.campaign.signature import Signature, normalise
from simulator.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "campaign"
PLANTED = RunSpec(str(EXAMPLE / "stack.yaml"), faults=str(EXAMPLE / "faults.yaml"))
THREE_TIER = ROOT / "examples" / "three-tier"


def test_messages_lose_their_ids_and_numbers():
    message = (
        "Injected ServiceUnavailable (503) on compute.servers.get for "
        "dcc2842e-6379-4aae-948b-5ca9cead44e4 at 10.0.0.12/24 after 30.5 s"
    )
    assert normalise(message) == (
        "Injected ServiceUnavailable (<n>) on compute.servers.get for <id> at <ip> after <n> s"
    )


@given(st.text(max_size=80))
def test_normalising_twice_changes_nothing(text):
    assert normalise(normalise(text)) == normalise(text)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.data())
def test_ddmin_finds_exactly_the_faults_that_matter(n, data):
    needed = set(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True)))
    kept, calls = ddmin(list(range(n)), lambda subset: needed <= set(subset), budget=1000)
    assert set(kept) == needed
    assert calls < 1000


def test_ddmin_drops_everything_when_no_fault_is_needed():
    assert ddmin([1, 2, 3], lambda subset: True, budget=50)[0] == []


def test_seed_ranges():
    assert parse_seeds("0..3,7", None) == [0, 1, 2, 3, 7]
    assert parse_seeds(None, 3) == [0, 1, 2]
    with pytest.raises(exception.ConfigurationError, match="'5..2' is not a seed or a range"):
        parse_seeds("5..2", None)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A thousand seeds over the example whose plug-in leaks when subnets.create fails once."""
    out = tmp_path_factory.mktemp("campaign")
    outcome = run_campaign(PLANTED, parse_seeds("0..999", None), out=out, chunk=100)
    return outcome, out


@pytest.mark.material
def test_a_thousand_seeds_find_the_planted_bug_and_shrink_it_to_one_fault(planted):
    outcome, _ = planted
    assert len(outcome.results) == 1000
    (finding,) = outcome.findings
    assert finding.signature == Signature(
        "leak", "network/network", "DELETE", "", "1 kind(s) left behind"
    )
    assert 1 <= len(finding.seeds) <= 20  # rare: a few seeds in a thousand
    first = outcome.results[finding.seeds[0]]
    assert len(first.faults) > 1  # the harmless polling faults came along
    shrunk = finding.shrunk
    assert shrunk.reproduced and not finding.nondeterministic
    assert [(f["operation"], f["rule_name"]) for f in shrunk.faults] == [
        ("subnets.create", "subnet-503")
    ]
    assert finding.shrunk_replay.endswith(f"--seed {first.seed} --faults {finding.shrunk_profile}")


@pytest.mark.material
def test_the_shrunk_replay_line_fails_the_same_way(planted):
    outcome, _ = planted
    finding = outcome.findings[0]
    args = finding.shrunk_replay.split()[1:]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "LEAKED fake-cloud resources: 1" in result.output
    assert "network.subnets.create" in result.output


@pytest.mark.material
def test_reports_are_written_for_machines_ci_and_people(planted):
    outcome, out = planted
    write_reports(outcome, out)
    data = json.loads((out / "summary.json").read_text())
    assert data["runs"] == 1000 and data["findings"][0]["shrunk_faults"] == 1
    suite = ET.parse(out / "junit.xml").getroot()
    assert suite.get("failures") == "1"
    failure = suite.find("testcase/failure")
    assert "shrunk to 1 injected fault(s)" in failure.text
    html = (out / "report.html").read_text()
    assert "leak network/network DELETE" in html and "<svg" in html
    assert len((out / "results.jsonl").read_text().splitlines()) == 1000


def test_an_interrupted_campaign_resumes_where_it_stopped(tmp_path):
    seeds = parse_seeds("0..59", None)
    first = run_campaign(PLANTED, seeds, out=tmp_path, chunk=10, time_budget=1e-6)
    assert first.stopped_early and 0 < len(first.results) < 60
    again = run_campaign(PLANTED, seeds, out=tmp_path, chunk=10)
    assert again.resumed == len(first.results) and len(again.results) == 60
    fresh = run_campaign(PLANTED, seeds, chunk=10)
    assert {s: r.digest for s, r in again.results.items()} == {
        s: r.digest for s, r in fresh.results.items()
    }


def test_another_campaigns_results_are_never_resumed(tmp_path):
    """An --out directory keeps the campaign's identity; another campaign there stops in one line."""
    run_campaign(PLANTED, [0, 1], out=tmp_path)
    other = RunSpec(str(EXAMPLE / "stack.yaml"))
    with pytest.raises(exception.ConfigurationError) as caught:
        run_campaign(other, [0, 1], out=tmp_path)
    message = str(caught.value)
    assert str(tmp_path) in message and "another campaign" in message and "\n" not in message
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 2


def test_results_without_an_identity_are_not_resumed(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"seed": 0}\n')
    with pytest.raises(exception.ConfigurationError, match="cannot tell which campaign"):
        run_campaign(PLANTED, [0], out=tmp_path)


@pytest.mark.material
def test_the_same_seeds_give_the_same_results_in_a_process_pool():
    seeds = list(range(24))
    serial = [r for batch in execute(PLANTED, seeds, chunk=5) for r in batch]
    pooled = [r for batch in execute(PLANTED, seeds, jobs=2, chunk=5) for r in batch]
    key = lambda r: (r["seed"], r["digest"], r["signature"])  # noqa: E731
    assert sorted(map(key, pooled)) == sorted(map(key, serial))


def test_a_run_that_differs_from_itself_is_reported_as_nondeterminism(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nresources:\n  a: {type: Test::Campaign::FirstFails}\n"
    )
    spec = RunSpec(str(template), plugin_dirs=(str(Path(__file__).parent / "nondeterministic"),))
    outcome = run_campaign(spec, [0, 1, 2], out=tmp_path / "out")
    (finding,) = outcome.findings
    assert finding.nondeterministic and finding.seeds == [0]
    logs = sorted(p.name for p in (tmp_path / "out" / "nondeterminism").iterdir())
    assert logs == ["seed-0-a.log", "seed-0-b.log"]


def test_a_run_that_cannot_start_is_a_setup_finding(tmp_path):
    result = run_one(RunSpec(str(tmp_path / "missing.yaml")), 0)
    assert not result.ok and result.signature[0] == "setup"


def test_the_command_line_prints_findings_and_exits_1(tmp_path):
    result = CliRunner().invoke(
        main,
        [
            "campaign",
            str(EXAMPLE / "stack.yaml"),
            "--faults",
            str(EXAMPLE / "faults.yaml"),
            "--seeds",
            "400..430",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "31 runs, 29 passed, 2 failed; 1 distinct failure(s)" in result.output
    assert "   shrunk: 1 injected fault(s)" in result.output
    assert "network.subnets.create error (subnet-503)" in result.output
    ok = CliRunner().invoke(
        main,
        [
            "campaign",
            str(THREE_TIER / "stack.yaml"),
            "-e",
            str(THREE_TIER / "env.yaml"),
            "--count",
            "3",
            "-f",
            "json",
        ],
    )
    assert ok.exit_code == 0 and json.loads(ok.stdout)["passed"] == 3


@pytest.mark.material  # 400 seeds over a Ray cluster it starts: about 35 s
def test_ray_finds_what_the_local_backend_finds():
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'plugsim[ray]')")
    seeds = parse_seeds("380..579", None)
    local = run_campaign(PLANTED, seeds, chunk=20, shrink_budget=8)
    distributed = run_campaign(PLANTED, seeds, backend="ray", jobs=2, chunk=20, shrink_budget=8)
    assert [f.signature for f in distributed.findings] == [f.signature for f in local.findings]
    assert [f.seeds for f in distributed.findings] == [f.seeds for f in local.findings]
    assert {s: r.digest for s, r in distributed.results.items()} == {
        s: r.digest for s, r in local.results.items()
    }


@pytest.mark.material
def test_bench_campaign_reports_rates_for_one_and_two_processes():
    result = CliRunner().invoke(main, ["bench", "--campaign", "4", "--repeat", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["seeds"] == 4 and figures["lifecycles_per_second_1"] > 0
    assert figures["lifecycles_per_second_2"] > 0 and len(figures["runs_2"]) == 1
    # the workers' CPU is counted too: two processes do the same runs for about the same CPU
    assert figures["lifecycles_per_cpu_second_1"] > 0 and figures["lifecycles_per_cpu_second_2"] > 0
    assert 0 < figures["cpu_efficiency"] < 5 and len(figures["cpu_runs_2"]) == 1


def test_a_worker_that_dies_costs_one_seed_not_the_campaign(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  die: {type: boolean, default: false}\n"
        "resources:\n  a: {type: Test::Campaign::Exits, properties: {die: {get_param: die}}}\n"
    )
    plugins = (str(Path(__file__).parent / "crashing"),)
    alive = RunSpec(str(template), plugin_dirs=plugins)
    results = [r for batch in execute(alive, list(range(6)), jobs=2, chunk=3) for r in batch]
    assert sorted(r["seed"] for r in results) == list(range(6)) and all(r["ok"] for r in results)
    dying = RunSpec(str(template), parameters=(("die", "true"),), plugin_dirs=plugins)
    results = [r for batch in execute(dying, [0, 1], jobs=2, chunk=2) for r in batch]
    assert sorted(r["seed"] for r in results) == [0, 1]
    assert {tuple(r["signature"][:2]) for r in results} == {("crash", "")}


def test_bench_campaign_refuses_an_untrusted_example(tmp_path, monkeypatch):
    monkeypatch.setenv("PLUGSIM_TRUST_FILE", str(tmp_path / "nothing-trusted.json"))
    result = CliRunner().invoke(main, ["bench", "--campaign", "2", "--repeat", "1"])
    assert result.exit_code == 1
    assert (
        "examples/three-tier/plugsim.yaml: this project lists code for plugsim to run and is "
        in (result.output)
    )
    assert "plugsim trust" in result.output and "/s with 1 process" not in result.output


def test_bench_campaign_reports_no_rate_when_a_lifecycle_fails(tmp_path, monkeypatch):
    from sdk.testing.campaign import bench as campaign_bench

    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  a: {type: OS::Heat::TestResource, properties: {fail: true}}\n"
    )
    monkeypatch.setattr(campaign_bench, "three_tier", lambda: RunSpec(str(template)))
    result = CliRunner().invoke(main, ["bench", "--campaign", "2", "--repeat", "1"])
    assert result.exit_code == 1, result.output
    assert "seed 0 of" in result.output and "did not complete its lifecycle" in result.output
    assert "/s with 1 process" not in result.output
