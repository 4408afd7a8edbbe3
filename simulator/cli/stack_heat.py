"""``plugsim stack`` verbs the ``openstack stack`` client has: list with tags, show,
hooks, resource mark-unhealthy and metadata, snapshot show, environment show, file list
and export.

Each calls the world's stack API (:mod:`simulator.stack_api`), the one the
Orchestration API serves (:mod:`simulator.orchestration_wire`); none has a
code path of its own.
"""

from __future__ import annotations

import json
from typing import Any

import click
import yaml

from simulator import masking, stack_listing
from simulator.cli._shared import Options, emit_mapping, emit_rows, format_option
from simulator.cli.stack import _capped, _message, _print_cap, _read, _stack_dict

pass_options = click.make_pass_decorator(Options)


def register_heat_verbs(stack: click.Group, resource: click.Group, snapshot: click.Group) -> None:
    """Add this module's verbs to the ``stack``, ``stack resource`` and ``stack snapshot`` groups."""
    for command in (stack_list, show, hook, environment, files, export):
        stack.add_command(command)
    resource.add_command(resource_mark_unhealthy)
    resource.add_command(resource_metadata)
    snapshot.add_command(snapshot_show)


@click.command("list")
@click.option("--tags", "tags", multiple=True, metavar="TAG[,TAG]", help="Stacks with these tags.")
@click.option(
    "--tag-mode",
    type=click.Choice(sorted(stack_listing.TAG_MODES)),
    default="all",
    show_default=True,
    help="all: every tag; any: one of them; not: not all of them; not-any: none of them.",
)
@click.option("--nested", is_flag=True, help="List nested stacks too.")
@click.option("--deleted", is_flag=True, help="List deleted (and abandoned) stacks too.")
@format_option()
@pass_options
def stack_list(
    opts: Options, tags: tuple[str, ...], tag_mode: str, nested: bool, deleted: bool, fmt: str
) -> None:
    """List the stacks of the world."""
    world = _read(opts)
    try:
        records = stack_listing.select(
            world, stack_listing.tag_filter(tags, tag_mode), nested=nested, deleted=deleted
        )
        rows = [
            {
                "id": r.id,
                "stack_name": r.name,
                "stack_status": f"{r.action}_{r.status}",
                "creation_time": r.created,
                "updated_time": r.updated,
                "tags": ",".join(r.doc.get("tags") or []),
                **({"parent": r.parent_id} if nested else {}),
            }
            for r in records
        ]
    finally:
        world.close()
    columns = ["id", "stack_name", "stack_status", "creation_time", "updated_time"]
    if tags or any(row["tags"] for row in rows):
        columns.append("tags")
    emit_rows(rows, columns + (["parent"] if nested else []), fmt)


@click.command("show")
@format_option()
@click.argument("name")
@pass_options
def show(opts: Options, fmt: str, name: str) -> None:
    """Show stack NAME: status, reason, tags, parameters and outputs."""
    world = _read(opts)
    try:
        shown = world.get_stack(name)
        data = _stack_dict(shown)
    finally:
        world.close()
    if fmt == "table":  # each parameter and output cut on its own; -f json shows all
        data = _capped(data, _print_cap(shown))
    emit_mapping(data, fmt, -1)


# --- hooks -----------------------------------------------------------------------------------


@click.group("hook")
def hook() -> None:
    """Breakpoints (hooks) a stack's resources wait at."""


@hook.command("poll")
@format_option()
@click.argument("name")
@pass_options
def hook_poll(opts: Options, fmt: str, name: str) -> None:
    """List the breakpoints of stack NAME waiting to be cleared."""
    world = _read(opts)
    try:
        rows = [{"resource_name": r, "hook_type": h} for r, h in world.pending_hooks(name)]
    finally:
        world.close()
    emit_rows(rows, ["resource_name", "hook_type"], fmt)


