"""``plugsim stack ...``: the OpenStack client's stack verbs on a simulated world."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from sdk import exception
from simulator import masking
from simulator.cli._shared import (
    Options,
    durability_option,
    emit_mapping,
    emit_rows,
    environment_options,
    format_option,
    parse_parameters,
    progress_listener,
    world_option,
)

pass_options = click.make_pass_decorator(Options)


def heat_wait_option(fn: Any) -> Any:
    """``--wait`` as the openstack client has it: here every verb returns when its action ends."""
    return click.option(
        "--wait",
        "heat_wait",
        is_flag=True,
        help="Return when the action has ended (what every plugsim verb does; accepted for "
        "openstack stack habits).",
    )(fn)


def hook_options(*kinds: str) -> Any:
    """``--pre-create RESOURCE`` ... : breakpoints added to the environment (simulator.hooks)."""

    def decorate(fn: Any) -> Any:
        for kind in reversed(kinds):
            fn = click.option(
                f"--{kind}",
                kind.replace("-", "_"),
                multiple=True,
                metavar="RESOURCE",
                help=f"Set a {kind} breakpoint on RESOURCE (repeatable; globs allowed); clear "
                "it with `plugsim stack hook clear` from another process.",
            )(fn)
        return fn

    return decorate


def hooks_environment(**hooks: Sequence[str]) -> list[dict[str, Any]]:
    """The environment that sets the breakpoints given on the command line (none: empty)."""
    table: dict[str, dict[str, list[str]]] = {}
    for kind, names in hooks.items():
        for resource in names or ():
            table.setdefault(resource, {"hooks": []})["hooks"].append(kind.replace("_", "-"))
    return [{"resource_registry": {"resources": table}}] if table else []


def _lifecycle() -> dict[str, Any]:
    """The ``stack`` group's lifecycle and durability options as World keyword arguments."""
    meta = click.get_current_context().meta.get(_LIFECYCLE_META) or {}
    return dict(meta)


def _read(opts: Options) -> Any:
    """Open the world read-only (a reader never changes a live stack)."""
    return opts.open_world(readonly=True)


def _message(opts: Options) -> Any:
    """Open the world to act on it, or read-only to leave a message for its live writer."""
    from simulator.store import WorldBusy

    try:
        return opts.open_world(**_lifecycle())
    except WorldBusy:
        return opts.open_world(readonly=True)


def _open(opts: Options, fmt: str = "table", **kwargs: Any) -> Any:
    world = opts.open_world(**_lifecycle(), **kwargs)
    listener = progress_listener(fmt)
    if listener is not None:
        world.listeners.append(listener)
    return world


def _finish(world: Any, stack: Any, fmt: str = "table") -> None:
    """Print the stack's final state; exit 1 when the action failed."""
    data = _stack_dict(stack) if fmt != "table" else None
    world.close()
    if data is not None:
        emit_mapping(data, fmt)
    else:
        click.echo(masking.scrub(f"{stack.name} {stack.state}: {stack.status_reason}"))
    if stack.status == "FAILED":
        raise click.exceptions.Exit(1)


def _stack_dict(stack: Any) -> dict[str, Any]:
    rec = stack.record
    return {
        "id": stack.id,
        "stack_name": stack.name,
        "stack_status": stack.state,
        "stack_status_reason": stack.status_reason,
        "creation_time": rec.created,
        "updated_time": rec.updated,
        "timeout_mins": stack.timeout_mins,
        "disable_rollback": stack.disable_rollback,
        "tags": list(rec.doc.get("tags") or []),
        "parameters": masking.mask_parameters(
            {
                k: (str(v) if not isinstance(v, str) else v)
                for k, v in sorted(stack.parameters.items())
            },
            stack.definition.hidden_parameters,
        ),
        "outputs": [
            {
                "output_key": o["output_key"],
                "output_value": o["output_value"],
                "description": o.get("description"),
                # Heat's stack show keeps an output's error next to its (null) value
                **({"output_error": o["output_error"]} if "output_error" in o else {}),
            }
            for o in stack.outputs()
        ]
        if stack.status != "IN_PROGRESS" and not rec.deleted
        else [],
        # which implementation file each list-mapped type resolved to (capabilities)
        "resolutions": stack.definition.resolutions(),
    }


