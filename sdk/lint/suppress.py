"""Inline suppression: ``# plugsim: ignore[PS101]`` on the line a finding points at.

Several ids may be listed (``# plugsim: ignore[PS101, PS203]``); an id prefix
(``PS2``) suppresses the whole group. The comment must name what it
suppresses: a bare ``# plugsim: ignore`` suppresses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from sdk.lint.registry import Finding

_PATTERN = re.compile(r"#\s*plugsim:\s*ignore\[(?P<ids>[^\]]*)\]", re.IGNORECASE)


def suppressed_ids(comment: str) -> tuple[str, ...]:
    """The rule ids (or prefixes) a comment suppresses; empty when it is no suppression."""
    out: list[str] = []
    for match in _PATTERN.finditer(comment):
        out.extend(part.strip().upper() for part in match.group("ids").split(",") if part.strip())
    return tuple(out)


def comments_of_text(text: str) -> dict[int, str]:
    """Line number → the text from the first ``#`` on, for non-Python files (YAML)."""
    out: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        index = line.find("#")
        if index >= 0:
            out[number] = line[index:]
    return out


def apply(findings: Iterable[Finding], comments: Mapping[str, Mapping[int, str]]) -> list[Finding]:
    """Drop the findings suppressed by a comment on their line.

    *comments* maps a finding's path to that file's ``line → comment`` table.
    """
    kept = []
    for finding in findings:
        comment = comments.get(finding.path, {}).get(finding.line, "")
        ids = suppressed_ids(comment) if comment else ()
        if any(finding.rule_id.startswith(i) for i in ids):
            continue
        kept.append(finding)
    return kept
