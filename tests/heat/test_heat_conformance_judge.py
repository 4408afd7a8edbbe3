"""tools/heat_conformance.py: how a failure is judged plugsim's or the plug-in's (issue #30)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> Any:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        spec = importlib.util.spec_from_file_location(
            "heat_conformance", ROOT / "tools" / "heat_conformance.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return module


def test_judge_reads_the_whole_message_before_shortening_it(tmp_path: Path) -> None:
    """A cloud refusal far into a verdict's message still finds its NOT_PLUGSIM entry."""
    tool = _tool()
    state = "state: the stack is ROLLBACK_FAILED, expected ROLLBACK_COMPLETE: " + "x" * 300
    refusal = " BadRequest: Volume type encryption for type t1 already exists."
    xml = tmp_path / "r.xml"
    xml.write_text(
        '<testsuite><testcase classname="m.Test_OS__Cinder__EncryptedVolumeType" '
        'name="test_update_failure_rolls_back">'
        f'<failure message="{state}{refusal}"/></testcase>'
        '<testcase classname="m.Test_OS__Cinder__EncryptedVolumeType" name="test_create">'
        f'<failure message="{state}{"y" * 900}"/></testcase></testsuite>',
        encoding="utf-8",
    )
    tests = tool._results(xml)["Test_OS__Cinder__EncryptedVolumeType"]
    tool.judge("OS::Cinder::EncryptedVolumeType", tests)
    rolled, created = tests
    assert rolled["cause"] != "plugsim" and "replaces a failed resource" in rolled["cause"]
    assert created["cause"] == "plugsim"
    assert len(created["message"]) == tool.MESSAGE_CHARS
