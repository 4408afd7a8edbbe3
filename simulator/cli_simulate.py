"""``plugsim simulate``: the whole life of a template, with timeline, durations and leaks."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from simulator import masking
from simulator.cli import Options, environment_options, parse_parameters, progress_listener

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
    "--lifecycle-plugin",
    "lifecycle_plugins",
    multiple=True,
    metavar="MODULE:CLASS",
    help="A stack lifecycle plug-in to run around every action (repeatable).",
)
@click.option(
    "--strict-lifecycle", is_flag=True, help="Fail an action whose lifecycle plug-in changes it."
)
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
    lifecycle_plugins: Sequence[str],
    strict_lifecycle: bool,
) -> None:
    """Create, update, suspend, resume, snapshot and delete TEMPLATE in a fresh world.

    Exits 0 only when every phase ended COMPLETE and no fake-cloud resource leaked.
    """
    from simulator.simulate import simulate as run

    listener = progress_listener("table") if progress and fmt == "text" else None
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
        )
    if fmt == "json":
        click.echo(json.dumps(masking.scrub_data(report.to_dict()), indent=2, default=str))
    else:
        click.echo(masking.scrub(report.to_text()), nl=False)
    if not report.ok:
        raise click.exceptions.Exit(1)
