"""``--world`` on simulate, stack create and the pytest plugin; ``plugsim world show``."""

import textwrap

from click.testing import CliRunner

from simulator.cli import main

TEMPLATE = textwrap.dedent(
    """
    heat_template_version: 2018-08-31
    resources:
      port:
        type: OS::Neutron::Port
        properties: {network: private}
      server:
        type: OS::Nova::Server
        properties:
          image: cirros-0.6.3-x86_64-disk
          flavor: ds512M
          networks: [{port: {get_resource: port}}]
    outputs:
      ip: {value: {get_attr: [server, first_address]}}
    """
)


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_simulate_runs_on_a_devstack_world_and_not_on_the_default(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    ok = _run("simulate", str(path), "--world", "devstack")
    assert ok.exit_code == 0, ok.output
    assert "Leaked fake-cloud resources: none" in ok.output
    bad = _run("simulate", str(path))
    assert bad.exit_code == 1
    assert "The Network (private) could not be found" in bad.output


def test_stack_create_keeps_the_world_for_later_commands(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    state = str(tmp_path / "w.db")
    first = _run("--state", state, "stack", "create", "-t", str(path), "--world", "devstack", "a")
    assert first.exit_code == 0, first.output
    # a later command without --world runs in the same (devstack) world
    second = _run("--state", state, "stack", "create", "-t", str(path), "b")
    assert second.exit_code == 0, second.output
    other = _run("--state", state, "--world", "default", "stack", "create", "-t", str(path), "c")
    assert other.exit_code == 1
    assert "this world was created from world 'devstack'" in other.output
    shown = _run("--state", state, "world", "show")
    assert "name: router1" in shown.output
    assert "cirros-0.6.3-x86_64-disk" in shown.output


def test_world_show_round_trips_and_bad_files_are_one_line(tmp_path):
    text = _run("world", "show", "--world", "devstack").output
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    assert _run("world", "show", "--world", str(path)).output == text
    bad = tmp_path / "bad.yaml"
    bad.write_text("plugsim_world: 1\nnetworks: [{name: x, mtu: 9}]\n")
    result = _run("world", "show", "--world", str(bad))
    assert result.exit_code == 1
    assert result.output == (
        f"plugsim: error: {bad}: networks[0].mtu: 9 is less than the minimum of 68\n"
    )


def test_world_schema_prints_the_json_schema():
    result = _run("world", "schema")
    assert '"plugsim_world"' in result.output
