"""The ``plugsim`` command line."""

from __future__ import annotations

import click

from sdk import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="plugsim")
def main() -> None:
    """plugsim: simulate cloud-orchestration plug-ins on fake clouds in virtual time."""
