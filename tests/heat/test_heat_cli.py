"""Heat plug-ins from the command line: ``--plugin-dir``, ``--heat-compat``, ``--heat-plugin``.

Everything here runs without Heat installed except the last test, which loads
Heat's own ``OS::Heat::RandomString`` from the installed openstack-heat.
"""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

import pytest
import yaml
from _heat_diff import requires_heat
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from simulator.cli import main
from simulator.heat_compat import MissingHeatName, heat_report
from simulator.heat_compat._shims import shim_imports, shim_module
from simulator.heat_compat.loader import HeatNameMissing, load_heat_plugin
from simulator.heat_compat.options import HeatOptions, heat_options, using_heat_options
from simulator.type_sources import PluginDirTypes, world_registry

HEAT_STYLE = Path(__file__).resolve().parent / "heat_style"

GREETER = '''
"""A plug-in written against Heat's modules, as an out-of-tree Heat plug-in is."""

from heat.engine import attributes, properties, resource


class Greeter(resource.Resource):
    """Greets someone; the greeting is kept in the resource's data."""

    properties_schema = {
        "name": properties.Schema(
            properties.Schema.STRING, "Who to greet.", required=True, update_allowed=True
        ),
    }
    attributes_schema = {"greeting": attributes.Schema("The greeting.")}

    def handle_create(self):
        self.resource_id_set("greeter-" + self.properties["name"])
        self.data_set("greeting", "Hello, " + self.properties["name"])

    def _resolve_attribute(self, name):
        if name == "greeting":
            return self.data().get("greeting")


def resource_mapping():
    return {"Test::CliHeat::Greeter": Greeter}
'''

NATIVE = '''
from sdk.resource import Resource


class Plain(Resource):
    """A plugsim plug-in that has nothing to do with Heat."""


def resource_mapping():
    return {"Test::CliHeat::Plain": Plain}
'''

# Imports Heat's modules only at run time, so reading its imports cannot tell.
DYNAMIC = '''
import importlib

resource = importlib.import_module("heat.engine.resource")


class Dynamic(resource.Resource):
    """Needs the compat layer although no import statement names heat."""

    def handle_create(self):
        self.resource_id_set("dynamic")


def resource_mapping():
    return {"Test::CliHeat::Dynamic": Dynamic}
'''

MISSING_MODULE = '''
from heat.engine import resource, service


class Slow(resource.Resource):
    """Needs Heat's engine service."""


def resource_mapping():
    return {"Test::CliHeat::Slow": Slow}
'''

MISSING_IMPORTED_NAME = """
from heat.engine.resource import Resource, NoSuchHelper


def resource_mapping():
    return {}
"""

MISSING_ATTRIBUTE = '''
from heat.engine import resource


class Odd(resource.NoSuchBase):
    """Subclasses a base the compat layer does not have."""


def resource_mapping():
    return {"Test::CliHeat::Odd": Odd}
'''

NOT_PROVIDED = "is not provided by plugsim's Heat compatibility layer (simulator.heat_compat)"


def _template(type_name: str, properties: dict | None = None, outputs: dict | None = None):
    resource: dict = {"type": type_name}
    if properties:
        resource["properties"] = properties
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"r": resource},
        "outputs": {k: {"value": v} for k, v in (outputs or {}).items()},
    }


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def greeter_dir(tmp_path: Path) -> Path:
    plugins = tmp_path / "plugins"
    _write(plugins / "greeter.py", GREETER)
    _write(plugins / "plain.py", NATIVE)
    return plugins


@pytest.fixture
def greeter_template(tmp_path: Path) -> Path:
    template = _template(
        "Test::CliHeat::Greeter",
        {"name": "world"},
        {"greeting": {"get_attr": ["r", "greeting"]}, "id": {"get_resource": "r"}},
    )
    return _write(tmp_path / "greeter.yaml", yaml.safe_dump(template))


# -- --plugin-dir: a file that imports heat goes through the compat layer -----------------


