"""``--world FILE|PRESET`` on ``plugsim serve`` and ``plugsim conformance`` (issue 21): the served
cloud, and every conformance test's cloud, start from the world named."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PLUGSIM = Path(sys.executable).with_name("plugsim")
SAMPLES = Path(__file__).resolve().parents[1] / "testing" / "sample_plugins.py"


def _serve(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], str]:
    """Start ``plugsim ARGS serve --port 0``, stop it with SIGTERM once it serves."""
    proc = subprocess.Popen(
        [str(PLUGSIM), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    line = proc.stdout.readline()  # type: ignore[union-attr]
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("plugsim serve did not stop within 60 s of SIGTERM")
    return subprocess.CompletedProcess(proc.args, proc.returncode, line + out, err), line


def _networks(state: Path) -> list[str]:
    from simulator.world import World

    with World.open(state) as world:
        return sorted(n["name"] for n in world.cloud.service("network").list_networks())


@pytest.mark.material
def test_serve_starts_a_new_world_from_the_world_named(tmp_path):
    state = tmp_path / "w.db"
    done, line = _serve(
        "serve", "--port", "0", "--state", str(state), "--world", "devstack", cwd=tmp_path
    )
    assert line.startswith("auth URL: http://127.0.0.1:"), done.stderr
    assert done.returncode == 0, done.stderr
    assert _networks(state) == ["private", "public"]


@pytest.mark.material
def test_serve_takes_a_world_file_and_the_global_world_option(tmp_path):
    lab = tmp_path / "lab.yaml"
    lab.write_text(
        "plugsim_world: 1\nnetworks:\n  - name: lab\n    subnets: [{name: lab-v4, cidr: 10.9.0.0/24}]\n"
    )
    state = tmp_path / "a.db"
    done, _ = _serve(
        "serve", "--port", "0", "--state", str(state), "--world", str(lab), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert _networks(state) == ["lab"]
    other = tmp_path / "b.db"
    done, _ = _serve(
        "--state", str(other), "--world", "devstack", "serve", "--port", "0", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert _networks(other) == ["private", "public"]


def test_serve_with_a_bad_world_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("plugsim_world: 1\nflavors: [{name: x, vcpus: 0}]\n")
    result = subprocess.run(
        [
            str(PLUGSIM),
            "serve",
            "--port",
            "0",
            "--state",
            str(tmp_path / "w.db"),
            "--world",
            str(bad),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "bad.yaml: flavors[0].vcpus" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.material
def test_serve_still_takes_a_store_file_as_world_and_says_to_use_state(tmp_path):
    state = tmp_path / "old.db"
    done, line = _serve("serve", "--port", "0", "--world", str(state), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--state" in done.stderr
    assert state.is_file()
    assert _networks(state) == ["public"]


def _conformance(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    d = tmp_path / "plugins"
    d.mkdir(exist_ok=True)
    shutil.copy(SAMPLES, d / "servers.py")
    with open(d / "servers.py", "a") as fh:
        fh.write('\n\ndef resource_mapping():\n    return {"Sample::Server": SampleServer}\n')
    props = tmp_path / "props.yaml"
    props.write_text("Sample::Server:\n  image: cirros-0.6.3-x86_64-disk\n")
    return subprocess.run(
        [
            str(PLUGSIM),
            "conformance",
            str(d),
            "--properties",
            str(props),
            "-q",
            "-k",
            "test_create",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )


@pytest.mark.material
def test_conformance_runs_every_test_in_the_world_named(tmp_path):
    # DevStack's image is not in the default world: the suite passes only on the devstack world
    on_devstack = _conformance(tmp_path, "--world", "devstack")
    assert on_devstack.returncode == 0, on_devstack.stdout + on_devstack.stderr
    assert " passed" in on_devstack.stdout and "failed" not in on_devstack.stdout
    on_default = _conformance(tmp_path)
    assert on_default.returncode == 1
    assert "cirros-0.6.3-x86_64-disk" in on_default.stdout


def test_conformance_with_a_missing_world_file_is_one_line(tmp_path):
    result = _conformance(tmp_path, "--world", str(tmp_path / "nope.yaml"))
    assert result.returncode == 1
    assert "nope.yaml: no such world file" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.material
def test_conformance_takes_the_global_world_option(tmp_path):
    d = tmp_path / "plugins"
    d.mkdir()
    shutil.copy(SAMPLES, d / "servers.py")
    with open(d / "servers.py", "a") as fh:
        fh.write('\n\ndef resource_mapping():\n    return {"Sample::Server": SampleServer}\n')
    props = tmp_path / "props.yaml"
    props.write_text("Sample::Server:\n  image: cirros-0.6.3-x86_64-disk\n")
    result = subprocess.run(
        [str(PLUGSIM), "--world", "devstack", "conformance", str(d), "--properties", str(props)]
        + ["-q", "-k", "test_create"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
