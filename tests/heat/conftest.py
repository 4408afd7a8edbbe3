"""Fixtures of the Heat fidelity tests: both engines' results, computed once per session."""

from __future__ import annotations

import pytest

from simulator.heat_compat import HEAT_PYTHON_ENV, find_heat_package, heat_python

from . import _diff

HEAT_MISSING = (
    f"openstack-heat is not installed: set {HEAT_PYTHON_ENV} to the python of a virtualenv "
    "with `pip install openstack-heat fixtures testtools` (plugsim[heat])"
)


def heat_available() -> bool:
    """True when a Heat virtualenv with the package is present."""
    return heat_python() is not None and find_heat_package() is not None


requires_heat = pytest.mark.skipif(not heat_available(), reason=HEAT_MISSING)


@pytest.fixture(scope="session")
def corpus_results() -> tuple[dict, dict]:
    """``(heat, plugsim)`` results of the whole corpus."""
    cases = _diff.corpus_cases()
    return _diff.run_heat(cases), _diff.run_plugsim(cases)
