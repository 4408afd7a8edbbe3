"""The ``plugsim`` entry point: the top-level click group and its global options.

Global options (``--state``, ``--plugin-dir``, ``--heat-compat``, ``--heat-plugin``, ``--debug``,
``--wait-lock``; ``--wait`` is its deprecated spelling)
belong to this group; the verbs live in :mod:`simulator.cli.stack` (``plugsim stack ...``),
:mod:`simulator.cli.misc` (``template validate``, ``bench``), :mod:`simulator.cli.cloud`
(``cloud``: salt-cloud's flags and ``cloud inventory``), :mod:`sdk.lint.cli` (``lint``),
:mod:`simulator.scaffold` (``new``), :mod:`simulator.cli.capabilities` (``capabilities``),
:mod:`sdk.testing.cli` (``conformance``) and :mod:`simulator.cli.simulate` (``simulate``). What
they share (options, output helpers, error handling) is in :mod:`simulator.cli._shared`, which
they import instead of this module.

A user error (bad template, unknown stack, bad option value) prints one line,
``plugsim: error: <what went wrong>``, to stderr and exits 1; ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

import click

from sdk import __version__
from simulator.cli._shared import Options, world_option
from simulator.cli.lazy_group import LazyPlugsimGroup


@click.group(cls=LazyPlugsimGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="plugsim")
@click.option(
    "--state",
    envvar="PLUGSIM_STATE",
    show_envvar=True,
    metavar="PATH",
    help="The world's SQLite file (default ./.plugsim/world.db; ':memory:' for none).",
)
@click.option(
    "--plugin-dir",
    "plugin_dirs",
    multiple=True,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Load resource plug-ins from DIR (repeatable). A file that imports heat is loaded "
    "through the Heat compatibility layer.",
)
@click.option(
    "--heat-compat",
    is_flag=True,
    help="Load every --plugin-dir file through the Heat compatibility layer, not only "
    "those that import heat.",
)
@click.option(
    "--heat-plugin",
    "heat_plugins",
    multiple=True,
    metavar="TARGET",
    help="Load an unmodified Heat plug-in (a file, a directory or a heat.engine.resources... "
    "module of the openstack-heat found via PLUGSIM_HEAT_PYTHON); its types win over "
    "plugsim's own (repeatable).",
)
@world_option
@click.option(
    "--trust-project",
    is_flag=True,
    help="Run the code a project's plugsim.yaml lists (plugin_dirs, lifecycle_plugins) for this "
    "run only, trusted or not; `plugsim trust DIR` trusts a project once and for all.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option(
    "--wait-lock",
    "wait",
    is_flag=True,
    envvar=["PLUGSIM_WAIT_LOCK", "PLUGSIM_WAIT"],
    help="When another process is changing the world, wait for it instead of failing.",
)
@click.option(
    "--wait",
    "old_wait",
    is_flag=True,
    hidden=True,
    help="Deprecated spelling of --wait-lock (`stack create --wait` keeps Heat's meaning).",
)
@click.pass_context
def main(
    ctx: click.Context,
    state: str | None,
    plugin_dirs: Sequence[str],
    heat_compat: bool,
    heat_plugins: Sequence[str],
    world_file: str | None,
    trust_project: bool,
    debug: bool,
    wait: bool,
    old_wait: bool = False,
) -> None:
    """plugsim: simulate cloud-orchestration plug-ins on fake clouds in virtual time."""
    if old_wait:
        click.echo(
            "plugsim: `plugsim --wait` is deprecated: it waits for the world's lock, now "
            "`--wait-lock` (`plugsim stack create --wait` keeps Heat's meaning)",
            err=True,
        )
        wait = True
    ctx.obj = Options(
        state=state,
        plugin_dirs=list(plugin_dirs),
        debug=debug,
        wait=wait,
        heat_compat=heat_compat,
        heat_plugins=list(heat_plugins),
        world=world_file,
    )
    ctx.with_resource(ctx.obj.heat_options())
    from simulator.project_trust import enforcing

    ctx.with_resource(enforcing(trust_project))
    from simulator.masking import collecting_generated

    ctx.with_resource(collecting_generated())


def _stack() -> click.Command:
    from simulator.cli.stack import resource as stack_resource_group
    from simulator.cli.stack import stack
    from simulator.cli.stack_heat import register_heat_verbs
    from simulator.cli.stack_inspect import register as register_inspection
    from simulator.cli.stack_snapshot import restore, snapshot
    from simulator.cli.views import stack_graph, stack_report, stack_timeline

    register_inspection(stack)
    stack.add_command(snapshot)
    register_heat_verbs(stack, stack_resource_group, snapshot)
    stack.add_command(restore)
    stack.add_command(stack_graph)
    stack.add_command(stack_timeline)
    stack.add_command(stack_report)
    return stack


def _template() -> click.Command:
    from simulator.cli.misc import template
    from simulator.cli.views import template_graph

    template.add_command(template_graph)
    return template


def _conformance() -> click.Command:
    from sdk.testing.cli import conformance

    # the shared --world option, which sdk.testing.cli cannot import without a circle
    return world_option(conformance)


def _attribute(module: str, name: str) -> Callable[[], click.Command]:
    def load() -> click.Command:
        command: click.Command = getattr(importlib.import_module(module), name)
        return command

    return load


# name -> (loader, the first paragraph of the command's help: what ``plugsim --help`` lists;
# tests/cli/test_cli_imports.py checks each against the loaded command)
_COMMANDS: dict[str, tuple[Callable[[], click.Command], str]] = {
    "stack": (_stack, "Create, change and inspect stacks."),
    "template": (_template, "Templates."),
    "cloud": (
        _attribute("simulator.cli.cloud", "cloud"),
        "salt-cloud over cloud driver modules, against the fake clouds, in virtual time.",
    ),
    "bench": (
        _attribute("simulator.cli.misc", "bench"),
        "Time create/update/suspend/resume/delete of an N-resource layered stack.",
    ),
    "simulate": (
        _attribute("simulator.cli.simulate", "simulate"),
        "Create, update, suspend, resume, snapshot and delete TEMPLATE in a fresh world.",
    ),
    "campaign": (
        _attribute("simulator.cli.campaign", "campaign"),
        "Run TEMPLATE's whole life (with --plugin: a plug-in's conformance paths or action "
        "sequences; with --upgrade-from: the upgrade check) under many seeds and report every "
        "distinct failure.",
    ),
    "lint": (
        _attribute("sdk.lint.cli", "lint"),
        "Check resource plug-ins (and templates) under PATH... against the rule catalogue.",
    ),
    "new": (
        _attribute("simulator.scaffold", "new"),
        "Scaffold a plug-in project (pyproject, module, tests, docs, noxfile, CI).",
    ),
    "capabilities": (
        _attribute("simulator.cli.capabilities", "capabilities"),
        "Discover what templates provide and what environments still leave to choose.",
    ),
    "conformance": (
        _conformance,
        "Run the resource conformance suite on the plug-ins in PATH_OR_MODULE.",
    ),
    "serve": (
        _attribute("simulator.cli.serve", "serve"),
        "Serve the world as OpenStack on 127.0.0.1: identity, compute, network, block storage, "
        "image, object storage and orchestration (Heat's API), with a clouds.yaml for the "
        "clients; and as the provider APIs (DigitalOcean, Linode, ...), with a providers.yaml.",
    ),
    "world": (_attribute("simulator.cli.worlds", "world"), "Show world files and their schema."),
    "trust": (
        _attribute("simulator.cli.trust", "trust"),
        "Trust PROJECTS (directories holding a plugsim.yaml) to run their code.",
    ),
}

for _name, (_loader, _summary) in _COMMANDS.items():
    main.add_lazy_command(_name, _loader, _summary)
