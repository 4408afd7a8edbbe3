"""``plugsim conformance`` on plug-ins written against Heat: a file, a directory, a dotted name.

The plug-ins are small fixtures of our own using Heat's module names; the
dotted-name case builds a fake virtualenv holding a ``heat`` package so no
real Heat is needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sdk import exception
from sdk.testing.cli import conformance_classes, find_plugins
from simulator.heat_compat import HEAT_PYTHON_ENV

ROOT = Path(__file__).resolve().parents[2]

KEEPER = textwrap.dedent(
    '''
    """Keeps a label, as a third-party Heat plug-in would."""

    from heat.engine import attributes, properties, resource


    class Keeper(resource.Resource):
        """Stores its label in the resource's data."""

        properties_schema = {
            "label": properties.Schema(
                properties.Schema.STRING, "A label.", default="x", update_allowed=True
            ),
        }
        attributes_schema = {"label": attributes.Schema("The label.")}

        def handle_create(self):
            self.resource_id_set("keeper-" + self.physical_resource_name())
            self.data_set("label", self.properties["label"])

        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            if "label" in prop_diff:
                self.data_set("label", prop_diff["label"])

        def _resolve_attribute(self, name):
            if name == "label":
                return self.data().get("label")


    def resource_mapping():
        return {"Test::HeatConf::Keeper": Keeper}
    '''
)


@pytest.fixture
def keeper_file(tmp_path: Path) -> Path:
    path = tmp_path / "plugins" / "keeper.py"
    path.parent.mkdir()
    path.write_text(KEEPER, encoding="utf-8")
    return path


@pytest.fixture
def fake_heat_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A virtualenv-shaped directory whose ``heat`` package holds the keeper plug-in."""
    venv = tmp_path / "heatvenv"
    python = venv / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    heat = venv / "lib" / "python3.11" / "site-packages" / "heat"
    plugins = heat / "engine" / "resources" / "openstack" / "heatconf"
    plugins.mkdir(parents=True)
    (heat / "engine" / "resource.py").write_text("# stands for Heat's module\n")
    (plugins / "keeper.py").write_text(KEEPER, encoding="utf-8")
    monkeypatch.setenv(HEAT_PYTHON_ENV, str(python))
    return venv


def test_find_plugins_loads_a_heat_plugin_file(keeper_file: Path) -> None:
    found = find_plugins(str(keeper_file))
    assert list(found) == ["Test::HeatConf::Keeper"]
    assert found["Test::HeatConf::Keeper"].__name__ == "Keeper"


def test_find_plugins_loads_a_heat_plugin_directory(keeper_file: Path) -> None:
    (keeper_file.parent / "plain.py").write_text(
        "from sdk.resource import Resource\n\n\nclass Plain(Resource):\n    pass\n\n\n"
        "def resource_mapping():\n    return {'Test::HeatConf::Plain': Plain}\n"
    )
    assert list(find_plugins(str(keeper_file.parent))) == [
        "Test::HeatConf::Keeper",
        "Test::HeatConf::Plain",
    ]


def test_find_plugins_loads_a_heat_dotted_name(fake_heat_venv: Path) -> None:
    found = find_plugins("heat.engine.resources.openstack.heatconf.keeper")
    assert list(found) == ["Test::HeatConf::Keeper"]
    package = find_plugins("heat.engine.resources.openstack.heatconf")
    assert list(package) == ["Test::HeatConf::Keeper"]


def test_heat_dotted_name_without_heat_says_how_to_set_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(HEAT_PYTHON_ENV, str(tmp_path / "nowhere" / "python"))
    with pytest.raises(exception.ConfigurationError, match=HEAT_PYTHON_ENV):
        find_plugins("heat.engine.resources.openstack.heat.random_string")


def test_heat_plugin_missing_a_name_is_named(tmp_path: Path) -> None:
    path = tmp_path / "sched.py"
    path.write_text("from heat.engine import service\n")
    with pytest.raises(exception.PluginLoadError, match=r"sched\.py.*heat\.engine\.service"):
        find_plugins(str(path))


def test_conformance_classes_for_a_heat_plugin(keeper_file: Path) -> None:
    classes = conformance_classes(str(keeper_file))
    assert list(classes) == ["Test_Test__HeatConf__Keeper"]
    keeper = classes["Test_Test__HeatConf__Keeper"]
    assert keeper.type_name() == "Test::HeatConf::Keeper"
    assert keeper.resource_class.__module__.startswith("plugsim_heat_plugins.")


@pytest.mark.material
def test_plugsim_conformance_runs_the_suite_on_a_heat_plugin_file(keeper_file: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sdk.testing.cli import conformance; "
            "conformance(sys.argv[1:], prog_name='plugsim conformance')",
            str(keeper_file),
            "-q",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=keeper_file.parent,
        timeout=600,
    )
    out = done.stdout + done.stderr
    assert "No module named 'heat'" not in out
    assert "plugsim conformance: Test::HeatConf::Keeper" in out
    assert done.returncode == 0, out[-3000:]
    assert " passed" in out


BASE = textwrap.dedent(
    '''
    """A shared base module, as heat.engine.resources.openstack.neutron.neutron is."""

    from heat.engine import resource


    class LabelBase(resource.Resource):
        """Stores a fixed label; subclasses name it."""

        LABEL = "base"

        def handle_create(self):
            self.resource_id_set(self.LABEL)
    '''
)

DERIVED = textwrap.dedent(
    """
    from heat.engine.resources.openstack.heatconf import base


    class Derived(base.LabelBase):
        LABEL = "derived"


    def resource_mapping():
        return {"Test::HeatConf::Derived": Derived}
    """
)


def test_heat_plugin_sharing_a_base_module_of_heat_engine_resources(
    fake_heat_venv: Path,
) -> None:
    plugins = next(fake_heat_venv.glob("lib/*/site-packages/heat")) / "engine" / "resources"
    package = plugins / "openstack" / "heatconf"
    (package / "base.py").write_text(BASE, encoding="utf-8")
    (package / "derived.py").write_text(DERIVED, encoding="utf-8")
    (plugins / "__init__.py").write_text(
        "raise ImportError('Heat registration code must not run')\n"
    )
    found = find_plugins("heat.engine.resources.openstack.heatconf.derived")
    derived = found["Test::HeatConf::Derived"]
    assert [c.__name__ for c in derived.__mro__[:2]] == ["Derived", "LabelBase"]
    assert derived.LABEL == "derived"
