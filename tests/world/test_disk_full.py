"""A full disk is named as such, with the world's path, not as an internal error.

The disk is made full without root: SQLite's ``PRAGMA max_page_count`` caps the world
file at its current size, so the next write fails with SQLite's own
"database or disk is full" (SQLITE_FULL), as on a full filesystem.
"""

import errno

from click.testing import CliRunner

from simulator.cli import main
from simulator.store import Store

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
