"""``plugsim capabilities find`` and ``plugsim capabilities summary`` (JSON output).

Registered on the top-level ``plugsim`` group, whose error handling turns a
bad file or filter into one ``plugsim: error: ...`` line and exit status 1.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click


def _emit(data: Any) -> None:
    click.echo(json.dumps(data, indent=2))


@click.group()
def capabilities() -> None:
    """Discover what templates provide and what environments still leave to choose."""


@capabilities.command("find")
@click.option("-r", "--recursive", is_flag=True, help="Search directories recursively.")
@click.option(
    "-c",
    "--capability",
    "filters",
    multiple=True,
    required=True,
    metavar="KEY=VALUE",
    help="A capability every listed template must declare (repeatable); "
    "resource_type=TYPE matches type-based annotations.",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
def find(recursive: bool, filters: Sequence[str], paths: Sequence[str]) -> None:
    """List the templates under PATHS whose capabilities match every -c filter.

    Prints a JSON list of template paths.
    """
    from simulator.capabilities import find_templates, parse_filters

    _emit(find_templates(list(paths), parse_filters(filters), recursive=recursive))


@capabilities.command("summary")
@click.option(
    "-f",
    "--template-file",
    "templates",
    multiple=True,
    required=True,
    type=click.Path(),
    help="A template to summarise (repeatable).",
)
@click.option(
    "-e",
    "--environment",
    "environments",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="An environment whose requires narrow the choices (repeatable; later wins).",
)
def summary(templates: Sequence[str], environments: Sequence[str]) -> None:
    """Print, as JSON, the capability values and implementations the templates offer.

    With environments, also which choices their requires leave open.
    """
    from simulator.capabilities import summarize

    _emit(summarize(list(templates), list(environments)))
