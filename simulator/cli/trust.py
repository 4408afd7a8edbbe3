"""``plugsim trust``: the user's remembered decision to run a project's code.

See :mod:`simulator.project_trust` for the rule every command follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from simulator import project_trust


@click.command("trust")
@click.option("--list", "show", is_flag=True, help="List the trusted projects and exit.")
@click.option("--revoke", is_flag=True, help="Forget the trust in the given projects.")
@click.argument("projects", nargs=-1, type=click.Path(file_okay=False))
def trust(show: bool, revoke: bool, projects: Sequence[str]) -> None:
    """Trust PROJECTS (directories holding a plugsim.yaml) to run their code.

    plugsim runs the plug-ins and lifecycle plug-ins a project's plugsim.yaml
    lists only once you have trusted the project. The decision is kept in a file
    of your own (PLUGSIM_TRUST_FILE, default ~/.config/plugsim/trusted-projects.json)
    with the SHA-256 of the plugsim.yaml: an edit to it withdraws the trust.
    """
    if show:
        current = project_trust.trusted_projects()
        for directory, digest in current.items():
            config = Path(directory) / "plugsim.yaml"
            same = config.is_file() and project_trust.config_digest(config) == digest
            click.echo(f"{directory}  {'trusted' if same else 'changed since trusted'}")
        if not current:
            click.echo(f"no trusted projects ({project_trust.trust_file()})")
        return
    if not projects:
        raise click.UsageError("give the project directories to trust (or --list)")
    for project in projects:
        if revoke:
            found = project_trust.revoke(project)
            click.echo(f"{'revoked' if found else 'was not trusted'}: {Path(project).resolve()}")
            continue
        config = project_trust.trust(project)
        click.echo(
            f"trusted: {config.parent} (plugsim.yaml {project_trust.config_digest(config)[:12]})"
        )