def test_unmodified_heat_plugin_in_a_plugin_dir_creates_shows_and_deletes(
    tmp_path, greeter_dir, greeter_template
):
    state = str(tmp_path / "world.db")
    base = ["--state", state, "--plugin-dir", str(greeter_dir)]
    created = _invoke(*base, "stack", "create", "-t", str(greeter_template), "hello")
    assert created.exit_code == 0, created.output
    assert "hello CREATE_COMPLETE: Stack CREATE completed successfully" in created.stdout
    shown = _invoke(*base, "stack", "show", "hello", "-f", "json")
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["stack_status"] == "CREATE_COMPLETE"
    outputs = {o["output_key"]: o["output_value"] for o in data["outputs"]}
    assert outputs == {"greeting": "Hello, world", "id": "greeter-world"}
    deleted = _invoke(*base, "stack", "delete", "hello")
    assert deleted.exit_code == 0, deleted.output
    assert "hello DELETE_COMPLETE: Stack DELETE completed successfully" in deleted.stdout
    events = _invoke(*base, "stack", "event", "list", "hello", "-f", "json")
    assert events.exit_code == 0, events.output
    assert [
        (e["resource_type"], e["action"], e["status"])
        for e in json.loads(events.stdout)
        if e["resource_name"] == "r"
    ] == [
        ("Test::CliHeat::Greeter", "CREATE", "IN_PROGRESS"),
        ("Test::CliHeat::Greeter", "CREATE", "COMPLETE"),
        ("Test::CliHeat::Greeter", "DELETE", "IN_PROGRESS"),
        ("Test::CliHeat::Greeter", "DELETE", "COMPLETE"),
    ]


def test_heat_plugin_dir_serves_simulate_and_template_validate(greeter_dir, greeter_template):
    simulated = _invoke("--plugin-dir", str(greeter_dir), "simulate", str(greeter_template))
    assert simulated.exit_code == 0, simulated.output
    assert "r CREATE_COMPLETE [greeter-world]" in simulated.stdout
    assert simulated.stdout.endswith("Result: OK\n")
    validated = _invoke(
        "--plugin-dir", str(greeter_dir), "template", "validate", "-t", str(greeter_template)
    )
    assert validated.exit_code == 0, validated.output
    assert yaml.safe_load(validated.stdout)["Resources"] == ["r"]


def test_files_that_do_not_import_heat_load_as_before(greeter_dir):
    found = world_registry([greeter_dir], entry_points=False).plugins()
    assert found["Test::CliHeat::Plain"].__module__.startswith("plugsim_plugins.")
    assert found["Test::CliHeat::Greeter"].__module__.startswith("plugsim_heat_plugins.")
    forced = world_registry([greeter_dir], entry_points=False, heat_compat=True).plugins()
    assert forced["Test::CliHeat::Plain"].__module__.startswith("plugsim_heat_plugins.")


def test_heat_compat_flag_loads_files_whose_imports_do_not_tell(tmp_path):
    plugins = tmp_path / "plugins"
    dynamic = _write(plugins / "dynamic.py", DYNAMIC)
    template = _write(tmp_path / "t.yaml", yaml.safe_dump(_template("Test::CliHeat::Dynamic")))
    plain = _invoke(
        "--state", ":memory:", "--plugin-dir", str(plugins), "stack", "create", "-t", str(template),
        "s",
    )  # fmt: skip
    assert plain.exit_code == 1
    assert "The Resource Type (Test::CliHeat::Dynamic) could not be found" in plain.stderr
    assert f"{dynamic}: failed to import: ModuleNotFoundError" in plain.stderr
    forced = _invoke(
        "--state", ":memory:", "--plugin-dir", str(plugins), "--heat-compat", "stack", "create",
        "-t", str(template), "s",
    )  # fmt: skip
    assert forced.exit_code == 0, forced.output
    assert "s CREATE_COMPLETE" in forced.stdout


# -- errors: one line naming the file and the missing name --------------------------------


@pytest.mark.parametrize(
    ("source", "missing"),
    [
        (MISSING_MODULE, "heat.engine.service"),
        (MISSING_IMPORTED_NAME, "heat.engine.resource.NoSuchHelper"),
        (MISSING_ATTRIBUTE, "heat.engine.resource.NoSuchBase"),
    ],
    ids=["module", "imported-name", "attribute"],
)
def test_heat_plugin_needing_a_missing_name_is_one_line(tmp_path, source, missing):
    plugin = _write(tmp_path / "needy.py", source)
    result = _invoke("--state", ":memory:", "--heat-plugin", str(plugin), "stack", "list")
    assert result.exit_code == 1
    assert result.stderr == (
        f"plugsim: error: {plugin}: {missing} {NOT_PROVIDED}; the plug-in needs it\n"
    )
    assert "Traceback" not in result.output


def test_debug_shows_the_missing_heat_name_exception(tmp_path):
    plugin = _write(tmp_path / "needy.py", MISSING_MODULE)
    result = _invoke(
        "--state", ":memory:", "--debug", "--heat-plugin", str(plugin), "stack", "list"
    )
    assert isinstance(result.exception, MissingHeatName)
    assert result.exception.qualified_name == "heat.engine.service"
    assert result.exception.where == str(plugin)


