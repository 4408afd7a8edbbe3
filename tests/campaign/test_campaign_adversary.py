"""``plugsim campaign --adversary``: the cloud drifts behind the engine's back between actions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk.testing.campaign import RunSpec, parse_seeds, run_campaign
from sdk.testing.campaign.backends import execute
from sdk.testing.campaign.bench import three_tier
from sdk.testing.campaign.drifts import DURING, KINDS
from sdk.testing.campaign.signature import Signature
from simulator.cli import main

FIXTURE = Path(__file__).resolve().parent / "drift_plugin"
DRIFTED = RunSpec(str(FIXTURE / "stack.yaml"), plugin_dirs=(str(FIXTURE),), adversary=True)


@pytest.fixture(scope="module")
def drifted():
    return run_campaign(DRIFTED, parse_seeds("0..29", None), chunk=10)


def test_a_check_blind_to_drift_and_a_delete_that_cannot_converge_are_found(drifted):
    assert sorted(f.signature for f in drifted.findings) == [
        Signature(
            "check",
            "Test::Campaign::Blind",
            "CHECK",
            "",
            "stack check completed after an out-of-band delete of its network/network",
        ),
        Signature(
            "delete",
            "Test::Campaign::Brittle",
            "DELETE",
            "NotFound",
            "Network <id> could not be found.",
        ),
    ]
    assert not any(f.nondeterministic for f in drifted.findings)
    kinds = {d["drift"] for r in drifted.results.values() for d in r.drifts}
    assert kinds == set(KINDS)
    assert ("create", "drift:error") in drifted.coverage()


def test_a_drift_the_check_sees_is_not_a_finding(drifted):
    """An entity put in error is seen by both plug-ins' checks: CHECK_FAILED, and no check finding."""
    seen = [
        r
        for r in drifted.results.values()
        if r.drifts and (r.drifts[0]["after"], r.drifts[0]["drift"]) == ("create", "error")
    ]
    assert seen and all(r.phases[1] == "CHECK_FAILED" for r in seen)
    assert all(r.ok or r.signature[0] != "check" for r in seen)


def test_the_adversary_also_drifts_while_an_action_runs(drifted):
    during = [
        d for r in drifted.results.values() for d in r.drifts if d["after"] == "delete started"
    ]
    assert during and {d["drift"] for d in during} <= set(DURING)


def test_the_replay_line_shows_the_same_finding(drifted):
    (finding,) = [f for f in drifted.findings if f.signature.check == "delete"]
    line = finding.replay
    assert line.endswith(f"--seeds {finding.seeds[0]} --adversary")
    result = CliRunner().invoke(main, line.split()[1:])
    assert result.exit_code == 1, result.output
    assert finding.signature.key() in result.output


def test_the_same_seed_drifts_the_same_way_in_any_process():
    seeds = list(range(6))
    serial = [r for batch in execute(DRIFTED, seeds, chunk=3) for r in batch]
    pooled = [r for batch in execute(DRIFTED, seeds, jobs=2, chunk=3) for r in batch]
    key = lambda r: (r["seed"], r["digest"], r["signature"], r["drifts"])  # noqa: E731
    assert sorted(map(key, pooled)) == sorted(map(key, serial))
    assert len({str(r["drifts"]) for r in serial}) > 1


def test_the_readme_example_converges_under_drift():
    spec = replace(three_tier(), adversary=True)
    for seed in range(4):
        result = spec.run(seed)
        assert result.ok, (seed, result.signature, result.drifts)
        assert result.phases[-1] == "DELETE_COMPLETE"


def test_the_adversary_needs_a_template():
    result = CliRunner().invoke(main, ["campaign", "--plugin", str(FIXTURE), "--adversary"])
    assert result.exit_code == 2 and "need a TEMPLATE" in result.output


@pytest.mark.parametrize(
    ("type_name", "problem"),
    [
        ("Test::Campaign::Sturdy", None),
        ("Test::Campaign::Blind", "stack check completed after an out-of-band delete"),
        ("Test::Campaign::Brittle", "could not be found"),
    ],
)
def test_the_drift_path_of_the_conformance_suite(type_name, problem):
    """``survives = ("drift",)`` opts a plug-in into test_survives_drift, which the two planted bugs
    fail and the sturdy plug-in passes."""
    from sdk.testing import ResourceConformance
    from sdk.testing.cli import find_plugins
    from sdk.testing.harness import PlugsimEnv

    case = type(
        "TestDrift",
        (ResourceConformance,),
        {
            "resource_class": find_plugins(str(FIXTURE))[type_name],
            "resource_type": type_name,
            "valid_properties": {"name": "n"},
            "survives": ("drift",),
        },
    )()
    env = PlugsimEnv(0)
    try:
        if problem is None:
            case.test_survives_drift(env)
        else:
            with pytest.raises(AssertionError, match=problem):
                case.test_survives_drift(env)
    finally:
        env.close()


def test_the_drift_path_skips_a_plugin_that_does_not_claim_it():
    from sdk.testing import ResourceConformance
    from sdk.testing.cli import find_plugins
    from sdk.testing.harness import PlugsimEnv

    case = type(
        "TestNoDrift",
        (ResourceConformance,),
        {
            "resource_class": find_plugins(str(FIXTURE))["Test::Campaign::Sturdy"],
            "resource_type": "Test::Campaign::Sturdy",
            "valid_properties": {"name": "n"},
        },
    )()
    with pytest.raises(pytest.skip.Exception, match="does not claim to survive drift"):
        case.test_survives_drift(PlugsimEnv(0))
