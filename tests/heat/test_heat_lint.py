"""``plugsim lint`` on plug-ins written against Heat: imported through the compat layer.

The static rules read the file; the import check (PS304) and the dynamic
rules import it, which for a file naming ``heat`` goes through
:mod:`simulator.heat_compat` as ``--plugin-dir`` and ``plugsim conformance``
do. Heat's own release strings (``2014.2``, then ``5.0.0``, then
``2023.1``) are ordered as Heat released them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from sdk.lint import LintConfig, lint_paths
from sdk.lint.cli import lint
from sdk.lint.schema_model import version_key
from simulator.heat_compat import HEAT_PYTHON_ENV

HEAT_PLUGIN = textwrap.dedent(
    '''
    """A counter kept in the resource's data, as a Heat plug-in writes it."""

    from heat.engine import attributes, properties, resource, support


    class Counter(resource.Resource):
        """Counts from a start value."""

        support_status = support.SupportStatus(
            version="5.0.0", previous_status=support.SupportStatus(version="2014.2")
        )

        properties_schema = {
            "start": properties.Schema(
                properties.Schema.INTEGER, "Where to start.", default=0, update_allowed=True
            ),
        }
        attributes_schema = {"value": attributes.Schema("The current value.")}

        def handle_create(self):
            self.resource_id_set("counter-" + self.physical_resource_name())
            self.data_set("value", str(self.properties["start"]))

        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            if "start" in prop_diff:
                self.data_set("value", str(prop_diff["start"]))

        def _resolve_attribute(self, name):
            if name == "value":
                return int(self.data().get("value", 0))


    def resource_mapping():
        return {"Test::HeatLint::Counter": Counter}
    '''
)


@pytest.fixture
def heat_plugin(tmp_path: Path) -> Path:
    path = tmp_path / "counter.py"
    path.write_text(HEAT_PLUGIN, encoding="utf-8")
    return path


def _codes(path: Path) -> list[str]:
    result = lint_paths([path], config=LintConfig())
    return sorted(f.rule_id for f in result.findings)


def test_a_heat_plugin_imports_through_the_compat_layer(heat_plugin: Path) -> None:
    codes = _codes(heat_plugin)
    assert "PS304" not in codes, codes
    assert "PS211" not in codes, codes


def test_a_heat_plugin_that_crashes_on_import_is_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(HEAT_PLUGIN + "\nraise RuntimeError('backend unreachable')\n")
    result = lint_paths([path], config=LintConfig())
    messages = [f.message for f in result.findings if f.rule_id == "PS304"]
    assert messages == ["importing the plug-in failed: RuntimeError: backend unreachable"]


def test_a_heat_name_the_layer_lacks_is_named(tmp_path: Path) -> None:
    path = tmp_path / "needs.py"
    path.write_text(
        "from heat.engine import resource\n"
        "from heat.engine.no_such_module import Thing\n\n"
        "class R(resource.Resource):\n    pass\n\n"
        "def resource_mapping():\n    return {'Test::Heat::R': R}\n"
    )
    result = lint_paths([path], config=LintConfig())
    messages = [f.message for f in result.findings if f.rule_id == "PS304"]
    assert len(messages) == 1
    assert "heat.engine.no_such_module" in messages[0]


def test_plugsim_lint_on_a_heat_plugin_from_the_command_line(heat_plugin: Path) -> None:
    result = CliRunner().invoke(lint, [str(heat_plugin)])
    assert "PS304" not in result.output, result.output
    assert "No module named 'heat'" not in result.output


def test_plugsim_lint_takes_a_heat_dotted_name(
    heat_plugin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = tmp_path / "heatvenv"
    python = venv / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    heat = venv / "lib" / "python3.11" / "site-packages" / "heat"
    plugins = heat / "engine" / "resources"
    plugins.mkdir(parents=True)
    (heat / "engine" / "resource.py").write_text("# stands for Heat's module\n")
    (plugins / "counter.py").write_text(HEAT_PLUGIN, encoding="utf-8")
    monkeypatch.setenv(HEAT_PYTHON_ENV, str(python))
    result = CliRunner().invoke(lint, ["heat.engine.resources.counter"])
    assert "no such file or directory" not in result.output, result.output
    assert "PS304" not in result.output, result.output
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output


def test_plugsim_lint_names_a_heat_module_it_cannot_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HEAT_PYTHON_ENV, str(tmp_path / "nowhere" / "python"))
    result = CliRunner().invoke(lint, ["heat.engine.resources.openstack.heat.value"])
    assert result.exit_code == 2
    assert HEAT_PYTHON_ENV in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("2013.1", "2013.2"),
        ("2014.2", "2015.1"),
        ("2015.1", "5.0.0"),
        ("2014.2", "5.0.0"),
        ("5.0.0", "10.0.0"),
        ("19.0.0", "2023.1"),
        ("2023.1", "2023.2"),
        ("2023.2", "22.0.0.1"),
        ("1.0.0", "2.0.0"),
    ],
)
def test_heat_release_strings_are_ordered_as_released(older: str, newer: str) -> None:
    assert version_key(older) < version_key(newer)


@given(st.integers(2014, 2030), st.integers(1, 2))
def test_a_series_name_orders_like_heats_major_of_that_series(year: int, half: int) -> None:
    series = version_key(f"{year}.{half}")
    major = (year - 2013) * 2 + half - 1
    assert version_key(f"{major - 1}.9.9") < series <= version_key(f"{major}.0.0")


def test_a_class_whose_base_is_imported_is_not_called_a_non_resource(tmp_path: Path) -> None:
    """When the import fails, only classes the source shows are not resources are PS302."""
    path = tmp_path / "handle.py"
    path.write_text(
        "from heat.engine.no_such_module import BaseHandle\n\n"
        "class Handle(BaseHandle):\n    pass\n\n"
        "class Plain:\n    pass\n\n"
        "def resource_mapping():\n"
        "    return {'Test::Heat::Handle': Handle, 'Test::Heat::Plain': Plain}\n"
    )
    result = lint_paths([path], config=LintConfig())
    ps302 = [f.message for f in result.findings if f.rule_id == "PS302"]
    assert ps302 == [
        "resource_mapping() maps 'Test::Heat::Plain' to Plain, which is not a Resource subclass"
    ]