def test_several_broken_heat_plugins_are_all_named(tmp_path):
    first = _write(tmp_path / "a_syntax.py", "from heat.engine import resource\ndef (:\n")
    second = _write(tmp_path / "b_needy.py", MISSING_MODULE)
    result = _invoke(
        "--state", ":memory:", "--heat-plugin", str(first), "--heat-plugin", str(second),
        "stack", "list",
    )  # fmt: skip
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"plugsim: error: {second}: heat.engine.service {NOT_PROVIDED}")
    assert f"(also: {first}: failed to import through the Heat compat layer: SyntaxError" in line


def test_plugin_dir_file_needing_a_missing_name_is_named_when_its_type_is_used(tmp_path):
    plugins = tmp_path / "plugins"
    plugin = _write(plugins / "slow.py", MISSING_MODULE)
    template = _write(tmp_path / "t.yaml", yaml.safe_dump(_template("Test::CliHeat::Slow")))
    result = _invoke(
        "--state", ":memory:", "--plugin-dir", str(plugins), "stack", "create", "-t",
        str(template), "s",
    )  # fmt: skip
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert "The Resource Type (Test::CliHeat::Slow) could not be found" in line
    assert (
        f"{plugin}: failed to import through the Heat compat layer: "
        f"heat.engine.service {NOT_PROVIDED}"
    ) in line


def test_name_missing_at_run_time_names_the_plugin_file(tmp_path):
    plugin = HEAT_STYLE / "missing_exception.py"
    template = _write(tmp_path / "t.yaml", yaml.safe_dump(_template("Test::Heat::Grumpy")))
    result = _invoke(
        "--state", ":memory:", "--heat-plugin", str(plugin), "stack", "create", "-t",
        str(template), "s",
    )  # fmt: skip
    assert result.exit_code == 1
    assert (
        f"s CREATE_FAILED: Resource CREATE failed: MissingHeatName: resources.r: {plugin}:11: "
        f"heat.common.exception.NoSuchHeatThing {NOT_PROVIDED}; the plug-in needs it"
    ) in result.stdout


def test_heat_module_name_without_heat_says_how_to_set_plugsim_heat_python(tmp_path, monkeypatch):
    nowhere = tmp_path / "no-venv" / "bin" / "python"
    monkeypatch.setenv("PLUGSIM_HEAT_PYTHON", str(nowhere))
    target = "heat.engine.resources.openstack.heat.random_string"
    result = _invoke("--state", ":memory:", "--heat-plugin", target, "stack", "list")
    assert result.exit_code == 1
    assert result.stderr == (
        f"plugsim: error: Heat plug-in {target}: no openstack-heat found "
        f"(PLUGSIM_HEAT_PYTHON={nowhere} is not an executable file); set PLUGSIM_HEAT_PYTHON "
        f"to the python of a virtualenv where openstack-heat is installed "
        f"(python -m venv VENV && VENV/bin/pip install openstack-heat)\n"
    )


def test_unknown_heat_plugin_target_is_one_line(tmp_path):
    result = _invoke(
        "--state", ":memory:", "--heat-plugin", str(tmp_path / "nope.py"), "stack", "list"
    )
    assert result.exit_code == 1
    assert result.stderr == (
        f"plugsim: error: Heat plug-in {tmp_path / 'nope.py'}: not a file, a directory or a "
        f"module of the installed heat package\n"
    )


# -- every world a command builds honours the options ---------------------------------------


def test_simulate_and_bench_honour_heat_plugin(tmp_path, greeter_dir, greeter_template):
    greeter = greeter_dir / "greeter.py"
    simulated = _invoke("--heat-plugin", str(greeter), "simulate", str(greeter_template))
    assert simulated.exit_code == 0, simulated.output
    assert "Result: OK" in simulated.stdout
    needy = _write(tmp_path / "needy.py", MISSING_MODULE)
    for command in (
        ["simulate", str(greeter_template)],
        ["bench", "--resources", "2", "--width", "1"],
        ["template", "validate", "-t", str(greeter_template)],
    ):
        result = _invoke("--heat-plugin", str(needy), *command)
        assert result.exit_code == 1, command
        assert result.stderr.startswith(f"plugsim: error: {needy}: heat.engine.service"), command


