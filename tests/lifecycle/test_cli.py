"""``--lifecycle-plugin``, ``--strict-lifecycle`` and ``--tag`` on the command line."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.lifecycle import ENV_PLUGINS, ENV_STRICT

PLUGINS = """
from sdk.lifecycle_plugin import LifecyclePlugin


class Veto(LifecyclePlugin):
    def do_pre_op(self, context, stack, current_stack=None, action=None):
        if "no" in stack.tags:
            raise RuntimeError(f"tag 'no' forbids {action}")


class Meddle(LifecyclePlugin):
    def do_pre_op(self, context, stack, current_stack=None, action=None):
        stack.parameters["sneaky"] = 1
"""

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  a: {type: Plugsim::Test::Trivial}
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    (tmp_path / "clmod.py").write_text(PLUGINS)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(ENV_PLUGINS, raising=False)
    monkeypatch.delenv(ENV_STRICT, raising=False)
    return tmp_path


def run(env, *args):
    return CliRunner().invoke(main, ["--state", str(env / "w.db"), *args])


def test_lifecycle_plugin_option_vetoes_a_tagged_create(env):
    t = str(env / "t.yaml")
    res = run(
        env, "stack", "--lifecycle-plugin", "clmod:Veto", "create", "-t", t, "--tag", "no", "s"
    )
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1] == "s CREATE_FAILED: tag 'no' forbids CREATE"
    res = run(env, "stack", "--lifecycle-plugin", "clmod:Veto", "create", "-t", t, "ok")
    assert res.exit_code == 0, res.output
    # the abandon verb runs the plug-ins too
    res = run(env, "stack", "--lifecycle-plugin", "clmod:Veto", "abandon", "s")
    assert res.exit_code == 1
    assert "Stack ABANDON failed: tag 'no' forbids ABANDON" in res.output


def test_without_the_option_nothing_runs(env):
    res = run(env, "stack", "create", "-t", str(env / "t.yaml"), "--tag", "no", "s")
    assert res.exit_code == 0, res.output
    assert "CREATE_COMPLETE" in res.output


def test_strict_lifecycle_option(env):
    t = str(env / "t.yaml")
    res = run(
        env,
        "stack",
        "--lifecycle-plugin",
        "clmod:Meddle",
        "--strict-lifecycle",
        "create",
        "-t",
        t,
        "s",
    )
    assert res.exit_code == 1
    assert (
        "Lifecycle plug-in clmod.Meddle modified stack in do_pre_op: parameters changed"
        in res.output
    )
    res = run(env, "stack", "--lifecycle-plugin", "clmod:Meddle", "create", "-t", t, "t")
    assert res.exit_code == 0


def test_bad_plugin_name_is_one_line(env):
    res = run(
        env, "stack", "--lifecycle-plugin", "clmod:Nope", "create", "-t", str(env / "t.yaml"), "s"
    )
    assert res.exit_code == 1
    assert res.output.strip() == (
        "plugsim: error: lifecycle plug-in clmod:Nope: module clmod has no attribute Nope"
    )


def test_simulate_passes_plugins_and_restores_the_environment(env):
    res = run(
        env, "simulate", str(env / "t.yaml"), "--lifecycle-plugin", "clmod:Veto", "--format", "json"
    )
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    states = [
        e["action"] + "_" + e["status"]
        for e in report["events"]
        if e["resource_type"] == "plugsim::LifecyclePlugin"
    ]
    assert states[:2] == ["CREATE_PRE_OP_COMPLETE", "CREATE_POST_OP_COMPLETE"]
    assert "DELETE_POST_OP_COMPLETE" in states
    assert ENV_PLUGINS not in os.environ and ENV_STRICT not in os.environ
