"""``plugsim template validate`` and ``plugsim bench``."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from simulator.cli._shared import (
    Options,
    durability_option,
    emit_mapping,
    format_option,
    parse_parameters,
    untrusted_template_options,
    world_option,
)

pass_options = click.make_pass_decorator(Options)


@click.group()
def template() -> None:
    """Templates."""


@template.command("validate")
@untrusted_template_options("validating")
@world_option
@format_option(default="yaml")
@pass_options
def validate(
    opts: Options,
    template_path: str,
    environment: Sequence[str],
    parameters: Sequence[str],
    trust_project: bool,
    world_file: str | None,
    fmt: str,
) -> None:
    """Validate a template (types, functions, parameters, dependencies) without creating it.

    Custom constraints are checked against the world the stack would be created in: the
    ``--state`` world when it exists, else a new one from ``--world``.
    """
    world = opts.validation_world(world_file)
    result = world.validate_template(
        template_path,
        list(environment),
        parse_parameters(parameters),
        trust_project=trust_project,
    )
    emit_mapping(result, fmt)


@click.command()
@click.option(
    "--resources",
    "n",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Number of resources.",
)
@click.option(
    "--width",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Resources per dependency layer.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--vs-heat",
    is_flag=True,
    help="Run the same stack through OpenStack Heat's engine too and print the ratios "
    "(needs openstack-heat in a virtualenv named by PLUGSIM_HEAT_PYTHON).",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="With --vs-heat: runs per engine; each phase's median is compared. With --campaign: "
    "alternating runs per process count.",
)
@click.option(
    "--campaign",
    "campaign_seeds",
    type=click.IntRange(min=1),
    metavar="SEEDS",
    help="Instead: lifecycles per second of the README example over SEEDS seeds, with one "
    "process and with two (medians of --repeat alternating runs).",
)
@click.option(
    "--floor",
    is_flag=True,
    help="Also measure the least a transition can cost in this design (a state change in "
    "memory and its share of one row write per instant) and print the engine's CPU cost "
    "per transition as a multiple of it.",
)
@durability_option
@pass_options
def bench(
    opts: Options,
    n: int,
    width: int,
    as_json: bool,
    vs_heat: bool,
    repeat: int,
    campaign_seeds: int | None,
    floor: bool,
    durability: str,
) -> None:
    """Time create/update/suspend/resume/delete of an N-resource layered stack."""
    if campaign_seeds is not None:
        from sdk.testing.campaign.bench import run_campaign_bench

        figures = run_campaign_bench(campaign_seeds, repeat=repeat)
        if as_json:
            click.echo(json.dumps(figures, indent=2))
        else:
            click.echo(
                f"{figures['seeds']} three-tier lifecycles, median of {figures['repeat']}: "
                f"{figures['lifecycles_per_second_1']}/s with 1 process, "
                f"{figures['lifecycles_per_second_2']}/s with 2 (x{figures['scaling']})"
            )
        return
    if vs_heat:
        from simulator.bench_heat import format_vs_heat, run_vs_heat

        with opts.heat_options():
            comparison = run_vs_heat(n, width, repeat=repeat)
        if as_json:
            click.echo(json.dumps(comparison, indent=2))
        else:
            click.echo(format_vs_heat(comparison), nl=False)
        return
    if floor:
        from simulator.bench_floor import floor_report, format_floor

        with opts.heat_options():
            report = floor_report(n, width, state=opts.state)
        click.echo(
            json.dumps(report, indent=2) if as_json else format_floor(report), nl=not as_json
        )
        return
    from simulator.bench import run_bench

    with opts.heat_options():
        result = run_bench(n, width, state=opts.state, durability=durability)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(result.to_text(), nl=False)