def _capped(data: dict[str, Any], cap: int) -> dict[str, Any]:
    from simulator.limits import cap_text

    def cut(value: Any) -> str:
        return cap_text(value if isinstance(value, str) else json.dumps(value, default=str), cap)

    outputs = [{**o, "output_value": cut(o["output_value"])} for o in data["outputs"]]
    params = {k: cut(v) for k, v in data["parameters"].items()}
    return {**data, "parameters": params, "outputs": outputs}


def _print_cap(stack: Any) -> int:
    """How many characters of a value a table shows for *stack* (its limits)."""
    return stack.source.limit_values().max_printed_value_length


_LIFECYCLE_META = "plugsim.lifecycle"


@click.group()
@click.option(
    "--lifecycle-plugin",
    "lifecycle_plugins",
    multiple=True,
    metavar="MODULE:CLASS",
    help="A stack lifecycle plug-in to run around every action (repeatable; "
    "also PLUGSIM_LIFECYCLE_PLUGINS).",
)
@click.option(
    "--strict-lifecycle",
    is_flag=True,
    help="Fail an action whose lifecycle plug-in changes the stack.",
)
@durability_option
@click.pass_context
def stack(
    ctx: click.Context, lifecycle_plugins: Sequence[str], strict_lifecycle: bool, durability: str
) -> None:
    """Create, change and inspect stacks."""
    ctx.meta[_LIFECYCLE_META] = {
        "lifecycle_plugins": list(lifecycle_plugins),
        "strict_lifecycle": strict_lifecycle,
        "durability": durability,
    }


@stack.command("create")
@click.option(
    "-t", "--template", required=True, type=click.Path(dir_okay=False), help="The HOT template."
)
@environment_options
@click.option("--seed", type=int, help="Seed of a new world (an existing world keeps its own).")
@click.option("--faults", help="Fault profile: a preset (none, flaky, slow, chaos) or YAML file.")
@click.option("--timeout", type=float, help="Stack timeout in (virtual) minutes.")
@click.option("--enable-rollback", is_flag=True, help="Roll back (delete) on failure.")
@click.option("--tag", "tags", multiple=True, help="A stack tag (repeatable).")
@click.option(
    "--dry-run", is_flag=True, help="Validate and list what would be created; change nothing."
)
@hook_options("pre-create", "pre-update", "pre-delete")
@heat_wait_option
@world_option
@format_option()
@click.argument("name")
@pass_options
def create(
    opts: Options,
    pre_create: Sequence[str],
    pre_update: Sequence[str],
    pre_delete: Sequence[str],
    heat_wait: bool,
    template: str,
    environment: Sequence[str],
    parameters: Sequence[str],
    seed: int | None,
    faults: str | None,
    timeout: float | None,
    enable_rollback: bool,
    tags: Sequence[str],
    dry_run: bool,
    world_file: str | None,
    fmt: str,
    name: str,
) -> None:
    """Create stack NAME from a template."""
    params = parse_parameters(parameters)
    environment = [
        *environment,
        *hooks_environment(pre_create=pre_create, pre_update=pre_update, pre_delete=pre_delete),
    ]
    if dry_run:
        from simulator.cli.stack_inspect import preview_create

        world = opts.validation_world(world_file)  # read-only: a dry run changes nothing
        rows = preview_create(world, name, template, list(environment), params)
        emit_rows(rows, ["resource_name", "resource_type"], fmt)
        return
    world = _open(opts, fmt, seed=seed, faults=faults, world_file=world_file)
    stack = world.create_stack(
        name,
        template,
        list(environment),
        params,
        timeout_mins=timeout,
        disable_rollback=not enable_rollback,
        tags=list(tags),
    )
    _finish(world, stack, fmt)


