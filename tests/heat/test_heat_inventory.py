"""tools/heat_inventory.py on a fake Heat package: which modules load and which run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

GOOD = """
from heat.engine import properties, resource


class Fine(resource.Resource):
    properties_schema = {"size": properties.Schema(properties.Schema.INTEGER, "Size.", default=1)}

    def handle_create(self):
        self.resource_id_set("fine")


def resource_mapping():
    return {"Test::Inv::Fine": Fine}
"""

BROKEN_CREATE = """
from heat.engine import resource


class Broken(resource.Resource):
    def handle_create(self):
        return self.stack.user_creds_id


def resource_mapping():
    return {"Test::Inv::Broken": Broken}
"""

NO_IMPORT = "from heat.engine import service\n"


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location(
        "heat_inventory", ROOT / "tools" / "heat_inventory.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["heat_inventory"] = module
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: Path) -> Path:
    heat = tmp_path / "heat"
    base = heat / "engine" / "resources" / "openstack"
    (base / "heat").mkdir(parents=True)
    (base / "nova").mkdir(parents=True)
    (base / "heat" / "__init__.py").write_text("")
    (base / "heat" / "fine.py").write_text(GOOD)
    (base / "heat" / "broken.py").write_text(BROKEN_CREATE)
    (base / "nova" / "needs_scheduler.py").write_text(NO_IMPORT)
    return heat


def test_inventory_rows_say_what_loads_and_what_runs(tmp_path: Path) -> None:
    rows = {r["module"]: r for r in _tool().inventory(_package(tmp_path))}
    assert sorted(rows) == ["heat.broken", "heat.fine", "nova.needs_scheduler"]
    assert rows["heat.fine"]["loads"] and rows["heat.fine"]["runs"]
    assert rows["heat.fine"]["types_run"] == ["Test::Inv::Fine"]
    broken = rows["heat.broken"]
    assert broken["loads"] and not broken["runs"]
    assert "heat.engine.stack.Stack.user_creds_id" in broken["reason"]
    needy = rows["nova.needs_scheduler"]
    assert not needy["loads"] and "heat.engine.service" in needy["reason"]


def test_inventory_without_heat_exits_2(monkeypatch: Any, tmp_path: Path, capsys: Any) -> None:
    monkeypatch.setenv("PLUGSIM_HEAT_PYTHON", str(tmp_path / "none" / "python"))
    assert _tool().main([]) == 2
    assert "PLUGSIM_HEAT_PYTHON" in capsys.readouterr().err


def test_custom_constraints_get_world_objects_and_prerequisites() -> None:
    from sdk.constraints import CustomConstraint
    from sdk.properties import Schema

    class Needy:
        properties_schema = {
            "network": Schema(
                Schema.STRING, required=True, constraints=[CustomConstraint("neutron.network")]
            ),
            "servers": Schema(
                Schema.LIST,
                required=True,
                schema=Schema(Schema.STRING, constraints=[CustomConstraint("nova.server")]),
            ),
            "flavor": Schema(Schema.STRING, constraints=[CustomConstraint("nova.flavor")]),
            "size": Schema(Schema.INTEGER, required=True),
        }

    props, prerequisites = _tool().inventory_properties(Needy)
    assert props == {
        "network": "public",
        "servers": [{"get_resource": "pre_nova_server"}],
        "size": 0,
    }
    assert list(prerequisites) == ["pre_nova_server"]
    assert prerequisites["pre_nova_server"]["type"] == "OS::Nova::Server"


def test_a_constraint_with_no_prerequisite_is_still_reported() -> None:
    from sdk.constraints import CustomConstraint
    from sdk.properties import Schema
    from sdk.testing.strategies import Ungeneratable

    class Lonely:
        properties_schema = {
            "thing": Schema(Schema.STRING, required=True, constraints=[CustomConstraint("x.y")])
        }

    with pytest.raises(Ungeneratable, match="x.y"):
        _tool().inventory_properties(Lonely)


def test_third_party_plugin_files_are_measured_the_same_way(tmp_path: Path) -> None:
    plugins = tmp_path / "third_party"
    plugins.mkdir()
    (plugins / "fine.py").write_text(GOOD)
    (plugins / "needy.py").write_text(NO_IMPORT)
    rows = {Path(r["module"]).name: r for r in _tool().plugin_rows([str(plugins)])}
    assert rows["fine.py"]["runs"] and rows["fine.py"]["types_run"] == ["Test::Inv::Fine"]
    assert not rows["needy.py"]["loads"]
    assert "heat.engine.service" in rows["needy.py"]["reason"]
    with pytest.raises(SystemExit, match="no such file"):
        _tool().plugin_rows([str(tmp_path / "missing")])


def test_an_optional_property_makes_no_prerequisite() -> None:
    from sdk.constraints import CustomConstraint
    from sdk.properties import Schema

    class Optional:
        properties_schema = {
            "port": Schema(Schema.STRING, constraints=[CustomConstraint("neutron.port")]),
            "size": Schema(Schema.INTEGER, required=True),
        }

    props, prerequisites = _tool().inventory_properties(Optional)
    assert props == {"size": 0}
    assert prerequisites == {}
