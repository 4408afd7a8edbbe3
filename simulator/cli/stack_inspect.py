"""The OpenStack client's inspection verbs: resource show, event show, template show, failures list.

They only read a world. ``stack resource show`` resolves the resource's attributes as ``openstack stack
resource show`` does (which may call the fake cloud, as reading an attribute in a template would).
"""

from __future__ import annotations

import json
from typing import Any

import click
import yaml

from sdk import exception
from simulator.cli._shared import Options, emit_mapping, emit_rows, format_option

pass_options = click.make_pass_decorator(Options)


def _required_by(stack: Any, name: str) -> list[str]:
    graph = stack.dependency_graph()
    return graph.required_by(name) if name in graph else []


@click.command("show")
@format_option()
@click.argument("name")
@click.argument("resource_name")
@pass_options
def resource_show(opts: Options, fmt: str, name: str, resource_name: str) -> None:
    """Show RESOURCE_NAME of stack NAME: state, physical id, what requires it, its attributes."""
    world = opts.open_world()
    try:
        stack = world.get_stack(name)
        res = stack.resources.get(resource_name)
        if res is None:
            raise exception.EntityNotFound(entity="Resource", name=resource_name)
        attributes: dict[str, Any] = {}
        for attr in sorted(getattr(res, "attributes_schema", {}) or {}):
            if attr == "show":
                continue
            try:
                attributes[attr] = res.FnGetAtt(attr)
            except exception.PlugsimError as ex:
                attributes[attr] = f"<error: {ex}>"
        data = {
            "resource_name": res.name,
            "logical_resource_id": res.name,
            "physical_resource_id": res.resource_id,
            "resource_type": res.type(),
            "resource_status": str(res.state),
            "resource_status_reason": res.status_reason,
            "required_by": _required_by(stack, res.name),
            "attributes": attributes,
        }
    finally:
        world.close()
    emit_mapping(data, fmt)


@click.command("show")
@format_option()
@click.argument("name")
@click.argument("resource_name")
@click.argument("event_id", type=int)
@pass_options
def event_show(opts: Options, fmt: str, name: str, resource_name: str, event_id: int) -> None:
    """Show event EVENT_ID of RESOURCE_NAME in stack NAME (ids as ``stack event list`` shows)."""
    world = opts.open_world()
    try:
        events = world.stack_events(name, nested=True)
    finally:
        world.close()
    found = [e for e in events if e.id == event_id and e.resource_name == resource_name]
    if not found:
        raise exception.EntityNotFound(entity="Event", name=f"{event_id} of {resource_name}")
    emit_mapping(found[0].to_dict(), fmt)


@click.command("show")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["yaml", "json"]),
    default="yaml",
    show_default=True,
    help="Output format.",
)
@click.argument("name")
@pass_options
def template_show(opts: Options, fmt: str, name: str) -> None:
    """Print the template stack NAME was last created or updated with."""
    world = opts.open_world()
    try:
        template = world.get_stack(name).source.template
    finally:
        world.close()
    if fmt == "json":
        click.echo(json.dumps(template, indent=2))
    else:
        click.echo(yaml.safe_dump(template, sort_keys=False), nl=False)


def _failures(world: Any, stack: Any, prefix: str, depth: int = 0) -> list[dict[str, Any]]:
    """Failed resources of *stack* and, below each, of the nested stack it owns."""
    rows: list[dict[str, Any]] = []
    nested = {rec.id: rec for rec in world.store.list_stacks(parent_id=stack.id)}
    for res in stack.resources.values():
        if res.status != "FAILED":
            continue
        rows.append(
            {
                "resource": prefix + res.name,
                "resource_type": res.type(),
                "resource_status": str(res.state),
                "resource_status_reason": res.status_reason,
            }
        )
        if res.resource_id in nested and depth < 5:
            child = world.get_stack(res.resource_id)
            rows += _failures(world, child, f"{prefix}{res.name}.", depth + 1)
    return rows


@click.command("list")
@format_option()
@click.argument("name")
@pass_options
def failures_list(opts: Options, fmt: str, name: str) -> None:
    """List the failed resources of stack NAME and of its nested stacks, with their reasons."""
    world = opts.open_world()
    try:
        rows = _failures(world, world.get_stack(name), "")
    finally:
        world.close()
    if not rows and fmt == "table":
        click.echo(f"{name}: no failed resources")
        return
    emit_rows(rows, ["resource", "resource_type", "resource_status", "resource_status_reason"], fmt)


@click.group("failures")
def failures() -> None:
    """Failed resources of a stack."""


@click.group("template")
def template() -> None:
    """A stack's template."""


failures.add_command(failures_list)
template.add_command(template_show)


def register(stack: click.Group) -> None:
    """Add the inspection verbs to the ``stack`` group and its ``resource``/``event`` groups."""
    groups = stack.commands
    resource = groups["resource"]
    event = groups["event"]
    assert isinstance(resource, click.Group) and isinstance(event, click.Group)
    resource.add_command(resource_show)
    event.add_command(event_show)
    stack.add_command(template)
    stack.add_command(failures)


# --- previews (create/update --dry-run): the stack API's, as tables -----------------------------


def preview_update(
    world: Any, name: str, template: Any, environment: Any, parameters: Any
) -> dict[str, list[str]]:
    """What updating stack *name* would do, as ``openstack stack update --dry-run`` shows it.

    :meth:`StackAPI.preview_update_stack <simulator.stack_api.StackAPI.preview_update_stack>`
    (the Orchestration API's update preview too), names sorted per change.
    """
    changes = world.preview_update_stack(name, template, environment or None, parameters)
    return {k: sorted(r["resource_name"] for r in v) for k, v in changes.items()}


def preview_create(world: Any, name: str, template: Any, environment: Any, parameters: Any) -> Any:
    """The resources creating stack *name* would make (validated, nothing run or stored)."""
    doc = world.preview_stack(name, template, environment, parameters)
    rows: list[dict[str, Any]] = []
    todo = list(reversed(doc["resources"]))
    while todo:  # a template resource's entry is the list of its template's resources
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(reversed(item))
        else:
            rows.append(
                {"resource_name": item["resource_name"], "resource_type": item["resource_type"]}
            )
    return rows
