"""Done-when of issue 31: the ``openstack stack`` commands (python-heatclient, unmodified)
drive ``plugsim serve``'s Orchestration API through a whole stack life, and what they
made is the same world ``plugsim stack`` reads afterwards.

The server is a real ``plugsim serve`` on 127.0.0.1 started and stopped here; the
``openstack`` CLI runs in this process through its own entry point and talks HTTP to it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("heatclient")
pytest.importorskip("openstackclient.shell")

PLUGSIM = Path(sys.executable).with_name("plugsim")

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  value:
    type: string
resources:
  secret:
    type: OS::Heat::RandomString
    properties:
      length: 12
  thing:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
      action_wait_secs: {create: 20, update: 10, delete: 5}
outputs:
  out:
    description: what thing says
    value: {get_attr: [thing, output]}
"""


def _start(tmp_path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [
            str(PLUGSIM),
            "serve",
            "--port",
            "0",
            "--state",
            str(tmp_path / "w.db"),
            "--seed",
            "3",
            "--time-scale",
            "1000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    line = proc.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("auth URL: http://127.0.0.1:"), line + proc.stderr.read()  # type: ignore[union-attr]
    proc.stdout.readline()  # type: ignore[union-attr]
    return proc


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("plugsim serve did not stop within 30 s of SIGTERM")
    assert proc.returncode == 0, err
    return err


@pytest.fixture
def served(tmp_path, monkeypatch, capsys):
    """A ``plugsim serve`` and a runner of ``openstack ... -f json`` commands against it."""
    from openstackclient import shell

    proc = _start(tmp_path)
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "clouds.yaml"))
    for name in ("OS_CLOUD", "OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD", "OS_PROJECT_NAME"):
        monkeypatch.delenv(name, raising=False)

    def run(*args: str, fmt: bool = True) -> object:
        capsys.readouterr()
        argv = ["--os-cloud", "plugsim", *args, *(["-f", "json"] if fmt else [])]
        code = shell.main(argv)
        out = capsys.readouterr()
        assert code == 0, f"openstack {' '.join(args)}: {out.err}"
        if not (fmt and out.out.strip()):
            return out.out
        # ``--wait`` prints the events it saw before the document
        starts = [i for i, line in enumerate(out.out.splitlines()) if line[:1] in "[{"]
        return json.loads("\n".join(out.out.splitlines()[starts[0] :]))

    stopped: list[str] = []

    def stop() -> str:
        if not stopped:
            stopped.append(_stop(proc))
        return stopped[0]

    run.stop = stop  # type: ignore[attr-defined]
    try:
        yield run
    finally:
        stop()


@pytest.mark.material
def test_openstack_stack_commands_over_plugsim_serve(served, tmp_path):
    run = served
    tpl = tmp_path / "tpl.yaml"
    tpl.write_text(TEMPLATE)
    kept = run("stack", "create", "-t", str(tpl), "--parameter", "value=kept", "kept", "--wait")
    created = run("stack", "create", "-t", str(tpl), "--parameter", "value=one", "s1", "--wait")
    assert created["stack_status"] == "CREATE_COMPLETE"

    listed = {row["Stack Name"]: row for row in run("stack", "list")}
    assert sorted(listed) == ["kept", "s1"]
    assert listed["s1"]["Stack Status"] == "CREATE_COMPLETE"
    assert listed["s1"]["ID"] == created["id"]

    shown = run("stack", "show", "s1")
    assert shown["id"] == created["id"]
    assert shown["parameters"]["value"] == "one"
    assert shown["parameters"]["OS::stack_name"] == "s1"
    assert run("stack", "output", "show", "s1", "out")["output_value"] == "one"

    resources = {r["resource_name"]: r for r in run("stack", "resource", "list", "s1")}
    assert sorted(resources) == ["secret", "thing"]
    assert resources["thing"]["resource_type"] == "OS::Heat::TestResource"
    assert resources["thing"]["resource_status"] == "CREATE_COMPLETE"

    events = run("stack", "event", "list", "s1")
    states = [(e["resource_name"], e["resource_status"]) for e in events]
    assert states[0] == ("s1", "CREATE_IN_PROGRESS")
    assert states[-1] == ("s1", "CREATE_COMPLETE")
    assert ("thing", "CREATE_COMPLETE") in states

    run("stack", "update", "-t", str(tpl), "--parameter", "value=two", "s1", "--wait")
    assert run("stack", "show", "s1")["stack_status"] == "UPDATE_COMPLETE"
    assert run("stack", "output", "show", "s1", "out")["output_value"] == "two"

    for verb, state in (("suspend", "SUSPEND"), ("resume", "RESUME"), ("check", "CHECK")):
        rows = run("stack", verb, "s1", "--wait")
        assert rows[0]["Stack Status"] == f"{state}_COMPLETE", rows

    snap = run("stack", "snapshot", "create", "s1", "--name", "snap1")
    assert snap["name"] == "snap1"
    assert snap["status"] in ("IN_PROGRESS", "COMPLETE")
    snaps = run("stack", "snapshot", "list", "s1")
    assert [(s["name"], s["status"]) for s in snaps] == [("snap1", "COMPLETE")]

    abandon_file = tmp_path / "abandon.json"
    run("stack", "abandon", "s1", "--output-file", str(abandon_file), fmt=False)
    data = json.loads(abandon_file.read_text())
    assert data["name"] == "s1"
    assert sorted(data["resources"]) == ["secret", "thing"]
    assert "s1" not in [row["Stack Name"] for row in run("stack", "list")]

    adopted = run("stack", "adopt", "--adopt-file", str(abandon_file), "s2", "--wait")
    assert adopted["stack_status"] == "ADOPT_COMPLETE"
    s2_resources = {r["resource_name"]: r for r in run("stack", "resource", "list", "s2")}
    assert (
        s2_resources["thing"]["physical_resource_id"] == (data["resources"]["thing"]["resource_id"])
    )

    run("stack", "delete", "s2", "--wait", "-y", fmt=False)
    assert [row["Stack Name"] for row in run("stack", "list")] == ["kept"]
    assert kept["stack_status"] == "CREATE_COMPLETE"

    # a reader may look while the server holds the world ...
    doc = _plugsim_show(tmp_path, "kept")
    assert doc["id"] == kept["id"]
    assert doc["stack_status"] == "CREATE_COMPLETE"
    assert [o["output_value"] for o in doc["outputs"]] == ["kept"]
    # ... and after it stopped, the world file holds what the wire did
    assert "world saved" in run.stop()  # type: ignore[attr-defined]
    assert _plugsim_show(tmp_path, "kept")["id"] == kept["id"]
    from simulator.world import World

    with World.open(tmp_path / "w.db", readonly=True) as world:
        live = [r.name for r in world.stack_records()]
        gone = {r.name: r.action for r in world.stack_records(include_deleted=True)}
    assert live == ["kept"]
    assert gone == {"kept": "CREATE", "s1": "ABANDON", "s2": "DELETE"}


def _plugsim_show(tmp_path: Path, name: str) -> dict:
    out = subprocess.run(
        [str(PLUGSIM), "--state", str(tmp_path / "w.db"), "stack", "show", name, "-f", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)
