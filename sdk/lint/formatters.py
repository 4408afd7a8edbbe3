"""Output formats: text, JSON, SARIF 2.1.0 and GitHub workflow annotations.

Every formatter takes a :class:`~sdk.lint.report.LintReport` and returns the
whole output as one string ending in a newline, with findings in (path,
line, column, rule id) order so that equal inputs give byte-identical output.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sdk import __version__
from sdk.lint.registry import Rule, Severity, all_rules
from sdk.lint.report import ChecklistItem, LintReport

TOOL_NAME = "plugsim-lint"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
GITHUB_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
STATUS_MARKS = {"pass": "✔", "fail": "✘", "not checked": "–"}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def summary_line(report: LintReport) -> str:
    """``Found 2 errors, 1 warning and 0 infos in 3 files.``"""
    return (
        f"Found {_plural(report.count(Severity.ERROR), 'error')}, "
        f"{_plural(report.count(Severity.WARNING), 'warning')} and "
        f"{_plural(report.count(Severity.INFO), 'info')} in {_plural(report.files, 'file')}."
    )


def checklist_table(items: list[ChecklistItem]) -> str:
    """The inclusion checklist as a plain-text table, one item a row."""
    headers = ("", "checklist item", "rules", "note")
    rows = [
        (STATUS_MARKS.get(i.status, "?"), i.title, ", ".join(i.rule_ids), i.note) for i in items
    ]
    widths = [max(len(h), *(len(r[n]) for r in rows)) for n, h in enumerate(headers)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join(["Inclusion checklist:", line(headers), rule, *(line(r) for r in rows)])


def format_text(report: LintReport) -> str:
    """``path:line:col: ID message`` per finding, a summary line, then the checklist."""
    lines = [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]
    lines.append(summary_line(report))
    if report.checklist is not None:
        lines.append("")
        lines.append(checklist_table(report.checklist))
    return "\n".join(lines) + "\n"


def format_json(report: LintReport) -> str:
    """A JSON document: findings, per-severity counts and (with --inclusion) the checklist."""
    document: dict[str, Any] = {
        "tool": TOOL_NAME,
        "version": __version__,
        "files": report.files,
        "findings": [f.to_dict() for f in report.findings],
        "summary": {s.value: report.count(s) for s in Severity},
    }
    if report.checklist is not None:
        document["checklist"] = [item.to_dict() for item in report.checklist]
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    """A SARIF ``reportingDescriptor`` for *rule*."""
    markdown = (
        f"{rule.doc}\n\nBad:\n\n```python\n{rule.bad}\n```\n\nGood:\n\n```python\n{rule.good}\n```"
    )
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": markdown},
        "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity]},
        "properties": {"tags": [rule.family]},
    }


def format_sarif(report: LintReport) -> str:
    """A SARIF 2.1.0 log with the whole rule catalogue in ``tool.driver.rules``."""
    rules = all_rules()
    index = {r.id: n for n, r in enumerate(rules)}
    results = []
    for finding in report.findings:
        results.append(
            {
                "ruleId": finding.rule_id,
                "ruleIndex": index[finding.rule_id],
                "level": SARIF_LEVELS[finding.severity],
                "message": {"text": finding.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": finding.path},
                            "region": {
                                "startLine": max(finding.line, 1),
                                "startColumn": max(finding.col, 1),
                            },
                        }
                    }
                ],
            }
        )
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "rules": [rule_descriptor(r) for r in rules],
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if report.checklist is not None:
        run["properties"] = {"checklist": [item.to_dict() for item in report.checklist]}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(report: LintReport) -> str:
    """GitHub Actions workflow commands: ``::error file=p,line=1,col=2,title=PS101::msg``."""
    lines = []
    for f in report.findings:
        props = (
            f"file={_escape_property(f.path)},line={f.line},col={f.col},"
            f"title={_escape_property(f.rule_id)}"
        )
        lines.append(
            f"::{GITHUB_COMMANDS[f.severity]} {props}::{_escape_data(f'{f.rule_id} {f.message}')}"
        )
    lines.append(summary_line(report))
    if report.checklist is not None:
        lines.append(checklist_table(report.checklist))
    return "\n".join(lines) + "\n"


FORMATTERS: dict[str, Callable[[LintReport], str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}


def render(report: LintReport, fmt: str) -> str:
    """Render *report* in format *fmt* (one of :data:`FORMATTERS`)."""
    try:
        return FORMATTERS[fmt](report)
    except KeyError:
        valid = ", ".join(FORMATTERS)
        raise ValueError(f"unknown output format {fmt!r} (valid: {valid})") from None
