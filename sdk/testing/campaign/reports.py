"""A campaign's reports: JSON for machines, JUnit XML for CI, one HTML page for people.

``write_reports`` writes all three into the output directory. The JUnit file has one test case per
finding (failed, with the signature, seeds and replay line) and one passing case for the runs without a
failure, so a CI dashboard shows new findings as new failures. The HTML page groups failures by signature
with counts, draws the shrunk run of each finding as a timeline, shows seeds per second and the coverage
of actions by fault kind; it is self-contained, like every plugsim report page.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path

from sdk.testing.campaign.campaign import CampaignResult, Finding, summary
from sdk.testing.campaign.runs import RunSpec, run_report
from sdk.testing.campaign.shrink_stack import shrunk_lines
from simulator.views.gantt import render_svg
from simulator.views.page import STYLE
from simulator.views.timeline import build_timeline


def junit(outcome: CampaignResult) -> str:
    """The campaign as a JUnit XML document."""
    suite = ET.Element(
        "testsuite",
        name=f"plugsim campaign {outcome.spec.label}",
        tests=str(len(outcome.findings) + 1),
        failures=str(len(outcome.findings)),
        time=f"{outcome.wall_seconds:.3f}",
    )
    passed = ET.SubElement(
        suite,
        "testcase",
        classname="plugsim.campaign",
        name=f"{len(outcome.results) - outcome.failures} of {len(outcome.results)} runs passed",
    )
    passed.text = None
    for finding in outcome.findings:
        case = ET.SubElement(
            suite, "testcase", classname="plugsim.campaign", name=finding.signature.key()
        )
        failure = ET.SubElement(
            case,
            "failure",
            message=f"{len(finding.seeds)} run(s) failed: {finding.signature.key()}",
            type="nondeterminism" if finding.nondeterministic else finding.signature.check,
        )
        failure.text = _finding_text(finding)
    return ET.tostring(suite, encoding="unicode") + "\n"


def _finding_text(finding: Finding) -> str:
    seeds = ", ".join(str(s) for s in finding.seeds[:20])
    more = f" (+{len(finding.seeds) - 20} more)" if len(finding.seeds) > 20 else ""
    lines = [f"seeds: {seeds}{more}", f"replay: {finding.replay}"]
    if finding.verdict is not None:
        lines.append(finding.verdict.render())
    if finding.nondeterministic:
        lines.append("the run differed from itself when repeated (nondeterminism)")
    if finding.shrunk is not None:
        lines.append(f"shrunk to {len(finding.shrunk.faults)} injected fault(s)")
        lines += shrunk_lines(finding.shrunk)
        if finding.shrunk_replay:
            lines.append(f"shrunk replay: {finding.shrunk_replay}")
        lines += finding.shrunk.notes
    return "\n".join(lines)


def html(outcome: CampaignResult) -> str:
    """The campaign as one self-contained HTML page."""
    data = summary(outcome)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>plugsim campaign {escape(outcome.spec.label)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Campaign over {escape(outcome.spec.label)}</h1>",
        "<table><tbody>",
    ]
    for label, value in (
        ("Runs", data["runs"]),
        ("Passed", data["passed"]),
        ("Failed", data["failed"]),
        ("Distinct failures", len(outcome.findings)),
        ("Seeds per second", data["seeds_per_second"]),
        ("Wall time", f"{data['wall_seconds']} s"),
    ):
        parts.append(f"<tr><th>{label}</th><td>{escape(str(value))}</td></tr>")
    parts.append("</tbody></table>")
    parts.append("<h2>Failures by signature</h2>")
    if not outcome.findings:
        parts.append("<p>None.</p>")
    for number, finding in enumerate(outcome.findings, 1):
        css = ' class="failed-run"' if finding.nondeterministic else ""
        parts.append(f"<h3{css}>{number}. {escape(finding.signature.key())}</h3>")
        parts.append(f'<pre class="replay">{escape(_finding_text(finding))}</pre>')
        if finding.shrunk is not None and finding.shrunk.reproduced:
            parts.append('<div class="picture">' + _shrunk_timeline(outcome, finding) + "</div>")
    parts.append("<h2>Coverage: actions by injected fault kind</h2>")
    coverage = outcome.coverage()
    kinds = sorted({k for _, k in coverage})
    actions = sorted({a for a, _ in coverage})
    parts.append("<table><thead><tr><th>action</th>")
    parts += [f"<th>{escape(k)}</th>" for k in kinds]
    parts.append("</tr></thead><tbody>")
    for action in actions:
        cells = "".join(f"<td>{coverage.get((action, k), '')}</td>" for k in kinds)
        parts.append(f"<tr><th>{escape(action)}</th>{cells}</tr>")
    parts.append("</tbody></table></body></html>\n")
    return "\n".join(parts)


def _shrunk_timeline(outcome: CampaignResult, finding: Finding) -> str:
    shrunk = finding.shrunk
    assert shrunk is not None
    spec = shrunk.spec if shrunk.spec is not None else outcome.spec
    if isinstance(spec, RunSpec) and spec.adversary:
        from sdk.testing.campaign.adversary import drift_marks, drifted_run, schedule_of

        result, events = drifted_run(spec, shrunk.seed, shrunk.rules, schedule_of(shrunk.drifts))
        timeline = build_timeline(events, [*result.faults, *drift_marks(result.drifts)])
        return render_svg(timeline, title=f"Shrunk run of seed {shrunk.seed}")
    if not isinstance(spec, RunSpec):
        # conformance paths, sequences: what each step ended as
        return f"<pre>{escape(chr(10).join(shrunk.result.phases))}</pre>"
    report = run_report(spec, shrunk.seed, shrunk.rules)
    timeline = build_timeline(report.events, report.faults, report.dependencies)
    return render_svg(timeline, title=f"Shrunk run of seed {shrunk.seed}")


def write_reports(outcome: CampaignResult, out: Path) -> list[Path]:
    """Write ``summary.json``, ``junit.xml`` and ``report.html`` into *out*."""
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "summary.json": json.dumps(summary(outcome), indent=2, sort_keys=True) + "\n",
        "junit.xml": junit(outcome),
        "report.html": html(outcome),
    }
    paths = []
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        paths.append(out / name)
    return paths