@stack.command("update")
@click.option(
    "-t",
    "--template",
    type=click.Path(dir_okay=False),
    help="The new template (default: keep the current one).",
)
@environment_options
@click.option("--existing", is_flag=True, help="Keep the current template and parameters.")
@click.option("--timeout", type=float, help="Stack timeout in (virtual) minutes.")
@click.option("--rollback/--no-rollback", default=None, help="Roll back on failure.")
@click.option("--faults", help="Fault profile for this and later runs.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show which resources would be added, deleted, replaced, updated or left; change nothing.",
)
@hook_options("pre-update", "pre-delete")
@heat_wait_option
@format_option()
@click.argument("name")
@pass_options
def update(
    opts: Options,
    pre_update: Sequence[str],
    pre_delete: Sequence[str],
    heat_wait: bool,
    template: str | None,
    environment: Sequence[str],
    parameters: Sequence[str],
    existing: bool,
    timeout: float | None,
    rollback: bool | None,
    faults: str | None,
    dry_run: bool,
    fmt: str,
    name: str,
) -> None:
    """Update stack NAME (in place, replacing what must be replaced)."""
    if template is None and not existing and not parameters and not environment:
        raise click.UsageError("give -t/--template, --parameter or --existing")
    environment = [
        *environment,
        *hooks_environment(pre_update=pre_update, pre_delete=pre_delete),
    ]
    if dry_run:
        from simulator.cli.stack_inspect import preview_update

        world = opts.open_world()
        try:
            plan = preview_update(
                world,
                name,
                None if existing else template,
                list(environment),
                parse_parameters(parameters),
            )
        finally:
            world.close()
        rows = [{"resource_name": n, "change": c} for c, names in plan.items() for n in names]
        emit_rows(rows, ["resource_name", "change"], fmt)
        return
    world = _open(opts, fmt, faults=faults)
    stack = world.update_stack(
        name,
        None if existing or template is None else template,
        list(environment) or None,
        parse_parameters(parameters),
        timeout_mins=timeout,
        disable_rollback=None if rollback is None else not rollback,
    )
    _finish(world, stack, fmt)


def _simple(verb: str, help_text: str) -> None:
    @stack.command(verb, help=help_text)
    @heat_wait_option
    @format_option()
    @click.argument("name")
    @pass_options
    def command(opts: Options, heat_wait: bool, fmt: str, name: str) -> None:
        world = _open(opts, fmt)
        result = getattr(world, f"{verb}_stack")(name)
        _finish(world, result, fmt)


@stack.command("delete")
@click.option("-y", "--yes", is_flag=True, help="Do not ask (plugsim never asks).")
@heat_wait_option
@format_option()
@click.argument("name")
@pass_options
def delete(opts: Options, yes: bool, heat_wait: bool, fmt: str, name: str) -> None:
    """Delete stack NAME (dependants first)."""
    world = _open(opts, fmt)
    _finish(world, world.delete_stack(name), fmt)


_simple("suspend", "Suspend stack NAME.")
_simple("resume", "Resume stack NAME.")
_simple("check", "Check every resource of stack NAME.")


@stack.command("cancel")
@click.argument("name")
@pass_options
def cancel(opts: Options, name: str) -> None:
    """Cancel the in-progress update of stack NAME (it then rolls back)."""
    world = _message(opts)
    world.cancel_update(name)
    world.close()
    click.echo(f"Cancel requested for {name}")


@stack.command("abandon")
@click.option("--output-file", type=click.Path(dir_okay=False), help="Write the JSON here.")
@click.argument("name")
@pass_options
def abandon(opts: Options, output_file: str | None, name: str) -> None:
    """Forget stack NAME, leaving its physical resources; print its data as JSON."""
    world = opts.open_world(**_lifecycle())
    data = masking.mask_abandon(world.abandon_stack(name))
    world.close()
    text = json.dumps(data, indent=2, sort_keys=True, default=str)
    if output_file:
        Path(output_file).write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


@stack.command("adopt")
@click.option(
    "--adopt-file",
    required=True,
    type=click.Path(dir_okay=False),
    help="JSON written by `stack abandon`.",
)
@environment_options
@click.option("--timeout", type=float, help="Stack timeout in (virtual) minutes.")
@click.option("--enable-rollback", is_flag=True, help="Roll back on failure.")
@heat_wait_option
@format_option()
@click.argument("name")
@pass_options
def adopt(
    opts: Options,
    heat_wait: bool,
    adopt_file: str,
    environment: Sequence[str],
    parameters: Sequence[str],
    timeout: float | None,
    enable_rollback: bool,
    fmt: str,
    name: str,
) -> None:
    """Create stack NAME adopting the resources in an abandon file."""
    try:
        data = json.loads(Path(adopt_file).read_text(encoding="utf-8"))
    except json.JSONDecodeError as ex:
        raise exception.PlugsimError(f"{adopt_file}: not valid JSON ({ex})") from None
    if isinstance(data, dict):
        data = masking.unmask_adopt(data)
    world = _open(opts, fmt)
    result = world.adopt_stack(
        name,
        data,
        environment=list(environment),
        parameters=parse_parameters(parameters),
        timeout_mins=timeout,
        disable_rollback=not enable_rollback,
    )
    _finish(world, result, fmt)


