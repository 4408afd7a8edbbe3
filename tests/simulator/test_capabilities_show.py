"""``stack show`` says which file resolved each list-mapped type, also from a later process."""

import json
from pathlib import Path

from click.testing import CliRunner

from simulator.cli import main

TRIPLEO = Path(__file__).parent / "capabilities" / "tripleo"


def _show(state, name):
    res = CliRunner().invoke(main, ["--state", state, "stack", "show", name, "-f", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_stack_show_names_the_chosen_implementation(tmp_path):
    state = str(tmp_path / "world.db")
    registry = str(TRIPLEO / "overcloud-resource-registry.yaml")
    docker = str(TRIPLEO / "environments" / "docker.yaml")
    args = ["--state", state, "stack", "create", "-t", str(TRIPLEO / "overcloud.yaml")]
    for name, envs in (("puppet", [registry]), ("docker", [registry, docker])):
        res = CliRunner().invoke(main, [*args, *sum((["-e", e] for e in envs), []), name])
        assert res.exit_code == 0, res.output
    puppet = _show(state, "puppet")["resolutions"]
    assert puppet == {"OS::TripleO::Controller": str(TRIPLEO / "puppet" / "controller.yaml")}
    docker_res = _show(state, "docker")["resolutions"]
    assert docker_res == {"OS::TripleO::Controller": str(TRIPLEO / "docker" / "controller.yaml")}


def test_template_validate_reports_the_resolution(tmp_path):
    res = CliRunner().invoke(
        main,
        [
            "--state",
            str(tmp_path / "w.db"),
            "template",
            "validate",
            "-t",
            str(TRIPLEO / "overcloud.yaml"),
            "-e",
            str(TRIPLEO / "overcloud-resource-registry.yaml"),
            "-f",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    controller = json.loads(res.output)["Resolutions"]["types"]["OS::TripleO::Controller"]
    assert controller["chosen"] == "puppet/controller.yaml"
    assert controller["chosen_path"] == str(TRIPLEO / "puppet" / "controller.yaml")