def test_heat_options_last_only_for_the_command(greeter_dir):
    greeter = str(greeter_dir / "greeter.py")
    assert _invoke("--state", ":memory:", "--heat-plugin", greeter, "stack", "list").exit_code == 0
    assert heat_options() == HeatOptions()
    assert heat_report(world_registry()) is None
    with using_heat_options(force=True, plugins=[greeter]) as options:
        assert options == HeatOptions(True, (greeter,))
        registry = world_registry(entry_points=False)
        assert _forced(registry) is True
        assert "Test::CliHeat::Greeter" in registry.plugins()
        explicit = world_registry(entry_points=False, heat_compat=False, heat_plugins=[])
        assert _forced(explicit) is False and heat_report(explicit) is None
    assert heat_options() == HeatOptions()


def test_heat_plugin_types_win_over_plugsim_own(tmp_path):
    value = _write(
        tmp_path / "value.py",
        """
        from heat.engine import attributes, resource


        class Value(resource.Resource):
            attributes_schema = {"value": attributes.Schema("Always the same.")}

            def _resolve_attribute(self, name):
                return "from the heat plug-in"


        def resource_mapping():
            return {"OS::Heat::Value": Value}
        """,
    )
    template = _template("OS::Heat::Value", outputs={"v": {"get_attr": ["r", "value"]}})
    path = _write(tmp_path / "t.yaml", yaml.safe_dump(template))
    state = str(tmp_path / "w.db")
    result = _invoke(
        "--state", state, "--heat-plugin", str(value), "stack", "create", "-t", str(path), "s"
    )
    assert result.exit_code == 0, result.output
    shown = _invoke(
        "--state", state, "--heat-plugin", str(value), "stack", "show", "s", "-f", "json"
    )
    assert json.loads(shown.stdout)["outputs"][0]["output_value"] == "from the heat plug-in"


_IDENTIFIER = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,15}", fullmatch=True)
_SHIM_MODULES = ["heat.engine.properties", "heat.engine.resource", "heat.common.exception"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(module=st.sampled_from(_SHIM_MODULES), name=_IDENTIFIER)
def test_any_name_the_layer_lacks_is_reported_by_its_full_name(tmp_path, module, name):
    with shim_imports():
        provided = set(vars(shim_module(module)))
    assume(name not in provided)
    # a directory per example: the same file rewritten within a second at the same size could
    # be imported from its stale bytecode where bytecode is written
    plugin = _write(
        Path(tempfile.mkdtemp(dir=tmp_path)) / "needs_name.py", f"from {module} import {name}\n"
    )
    report = load_heat_plugin(plugin)
    [error] = report.errors
    assert isinstance(error, HeatNameMissing)
    assert error.missing == f"{module}.{name}"
    assert error.path == str(plugin)
    assert str(error.to_exception()) == (
        f"{plugin}: {module}.{name} {NOT_PROVIDED}; the plug-in needs it"
    )


# -- Heat's own plug-in, from the installed openstack-heat --------------------------------


@requires_heat
def test_heat_random_string_by_module_name_through_the_cli(tmp_path):
    target = "heat.engine.resources.openstack.heat.random_string"
    template = _template(
        "OS::Heat::RandomString",
        {"length": 10, "character_classes": [{"class": "digits", "min": 10}]},
        {"v": {"get_attr": ["r", "value"]}},
    )
    path = _write(tmp_path / "t.yaml", yaml.safe_dump(template))
    base = ["--state", str(tmp_path / "w.db"), "--heat-plugin", target]
    created = _invoke(*base, "stack", "create", "-t", str(path), "s")
    assert created.exit_code == 0, created.output
    shown = json.loads(_invoke(*base, "stack", "show", "s", "-f", "json").stdout)
    value = shown["outputs"][0]["output_value"]
    assert len(value) == 10 and value.isdigit()
    assert _invoke(*base, "stack", "delete", "s").exit_code == 0
    # Heat's class answers validation with Heat's own message, not plugsim's
    template["resources"]["r"]["properties"]["length"] = 3
    bad = _write(tmp_path / "bad.yaml", yaml.safe_dump(template))
    heat = _invoke("--heat-plugin", target, "template", "validate", "-t", str(bad))
    assert heat.exit_code == 1
    assert heat.stderr == (
        f"plugsim: error: {bad}: resources.r: Length property cannot be smaller than combined "
        f"character class and character sequence minimums\n"
    )
    ours = _invoke("template", "validate", "-t", str(bad))
    assert ours.exit_code == 1
    assert "Length property cannot be smaller" not in ours.stderr


def _forced(registry):
    """Whether *registry* loads every plug-in-dir file through the Heat compat layer."""
    return next(s for s in registry.sources if isinstance(s, PluginDirTypes)).force