@stack.group("output")
def output() -> None:
    """Stack outputs."""


@output.command("list")
@format_option()
@click.argument("name")
@pass_options
def output_list(opts: Options, fmt: str, name: str) -> None:
    """List the outputs of stack NAME."""
    world = _read(opts)
    rows = [
        {"output_key": o["output_key"], "description": o.get("description")}
        for o in world.get_stack(name).outputs()
    ]
    world.close()
    emit_rows(rows, ["output_key", "description"], fmt)


@output.command("show")
@format_option()
@click.option("--all", "show_all", is_flag=True, help="Show every output.")
@click.argument("name")
@click.argument("key", required=False)
@pass_options
def output_show(opts: Options, fmt: str, show_all: bool, name: str, key: str | None) -> None:
    """Show output KEY (or --all) of stack NAME."""
    if not key and not show_all:
        raise click.UsageError("give an output KEY or --all")
    world = _read(opts)
    shown = world.get_stack(name)
    outs, cap = shown.outputs(), _print_cap(shown)
    world.close()
    if not show_all:
        outs = [o for o in outs if o["output_key"] == key]
        if not outs:
            raise exception.EntityNotFound(entity="Output", name=key)
    if show_all:
        emit_rows(
            [
                {"output_key": o["output_key"], "output_value": o["output_value"]}
                | ({"output_error": o["output_error"]} if o.get("output_error") else {})
                for o in outs
            ],
            ["output_key", "output_value"]
            + (["output_error"] if any(o.get("output_error") for o in outs) else []),
            fmt,
            cap,
        )
    else:
        emit_mapping(dict(outs[0]), fmt, cap)


@stack.group("event")
def event() -> None:
    """Stack events."""


@event.command("list")
@format_option()
@click.option("--no-nested", is_flag=True, help="Leave out nested stacks' events.")
@click.argument("name")
@pass_options
def event_list(opts: Options, fmt: str, no_nested: bool, name: str) -> None:
    """List the events of stack NAME (virtual timestamps)."""
    world = _read(opts)
    rows = [ev.to_dict() for ev in world.stack_events(name, nested=not no_nested)]
    world.close()
    emit_rows(
        rows,
        [
            "id",
            "time",
            "stack_name",
            "resource_name",
            "action",
            "status",
            "reason",
            "physical_resource_id",
        ],
        fmt,
    )


@stack.group("resource")
def resource() -> None:
    """Stack resources."""


@resource.command("list")
@format_option()
@click.argument("name")
@pass_options
def resource_list(opts: Options, fmt: str, name: str) -> None:
    """List the resources of stack NAME."""
    world = _read(opts)
    st = world.get_stack(name)
    rows = [
        {
            "resource_name": r.name,
            "physical_resource_id": r.resource_id,
            "resource_type": r.type(),
            "resource_status": str(r.state),
            "resource_status_reason": r.status_reason,
        }
        for r in st.resources.values()
    ]
    world.close()
    emit_rows(
        rows,
        [
            "resource_name",
            "physical_resource_id",
            "resource_type",
            "resource_status",
            "resource_status_reason",
        ],
        fmt,
    )


@resource.command("signal")
@click.option(
    "--data", "data", metavar="JSON", help='The signal as JSON, e.g. \'{"status": "SUCCESS"}\'.'
)
@click.argument("name")
@click.argument("resource_name")
@pass_options
def resource_signal(opts: Options, data: str | None, name: str, resource_name: str) -> None:
    """Send a signal to resource RESOURCE_NAME of stack NAME."""
    details: Any = None
    if data is not None:
        try:
            details = json.loads(data)
        except ValueError as ex:
            raise click.BadParameter(f"not valid JSON: {ex}", param_hint="--data") from None
    world = _message(opts)
    try:
        record = world.signal_resource(name, resource_name, details)
    finally:
        world.close()
    if isinstance(record, dict):
        click.echo(json.dumps(record, sort_keys=True))
    else:
        click.echo(f"Signal sent to {resource_name} of stack {name}")
