"""A full disk is named as such, with the world's path, not as an internal error.

The disk is made full without root: SQLite's ``PRAGMA max_page_count`` caps the world
file at its current size, so the next write fails with SQLite's own
"database or disk is full" (SQLITE_FULL), as on a full filesystem.
"""

import errno
import json
import sqlite3

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.store import Store
from simulator.world import World

HOT = "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::None}\n"


def test_a_full_disk_is_named_with_the_world_path(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    template = tmp_path / "t.yaml"
    template.write_text(HOT)
    runner = CliRunner()
    ok = runner.invoke(main, ["--state", str(state), "stack", "list"])
    assert ok.exit_code == 0, ok.output
    real_init = Store.__init__

    def full_init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count = {pages}")

    monkeypatch.setattr(Store, "__init__", full_init)
    result = runner.invoke(
        main, ["--state", str(state), "stack", "create", "-t", str(template), "s"]
    )
    assert result.exit_code == 1
    assert "internal error" not in result.output
    assert f"plugsim: error: disk full: {state}: database or disk is full; " in result.output


def test_enospc_names_the_file(tmp_path, monkeypatch):
    template = tmp_path / "t.yaml"
    template.write_text(HOT)

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "w.db-wal"))

    monkeypatch.setattr(Store, "__init__", no_space)
    result = CliRunner().invoke(main, ["--state", str(tmp_path / "w.db"), "stack", "list"])
    assert result.exit_code == 1
    assert f"plugsim: error: disk full: {tmp_path / 'w.db-wal'}: " in result.output


MANY = "heat_template_version: 2018-08-31\nresources:\n" + "".join(
    f"  r{i}: {{type: OS::Heat::TestResource, properties: {{action_wait_secs: {{create: {i % 4 + 1}}}}}}}\n"
    for i in range(12)
)


def _cap_at_commit(monkeypatch, number):
    """The disk fills up just before the world's commit number *number* (counting from 1)."""
    real_commit = Store.commit
    count = [0]

    def commit(self):
        count[0] += 1
        if count[0] == number:
            pages = self._db.execute("PRAGMA page_count").fetchone()[0]
            self._db.execute(f"PRAGMA max_page_count = {pages}")
        return real_commit(self)

    monkeypatch.setattr(Store, "commit", commit)


def test_read_only_commands_work_on_a_full_disk(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    template = tmp_path / "t.yaml"
    template.write_text(MANY)
    runner = CliRunner()
    made = runner.invoke(main, ["--state", str(state), "stack", "create", "-t", str(template), "s"])
    assert made.exit_code == 0, made.output
    _cap_at_commit(monkeypatch, 1)  # every write from now on meets a full disk
    real_init = Store.__init__

    def full_init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count = {pages}")

    monkeypatch.setattr(Store, "__init__", full_init)
    for command in (
        ["stack", "list"],
        ["stack", "show", "s"],
        ["stack", "event", "list", "s"],
        ["stack", "resource", "list", "s"],
        ["stack", "output", "list", "s"],
    ):
        result = runner.invoke(main, ["--state", str(state), *command, "-f", "json"])
        assert result.exit_code == 0, (command, result.output)
        assert "COMPLETE" in result.stdout or command[1] == "output", command


def test_an_action_cut_short_by_a_full_disk_ends_failed_naming_it(tmp_path, monkeypatch):
    state = tmp_path / "w.db"
    template = tmp_path / "t.yaml"
    template.write_text(MANY)
    _cap_at_commit(monkeypatch, 4)
    result = CliRunner().invoke(
        main, ["--state", str(state), "stack", "create", "-t", str(template), "s"]
    )
    assert result.exit_code == 1
    assert f"plugsim: error: disk full: {state}: " in result.output
    assert "Task was destroyed" not in result.output
    monkeypatch.undo()  # space returns; the next command (even a read-only one) fails the action
    listed = CliRunner().invoke(main, ["--state", str(state), "stack", "list", "-f", "json"])
    assert listed.exit_code == 0, listed.output
    assert [s["stack_status"] for s in json.loads(listed.stdout)] == ["CREATE_FAILED"]


def test_the_failure_is_written_when_space_returns_without_a_restart(tmp_path, monkeypatch):
    full = [False]
    real_commit = Store.commit

    def commit(self):
        if full[0] and self.in_transaction:
            self.rollback()
            raise sqlite3.OperationalError("database or disk is full")
        return real_commit(self)

    monkeypatch.setattr(Store, "commit", commit)
    world = World.open(tmp_path / "w.db", seed=1)
    try:
        template = tmp_path / "t.yaml"
        template.write_text(MANY)
        stack = world.create_stack("before", str(template))
        assert stack.status == "COMPLETE"
        real_jump = world.clock.before_jump

        def fill_up():  # the disk fills up one virtual second into the next action
            if world.clock.now() >= stack_started[0] + 1:
                full[0] = True
            real_jump()

        stack_started = [world.clock.now()]
        world.clock.before_jump = fill_up
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            world.create_stack("cut", str(template))
        assert world.store.get_stack("cut").status == "IN_PROGRESS"  # nothing could be written
        full[0] = False  # space returns; the same engine goes on
        world.clock.before_jump = real_jump
        world.commit()
        cut = world.get_stack("cut")
        assert (cut.action, cut.status) == ("CREATE", "FAILED")
        assert cut.status_reason.startswith("disk full: ")
        assert world.get_stack("before").status == "COMPLETE"
        again = world.create_stack("after", str(template))
        assert again.status == "COMPLETE"
    finally:
        world.close()
