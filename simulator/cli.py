"""The ``plugsim`` command line.

Global options (``--state``, ``--plugin-dir``, ``--heat-compat``,
``--heat-plugin``, ``--debug``) belong to the top-level group; the verbs live in :mod:`simulator.cli_stack` (``plugsim
stack ...``), :mod:`simulator.cli_misc` (``template validate``, ``bench``), :mod:`simulator.cli_cloud`
(``cloud``: salt-cloud's flags and ``cloud inventory``), :mod:`sdk.lint.cli` (``lint``),
:mod:`simulator.scaffold` (``new``),
:mod:`simulator.cli_capabilities` (``capabilities``), :mod:`sdk.testing.cli`
(``conformance``) and :mod:`simulator.cli_simulate` (``simulate``).

A user error (bad template, unknown stack, bad option value) prints one line,
``plugsim: error: <what went wrong>``, to stderr and exits 1; ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click
import yaml

from sdk import __version__, exception


@dataclass
class Options:
    """What the top-level group collected for its subcommands."""

    state: str | None = None
    plugin_dirs: list[str] = field(default_factory=list)
    debug: bool = False
    #: ``--heat-compat``: every plug-in-dir file goes through the Heat compat layer
    heat_compat: bool = False
    #: ``--heat-plugin``: Heat plug-ins whose types win over plugsim's own
    heat_plugins: list[str] = field(default_factory=list)

    def heat_options(self) -> Any:
        """A context manager making every world built inside it honour the Heat options.

        (:func:`simulator.registry.using_heat_options`; the top-level group
        enters it for the whole command.)
        """
        from simulator.registry import using_heat_options

        return using_heat_options(force=self.heat_compat, plugins=self.heat_plugins)

    def open_world(self, **kwargs: Any) -> Any:
        """Open the world at ``--state`` (or ``PLUGSIM_STATE`` / ``./.plugsim/world.db``)."""
        from simulator.world import World

        with self.heat_options():
            return World.open(self.state, plugin_dirs=self.plugin_dirs, **kwargs)


class _Group(click.Group):
    """A click group turning plugsim errors into one line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("plugsim: interrupted: the running action was cancelled and saved", err=True)
            ctx.exit(130)
        except Exception as ex:
            from simulator import masking

            if _debug(ctx):
                masking.scrub_exception(ex)
                raise
            from simulator.clock import SimulationDeadlock

            if isinstance(ex, exception.PlugsimError | SimulationDeadlock | OSError):
                message = str(ex)
            else:
                message = f"internal error: {type(ex).__name__}: {ex} (run with --debug)"
            click.echo(f"plugsim: error: {_one_line(masking.scrub(message))}", err=True)
            ctx.exit(1)


def _debug(ctx: click.Context) -> bool:
    root = ctx.find_root()
    obj = root.obj
    return bool(getattr(obj, "debug", False)) or "--debug" in sys.argv


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="plugsim")
@click.option(
    "--state",
    envvar="PLUGSIM_STATE",
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
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def main(
    ctx: click.Context,
    state: str | None,
    plugin_dirs: Sequence[str],
    heat_compat: bool,
    heat_plugins: Sequence[str],
    debug: bool,
) -> None:
    """plugsim: simulate cloud-orchestration plug-ins on fake clouds in virtual time."""
    ctx.obj = Options(
        state=state,
        plugin_dirs=list(plugin_dirs),
        debug=debug,
        heat_compat=heat_compat,
        heat_plugins=list(heat_plugins),
    )
    ctx.with_resource(ctx.obj.heat_options())
    from simulator.masking import collecting_generated

    ctx.with_resource(collecting_generated())


# -- shared helpers ------------------------------------------------------------------


def parse_parameters(values: Iterable[str]) -> dict[str, str]:
    """Turn ``--parameter k=v`` options into a dict (``k=v;w`` keeps everything after =)."""
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--parameter")
        out[key] = value
    return out


def environment_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The ``-e/--environment`` and ``--parameter KEY=VALUE`` options (both repeatable)."""
    fn = click.option(
        "-e",
        "--environment",
        "environment",
        multiple=True,
        type=click.Path(dir_okay=False),
        help="Environment file (repeatable).",
    )(fn)
    return click.option(
        "--parameter",
        "parameters",
        multiple=True,
        metavar="KEY=VALUE",
        help="A parameter value (repeatable).",
    )(fn)


def format_option(
    choices: Sequence[str] = ("table", "json", "yaml"), default: str = "table"
) -> Callable[[Any], Any]:
    """The ``--format`` option of commands with tabular output."""
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help="Output format.",
    )


def emit_rows(rows: list[dict[str, Any]], columns: Sequence[str], fmt: str) -> None:
    """Print rows as a table, JSON or YAML (secrets scrubbed, :mod:`simulator.masking`)."""
    rows = _scrubbed(rows)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, sort_keys=False, default=str))
        return
    if fmt == "yaml":
        click.echo(yaml.safe_dump(_plain(rows), sort_keys=False), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns, show_lines=False)
    for row in rows:
        table.add_row(*("" if row.get(c) is None else str(row.get(c)) for c in columns))
    Console(soft_wrap=False, width=max(160, _term_width())).print(table)


def emit_mapping(data: dict[str, Any], fmt: str) -> None:
    """Print one record as a two-column table, JSON or YAML (secrets scrubbed)."""
    data = _scrubbed(data)
    if fmt in ("json", "yaml"):
        if fmt == "json":
            click.echo(json.dumps(data, indent=2, default=str))
        else:
            click.echo(yaml.safe_dump(_plain(data), sort_keys=False), nl=False)
        return
    rows = [
        {"Field": k, "Value": v if isinstance(v, str) else json.dumps(v, default=str)}
        for k, v in data.items()
    ]
    emit_rows(rows, ["Field", "Value"], "table")


def _scrubbed(value: Any) -> Any:
    from simulator import masking

    return masking.scrub_data(value)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _term_width() -> int:
    try:
        return os.get_terminal_size().columns
    except OSError:
        return 100


def progress_listener(fmt: str = "table") -> Callable[[Any], None] | None:
    """Return an event printer for stderr (rich on a terminal, plain lines otherwise)."""
    if fmt in ("json", "yaml"):
        return None
    from simulator.events import format_event
    from simulator.masking import scrub

    if sys.stderr.isatty():
        from rich.console import Console

        console = Console(stderr=True, highlight=False)
        styles = {"COMPLETE": "green", "FAILED": "bold red", "IN_PROGRESS": "yellow"}

        def show(ev: Any) -> None:
            line = scrub(format_event(ev))
            console.print(line, style=styles.get(ev.status), markup=False)

        return show

    def plain(ev: Any) -> None:
        click.echo(scrub(format_event(ev)), err=True)

    return plain


def _register() -> None:
    from sdk.lint.cli import lint
    from sdk.testing.cli import conformance
    from simulator import cli_capabilities, cli_cloud, cli_misc, cli_simulate, cli_stack, scaffold

    main.add_command(cli_stack.stack)
    main.add_command(cli_misc.template)
    main.add_command(cli_cloud.cloud)
    main.add_command(cli_misc.bench)
    main.add_command(cli_simulate.simulate)
    main.add_command(lint)
    main.add_command(scaffold.new)
    main.add_command(cli_capabilities.capabilities)
    main.add_command(conformance)


_register()
