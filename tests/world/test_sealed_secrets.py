"""Hidden parameter values are sealed at rest: the world file never holds them in plain text.

Every test greps the raw bytes of the world file (and its write-ahead log)
for the secret after the command ended, so any table a hidden value reaches
(stack parameters and environment, resource properties, events, the fake
cloud's entities and call trace, outputs) is covered at once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

from click.testing import CliRunner

from sdk.secrets import BOOK
from simulator.cli import main

SECRET = "s3cr3t-Pa55word-7781"
SHORT = "q7"

HOT = """heat_template_version: 2018-08-31
parameters:
  db_password: {type: string, hidden: true}
  pin: {type: string, hidden: true, default: q7}
  image: {type: string, default: cirros}
  flavor: {type: string, default: m1.small}
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {get_param: db_password}}
  pinned:
    type: OS::Heat::Value
    properties: {value: {get_param: pin}}
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      admin_pass: {get_param: db_password}
outputs:
  out: {value: {get_attr: [v, value]}}
"""


def _raw(state: Path) -> bytes:
    """Every byte plugsim keeps for the world at *state* (the file, its log, its blobs)."""
    out = b""
    for path in sorted(state.parent.iterdir()):
        if path.name.startswith(state.name) and path.is_file():
            out += path.read_bytes()
    return out


def _create(tmp_path: Path, state: Path, name: str = "s") -> None:
    template = tmp_path / "t.yaml"
    template.write_text(HOT)
    result = CliRunner().invoke(
        main,
        ["--state", str(state), "stack", "create", "-t", str(template), "--parameter",
         f"db_password={SECRET}", name],
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def _run(state: Path, *args: str) -> object:
    return CliRunner().invoke(main, ["--state", str(state), *args])


def test_no_hidden_value_is_plain_text_in_the_world_file(tmp_path):
    state = tmp_path / "w.db"
    _create(tmp_path, state)
    raw = _raw(state)
    assert SECRET.encode() not in raw
    assert b'"q7"' not in raw and b"pin: q7" not in raw
    assert b"sealed:v1:" in raw


def test_a_sealed_world_works_as_before_with_its_key(tmp_path):
    state = tmp_path / "w.db"
    _create(tmp_path, state)
    BOOK.forget_all()  # a new process: nothing remembered
    shown = _run(state, "stack", "output", "show", "s", "out", "-f", "json")
    assert shown.exit_code == 0, shown.output
    assert SECRET in shown.stdout
    listed = _run(state, "stack", "resource", "list", "s", "-f", "json")
    assert listed.exit_code == 0, listed.output
    assert {r["resource_status"] for r in json.loads(listed.stdout)} == {"CREATE_COMPLETE"}
    update = _run(
        state, "stack", "update", "s", "--existing", "--parameter", "db_password=an0ther-S3cret"
    )
    assert update.exit_code == 0, update.output
    raw = _raw(state)
    assert SECRET.encode() not in raw and b"an0ther-S3cret" not in raw
    deleted = _run(state, "stack", "delete", "-y", "s")
    assert deleted.exit_code == 0, deleted.output
    assert SECRET.encode() not in _raw(state)


def test_the_key_is_made_once_outside_the_world_with_mode_0600(tmp_path, monkeypatch):
    key = tmp_path / "conf" / "world.key"
    monkeypatch.setenv("PLUGSIM_KEY_FILE", str(key))
    _create(tmp_path, tmp_path / "w.db")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    first = key.read_bytes()
    _create(tmp_path, tmp_path / "w2.db")
    assert key.read_bytes() == first
    assert first.strip() not in _raw(tmp_path / "w.db")


def test_a_world_without_its_key_says_which_key_file(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    _create(tmp_path, state)
    BOOK.forget_all()
    missing = tmp_path / "elsewhere" / "world.key"
    monkeypatch.setenv("PLUGSIM_KEY_FILE", str(missing))
    result = _run(state, "stack", "show", "s")
    assert result.exit_code == 1
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("plugsim: error: ")
    assert str(missing) in line and "does not exist" in line and "PLUGSIM_KEY_FILE" in line
    assert "Traceback" not in result.output
    assert not missing.exists()  # no new key made for a world that has one


def test_a_world_with_another_users_key_is_refused(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    _create(tmp_path, state)
    BOOK.forget_all()
    other = tmp_path / "other.key"
    monkeypatch.setenv("PLUGSIM_KEY_FILE", str(other))
    _create(tmp_path, tmp_path / "mine.db")  # makes the other key
    result = _run(state, "stack", "output", "show", "s", "out")
    assert result.exit_code == 1
    assert "holds key" in result.output and str(other) in result.output
    assert SECRET not in result.output


def test_a_world_written_before_sealing_is_sealed_on_its_next_commit(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    from simulator import store_seal

    monkeypatch.setattr(store_seal.Sealing, "seal", lambda self, text, shaped=False: text)
    _create(tmp_path, state)
    db = sqlite3.connect(state)
    db.execute("DELETE FROM meta WHERE key IN ('seal_checked', 'seal_key')")
    db.commit()
    db.close()
    assert SECRET.encode() in _raw(state)  # the old, plain world
    monkeypatch.undo()
    monkeypatch.setenv("PLUGSIM_KEY_FILE", str(tmp_path / "k"))
    BOOK.forget_all()
    shown = _run(state, "stack", "show", "s", "-f", "json")  # still opens, read-only
    assert shown.exit_code == 0, shown.output
    assert SECRET.encode() in _raw(state)
    BOOK.forget_all()
    check = _run(state, "stack", "check", "s")  # a writer: the next commit seals
    assert check.exit_code == 0, check.output
    assert SECRET.encode() not in _raw(state)
    out = _run(state, "stack", "output", "show", "s", "out", "-f", "json")
    assert SECRET in out.stdout
    assert os.path.exists(tmp_path / "k")


def test_a_key_file_that_is_no_key_is_named(tmp_path, monkeypatch):
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    monkeypatch.setenv("PLUGSIM_KEY_FILE", str(bad))
    template = tmp_path / "t.yaml"
    template.write_text(HOT)
    result = _run(
        tmp_path / "w.db", "stack", "create", "-t", str(template), "--parameter",
        f"db_password={SECRET}", "s",
    )  # fmt: skip
    assert result.exit_code == 1
    assert f"plugsim: error: {bad}: not a plugsim world key" in result.output
    assert SECRET.encode() not in _raw(tmp_path / "w.db")


def test_the_lease_shows_the_command_without_its_parameter_values(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    template = tmp_path / "t.yaml"
    template.write_text(HOT)
    argv = ["plugsim", "stack", "create", "s", "--parameter", f"db_password={SECRET}"]
    monkeypatch.setattr("sys.argv", argv)
    from simulator.world import _command_line

    assert _command_line() == "plugsim stack create s --parameter db_password=******"
    result = _run(
        state, "stack", "create", "s", "--parameter", f"db_password={SECRET}", "-t", str(template)
    )
    assert result.exit_code == 0, result.output
    assert SECRET.encode() not in _raw(state)
