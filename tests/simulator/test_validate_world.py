"""Validation sees the world the stack would run in (issue 35, item 1).

Heat checks a custom constraint (``neutron.network``, ``glance.image`` ...)
against the cloud the stack is created in. A template naming DevStack's
``private`` network creates fine under ``--world devstack``; validating it
there, or in a ``--state`` world that holds the network, or asking ``stack
create --dry-run`` must agree.
"""

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
    """
)


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _template(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def test_validate_with_a_world_preset_sees_its_network(tmp_path):
    t = _template(tmp_path)
    ok = _run("--state", ":memory:", "template", "validate", "-t", t, "--world", "devstack")
    assert ok.exit_code == 0, ok.output
    # the global option says the same
    ok = _run("--state", ":memory:", "--world", "devstack", "template", "validate", "-t", t)
    assert ok.exit_code == 0, ok.output
    # the default world has no 'private' network: Heat's message, the path named
    bad = _run("--state", ":memory:", "template", "validate", "-t", t)
    assert bad.exit_code == 1
    assert "resources.port.properties.network" in bad.output
    assert "The Network (private) could not be found" in bad.output


def test_validate_in_an_existing_state_world_sees_what_it_holds(tmp_path):
    t = _template(tmp_path)
    state = str(tmp_path / "w.db")
    made = _run("--state", state, "stack", "create", "-t", t, "--world", "devstack", "a")
    assert made.exit_code == 0, made.output
    ok = _run("--state", state, "template", "validate", "-t", t)
    assert ok.exit_code == 0, ok.output
    # validating changed nothing: the world still has its one stack
    listed = _run("--state", state, "stack", "list", "-f", "value")
    rows = listed.output.strip().splitlines()
    assert len(rows) == 1 and " a " in f" {rows[0]} "


def test_validate_of_a_missing_state_file_does_not_create_it(tmp_path):
    t = _template(tmp_path)
    state = tmp_path / "none.db"
    ok = _run("--state", str(state), "template", "validate", "-t", t, "--world", "devstack")
    assert ok.exit_code == 0, ok.output
    assert not state.exists()


def test_create_dry_run_with_a_world_sees_its_network(tmp_path):
    t = _template(tmp_path)
    state = tmp_path / "w.db"
    ok = _run(
        "--state",
        str(state),
        "stack",
        "create",
        "-t",
        t,
        "--world",
        "devstack",
        "--dry-run",
        "p",
        "-f",
        "value",
    )
    assert ok.exit_code == 0, ok.output
    assert ok.output.split() == ["port", "OS::Neutron::Port"]
    bad = _run("--state", ":memory:", "stack", "create", "-t", t, "--dry-run", "p")
    assert bad.exit_code == 1
    assert "The Network (private) could not be found" in bad.output


def test_lint_template_rules_do_not_refuse_a_name_of_the_world(tmp_path):
    # lint checks a template's own structure; a cloud object's name is the world's business,
    # so a name only DevStack holds is no finding
    t = _template(tmp_path)
    res = _run("lint", t)
    assert res.exit_code == 0, res.output
    assert "private" not in res.output
