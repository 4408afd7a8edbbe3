"""tools/heat_lifecycle.py: Heat types driven beyond create and delete (issue #20).

Each type that runs create → delete goes through an in-place update, a
replacing update, suspend → resume and snapshot (where the plug-in
implements them), check, and the leak check after delete. The plug-ins are
small fixtures of our own using Heat's module names, in a fake Heat package.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

#: Whole Heat lifecycles and conformance runs in subprocesses: the material tier.
pytestmark = pytest.mark.material

ROOT = Path(__file__).resolve().parents[2]

FULL = '''
from heat.engine import properties, resource


class Full(resource.Resource):
    """Changes its label in place, is replaced for a new size, suspends and resumes."""

    properties_schema = {
        "label": properties.Schema(
            properties.Schema.STRING, "A label.", default="a", update_allowed=True
        ),
        "size": properties.Schema(properties.Schema.INTEGER, "A size.", default=1),
    }

    def handle_create(self):
        net = self.client("neutron").create_network({"network": {"name": self.physical_resource_name()}})
        self.resource_id_set(net["network"]["id"])

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        self.data_set("label", prop_diff["label"])

    def handle_suspend(self):
        body = {"network": {"admin_state_up": False}}
        self.client("neutron").update_network(self.resource_id, body)

    def handle_resume(self):
        body = {"network": {"admin_state_up": True}}
        self.client("neutron").update_network(self.resource_id, body)

    def handle_delete(self):
        if self.resource_id:
            with self.client_plugin("neutron").ignore_not_found:
                self.client("neutron").delete_network(self.resource_id)


class Leaky(resource.Resource):
    """Makes a network and never deletes it."""

    def handle_create(self):
        net = self.client("neutron").create_network({"network": {"name": "leaky"}})
        self.resource_id_set(net["network"]["id"])


class Sleepless(resource.Resource):
    """Cannot be suspended."""

    def handle_create(self):
        self.resource_id_set("sleepless")

    def handle_suspend(self):
        raise ValueError("never sleeps")


def resource_mapping():
    return {"Test::Life::Full": Full, "Test::Life::Leaky": Leaky, "Test::Life::Sleepless": Sleepless}
'''

NEEDS_SCHEDULER = "from heat.engine import scheduler\n"


def _tool(name: str = "heat_lifecycle") -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: Path) -> Path:
    heat = tmp_path / "heat"
    base = heat / "engine" / "resources" / "openstack"
    (base / "heat").mkdir(parents=True)
    (base / "nova").mkdir(parents=True)
    (base / "heat" / "life.py").write_text(FULL)
    (base / "nova" / "needs_scheduler.py").write_text(NEEDS_SCHEDULER)
    return heat


def _rows(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {r["type"]: r for r in _tool().lifecycle_rows(_package(tmp_path))}


def test_every_phase_runs_and_passes_for_a_complete_plugin(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    assert sorted(rows) == ["Test::Life::Full", "Test::Life::Leaky", "Test::Life::Sleepless"]
    full = rows["Test::Life::Full"]
    assert full["module"] == "heat.life"
    assert full["phases"] == {
        "update_in_place": "ok",
        "update_replace": "ok",
        "suspend_resume": "ok",
        "snapshot": "-",  # no handle_snapshot
        "check": "ok",
        "no_leak": "ok",
    }
    assert list(full["changes"]["update_in_place"]) == ["label"]
    assert list(full["changes"]["update_replace"]) == ["size"]
    assert full["reason"] == ""


def test_a_leak_after_delete_fails_the_leak_phase_naming_the_entity(tmp_path: Path) -> None:
    leaky = _rows(tmp_path)["Test::Life::Leaky"]
    assert leaky["phases"]["no_leak"] == "FAIL"
    assert leaky["phases"]["check"] == "ok"
    assert leaky["reason"].startswith("no_leak: leaked check: network/network ")


def test_a_failing_phase_gives_the_first_reason_in_one_line(tmp_path: Path) -> None:
    sleepless = _rows(tmp_path)["Test::Life::Sleepless"]
    assert sleepless["phases"]["suspend_resume"] == "FAIL"
    assert sleepless["phases"]["check"] == "ok"
    assert sleepless["reason"].startswith("suspend_resume: SUSPEND_FAILED")
    assert "never sleeps" in sleepless["reason"]
    assert "\n" not in sleepless["reason"]


def test_the_inventory_prints_the_lifecycle_table(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    inventory = _tool("heat_inventory")
    import simulator.heat_compat as compat

    monkeypatch.setattr(compat, "find_heat_package", lambda: _package(tmp_path))
    assert inventory.main(["--lifecycle"]) == 0
    out = capsys.readouterr().out
    assert "Test::Life::Full" in out
    assert "update_in_place  1 of 1 pass" in out
    assert "no_leak          2 of 3 pass" in out


def test_conformance_counts_per_type_and_names_the_failures_cause(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """``--conformance`` runs plugsim conformance per module and splits the failures."""
    from simulator.heat_compat import HEAT_PYTHON_ENV

    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    heat = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "heat"
    base = heat / "engine" / "resources" / "openstack" / "heat"
    base.mkdir(parents=True)
    (heat / "engine" / "resource.py").write_text("class Resource:\n    pass\n")
    (base / "life.py").write_text(FULL)
    monkeypatch.setenv(HEAT_PYTHON_ENV, str(python))
    tool = _tool("heat_conformance")
    rows = {r["type"]: r for r in tool.conformance_rows(heat)}
    assert sorted(rows) == ["Test::Life::Full", "Test::Life::Leaky", "Test::Life::Sleepless"]
    full = tool.counts(rows["Test::Life::Full"])
    failing = [t["test"] for t in rows["Test::Life::Full"]["tests"] if t["outcome"] == "failed"]
    assert full["passed"] > 5 and full["plugsim"] == 0 and full["plugin"] == 0, failing
    leaky = {t["test"]: t for t in rows["Test::Life::Leaky"]["tests"]}
    assert leaky["test_create"]["outcome"] == "failed"
    assert "leaked fake-cloud entities" in leaky["test_create"]["message"]
    assert leaky["test_create"]["cause"] == "plugsim"  # nothing explains it away
    monkeypatch.setattr(
        tool, "NOT_PLUGSIM", [("Test::Life::Leaky", "*", "leaked", "it never deletes")]
    )
    assert tool.classify("Test::Life::Leaky", "test_create", "leaked x") == "it never deletes"
    assert tool.classify("Test::Life::Full", "test_create", "leaked x") == "plugsim"
