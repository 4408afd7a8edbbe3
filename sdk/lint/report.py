"""What a lint run reports: the findings, the inclusion checklist, and how paths are shown.

These shapes sit below both the runner, which builds a :class:`LintReport`,
and the rule families (the inclusion checklist fills :class:`ChecklistItem`
lines, every rule names files with :func:`display_path`), so neither has to
import the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk.lint.registry import Finding, Severity


@dataclass
class ChecklistItem:
    """One line of the inclusion checklist."""

    title: str
    rule_ids: tuple[str, ...]
    status: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON output."""
        return {
            "item": self.title,
            "rules": list(self.rule_ids),
            "status": self.status,
            "note": self.note,
        }


@dataclass
class LintReport:
    """What a lint run found."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    checklist: list[ChecklistItem] | None = None
    #: what the run could not compare or read, in words (``--against``: paths the old version lacks)
    notes: list[str] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        """How many findings have *severity*."""
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def exit_code(self) -> int:
        """0 when there is no error finding, else 1."""
        return 1 if self.count(Severity.ERROR) else 0


def display_path(path: Path) -> str:
    """*path* relative to the working directory when it is below it, in POSIX form."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()