@hook.command("clear")
@click.option("--pre-create", "kinds", flag_value="pre-create", multiple=True)
@click.option("--pre-update", "kinds", flag_value="pre-update", multiple=True)
@click.option("--pre-delete", "kinds", flag_value="pre-delete", multiple=True)
@click.argument("name")
@click.argument("resources", nargs=-1, required=True)
@pass_options
def hook_clear(
    opts: Options, kinds: tuple[str, ...], name: str, resources: tuple[str, ...]
) -> None:
    """Clear the breakpoints of RESOURCES of stack NAME (all pending ones without a kind)."""
    world = _message(opts)
    try:
        pending = world.pending_hooks(name)
        cleared = 0
        for resource in resources:
            for res_name, kind in pending:
                if res_name == resource and (not kinds or kind in kinds):
                    world.clear_hook(name, res_name, kind)
                    click.echo(f"Hook {kind} of {res_name} cleared")
                    cleared += 1
        if not cleared:
            raise click.ClickException(
                f"no pending hook of {', '.join(resources)} in stack {name}"
                " (see `plugsim stack hook poll`)"
            )
    finally:
        world.close()


# --- resources -------------------------------------------------------------------------------


@click.command("mark-unhealthy")
@click.option("--reset", is_flag=True, help="Mark the resource healthy again.")
@click.argument("name")
@click.argument("resource_name")
@click.argument("reason", required=False, default="")
@pass_options
def resource_mark_unhealthy(
    opts: Options, reset: bool, name: str, resource_name: str, reason: str
) -> None:
    """Mark RESOURCE_NAME of stack NAME unhealthy (CHECK_FAILED); the next update repairs it."""
    world = opts.open_world()
    try:
        res = world.mark_unhealthy(name, resource_name, not reset, reason)
        click.echo(f"{resource_name} {res.action}_{res.status}: {res.status_reason}")
    finally:
        world.close()


@click.command("metadata")
@click.argument("name")
@click.argument("resource_name")
@pass_options
def resource_metadata(opts: Options, name: str, resource_name: str) -> None:
    """Show the metadata of RESOURCE_NAME of stack NAME (JSON)."""
    from sdk import exception

    world = _read(opts)
    try:
        res = world.get_stack(name).resources.get(resource_name)
        if res is None:
            raise exception.EntityNotFound(entity="Resource", name=resource_name)
        data = res.metadata_get()
    finally:
        world.close()
    click.echo(masking.scrub(json.dumps(data, indent=2, sort_keys=True, default=str)))


@click.command("show")
@format_option()
@click.argument("name")
@click.argument("snapshot")
@pass_options
def snapshot_show(opts: Options, fmt: str, name: str, snapshot: str) -> None:
    """Show SNAPSHOT (id or name) of stack NAME, with the data kept per resource."""
    world = _read(opts)
    try:
        rec = world.find_snapshot(name, snapshot)
    finally:
        world.close()
    emit_mapping(
        {
            "id": rec.id,
            "name": rec.name,
            "status": rec.status,
            "status_reason": rec.reason,
            "creation_time": rec.created,
            "data": {"resources": rec.doc.get("resources", {})},
        },
        fmt,
        -1,
    )


# --- what a stack was made from ----------------------------------------------------------------


@click.group("environment")
def environment() -> None:
    """The environment a stack was made with."""


@environment.command("show")
@click.argument("name")
@pass_options
def environment_show(opts: Options, name: str) -> None:
    """Show the merged environment of stack NAME (YAML)."""
    world = _read(opts)
    try:
        source = world.get_stack(name).source
        env = source.merged_environment()
        env["parameters"] = {**env.get("parameters", {}), **source.parameters}
    finally:
        world.close()
    click.echo(masking.scrub(yaml.safe_dump(env, sort_keys=True)), nl=False)


@click.group("file")
def files() -> None:
    """The files a stack was given."""


@files.command("list")
@click.argument("name")
@pass_options
def file_list(opts: Options, name: str) -> None:
    """Show the files given with stack NAME (YAML: name -> content)."""
    world = _read(opts)
    try:
        files = dict(world.get_stack(name).source.files)
    finally:
        world.close()
    click.echo(yaml.safe_dump(files, sort_keys=True) if files else "{}\n", nl=False)


@click.command("export")
@click.option("--output-file", type=click.Path(dir_okay=False), help="Write the JSON here.")
@click.argument("name")
@pass_options
def export(opts: Options, output_file: str | None, name: str) -> None:
    """Print the abandon data of stack NAME without abandoning it (JSON)."""
    from pathlib import Path

    world = _read(opts)
    try:
        data: Any = masking.mask_abandon(world.export_stack(name))
    finally:
        world.close()
    text = json.dumps(data, indent=2, sort_keys=True, default=str)
    if output_file:
        Path(output_file).write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)
