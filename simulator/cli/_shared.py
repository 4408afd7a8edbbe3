"""What the ``plugsim`` commands share: the global options, error handling, option and output helpers.

:class:`Options` is what the top-level group (:mod:`simulator.cli.main`) collects for its
subcommands; :class:`PlugsimGroup` turns a user error anywhere below it (bad template, unknown
stack, bad option value) into one line, ``plugsim: error: <what went wrong>``, on stderr and exit
status 1 (``--debug`` shows the traceback instead). The command modules import these helpers from
here, never the entry module.
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

from sdk import exception


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
    #: ``--world``: the world file or preset a new world starts from
    world: str | None = None

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

        if kwargs.get("world_file") is None:
            kwargs["world_file"] = self.world
        with self.heat_options():
            return World.open(self.state, plugin_dirs=self.plugin_dirs, **kwargs)


class PlugsimGroup(click.Group):
    """A click group turning plugsim errors into one line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except Exception as ex:
            if _debug(ctx):
                raise
            from simulator.clock import SimulationDeadlock

            if isinstance(ex, exception.PlugsimError | SimulationDeadlock | OSError):
                message = str(ex)
            else:
                message = f"internal error: {type(ex).__name__}: {ex} (run with --debug)"
            click.echo(f"plugsim: error: {_one_line(message)}", err=True)
            ctx.exit(1)


def _debug(ctx: click.Context) -> bool:
    root = ctx.find_root()
    obj = root.obj
    return bool(getattr(obj, "debug", False)) or "--debug" in sys.argv


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


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


def world_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--world FILE|PRESET`` option: what a new world's fake cloud holds before any call."""
    return click.option(
        "--world",
        "world_file",
        metavar="FILE|PRESET",
        help="World file (YAML) or preset (default, devstack) a new world starts from; "
        "an existing world keeps its own.",
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
    """Print rows as a table, JSON or YAML."""
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
    """Print one record as a two-column table, JSON or YAML."""
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

    if sys.stderr.isatty():
        from rich.console import Console

        console = Console(stderr=True, highlight=False)
        styles = {"COMPLETE": "green", "FAILED": "bold red", "IN_PROGRESS": "yellow"}

        def show(ev: Any) -> None:
            console.print(format_event(ev), style=styles.get(ev.status), markup=False)

        return show

    def plain(ev: Any) -> None:
        click.echo(format_event(ev), err=True)

    return plain
