"""One writer per world: a second writer is told who holds the world, or waits;
readers never change a live stack; a dead writer's lease is taken over."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from simulator.store import WorldBusy
from simulator.world import World
from tests.world.conftest import plugsim_argv, plugsim_env

BIG = """\
heat_template_version: 2018-08-31
resources:
  marks:
    type: OS::Heat::ResourceGroup
    properties:
      count: 20
      resource_def:
        type: OS::Heat::TestResource
        properties:
          value: mark-%index%
          wait_secs: 1
  pause:
    type: Test::Pause
    depends_on: marks
"""
SMALL = """\
heat_template_version: 2018-08-31
resources:
  n:
    type: OS::Neutron::Net
"""
#: A resource whose create waits (in wall time) until the test lets it go, so a
#: writer process sits in a handler between two commits as long as the test needs.
PAUSE = """\
import os
import time

from sdk.resource import Resource


class Pause(Resource):
    def handle_create(self):
        deadline = time.monotonic() + 120
        while not os.path.exists("go") and time.monotonic() < deadline:
            time.sleep(0.02)
        self.resource_id_set("paused")


def resource_mapping():
    return {"Test::Pause": Pause}
"""
EXAMPLES = Path(__file__).parents[2] / "examples" / "three-tier"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "big.yaml").write_text(BIG)
    (tmp_path / "small.yaml").write_text(SMALL)
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "pause.py").write_text(PAUSE)
    return tmp_path


def start_paused(project: Path, *args: str) -> subprocess.Popen[bytes]:
    """Start ``plugsim ARGS`` and return once it sits in the pausing resource's handler
    (every earlier virtual instant committed)."""
    proc = subprocess.Popen(
        plugsim_argv("--state", "w.db", "--plugin-dir", "plugins", *args),
        cwd=project,
        env=plugsim_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if b" pause CREATE_IN_PROGRESS" in line:
            break
    else:
        raise AssertionError(f"the writer ended early: {proc.wait()}")
    return proc


def finish(project: Path, proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    """Let the paused writer go and wait for it."""
    (project / "go").write_text("")
    out, _ = proc.communicate(timeout=300)
    return proc.returncode, out.decode()


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        plugsim_argv("--state", "w.db", "--plugin-dir", "plugins", *args),
        cwd=project,
        env=plugsim_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.material
def test_a_second_writer_gets_one_line_naming_the_first_and_fails(project):
    first = start_paused(project, "stack", "create", "-t", "big.yaml", "big")
    try:
        second = run(project, "stack", "create", "-t", "small.yaml", "other")
    finally:
        code, out = finish(project, first)
    assert second.returncode == 1
    assert second.stdout == ""
    (line,) = second.stderr.splitlines()
    assert re.fullmatch(
        r"plugsim: error: world w\.db is busy: `stack create big` "
        rf"\(pid {first.pid}\) since \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC; "
        r"use `plugsim --wait-lock \.\.\.` to queue",
        line,
    ), line
    assert code == 0 and "big CREATE_COMPLETE" in out
    listed = run(project, "stack", "list", "-f", "json")
    assert [s["stack_name"] for s in json.loads(listed.stdout)] == ["big"]


@pytest.mark.material
def test_with_wait_the_second_writer_queues_and_both_stacks_exist(project):
    first = start_paused(project, "stack", "create", "-t", "big.yaml", "big")
    second = subprocess.Popen(
        plugsim_argv(
            "--state",
            "w.db",
            "--plugin-dir",
            "plugins",
            "--wait-lock",
            "stack",
            "create",
            "-t",
            "small.yaml",
            "other",
        ),
        cwd=project,
        env=plugsim_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert second.stderr is not None
        waiting = second.stderr.readline()
        assert waiting.startswith("plugsim: waiting: world w.db is busy: `stack create big`")
    finally:
        code, out = finish(project, first)
    out2, _ = second.communicate(timeout=300)
    assert code == 0 and "big CREATE_COMPLETE" in out
    assert second.returncode == 0 and "other CREATE_COMPLETE" in out2
    listed = json.loads(run(project, "stack", "list", "-f", "json").stdout)
    assert sorted((s["stack_name"], s["stack_status"]) for s in listed) == [
        ("big", "CREATE_COMPLETE"),
        ("other", "CREATE_COMPLETE"),
    ]
    assert len({s["id"] for s in listed}) == 2


@pytest.mark.material
def test_readers_leave_a_live_stack_alone(project):
    writer = start_paused(project, "stack", "create", "-t", "big.yaml", "big")
    try:
        shown = run(project, "stack", "show", "big", "-f", "json")
        listed = run(project, "stack", "list", "-f", "json")
        events = run(project, "stack", "event", "list", "big", "-f", "json")
        resources = run(project, "stack", "resource", "list", "big", "-f", "json")
        outputs = run(project, "stack", "output", "list", "big")
    finally:
        code, out = finish(project, writer)
    for reader in (shown, listed, events, resources, outputs):
        assert reader.returncode == 0, reader.stderr
    assert json.loads(shown.stdout)["stack_status"] == "CREATE_IN_PROGRESS"
    assert [s["stack_status"] for s in json.loads(listed.stdout)] == ["CREATE_IN_PROGRESS"]
    assert code == 0 and "big CREATE_COMPLETE" in out
    after = json.loads(run(project, "stack", "event", "list", "big", "-f", "json").stdout)
    assert not [e for e in after if "restarted" in e["reason"] or e["action"] == "LEASE"]


@pytest.mark.material
def test_a_dead_writers_lease_is_taken_over_with_an_event(project):
    writer = start_paused(project, "stack", "create", "-t", "big.yaml", "big")
    os.kill(writer.pid, signal.SIGKILL)
    writer.communicate(timeout=60)
    shown = run(project, "stack", "show", "big", "-f", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["stack_status"] == "CREATE_FAILED"
    events = json.loads(run(project, "stack", "event", "list", "big", "-f", "json").stdout)
    lease = [e for e in events if e["action"] == "LEASE"]
    assert len(lease) == 1
    assert re.search(
        rf"world lease of `stack create big` \(pid {writer.pid}\) since .* taken over by "
        r"`stack show big` \(pid \d+\): that process is no longer running",
        lease[0]["reason"],
    )
    assert events[-1]["reason"] == "engine restarted during CREATE"
    deleted = run(project, "stack", "delete", "big")
    assert deleted.returncode == 0 and "DELETE_COMPLETE" in deleted.stdout


def test_in_one_process_a_second_writer_is_refused_and_a_reader_is_not(tmp_path):
    path = tmp_path / "w.db"
    world = World.open(path, command="stack create big")
    try:
        with pytest.raises(WorldBusy, match=r"is busy: `stack create big` \(pid \d+\)"):
            World.open(path)
        reader = World.open(path, readonly=True)
        assert reader.stack_records() == []
        with pytest.raises(WorldBusy):
            reader.store.set_meta("x", 1)
        reader.close()
    finally:
        world.close()
    World.open(path).close()  # released


@pytest.mark.parametrize("durability", ["instant", "transition"])
def test_create_json_on_the_readme_example_prints_the_complete_stack(tmp_path, durability):
    done = subprocess.run(
        plugsim_argv(
            "--state",
            "w.db",
            "stack",
            "--durability",
            durability,
            "create",
            "-t",
            str(EXAMPLES / "stack.yaml"),
            "-e",
            str(EXAMPLES / "env.yaml"),
            "-f",
            "json",
            "demo",
        ),
        cwd=tmp_path,
        env=plugsim_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert data["stack_status"] == "CREATE_COMPLETE"
    assert "internal error" not in done.stderr
