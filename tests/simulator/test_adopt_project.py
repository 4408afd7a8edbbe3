"""``stack adopt`` finds the project plug-ins that ``stack create`` found for the same template."""

from __future__ import annotations

import json

from click.testing import CliRunner

from simulator.cli import main

PLUGIN = '''
from sdk import properties
from sdk.resource import Resource


class Gadget(Resource):
    """A gadget with no cloud object."""

    properties_schema = {"size": properties.Schema(properties.Schema.INTEGER, "Size.")}

    def handle_create(self):
        self.resource_id_set("gadget-1")


def resource_mapping():
    return {"Proj::Gadget": Gadget}
'''


def _project(tmp_path):
    project = tmp_path / "proj"
    (project / "plugins").mkdir(parents=True)
    (project / "plugins" / "gadget.py").write_text(PLUGIN)
    (project / "plugsim.yaml").write_text("plugin_dirs: [plugins]\n")
    template = project / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  g: {type: Proj::Gadget, properties: {size: 1}}\n"
    )
    return project, template


def _run(*args):
    result = CliRunner().invoke(main, [*map(str, args)])
    return result.exit_code, result.output


def test_adopt_loads_the_plugins_of_the_project_the_stack_came_from(tmp_path, monkeypatch):
    monkeypatch.setenv("PLUGSIM_TRUST_FILE", str(tmp_path / "trust.json"))
    project, template = _project(tmp_path)
    assert _run("trust", project)[0] == 0
    state = tmp_path / "w.db"
    assert _run("--state", state, "stack", "create", "-t", template, "s")[0] == 0
    adopt_file = tmp_path / "s.json"
    code, out = _run("--state", state, "stack", "abandon", "--output-file", adopt_file, "s")
    assert code == 0, out
    assert json.loads(adopt_file.read_text())["plugsim_project"] == str(project)

    code, out = _run(
        "--state", tmp_path / "other.db", "stack", "adopt", "--adopt-file", adopt_file, "s2"
    )

    assert code == 0, out
    assert "ADOPT_COMPLETE" in out


def test_adopt_from_an_untrusted_project_stops_with_the_trust_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PLUGSIM_TRUST_FILE", str(tmp_path / "trust.json"))
    project, _ = _project(tmp_path)
    adopt_file = tmp_path / "s.json"
    adopt_file.write_text(
        json.dumps(
            {
                "template": {
                    "heat_template_version": "2018-08-31",
                    "resources": {"g": {"type": "Proj::Gadget"}},
                },
                "resources": {"g": {"resource_id": "gadget-1"}},
                "plugsim_project": str(project),
            }
        )
    )

    code, out = _run(
        "--state", tmp_path / "w.db", "stack", "adopt", "--adopt-file", adopt_file, "s2"
    )

    assert code == 1
    assert "is not trusted; read it, then run: plugsim trust" in out
