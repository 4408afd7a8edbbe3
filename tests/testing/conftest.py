"""Tests of sdk.testing: pytester drives the plugsim pytest plugin in a scratch directory."""

import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture
def scratch(pytester):
    """A pytester whose tests can import the sample plug-ins and run async tests."""
    pytester.syspathinsert(HERE)
    # hypothesis's pytest plugin is re-imported on every in-process run (seconds each):
    # the scratch runs do not need it.
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
        "addopts = -p no:hypothesispytest\n"
    )
    return pytester
