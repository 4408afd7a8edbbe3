"""Shrinking a template campaign's finding: fewer drifts, and a smaller stack (issue #23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk.testing.campaign import RunSpec, parse_seeds, run_campaign, write_reports
from sdk.testing.campaign.shrink_stack import Stack, references
from sdk.testing.campaign.signature import Signature
from simulator.cli import main

FIXTURE = Path(__file__).resolve().parent / "drift_plugin"
LARGE = RunSpec(str(FIXTURE / "large.yaml"), plugin_dirs=(str(FIXTURE),), adversary=True)
STUCK = Signature(
    "delete",
    "Test::Campaign::Impatient",
    "DELETE",
    "ResourceFailure",
    "widget <id> is still CREATING",
)


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """Forty seeds over six resources, one of which cannot delete a widget left stuck."""
    out = tmp_path_factory.mktemp("large")
    return run_campaign(LARGE, parse_seeds("0..39", None), out=out), out


def test_a_stuck_widget_is_found_and_the_stack_shrinks_to_what_the_failure_needs(large):
    outcome, out = large
    (finding,) = outcome.findings
    assert finding.signature == STUCK and not finding.nondeterministic
    shrunk = finding.shrunk
    # the failing resource and what it depends on (depends_on: base), nothing else
    assert shrunk.kept == ["base", "impatient"]
    assert shrunk.resources == ["base", "impatient", "net_a", "net_b", "side", "tail"]
    assert [(d["drift"], d["resource"]) for d in shrunk.drifts] == [("stuck", "impatient")]
    written = yaml.safe_load(Path(shrunk.spec.template).read_text())
    assert Path(shrunk.spec.template).parent == out / "shrunk"
    assert sorted(written["resources"]) == ["base", "impatient"]
    assert written["outputs"] == {}  # both outputs named a resource that went
    schedule = yaml.safe_load((out / "shrunk" / "finding-1.drifts.yaml").read_text())
    assert schedule == {
        "drifts": [{k: shrunk.drifts[0][k] for k in ("after", "drift", "resource")}]
    }


def test_the_shrunk_replay_line_runs_the_small_stack_and_fails_the_same_way(large):
    outcome, out = large
    (finding,) = outcome.findings
    line = finding.shrunk_replay
    assert f"campaign {out / 'shrunk' / 'finding-1.template.yaml'} " in line
    assert f"--drifts {out / 'shrunk' / 'finding-1.drifts.yaml'}" in line
    result = CliRunner().invoke(main, line.split()[1:])
    assert result.exit_code == 1, result.output
    assert STUCK.key() in result.output
    assert "shrunk stack: 2 of 2 resources" not in result.output  # nothing left to cut


def test_the_reports_name_the_shrunk_stack_and_drifts(large):
    outcome, out = large
    write_reports(outcome, out)
    (data,) = json.loads((out / "summary.json").read_text())["findings"]
    assert data["shrunk_resources"] == ["base", "impatient"]
    assert data["shrunk_template"] == str(out / "shrunk" / "finding-1.template.yaml")
    assert [d["drift"] for d in data["shrunk_drifts"]] == ["stuck"]
    assert "shrunk stack: 2 of 6 resources (base, impatient)" in (out / "junit.xml").read_text()
    page = (out / "report.html").read_text()
    assert "<svg" in page and "entity.drift create: drift:stuck (adversary)" in page


def test_the_same_seeds_shrink_to_the_same_result(large, tmp_path):
    outcome, out = large
    again = run_campaign(LARGE, parse_seeds("0..39", None), out=tmp_path)
    first, second = outcome.findings[0].shrunk, again.findings[0].shrunk
    assert (first.seed, first.kept, first.drifts, first.rules, first.runs) == (
        second.seed,
        second.kept,
        second.drifts,
        second.rules,
        second.runs,
    )
    assert first.result.digest == second.result.digest
    name = "finding-1.template.yaml"
    assert (out / "shrunk" / name).read_text() == (tmp_path / "shrunk" / name).read_text()


def test_drifts_that_do_not_matter_are_shrunk_away():
    """A Brittle delete fails after its network was deleted out of band; the other drifts of the
    run (on the blind resource, or not done) go."""
    spec = RunSpec(str(FIXTURE / "stack.yaml"), plugin_dirs=(str(FIXTURE),), adversary=True)
    outcome = run_campaign(spec, parse_seeds("0..29", None))
    (finding,) = [f for f in outcome.findings if f.signature.check == "delete"]
    many = [s for s in finding.seeds if len(outcome.results[s].drifts) > 1]
    assert finding.seeds[0] in many  # the shrunk seed had more than one drift
    shrunk = finding.shrunk
    assert [(d["drift"], d["resource"]) for d in shrunk.drifts] == [("delete", "brittle")]
    assert shrunk.kept == ["brittle"]
    assert shrunk.result.sig == finding.signature


def test_a_template_campaign_without_the_adversary_cuts_the_stack_too(tmp_path):
    """The bundled planted example: one of its two networks is enough for the leak."""
    root = Path(__file__).resolve().parents[2] / "examples" / "campaign"
    spec = RunSpec(str(root / "stack.yaml"), faults=str(root / "faults.yaml"))
    (finding,) = run_campaign(spec, parse_seeds("400..430", None), out=tmp_path).findings
    assert len(finding.shrunk.kept) == 1 and len(finding.shrunk.faults) == 1
    assert finding.shrunk_replay.startswith(f"plugsim --plugin-dir {root / 'plugins'} simulate ")
    result = CliRunner().invoke(main, finding.shrunk_replay.split()[1:])
    assert result.exit_code == 1 and "LEAKED fake-cloud resources: 1" in result.output


def test_references_in_hot_and_cloudformation_spellings():
    names = ["a", "b", "c", "d"]
    body = {
        "properties": {
            "x": {"get_resource": "a"},
            "y": [{"get_attr": ["b", "first_address"]}, {"Ref": "param"}],
            "z": {"Fn::GetAtt": ["c", "Arn"]},
        },
        "depends_on": ["d", "unknown"],
    }
    assert references(body, names) == {"a", "b", "c", "d"}
    assert references({"DependsOn": "a", "Properties": {"v": {"Ref": "b"}}}, names) == {"a", "b"}


def test_a_cut_template_keeps_what_it_needs_and_finds_its_files(tmp_path):
    (tmp_path / "nested.yaml").write_text("heat_template_version: 2018-08-31\n")
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net}\n"
        "  sub: {type: OS::Neutron::Subnet, properties: {network: {get_resource: net}}}\n"
        "  tier: {type: nested.yaml, depends_on: sub}\n"
        "  other: {type: OS::Neutron::Net}\n"
        "outputs:\n"
        "  sub: {value: {get_attr: [sub, cidr]}}\n"
        "  other: {value: {get_resource: other}}\n"
    )
    stack = Stack(str(template), None)
    kept = stack.closure(["tier"])
    assert kept == {"tier", "sub", "net"}
    (path,) = stack.cut(kept, tmp_path / "out", "cut")
    data = yaml.safe_load(Path(path).read_text())
    assert sorted(data["resources"]) == ["net", "sub", "tier"]
    assert data["resources"]["tier"]["type"] == str(tmp_path / "nested.yaml")
    assert list(data["outputs"]) == ["sub"]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_closure_is_closed_under_dependencies(data):
    count = data.draw(st.integers(1, 8))
    names = [f"r{i}" for i in range(count)]
    needs = {
        n: data.draw(st.sets(st.sampled_from(names[:i]), max_size=3)) if i else set()
        for i, n in enumerate(names)
    }
    stack = Stack.__new__(Stack)
    stack.names, stack.needs = names, needs
    chosen = data.draw(st.sets(st.sampled_from(names)))
    kept = stack.closure(chosen)
    assert set(chosen) <= kept
    assert all(needs[n] <= kept for n in kept)
    assert stack.closure(kept) == kept
    inner = stack.interior(chosen)  # the largest part of chosen that has all it needs
    assert inner <= set(chosen) and all(needs[n] <= inner for n in inner)
    assert all(not stack.closure([n]) <= set(chosen) for n in set(chosen) - inner)


def test_an_update_template_is_cut_the_same_way_and_what_needs_a_cut_resource_goes(tmp_path):
    """The update adds a resource that needs the failing one: it goes with the others."""
    text = (FIXTURE / "large.yaml").read_text()
    extra = "  extra:\n    type: Test::Campaign::Patient\n    depends_on: [impatient, side]\n"
    update = tmp_path / "update.yaml"
    update.write_text(text.replace("outputs:", extra + "    properties: {name: extra}\noutputs:"))
    spec = RunSpec(
        LARGE.template, update_template=str(update), plugin_dirs=LARGE.plugin_dirs, adversary=True
    )
    (finding,) = run_campaign(spec, parse_seeds("0..9", None), out=tmp_path / "out").findings
    assert finding.signature == STUCK and finding.shrunk.kept == ["base", "impatient"]
    cut = yaml.safe_load(Path(finding.shrunk.spec.update_template).read_text())
    assert sorted(cut["resources"]) == ["base", "impatient"]
    assert f"--update-template {finding.shrunk.spec.update_template} " in finding.shrunk_replay
