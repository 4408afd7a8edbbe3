"""``plugsim simulate``: the whole life of a template, with timeline, durations and leaks."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from simulator import masking
from simulator.cli._shared import (
    Options,
    durability_option,
    environment_options,
    parse_parameters,
    progress_listener,
    world_option,
)

pass_options = click.make_pass_decorator(Options)


@click.command()
@click.argument("template", type=click.Path(dir_okay=False))
@environment_options
@click.option("--seed", type=int, default=0, show_default=True, help="The run's seed.")
@click.option("--faults", help="Fault profile: a preset (none, flaky, slow, chaos) or YAML file.")
@click.option(
    "--update-template",
    type=click.Path(dir_okay=False),
    help="Also update the stack to this template.",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--progress/--no-progress", default=False, help="Also stream events to stderr while running."
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, writable=True),
    help="Also write a self-contained HTML page of the run (timeline, graph, events, faults).",
)
@click.option(
    "--timeline/--no-timeline",
    default=False,
    help="Also draw the run's timeline (text format), with the critical path of each action.",
)
@click.option(
    "--lifecycle-plugin",
    "lifecycle_plugins",
    multiple=True,
    metavar="MODULE:CLASS",
    help="A stack lifecycle plug-in to run around every action (repeatable).",
)
@click.option(
    "--strict-lifecycle", is_flag=True, help="Fail an action whose lifecycle plug-in changes it."
)
@durability_option
@world_option
@pass_options
def simulate(
    opts: Options,
    template: str,
    environment: Sequence[str],
    parameters: Sequence[str],
    seed: int,
    faults: str | None,
    update_template: str | None,
    fmt: str,
    progress: bool,
    report_path: str | None,
    timeline: bool,
    lifecycle_plugins: Sequence[str],
    strict_lifecycle: bool,
    durability: str,
    world_file: str | None,
) -> None:
    """Create, update, suspend, resume, snapshot and delete TEMPLATE in a fresh world.

    Exits 0 only when every phase ended COMPLETE and no fake-cloud resource leaked.
    """
    from simulator.simulate import simulate as run

    listener: Any = progress_listener("table") if progress and fmt == "text" else None
    if listener is None and fmt == "text" and sys.stdout.isatty():
        from simulator.views.live import LiveProgress

        listener = LiveProgress()
    try:
        with opts.heat_options():
            report = run(
                template,
                list(environment),
                parse_parameters(parameters),
                seed=seed,
                faults=faults,
                update_template=update_template,
                state=opts.state or ":memory:",
                plugin_dirs=opts.plugin_dirs,
                listener=listener,
                lifecycle_plugins=lifecycle_plugins,
                strict_lifecycle=strict_lifecycle,
                durability=durability,
                wait=opts.wait,
                world_file=world_file or opts.world,
            )
    finally:
        if hasattr(listener, "close"):
            listener.close()
    if fmt == "json":
        click.echo(json.dumps(masking.scrub_data(report.to_dict()), indent=2, default=str))
    else:
        click.echo(masking.scrub(report.to_text()), nl=False)
        if timeline:
            _print_timeline(report)
    if report_path:
        from simulator.views.page import render_page

        Path(report_path).write_text(render_page(report.to_page()), encoding="utf-8")
        click.echo(f"Report: {report_path}", err=fmt == "json")
    if not report.ok:
        raise click.exceptions.Exit(1)


def _print_timeline(report: Any) -> None:
    from rich.console import Console

    from simulator.views.gantt import render_terminal
    from simulator.views.timeline import build_timeline

    timeline = build_timeline(report.events, report.faults, report.dependencies)
    console = Console(highlight=False, soft_wrap=False)
    click.echo("")
    console.print(render_terminal(timeline, console.width), end="")
    for line in timeline.describe_paths():
        click.echo(f"Critical path {line}")
