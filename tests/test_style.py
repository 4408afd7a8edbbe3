"""The tree is ruff-clean (what ``nox -s lint`` checks), so style drift fails CI early."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (it comes with the test extra)")
@pytest.mark.parametrize(
    "args", [["check", "."], ["format", "--check", "."]], ids=["check", "format"]
)
def test_ruff(args):
    result = subprocess.run([RUFF, *args], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
