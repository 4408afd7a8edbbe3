"""Fixtures of the Heat fidelity tests: both engines' results, computed once per session."""

from __future__ import annotations

import _heat_diff as _diff
import pytest


@pytest.fixture(scope="session")
def corpus_results() -> tuple[dict, dict]:
    """``(heat, plugsim)`` results of the whole corpus."""
    cases = _diff.corpus_cases()
    return _diff.run_heat(cases), _diff.run_plugsim(cases)
