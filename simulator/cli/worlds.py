"""``plugsim world``: world files - what a fake cloud holds before its first call.

``plugsim world show`` prints a world as a world file: a preset or file given
with ``--world``, else the world at ``--state`` as a run left it (when that
state exists), else the default world. ``plugsim world schema`` prints the
JSON schema world files are validated against.
"""

from __future__ import annotations

import json
import os

import click

from simulator.cli._shared import Options, world_option

pass_options = click.make_pass_decorator(Options)


@click.group()
def world() -> None:
    """Show world files and their schema."""


@world.command("show")
@world_option
@pass_options
def show(opts: Options, world_file: str | None) -> None:
    """Print a world's contents as a world file (YAML)."""
    from fake_clouds import worldfile

    source = world_file or opts.world
    if source is None and opts.state and opts.state != ":memory:" and os.path.exists(opts.state):
        opened = opts.open_world()
        try:
            cloud = opened.cloud
            if not hasattr(cloud, "service_names"):
                raise click.ClickException(
                    f"the fake cloud backend {opened.backend!r} cannot be written as a world file"
                )
            click.echo(worldfile.dump(worldfile.export(cloud)), nl=False)
        finally:
            opened.close()
        return
    cloud = worldfile.build(source if source is not None else "default", seed=0)
    click.echo(worldfile.dump(worldfile.export(cloud)), nl=False)


@world.command("schema")
def schema() -> None:
    """Print the JSON schema of world files."""
    from fake_clouds import worldfile

    click.echo(json.dumps(worldfile.schema(), indent=2))
