"""Shared helpers for the linter's tests; the fixture plug-ins are data, never collected."""

from pathlib import Path

import pytest

collect_ignore = ["fixtures"]

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch):
    """Findings show paths relative to the working directory: make it the repository root."""
    monkeypatch.chdir(Path(__file__).parents[2])
