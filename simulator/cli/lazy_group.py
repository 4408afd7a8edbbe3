"""The top-level ``plugsim`` group loads a command's module only when that command runs.

``plugsim --help`` and ``plugsim simulate`` should not pay for the linter, the test kit,
hypothesis or the wire servers. Each top-level command is registered by name with a *loader* (a
function importing its module and returning the click command) and the first paragraph of its help
text, which is all the group's ``--help`` shows. A test compares every recorded summary with the
loaded command's own help, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from simulator.cli._shared import PlugsimGroup

#: a function importing a command's module and returning the command
Loader = Callable[[], click.Command]


class LazyPlugsimGroup(PlugsimGroup):
    """A :class:`PlugsimGroup` whose commands are imported on first use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy: dict[str, tuple[Loader, str]] = {}

    def add_lazy_command(self, name: str, loader: Loader, summary: str) -> None:
        """Register *name*, loaded by *loader*; *summary* is the first paragraph of its help."""
        self._lazy[name] = (loader, summary)

    def lazy_summaries(self) -> dict[str, str]:
        """The recorded summary of each lazily registered command, by name."""
        return {name: summary for name, (_, summary) in self._lazy.items()}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in self._lazy:
            command = self._lazy[cmd_name][0]()
            self.commands[cmd_name] = command
        return command

    def load_all(self) -> dict[str, click.Command]:
        """Import every command and return them all (for tools that read ``commands``).

        sphinx-click walks ``group.commands`` as it is when that is not empty, so
        in a process that has already loaded a few commands it would document
        only those: the docs load them all first.
        """
        ctx = click.Context(self)
        for name in self.list_commands(ctx):
            self.get_command(ctx, name)
        return dict(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the commands with their recorded summaries, importing none of them."""
        rows: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is None:
                command = click.Command(name, help=self._lazy[name][1])
            if not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, c.get_short_help_str(limit)) for name, c in rows])
