"""``plugsim conformance`` derives update paths from the schema (issue #26).

A plug-in with an ``update_allowed`` property and ``handle_update`` gets an
in-place update; a property that is neither ``update_allowed`` nor immutable a
replacing one; an immutable property a refused one, each with a value the
schema accepts and that differs from the valid map and the default.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sdk import properties
from sdk.testing.cli import conformance_classes, derived_updates
from sdk.testing.strategies import simplest_properties

HERE = Path(__file__).resolve().parent
S = properties.Schema


def zone_dir(tmp_path):
    d = tmp_path / "plugins"
    d.mkdir()
    shutil.copy(HERE / "sample_plugins.py", d / "zones.py")
    with open(d / "zones.py", "a") as fh:
        fh.write('\n\ndef resource_mapping():\n    return {"Sample::Zone": SampleZone}\n')
    return d


def test_update_paths_are_derived_from_the_schema(tmp_path):
    (cls,) = conformance_classes(str(zone_dir(tmp_path))).values()
    base = cls.valid_properties
    assert set(cls.update_in_place) == {"ttl"}
    ttl = cls.update_in_place["ttl"]
    assert ttl != base.get("ttl", 300) and 60 <= ttl <= 86400 and ttl % 60 == 0
    assert set(cls.update_replace) == {"domain"}
    assert cls.update_replace["domain"] != base["domain"]
    assert cls.update_replace["domain"].endswith(".example")
    assert cls.immutable_update is None  # the zone has no immutable property


def test_declared_update_paths_win_and_nothing_is_derived_without_handle_update():
    from sample_plugins import SampleServer, SampleZone

    class NoUpdate(SampleZone):
        handle_update = None

    base = simplest_properties(SampleZone)
    assert derived_updates(NoUpdate, base)["update_in_place"] is None
    server = derived_updates(SampleServer, {"image": "cirros"})
    assert set(server["immutable_update"]) == {"key_name"}
    assert set(server["update_in_place"]) <= {"name", "metadata", "flavor"}
    assert derived_updates(SampleZone, base) == derived_updates(SampleZone, base)


@pytest.mark.material
def test_the_command_runs_the_update_paths_instead_of_skipping_them(tmp_path):
    code = (
        "import sys; from sdk.testing.cli import conformance; "
        "conformance(sys.argv[1:], prog_name='plugsim conformance')"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(zone_dir(tmp_path)),
            "-k",
            "(update_in_place and not keeps) or update_replace or update_failure",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no update_in_place declared" not in proc.stdout
    assert "no update_replace declared" not in proc.stdout
    # in place, replacing, and the in-place update's rollback: all run, none skipped
    assert re.search(r"\b3 passed, \d+ deselected", proc.stdout), proc.stdout
    assert "skipped" not in proc.stdout
