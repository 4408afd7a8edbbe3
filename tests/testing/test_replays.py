"""Replays that replay (issue 30): the line a failed run prints fails the same way after the run."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "verdict_fixtures"
CONFORMANCE = (
    "import sys; from sdk.testing.cli import conformance; "
    "conformance(sys.argv[1:], prog_name='plugsim conformance')"
)


def run(args, cwd, timeout=300):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


def only(tmp_path, name):
    """A plug-in file holding one of the fixtures' bugs (the others would fail too)."""
    target = tmp_path / "plugin" / "forgetful.py"
    target.parent.mkdir()
    source = (FIXTURES / "bugs.py").read_text()
    head = source[: source.index("def resource_mapping")]
    target.write_text(head + f"\ndef resource_mapping():\n    return {{'Bug::X': {name}}}\n")
    return target


def test_a_conformance_replay_line_fails_the_same_way_after_the_run(tmp_path):
    target = only(tmp_path, "ForgetfulServer")
    work = tmp_path / "work"
    work.mkdir()
    first = run(
        [
            sys.executable,
            "-c",
            CONFORMANCE,
            str(target),
            "-k",
            "test_create and not fails and not rollback",
        ],
        work,
    )
    assert first.returncode == 1, first.stdout + first.stderr
    lines = [line for line in first.stdout.splitlines() if line.startswith("replay: ")]
    assert lines, first.stdout
    replay = lines[0][len("replay: ") :]
    assert ".plugsim/replays/conformance-forgetful/test_plugsim_conformance.py::" in replay
    assert "replay material in .plugsim/replays/conformance-forgetful" in first.stdout
    failures = (work / ".plugsim/replays/conformance-forgetful/failures.txt").read_text()
    assert "leak: leaked fake-cloud entities" in failures and replay in failures
    leaked = re.search(
        r"leaked:\s+(compute/server) \S+ 'v' \(ACTIVE\) created by call 1", first.stdout
    )
    assert leaked, first.stdout
    # the run has ended; the line runs from the user's directory
    words = shlex.split(replay)
    assert words[:3] == ["python", "-m", "pytest"]
    again = run([sys.executable, *words[1:], "-p", "no:cacheprovider"], work)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "1 failed" in again.stdout
    assert re.search(r"leaked:\s+compute/server \S+ 'v' \(ACTIVE\) created by call 1", again.stdout)
    # the same seed: the same entity ids, the same verdict
    ids = re.findall(r"compute/server ([0-9a-f-]{36})", first.stdout)
    assert ids and ids[0] in again.stdout
