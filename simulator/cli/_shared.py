"""What the ``plugsim`` commands share: the global options, error handling, option and output helpers.

:class:`Options` is what the top-level group (:mod:`simulator.cli.main`) collects for its
subcommands; :class:`PlugsimGroup` turns a user error anywhere below it (bad template, unknown
stack, bad option value) into one line, ``plugsim: error: <what went wrong>``, on stderr and exit
status 1 (``--debug`` shows the traceback instead). The command modules import these helpers from
here, never the entry module.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

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
    #: ``--wait-lock``: queue behind another process holding the world instead of failing
    wait: bool = False
    #: ``--world``: the world file or preset a new world starts from
    world: str | None = None

    def heat_options(self) -> Any:
        """A context manager making every world built inside it honour the Heat options.

        (:func:`simulator.heat_compat.options.using_heat_options`; the top-level group
        enters it for the whole command.)
        """
        from simulator.heat_compat.options import using_heat_options

        return using_heat_options(force=self.heat_compat, plugins=self.heat_plugins)

    def open_world(self, *, readonly: bool = False, **kwargs: Any) -> Any:
        """Open the world at ``--state`` (or ``PLUGSIM_STATE`` / ``./.plugsim/world.db``).

        A command that changes the world takes its lease (``--wait-lock`` queues
        behind another writer); *readonly* commands never write. The world is
        closed when the command ends, whichever way it ends.
        """
        from simulator.world import World

        ctx = click.get_current_context()
        if not readonly:
            kwargs.setdefault("wait", self.wait)
            kwargs.setdefault(
                "on_wait", lambda text: click.echo(f"plugsim: waiting: {text}", err=True)
            )
        if kwargs.get("world_file") is None:
            kwargs["world_file"] = self.world
        with self.heat_options():
            world = World.open(
                self.state,
                plugin_dirs=self.plugin_dirs,
                readonly=readonly,
                command=_command_text(ctx),
                **kwargs,
            )
        ctx.call_on_close(world.close)
        return world

    def validation_world(self, world_file: str | None = None) -> Any:
        """The world a template is validated against, as Heat validates against its cloud.

        An existing ``--state`` world (read-only: validating changes nothing), else a
        transient in-memory world started from ``--world`` (the command's or the global
        one). A missing state file is not created. Closed when the command ends.
        """
        from simulator.world import World, default_state_path

        path = self.state or default_state_path()
        world_file = world_file if world_file is not None else self.world
        with self.heat_options():
            if path != ":memory:" and Path(path).is_file():
                kwargs = {"world_file": world_file} if world_file is not None else {}
                world = World.open(path, plugin_dirs=self.plugin_dirs, readonly=True, **kwargs)
            else:
                world = World(plugin_dirs=self.plugin_dirs, world_file=world_file, transient=True)
        click.get_current_context().call_on_close(world.close)
        return world


def _command_text(ctx: click.Context) -> str:
    """``stack create big``: the subcommand path and the stack name, for the lease row."""
    words = ctx.command_path.split()[1:]
    name = ctx.params.get("name")
    if isinstance(name, str):
        words.append(name)
    return " ".join(words)


class PlugsimGroup(click.Group):
    """A click group turning plugsim errors into one line and exit status 1.

    The top-level group also takes its own options after the command name (``plugsim stack list
    --state w.db``), as the OpenStack client does, unless the command defines an option of that name.
    """

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        """Run the command line; as the console script, exit even if a plug-in left threads.

        Only when the arguments come from ``sys.argv`` (the ``plugsim`` script, not
        click's test runner): once the command's work is done and the world closed,
        non-daemon threads still alive would keep the process waiting for ever, so
        they are named on stderr in one line and the process exits with the
        command's status (see :mod:`sdk._leaks`).
        """
        if args is not None or not kwargs.get("standalone_mode", True):
            return super().main(args, *rest, **kwargs)
        status: Any = 0
        try:
            return super().main(args, *rest, **kwargs)
        except SystemExit as done:
            status = done.code
            raise
        finally:
            _exit_past_leftover_threads(status)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.parent is None:
            args = _globals_first(self, ctx, args)
        return super().parse_args(ctx, args)

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

            full = _disk_full(ex, ctx)
            if full is not None:
                message = full
            elif isinstance(ex, exception.PlugsimError | SimulationDeadlock | OSError):
                message = str(ex)
            else:
                message = f"internal error: {type(ex).__name__}: {ex} (run with --debug)"
            click.echo(f"plugsim: error: {_one_line(masking.scrub(message))}", err=True)
            ctx.exit(1)


def _disk_full(ex: BaseException, ctx: click.Context) -> str | None:
    """The one-line message for a full disk (SQLite's SQLITE_FULL, ``ENOSPC``), else None."""
    import errno
    import sqlite3

    seen: set[int] = set()
    current: BaseException | None = ex
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sqlite3.OperationalError) and "disk is full" in str(current):
            from simulator.world import default_state_path

            state = getattr(ctx.find_root().obj, "state", None) or default_state_path()
            path = state
            break
        if isinstance(current, OSError) and current.errno == errno.ENOSPC:
            path = current.filename or "?"
            break
        current = current.__cause__ or current.__context__
    else:
        return None
    if current is None:
        return None
    return (
        f"disk full: {path}: {current}; the world keeps its last commit: free some space "
        "and run the command again"
    )


def _exit_past_leftover_threads(status: Any) -> None:
    """Name the threads a plug-in left running and end the process with *status*, if any."""
    from sdk import _leaks

    threads = _leaks.leftover_threads()
    if not threads:
        return
    code = status if isinstance(status, int) else (0 if status is None else 1)
    names = "; ".join(_leaks.describe_thread(t) for t in threads)
    line = f"plugsim: not waiting for {len(threads)} thread(s) a plug-in left running: {names}\n"
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe must not stop the exit
            stream.flush()
    os.write(2, line.encode("utf-8", "replace"))
    os._exit(code)


def _option_names(command: click.Command) -> set[str]:
    names = {opt for p in command.params if isinstance(p, click.Option) for opt in p.opts}
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            names |= _option_names(sub)
    return names


def _globals_first(group: click.Group, ctx: click.Context, args: list[str]) -> list[str]:
    """Move the group's own options found after the command name to the front of *args*."""
    own = {opt: p for p in group.params if isinstance(p, click.Option) for opt in p.opts}
    names = set(group.list_commands(ctx))
    position = next((i for i, a in enumerate(args) if a in names), None)
    if position is None:
        return args
    command = group.get_command(ctx, args[position])
    taken = _option_names(command) if command is not None else set()
    front, rest = list(args[:position]), [args[position]]
    tail = args[position + 1 :]
    i = 0
    while i < len(tail):
        word = tail[i]
        if word == "--":
            rest += tail[i:]
            break
        name, eq, _ = word.partition("=")
        option = own.get(name)
        if option is None or name in taken:
            rest.append(word)
            i += 1
            continue
        if option.is_flag or eq:
            front.append(word)
            i += 1
        else:
            front += tail[i : i + 2]
            i += 2
    return front + rest


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
    ctx = click.get_current_context(silent=True)
    if ctx is not None:  # --parameter-file values (the same key given twice: the file wins)
        out.update(ctx.meta.get(_PARAMETER_FILES) or {})
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
    fn = click.option(
        "--parameter-file",
        "parameter_files",
        multiple=True,
        metavar="KEY=FILE",
        expose_value=False,
        callback=_remember_parameter_files,
        help="A parameter whose value is the content of FILE (repeatable).",
    )(fn)
    return click.option(
        "--parameter",
        "parameters",
        multiple=True,
        metavar="KEY=VALUE",
        help="A parameter value (repeatable).",
    )(fn)


def _trust_for_this_run(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        from simulator.project_trust import trust_this_run

        trust_this_run()
    return value


def untrusted_template_options(verb: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``-t/--template``, the environment options and ``--trust-project`` of the ``template``
    commands, which look at a template of unknown origin (*verb*: what the command does)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option(
            "--trust-project",
            is_flag=True,
            callback=_trust_for_this_run,
            help="Load the plug-ins the plugsim.yaml next to the template lists (plugin_dirs) "
            f"for this run; without it, {verb} runs no project code unless the project is "
            "trusted (plugsim trust DIR).",
        )(fn)
        fn = environment_options(fn)
        return click.option(
            "-t",
            "--template",
            "template_path",
            required=True,
            type=click.Path(dir_okay=False),
            help="The HOT template.",
        )(fn)

    return decorate


def world_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--world FILE|PRESET`` option: what a new world's fake cloud holds before any call."""
    return click.option(
        "--world",
        "world_file",
        metavar="FILE|PRESET",
        help="World file (YAML) or preset (default, devstack) a new world starts from; "
        "an existing world keeps its own.",
    )(fn)


def durability_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--durability`` option: when a world commits (see :mod:`simulator.world`)."""
    return click.option(
        "--durability",
        type=click.Choice(["instant", "transition"]),
        default="instant",
        envvar="PLUGSIM_DURABILITY",
        show_default=True,
        help="Commit the world once per virtual instant, or after every transition "
        "(for a process watching it live).",
    )(fn)


_PARAMETER_FILES = "plugsim.parameter_files"


def _remember_parameter_files(
    ctx: click.Context, param: click.Parameter, value: Sequence[str]
) -> None:
    files: dict[str, str] = {}
    for item in value:
        key, sep, path = item.partition("=")
        if not sep or not key or not path:
            raise click.BadParameter(f"{item!r} is not KEY=FILE", param_hint="--parameter-file")
        try:
            files[key] = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as ex:
            raise click.BadParameter(
                f"{path}: cannot read: {ex}", param_hint="--parameter-file"
            ) from None
    ctx.meta[_PARAMETER_FILES] = files


#: Output formats of commands with tabular output, as the OpenStack client names them.
FORMATS = ("table", "json", "yaml", "csv", "value", "shell")
_COLUMNS = "plugsim.columns"


def _remember_columns(ctx: click.Context, param: click.Parameter, value: Sequence[str]) -> None:
    ctx.meta[_COLUMNS] = [c for item in value for c in item.split(",") if c]


def format_option(choices: Sequence[str] = FORMATS, default: str = "table") -> Callable[[Any], Any]:
    """``-f/--format`` (table, json, yaml, csv, value, shell) and ``-c/--column`` (repeatable)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option(
            "-c",
            "--column",
            "columns",
            multiple=True,
            expose_value=False,
            callback=_remember_columns,
            metavar="COLUMN",
            help="Show only this column (repeatable, or comma-separated), in this order.",
        )(fn)
        return click.option(
            "-f",
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default=default,
            show_default=True,
            help="Output format.",
        )(fn)

    return decorate


def _chosen(columns: Sequence[str], present: Sequence[str] = ()) -> list[str]:
    """The ``-c`` columns (checked against *columns*), or every column."""
    try:
        wanted = click.get_current_context().meta.get(_COLUMNS) or []
    except RuntimeError:
        wanted = []
    if not wanted:
        return list(columns)
    known = list(dict.fromkeys([*columns, *present]))
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise click.BadParameter(
            f"no column {', '.join(unknown)} (columns: {', '.join(known)})", param_hint="-c"
        )
    return list(wanted)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _emit_flat(rows: list[dict[str, Any]], columns: Sequence[str], fmt: str) -> None:
    """csv (header and rows), value (cells separated by spaces) or shell (``key="value"`` lines)."""
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])
        click.echo(buffer.getvalue(), nl=False)
    elif fmt == "value":
        for row in rows:
            click.echo(" ".join(_cell(row.get(c)) for c in columns))
    else:
        import shlex

        for row in rows:
            for column in columns:
                click.echo(f"{column}={shlex.quote(_cell(row.get(column)))}")


def emit_rows(
    rows: list[dict[str, Any]],
    columns: Sequence[str],
    fmt: str,
    cap: int | None = None,
    *,
    choose: bool = True,
) -> None:
    """Print rows in *fmt* (see :data:`FORMATS`), with only the ``-c`` columns when given.

    In a table each cell is cut to *cap* characters (default: the
    ``max_printed_value_length`` limit); the other formats print everything.
    *choose* false: the rows are a record's fields, already chosen with ``-c``.
    """
    if not choose:
        columns = list(columns)
    else:
        columns = _chosen(columns, [k for row in rows[:1] for k in row])
    if choose and _wanted():
        rows = [{c: row.get(c) for c in columns} for row in rows]
    if fmt in ("csv", "value", "shell"):
        _emit_flat(rows, columns, fmt)
        return
    if fmt == "json":
        click.echo(json.dumps([with_iso(r) for r in rows], indent=2, default=str))
        return
    if fmt == "yaml":
        import yaml

        click.echo(yaml.safe_dump(_plain([with_iso(r) for r in rows]), sort_keys=False), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    from simulator.limits import DEFAULTS, cap_text

    cap = DEFAULTS.max_printed_value_length if cap is None else cap
    table = Table(*columns, show_lines=False)
    for row in rows:
        table.add_row(
            *(
                "" if row.get(c) is None else cap_text(_shown(c, row.get(c), _cell), cap)
                for c in columns
            )
        )
    # On a terminal the table fits its width; into a pipe or file no cell is wrapped.
    width = _term_width() if sys.stdout.isatty() else 10_000
    Console(soft_wrap=False, width=width).print(table)


def _wanted() -> bool:
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(_COLUMNS))


def emit_mapping(data: dict[str, Any], fmt: str, cap: int | None = None) -> None:
    """Print one record as a two-column table (cells cut to *cap*; or any of
    :data:`FORMATS`), ``-c`` fields only."""
    if _wanted():
        data = {k: data.get(k) for k in _chosen(list(data))}
    if fmt in ("csv", "value", "shell"):
        _emit_flat([data], list(data), fmt)
        return
    if fmt in ("json", "yaml"):
        if fmt == "json":
            click.echo(json.dumps(with_iso(data), indent=2, default=str))
        else:
            import yaml

            click.echo(yaml.safe_dump(_plain(with_iso(data)), sort_keys=False), nl=False)
        return
    rows = [
        {"Field": k, "Value": v if isinstance(v, str) else _shown(k, v, json.dumps)}
        for k, v in data.items()
    ]
    emit_rows(rows, ["Field", "Value"], "table", cap, choose=False)


def _is_instant(key: str, value: Any) -> bool:
    return (key == "time" or key.endswith("_time")) and isinstance(value, int | float)


def with_iso(row: dict[str, Any]) -> dict[str, Any]:
    """*row* with an ISO-8601 ``<key>_iso`` after each virtual instant (which stays in seconds)."""
    from simulator.events import format_iso

    out: dict[str, Any] = {}
    for key, value in row.items():
        out[key] = value
        if _is_instant(key, value) and not isinstance(value, bool):
            out[f"{key}_iso"] = format_iso(float(value))
    return out


def _shown(key: str, value: Any, other: Callable[[Any], str] = str) -> str:
    """A table cell: virtual instants (``time``, ``*_time``) as ``HH:MM:SS.mmm``, the rest as given."""
    if _is_instant(key, value):
        from simulator.events import format_time

        return format_time(float(value))
    return other(value)


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
    if fmt != "table":
        return None
    from simulator.events import StackPaths, format_event
    from simulator.masking import scrub

    paths = StackPaths()

    if sys.stderr.isatty():
        from rich.console import Console

        console = Console(stderr=True, highlight=False)
        styles = {"COMPLETE": "green", "FAILED": "bold red", "IN_PROGRESS": "yellow"}

        def show(ev: Any) -> None:
            line = scrub(format_event(ev, paths))
            console.print(line, style=styles.get(ev.status), markup=False)

        return show

    def plain(ev: Any) -> None:
        click.echo(scrub(format_event(ev, paths)), err=True)

    return plain
