"""Start fast: a command imports only what it uses (issue 33, item 4).

Each check runs the command in a fresh interpreter and reads ``sys.modules`` as the process exits,
so it asserts on module names, never on time.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]

# what `plugsim --help` and `plugsim simulate` must not load: the test kit, the linter and what only
# they, the servers or the scaffold need
HEAVY = (
    "hypothesis",
    "sdk.lint",
    "sdk.testing",
    "pytest",
    "_pytest",
    "rich",
    "werkzeug",
    "cookiecutter",
    "jinja2",
    "simulator.scaffold",
    "simulator.cli.serve",
    "simulator.orchestration_wire",
)

PROBE = """
import atexit, json, sys
atexit.register(lambda: print("MODULES " + json.dumps(sorted(sys.modules)), file=sys.__stderr__))
sys.argv = ["plugsim", *json.loads(sys.argv[1])]
from simulator.cli import main
main()
"""


def modules_loaded_by(*args: str, cwd: Path = ROOT) -> set[str]:
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stderr.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line[len("MODULES ") :]))


def heavy_among(modules: set[str], allowed: tuple[str, ...] = ()) -> list[str]:
    heavy = [h for h in HEAVY if h not in allowed]
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy))


def test_help_imports_no_command_module():
    loaded = modules_loaded_by("--help")
    assert heavy_among(loaded) == []
    # not even the engine: the group lists its commands from recorded summaries
    assert not [m for m in loaded if m.startswith(("fake_clouds", "simulator.world", "yaml"))]
    assert "simulator.cli.stack" not in loaded


def test_simulate_imports_neither_test_kit_nor_linter():
    loaded = modules_loaded_by(
        "simulate", "examples/three-tier/stack.yaml", "-e", "examples/three-tier/env.yaml"
    )
    assert "simulator.simulate" in loaded  # it ran
    # every stack action serves the fakes' HTTP APIs (BIG-IP, Docker, the providers), and that
    # one HTTP layer is werkzeug: simulate needs it, --help does not
    assert heavy_among(loaded, allowed=("werkzeug",)) == []


def test_simulate_without_heat_plugins_leaves_the_heat_shims_out():
    # the three-tier example's plug-ins import nothing of Heat: the compat layer's shims of Heat's
    # engine, clients and constraints are for a file that does (and cost a third of a second)
    loaded = modules_loaded_by(
        "simulate", "examples/three-tier/stack.yaml", "-e", "examples/three-tier/env.yaml"
    )
    assert "simulator.simulate" in loaded  # it ran
    shims = ("constraints", "engine_api", "keystone_plugin", "keystone_constraints", "siblings")
    assert sorted(m for m in loaded if m in {f"simulator.heat_compat.{s}" for s in shims}) == []


def test_pytest_plugin_module_leaves_the_engine_and_hypothesis_out():
    code = (
        "import sys, sdk.testing.plugin; print(sorted(m for m in sys.modules if m.startswith("
        "('hypothesis', 'simulator.world', 'fake_clouds', 'sdk.lint', 'sdk.testing.harness'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_recorded_summaries_match_the_commands_help():
    from simulator.cli import main

    ctx = click.Context(main)
    summaries = main.lazy_summaries()
    assert sorted(summaries) == main.list_commands(ctx)
    for name, summary in summaries.items():
        command = main.get_command(ctx, name)
        assert command is not None
        first = inspect.cleandoc(command.help or "").split("\n\n")[0]
        assert " ".join(first.split()) == summary, name


def test_lazy_commands_still_take_global_options_after_the_name():
    from simulator.cli import main
    from simulator.cli._shared import _globals_first

    ctx = click.Context(main)
    args = ["stack", "list", "--state", "w.db", "--debug"]
    assert _globals_first(main, ctx, args) == ["--state", "w.db", "--debug", "stack", "list"]
