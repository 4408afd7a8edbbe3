"""Helpers for tests that run real ``plugsim`` processes against a world file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def plugsim_env() -> dict[str, str]:
    """The environment of a child ``plugsim``: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("PLUGSIM_STATE", None)
    env.pop("PLUGSIM_WAIT", None)
    return env


def plugsim_argv(*args: str) -> list[str]:
    """The command line of ``plugsim ARGS`` run with this interpreter."""
    code = "import sys; from simulator.cli import main; sys.exit(main())"
    return [sys.executable, "-c", code, *args]


def run_until_killed(args: list[str], cwd: Path, after_lines: int) -> int:
    """Run ``plugsim ARGS``; SIGKILL it once it has printed *after_lines* event lines.

    Returns how many lines it printed (fewer when it finished first).
    """
    proc = subprocess.Popen(
        plugsim_argv(*args),
        cwd=cwd,
        env=plugsim_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    seen = 0
    assert proc.stderr is not None
    for _line in proc.stderr:
        seen += 1
        if seen >= after_lines:
            proc.send_signal(signal.SIGKILL)
            break
    proc.stderr.close()
    proc.wait(timeout=120)
    return seen


@pytest.fixture
def plugsim_run():
    """Run ``plugsim ARGS`` to the end: ``(exit status, stdout, stderr)``."""

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            plugsim_argv(*args),
            cwd=cwd,
            env=plugsim_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )

    return run
