"""The tree is ruff-clean (what ``nox -s lint`` checks), so style drift fails CI early."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff")


def _targets() -> list[str]:
    """The Python files git tracks (a virtualenv made inside the checkout is not the project's);
    the whole tree when this is not a git checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py"], cwd=ROOT, capture_output=True, check=False
    )
    files = [f for f in listed.stdout.decode().split("\0") if f] if listed.returncode == 0 else []
    return ["--config", str(ROOT / "pyproject.toml"), "--force-exclude", *files] if files else ["."]


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (it comes with the test extra)")
@pytest.mark.parametrize("args", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(args):
    result = subprocess.run(
        [RUFF, *args, *_targets()], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
