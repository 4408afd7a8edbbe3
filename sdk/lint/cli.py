"""The ``lint`` click command (registered by the CLI as ``plugsim lint``).

Exit status: 0 when no error or warning was found (infos never fail a run), 1
when errors or warnings were found, 2 when the linter could not run (bad arguments, unreadable path, broken configuration).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click

from sdk.exception import ConfigurationError
from sdk.lint.config import LintConfig, find_config, load_config
from sdk.lint.docs import explain, list_rules, render_rules_rst
from sdk.lint.formatters import FORMATTERS, render
from sdk.lint.registry import all_rules, get_rule
from sdk.lint.runner import LintUsageError, lint_paths

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


def _fail(message: str) -> None:
    click.echo(f"plugsim lint: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def rule_selectors(option: str, values: tuple[str, ...]) -> tuple[str, ...]:
    """Split ``--select``/``--ignore`` values (repeatable, comma-separated) into rule prefixes.

    Each must be the start of at least one rule id, so a typo is an error
    rather than a selection of nothing.
    """
    ids = [r.id for r in all_rules()]
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            prefix = part.strip().upper()
            if not prefix:
                continue
            if not any(i.startswith(prefix) for i in ids):
                raise click.UsageError(f"{option} {prefix}: no rule id starts with {prefix}")
            out.append(prefix)
    return tuple(dict.fromkeys(out))


def with_selection(
    config: LintConfig, select: tuple[str, ...], ignore: tuple[str, ...]
) -> LintConfig:
    """*config* with the command line's selection: ``--select`` replaces, ``--ignore`` adds."""
    if select:
        config = dataclasses.replace(config, select=select)
    if ignore:
        config = dataclasses.replace(config, ignore=tuple(dict.fromkeys((*config.ignore, *ignore))))
    return config


@click.command("lint", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(FORMATTERS)),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--inclusion",
    is_flag=True,
    help="Also apply the contribution checklist and end with its table.",
)
@click.option(
    "--no-dynamic",
    is_flag=True,
    help="Do not drive plug-ins and drivers on a fake cloud (static checks only).",
)
@click.option(
    "--select",
    multiple=True,
    metavar="IDS",
    help="Run only these rules: ids or id prefixes, comma-separated or repeated "
    "(replaces [tool.plugsim.lint] select).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="IDS",
    help="Switch these rules off: ids or id prefixes (added to [tool.plugsim.lint] ignore).",
)
@click.option(
    "--against",
    metavar="OLD",
    help="Compare each resource type's schemas with the old version OLD (a directory, a wheel, "
    "an installed distribution or a git ref) and report upgrade problems (PS8xx).",
)
@click.option("--list-rules", is_flag=True, help="Print the rule catalogue and exit.")
@click.option("--explain", "explain_id", metavar="ID", help="Print one rule's documentation.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="pyproject.toml to read [tool.plugsim.lint] from (default: found from the first PATH).",
)
@click.option(
    "--write-docs",
    type=click.Path(dir_okay=False, path_type=Path),
    hidden=True,
    help="Write the rule reference (reStructuredText) to this file and exit.",
)
def lint(
    paths: tuple[str, ...],
    fmt: str,
    inclusion: bool,
    no_dynamic: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    against: str | None,
    list_rules: bool,
    explain_id: str | None,
    config_path: Path | None,
    write_docs: Path | None,
) -> None:
    """Check resource plug-ins (and templates) under PATH... against the rule catalogue.

    Exit status: 0 when nothing but infos was found, 1 when an error or a
    warning was found, 2 when the linter could not run.
    """
    if list_rules:
        click.echo(_list(), nl=False)
        sys.exit(EXIT_OK)
    if explain_id is not None:
        try:
            rule = get_rule(explain_id)
        except KeyError as exc:
            _fail(str(exc.args[0]))
        click.echo(explain(rule), nl=False)
        sys.exit(EXIT_OK)
    if write_docs is not None:
        try:
            write_docs.write_text(render_rules_rst(), encoding="utf-8")
        except OSError as exc:
            _fail(f"{write_docs}: cannot write: {exc.strerror or exc}")
        sys.exit(EXIT_OK)
    if not paths:
        _fail("no PATH given (try --help)")
    try:
        selected = rule_selectors("--select", select)
        ignored = rule_selectors("--ignore", ignore)
    except click.UsageError as exc:
        _fail(exc.message)
    try:
        config = (
            load_config(config_path) if config_path is not None else find_config(Path(paths[0]))
        )
    except ConfigurationError as exc:
        _fail(str(exc))
    config = with_selection(config, selected, ignored)
    try:
        report = lint_paths(
            paths, config=config, inclusion=inclusion, dynamic=not no_dynamic, against=against
        )
    except LintUsageError as exc:
        _fail(str(exc))
    for note in report.notes:
        click.echo(f"plugsim lint: note: {note}", err=True)
    click.echo(render(report, fmt), nl=False)
    sys.exit(report.exit_code)


def _list() -> str:
    return list_rules()
