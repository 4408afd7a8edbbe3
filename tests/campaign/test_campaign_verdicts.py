"""A campaign finding carries the kit's verdict: text, summary.json, JUnit and the HTML report."""

import json

from sdk.testing.campaign.campaign import CampaignResult, Finding
from sdk.testing.campaign.reports import write_reports
from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.runs import RunSpec
from sdk.testing.campaign.signature import Signature
from sdk.testing.verdict import Verdict

VERDICT = Verdict(
    "leak",
    "leaked fake-cloud entities: network/network n-1 (ACTIVE)",
    path="template stack.yaml",
    action="DELETE",
    handler="handle_create (net.py:40)",
    fault="network.subnets.create: error (subnet-503) at t=0.1s",
    time=2.5,
    details=["leaked:   network/network n-1 'front' (ACTIVE) created by call 1 ..."],
    hint="record each object before the next call can fail",
    replay="plugsim simulate stack.yaml --seed 3",
)


def test_every_report_of_a_finding_shows_its_verdict_fields(tmp_path):
    sig = Signature("leak", "network/network", "DELETE", "", "1 kind(s) left behind")
    run = RunResult(
        3, False, sig.to_list(), ["DELETE_COMPLETE"], 2.5, 0.1, "d", verdict=VERDICT.to_dict()
    )
    outcome = CampaignResult(RunSpec("stack.yaml"), results={3: run})
    outcome.findings = [Finding(sig, [3], "plugsim simulate stack.yaml --seed 3", verdict=VERDICT)]
    write_reports(outcome, tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert Verdict.from_dict(summary["findings"][0]["verdict"]) == VERDICT
    for name in ("junit.xml", "report.html"):
        text = (tmp_path / name).read_text()
        for part in (
            "handle_create (net.py:40)",
            "subnet-503",
            "t=2.5s (virtual)",
            "created by call 1",
        ):
            assert part in text, (name, part)


def test_a_run_result_keeps_its_verdict_through_results_jsonl():
    run = RunResult(1, False, ["x"], [], 0.0, 0.0, "", verdict=VERDICT.to_dict())
    again = RunResult.from_dict(json.loads(json.dumps(run.to_dict())))
    assert Verdict.from_dict(again.verdict) == VERDICT
