"""``plugsim stack snapshot create|list|delete`` and ``plugsim stack restore``."""

from __future__ import annotations

import click

from simulator.cli._shared import Options, emit_mapping, emit_rows, format_option
from simulator.cli.stack import _finish, _open, _read

pass_options = click.make_pass_decorator(Options)


@click.group("snapshot")
def snapshot() -> None:
    """Stack snapshots."""


@snapshot.command("create")
@click.option("--name", "snap_name", help="The snapshot's name (default: its id).")
@format_option()
@click.argument("name")
@pass_options
def snapshot_create(opts: Options, snap_name: str | None, fmt: str, name: str) -> None:
    """Snapshot stack NAME."""
    world = _open(opts, fmt)
    rec = world.snapshot_stack(name, snap_name)
    world.close()
    emit_mapping(
        {
            "id": rec.id,
            "name": rec.name,
            "status": rec.status,
            "status_reason": rec.reason,
            "creation_time": rec.created,
        },
        fmt,
    )
    if rec.status != "COMPLETE":
        raise click.exceptions.Exit(1)


@snapshot.command("list")
@format_option()
@click.argument("name")
@pass_options
def snapshot_list(opts: Options, fmt: str, name: str) -> None:
    """List the snapshots of stack NAME."""
    world = _read(opts)
    rows = [
        {
            "id": r.id,
            "name": r.name,
            "status": r.status,
            "status_reason": r.reason,
            "creation_time": r.created,
        }
        for r in world.list_snapshots(name)
    ]
    world.close()
    emit_rows(rows, ["id", "name", "status", "status_reason", "creation_time"], fmt)


@snapshot.command("delete")
@click.argument("name")
@click.argument("snapshot_id")
@pass_options
def snapshot_delete(opts: Options, name: str, snapshot_id: str) -> None:
    """Delete snapshot SNAPSHOT_ID (id or name) of stack NAME."""
    world = _open(opts)
    world.delete_snapshot(name, snapshot_id)
    world.close()
    click.echo(f"Deleted snapshot {snapshot_id}")


@click.command("restore")
@format_option()
@click.argument("name")
@click.argument("snapshot_id")
@pass_options
def restore(opts: Options, fmt: str, name: str, snapshot_id: str) -> None:
    """Restore stack NAME from snapshot SNAPSHOT_ID."""
    world = _open(opts, fmt)
    result = world.restore_stack(name, snapshot_id)
    _finish(world, result, fmt)
