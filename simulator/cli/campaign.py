"""``plugsim campaign``: many seeds of a stack's life, or of a plug-in's conformance paths; failures
confirmed, deduplicated and shrunk."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from simulator.cli._shared import Options, environment_options, parse_parameters, world_option

pass_options = click.make_pass_decorator(Options)


@click.command()
@click.argument("template", type=click.Path(), required=False)
@click.option(
    "--plugin",
    metavar="PATH_OR_MODULE",
    help="Instead of a TEMPLATE: run the conformance paths of the plug-ins in this directory, "
    ".py file or module under every seed.",
)
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="NAME",
    help="With --plugin: only this conformance path (repeatable), e.g. test_create.",
)
@click.option(
    "--sequences",
    is_flag=True,
    help="With --plugin: random action sequences (the kit's state machine, seeded by each seed) "
    "instead of the conformance paths.",
)
@click.option(
    "--properties",
    "properties_file",
    metavar="YAML",
    help="With --plugin: valid properties per type ({type: {prop: value}}).",
)
@environment_options
@click.option("--update-template", type=click.Path(dir_okay=False), help="Also update to this.")
@click.option("--seeds", "seed_text", metavar="FIRST..LAST|A,B,..", help="Seeds to run.")
@click.option(
    "--count",
    type=click.IntRange(min=1),
    help="Run seeds 0..COUNT-1 (default 100 without --seeds).",
)
@click.option("--faults", help="Fault profile for every run: a preset or a YAML file.")
@world_option
@click.option(
    "--adversary",
    is_flag=True,
    help="Drift the cloud behind the engine's back (delete an entity, put it in error or stuck, "
    "rename it, shrink a quota, rotate the credential) between and during actions; stack check must "
    "see it and delete must still clean up.",
)
@click.option(
    "--drifts",
    "drifts_file",
    type=click.Path(dir_okay=False),
    help="With --adversary: do exactly the drifts of this schedule (a shrunk finding's "
    "finding-N.drifts.yaml) instead of each seed's.",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: this machine's processes; ray: a Ray cluster (pip install 'plugsim[ray]').",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes (local) or CPUs asked of a local Ray.",
)
@click.option("--address", help="Address of an existing Ray cluster (with --backend ray).")
@click.option(
    "--chunk",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="Seeds per task: a worker's start-up is paid once per chunk.",
)
@click.option(
    "--time-budget",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop starting new runs after this much wall time (results so far are kept).",
)
@click.option(
    "--shrink-budget",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="Runs each failure may spend on shrinking its faults and drifts (and as many again on "
    "its stack, with a template).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Directory for results.jsonl (resumable), summary.json, junit.xml, report.html and the "
    "shrunk fault profiles.",
)
@click.option(
    "-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--upgrade-from",
    metavar="OLD",
    help="Upgrade mode: TEMPLATE is a plug-in file or directory (the new version); each seed "
    "creates stacks with OLD, upgrades them in place and checks they keep working.",
)
@pass_options
def campaign(
    opts: Options,
    template: str | None,
    plugin: str | None,
    paths: Sequence[str],
    sequences: bool,
    properties_file: str | None,
    environment: Sequence[str],
    parameters: Sequence[str],
    update_template: str | None,
    seed_text: str | None,
    count: int | None,
    faults: str | None,
    world_file: str | None,
    adversary: bool,
    drifts_file: str | None,
    backend: str,
    jobs: int,
    address: str | None,
    chunk: int,
    time_budget: float | None,
    shrink_budget: int,
    out: str | None,
    fmt: str,
    upgrade_from: str | None,
) -> None:
    """Run TEMPLATE's whole life (with --plugin: a plug-in's conformance paths or action
    sequences; with --upgrade-from: the upgrade check) under many seeds and report every distinct
    failure.

    Each failure is run again to confirm it repeats (a run that differs from itself is reported as
    nondeterminism), grouped with the other seeds that failed the same way, and shrunk to the fewest
    injected faults that still fail, with a line that replays it. Exits 1 when anything failed.
    """
    from sdk.testing.campaign import RunSpec, parse_seeds, run_campaign, write_reports
    from sdk.testing.campaign.campaign import summary

    if seed_text and count:
        raise click.UsageError("give --seeds or --count, not both")
    if (template is None) == (plugin is None):
        raise click.UsageError("give a TEMPLATE or --plugin PATH_OR_MODULE (one of them)")
    world = world_file or opts.world
    spec: Any
    if plugin is not None:
        if environment or parameters or update_template or adversary or drifts_file or upgrade_from:
            raise click.UsageError(
                "-e, --parameter, --update-template, --adversary, --drifts and --upgrade-from need "
                "a TEMPLATE"
            )
        spec = _plugin_spec(plugin, paths, sequences, properties_file, faults, world)
    else:
        if paths or properties_file or sequences:
            raise click.UsageError("--path, --sequences and --properties need --plugin")
        if drifts_file and not adversary:
            raise click.UsageError("--drifts needs --adversary")
        spec = RunSpec(
            template=str(template),
            environment=tuple(environment),
            parameters=tuple(sorted(parse_parameters(parameters).items())),
            update_template=update_template,
            faults=faults,
            plugin_dirs=tuple(opts.plugin_dirs),
            world=world,
            adversary=adversary,
            drifts=drifts_file,
        )
        if upgrade_from is not None:  # the upgrade mode (issue #24): TEMPLATE is the new plug-in
            if adversary or world:
                raise click.UsageError("--upgrade-from takes neither --adversary nor --world")
            spec = _upgrade_spec(spec, upgrade_from)
        elif Path(str(template)).is_dir():
            raise click.BadParameter(f"{template} is a directory", param_hint="TEMPLATE")
    spec.check()
    seeds = parse_seeds(seed_text, count)
    out_dir = Path(out) if out else None
    from sdk.testing.replays import replay_folder

    # without --out the shrunk material still needs a home that outlives the run
    replays = (
        None if out_dir is not None else replay_folder(None, spec.label, "campaign", create=False)
    )
    with _progress(fmt) as progress:
        outcome = run_campaign(
            spec,
            seeds,
            backend=backend,
            jobs=jobs,
            chunk=chunk,
            address=address,
            out=out_dir,
            time_budget=time_budget,
            shrink_budget=shrink_budget,
            progress=progress,
            replays=replays,
        )
    written = write_reports(outcome, out_dir) if out_dir is not None else []
    if fmt == "json":
        click.echo(json.dumps(summary(outcome), indent=2, sort_keys=True))
    else:
        _print_text(outcome, written)
        if replays is not None and outcome.findings and replays.is_dir():
            from sdk.testing.replays import shown

            click.echo(f"replay material in {shown(replays)} (the lines above run from here)")
    if outcome.findings:
        raise click.exceptions.Exit(1)


def _plugin_spec(
    plugin: str,
    paths: Sequence[str],
    sequences: bool,
    properties_file: str | None,
    faults: str | None,
    world: str | None,
) -> Any:
    """The campaign over *plugin*'s conformance paths (:mod:`sdk.testing.campaign.paths`) or its
    action sequences (:mod:`sdk.testing.campaign.sequences`)."""
    from sdk.testing.campaign.paths import PathSpec
    from sdk.testing.campaign.sequences import SequenceSpec
    from sdk.testing.cli import load_overrides

    overrides = load_overrides(properties_file)
    properties = tuple((k, tuple(sorted(v.items()))) for k, v in sorted(overrides.items()))
    if sequences:
        if paths or world:
            raise click.UsageError("--sequences takes neither --path nor --world")
        return SequenceSpec(target=plugin, faults=faults, properties=properties)
    return PathSpec(
        target=plugin, faults=faults, world=world, properties=properties, paths=tuple(paths)
    )


def _upgrade_spec(spec: Any, old: str) -> Any:
    from sdk.exception import PlugsimError
    from sdk.testing.campaign.upgrade_mode import upgrade_spec

    try:
        return upgrade_spec(spec, old)
    except PlugsimError as ex:
        raise click.UsageError(str(ex)) from None


class _progress:
    """A rich progress bar on a terminal (text format), nothing otherwise."""

    def __init__(self, fmt: str) -> None:
        self.bar: Any = None
        if fmt == "text" and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("campaign"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[failures]} failed"),
                transient=True,
            )
            self.task = self.bar.add_task("runs", total=None, failures=0)

    def __enter__(self) -> Any:
        if self.bar is None:
            return None
        self.bar.start()

        def update(done: int, total: int, failures: int) -> None:
            self.bar.update(self.task, completed=done, total=total, failures=failures)

        return update

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def _print_text(outcome: Any, written: list[Path]) -> None:
    from sdk.testing.campaign.shrink_stack import shrunk_lines

    runs = len(outcome.results)
    click.echo(
        f"{runs} runs, {runs - outcome.failures} passed, {outcome.failures} failed; "
        f"{len(outcome.findings)} distinct failure(s); {outcome.seeds_per_second:.1f} seeds/s"
        + (" (resumed " + str(outcome.resumed) + ")" if outcome.resumed else "")
        + (" (stopped by --time-budget)" if outcome.stopped_early else "")
    )
    for number, finding in enumerate(outcome.findings, 1):
        click.echo("")
        label = "NONDETERMINISM " if finding.nondeterministic else ""
        click.echo(f"{number}. {label}{finding.signature.key()}")
        seeds = ", ".join(str(s) for s in finding.seeds[:10])
        more = f" ... ({len(finding.seeds)} seeds)" if len(finding.seeds) > 10 else ""
        click.echo(f"   seeds: {seeds}{more}")
        click.echo(f"   replay: {finding.replay}")
        if finding.verdict is not None:
            for line in finding.verdict.render().splitlines():
                if not line.lstrip().startswith("replay:"):
                    click.echo(f"   {line}")
        if finding.shrunk is not None:
            shrunk = finding.shrunk
            if shrunk.reproduced:
                click.echo(
                    f"   shrunk: {len(shrunk.faults)} injected fault(s) "
                    f"(from {len(outcome.results[finding.seeds[0]].faults)}, {shrunk.runs} runs)"
                )
                for fault in shrunk.faults:
                    click.echo(
                        f"     {fault['service']}.{fault['operation']} {fault['effect']} "
                        f"({fault.get('rule_name') or 'rule ' + str(fault.get('rule_index'))})"
                    )
                for line in shrunk_lines(shrunk):
                    click.echo(f"   {line}")
                if finding.shrunk_replay:
                    click.echo(f"   shrunk replay: {finding.shrunk_replay}")
            for note in shrunk.notes:
                click.echo(f"   note: {note}")
        steps = _steps(outcome.results[finding.seeds[0]].phases)
        if steps:
            click.echo("   shortest failing sequence:")
            for step in steps:
                click.echo(f"     {step}")
    for path in written:
        click.echo(f"wrote {path}")


def _steps(phases: Sequence[str]) -> list[str]:
    """The steps of a failing action sequence (``--sequences``), without the invariant checks."""
    lines = [p.strip() for p in phases if p.startswith("  ")]
    return [
        line for line in lines if not re.fullmatch(r"state\.\w+\(\)", line) or "teardown" in line
    ]
