"""``plugsim campaign --adversary``: the cloud drifts behind the engine's back between actions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml
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
        ("Test::Campaign::Patient", None),
        ("Test::Campaign::Impatient", "out-of-band stuck of the entity: .* is still CREATING"),
        ("Test::Campaign::Forgetful", "failed after the credential was rotated: .*Unauthorized"),
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


def _schedule(tmp_path, *drifts):
    path = tmp_path / "drifts.yaml"
    keys = ("after", "drift", "resource")
    path.write_text(yaml.safe_dump({"drifts": [dict(zip(keys, d, strict=True)) for d in drifts]}))
    return str(path)


def _template(tmp_path, **resources):
    path = tmp_path / f"{'-'.join(resources)}.yaml"
    body = {name: {"type": kind, "properties": {"name": name}} for name, kind in resources.items()}
    path.write_text(yaml.safe_dump({"heat_template_version": "2018-08-31", "resources": body}))
    return str(path)


def test_a_plugin_that_keeps_its_client_is_found_by_a_rotated_credential(tmp_path):
    template = _template(tmp_path, kept="Test::Campaign::Forgetful", asks="Test::Campaign::Patient")
    spec = RunSpec(template, plugin_dirs=(str(FIXTURE),), adversary=True)
    outcome = run_campaign(spec, parse_seeds("0..29", None))
    message = "The request you have made requires authentication (the credential was rotated)."
    assert sorted(f.signature for f in outcome.findings) == [
        Signature("check", "Test::Campaign::Forgetful", "CHECK", "Unauthorized", message),
        Signature("delete", "Test::Campaign::Forgetful", "DELETE", "Unauthorized", message),
    ]
    for finding in outcome.findings:  # a rotation when the check ran, or when the delete started
        assert [d["drift"] for d in finding.shrunk.drifts] == ["rotate"]
        assert finding.shrunk.kept == ["kept"]
    alone = RunSpec(
        _template(tmp_path, asks="Test::Campaign::Patient"),
        plugin_dirs=(str(FIXTURE),),
        adversary=True,
        drifts=_schedule(
            tmp_path, ("create", "rotate", "asks"), ("delete started", "rotate", "asks")
        ),
    ).run(0)
    assert alone.ok and alone.phases[:2] == [
        "CREATE_COMPLETE",
        "CHECK_COMPLETE",
    ]  # re-authenticated
    assert [d["done"] for d in alone.drifts] == [True, True]


def test_every_drift_is_an_event_naming_the_drifted_resource(tmp_path):
    from sdk.testing.campaign.adversary import EVENT_RESOURCE, EVENT_TYPE, STACK, Adversary
    from simulator.world import World

    template = _template(tmp_path, w="Test::Campaign::Patient", n="Test::Campaign::Sturdy")
    world = World.open(":memory:", seed=3, plugin_dirs=[str(FIXTURE)])
    try:
        world.create_stack(STACK, template)
        schedule = [
            {"after": "create", "drift": "stuck", "resource": "w"},
            {"after": "create", "drift": "stuck", "resource": "n"},  # a network has no such state
        ]
        done = Adversary(3, schedule).act(world, world.get_stack(STACK), "create")
        events = [e for e in world.store.events() if e.resource_type == EVENT_TYPE]
    finally:
        world.close()
    assert [(d["resource"], d["done"]) for d in done] == [("w", True), ("n", False)]
    assert [(e.resource_name, e.action, e.status) for e in events] == [
        (EVENT_RESOURCE, "DRIFT", "COMPLETE"),
        (EVENT_RESOURCE, "DRIFT", "SKIPPED"),
    ]
    assert [e.physical_resource_id for e in events] == [d["entity_id"] for d in done]
    assert events[0].reason.startswith("out-of-band stuck of w's entity/widget ")
    assert events[1].reason.startswith("could not do the out-of-band stuck of n's network/network")


def test_a_drift_while_deleting_is_a_mark_on_the_timeline_not_the_end_of_the_span(tmp_path):
    from sdk.testing.campaign.adversary import drift_marks, drifted_run
    from simulator.views.timeline import build_timeline

    spec = replace(DRIFTED, drifts=_schedule(tmp_path, ("delete started", "error", "blind")))
    result, events = drifted_run(spec, 2)
    assert result.ok and [d["done"] for d in result.drifts] == [True]
    timeline = build_timeline(events, drift_marks(result.drifts))
    (delete,) = [s for s in timeline.spans if (s.resource, s.action) == ("blind", "DELETE")]
    assert delete.status == "COMPLETE" and delete.end > result.drifts[0]["time"]
    (mark,) = timeline.faults
    assert (mark.row, mark.effect, mark.rule) == ("blind", "drift:error", "adversary")


def test_a_delete_that_times_out_on_a_stuck_entity_is_not_a_finding(tmp_path):
    """The README example's volume left stuck 'creating': cinder refuses its delete until the
    stack's timeout; the plug-in gave up as it must, and the run passes. A server stuck in BUILD is
    deleted (nova allows it): the stack converges."""
    spec = replace(three_tier(), adversary=True)
    volume = replace(spec, drifts=_schedule(tmp_path, ("create", "stuck", "db_volume"))).run(0)
    assert volume.ok and volume.phases[-1] == "DELETE_FAILED"
    assert volume.virtual_seconds > 3600 and volume.drifts[0]["done"]
    server = replace(spec, drifts=_schedule(tmp_path, ("create", "stuck", "db"))).run(0)
    assert server.ok and server.phases[-1] == "DELETE_COMPLETE"


def test_a_drift_schedule_replays_exactly_its_drifts(tmp_path):
    schedule = _schedule(
        tmp_path, ("create", "rename", "brittle"), ("delete started", "error", "blind")
    )
    result = replace(DRIFTED, drifts=schedule).run(5)
    assert [(d["after"], d["drift"], d["resource"]) for d in result.drifts] == [
        ("create", "rename", "brittle"),
        ("delete started", "error", "blind"),
    ]
    assert result.ok  # a rename and an error while deleting: both converge


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--drifts", "x.yaml"], "--drifts needs --adversary"),
        (
            ["--adversary", "--drifts", "missing.yaml"],
            "missing.yaml: cannot read the drift schedule",
        ),
    ],
)
def test_bad_drift_options_say_what_is_wrong(args, message):
    result = CliRunner().invoke(main, ["campaign", str(FIXTURE / "stack.yaml"), *args])
    assert result.exit_code in (1, 2) and message in result.output, result.output
