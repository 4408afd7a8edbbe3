"""Replays that replay (issue 30): the line a failed run prints fails the same way after the run."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.material
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
            "test_create and not fails and not rollback and not retry",
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


PLUGSIM = "from simulator.cli import main; main(prog_name='plugsim')"


def plugsim(words, cwd, timeout=600):
    """Run a printed ``plugsim ...`` line (its first word is the command) in a fresh process."""
    assert words[0] == "plugsim", words
    return run([sys.executable, "-c", PLUGSIM, *words[1:]], cwd, timeout)


@pytest.mark.material
def test_a_campaign_shrunk_replay_line_fails_the_same_way_after_the_run(tmp_path):
    """No --out: the shrunk stack and fault profile are kept under .plugsim/replays/."""
    root = Path(__file__).resolve().parents[2] / "examples" / "campaign"
    work = tmp_path / "work"
    work.mkdir()
    first = plugsim(
        [
            "plugsim",
            "campaign",
            str(root / "stack.yaml"),
            "--faults",
            str(root / "faults.yaml"),
            "--seeds",
            "400..430",
        ],
        work,
    )
    assert first.returncode == 1, first.stdout + first.stderr
    text = first.stdout
    assert "replay material in .plugsim/replays/campaign-stack-yaml" in text
    stack = re.search(r"shrunk stack: .*: (\S+finding-1\.template\.yaml)", text)
    assert stack and Path(stack.group(1)).is_file(), text
    assert ".plugsim/replays/campaign-stack-yaml/shrunk/" in stack.group(1)
    shrunk = next(line for line in text.splitlines() if "shrunk replay: " in line)
    words = shlex.split(shrunk.split("shrunk replay: ", 1)[1])
    # the verdict of the finding names the leaked entity's creating call and handler
    assert re.search(r"leaked:\s+network/network \S+ .* created by call \d+ network\.", text), text
    again = plugsim(words, work)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "LEAKED fake-cloud resources: 1" in again.stdout
    assert "created by call" in again.stdout
