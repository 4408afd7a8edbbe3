"""tools/conformance_verdicts.py: two runs' verdicts compare equal exactly when they are the same."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

JUNIT = """<testsuites><testsuite>
<testcase classname="t.Test_X" name="test_create"/>
<testcase classname="t.Test_X" name="test_update"><failure message="VerdictFailure: state: UPDATE_FAILED at 0x7f00aa11bb22">tb</failure></testcase>
<testcase classname="t.Test_X" name="test_check"><skipped message="{tree}/sdk/testing/conformance.py:127: X does not implement handle_check"/></testcase>
</testsuite></testsuites>"""

OUTPUT = """_____________ Test_X.test_update _____________

self = <t.Test_X object at 0x7f00aa11bb22>
>       expect_state(h, "UPDATE_COMPLETE")
E       sdk.testing.verdict.VerdictFailure: state: the stack is UPDATE_FAILED
E         replay:   python -m pytest t.py::Test_X::test_update --plugsim-seed=0

{tree}/sdk/testing/conformance.py:287: VerdictFailure
----------------------------------- plugsim ------------------------------------
seed: {seed} (session seed 0)
replay: python -m pytest t.py::Test_X::test_update --plugsim-seed=0
========================== plugsim lifecycle coverage ==========================
X       2/1
=================== 1 failed, 1 passed, 1 skipped{warn} in {secs}s ===================
"""


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location(
        "conformance_verdicts", ROOT / "tools" / "conformance_verdicts.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _verdicts(tree: str, seed: int = 42, secs: str = "5.17", warn: str = "") -> dict[str, Any]:
    output = OUTPUT.format(tree=tree, seed=seed, secs=secs, warn=warn)
    return _tool().verdicts(output, JUNIT.format(tree=tree), "replay lines")


def test_times_addresses_trees_and_warning_counts_are_no_verdicts():
    one = _verdicts("/work/main", secs="5.17", warn=", 1 warning")
    other = _verdicts("/work/wt/someone", secs="1.90")
    assert one == other
    assert one["tests"]["t.Test_X::test_update"] == [
        "failure",
        "VerdictFailure: state: UPDATE_FAILED at 0x?",
    ]
    assert one["tests"]["t.Test_X::test_check"] == ["skipped", "X does not implement handle_check"]
    assert one["summary"] == "1 failed, 1 passed, 1 skipped"
    assert one["coverage"] == ["X       2/1"]


def test_a_different_seed_is_a_different_verdict():
    first, second = _verdicts("/a", seed=42), _verdicts("/a", seed=43)
    assert first != second
    assert first["plugsim"]["Test_X.test_update"][0] == "seed: 42 (session seed 0)"
    assert first["E"]["Test_X.test_update"][0].endswith("the stack is UPDATE_FAILED")
