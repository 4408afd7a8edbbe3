"""Pictures from the command line: ``template graph``, ``stack graph``, ``stack timeline``, ``stack report``.

The commands only read a world; ``template graph`` builds its graph in a throw-away in-memory world.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from simulator.cli._shared import (
    Options,
    parse_parameters,
    untrusted_template_options,
)

pass_options = click.make_pass_decorator(Options)

_GRAPH_FORMATS = ("dot", "mermaid", "svg")


def _graph_format_option(fn: Any) -> Any:
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(_GRAPH_FORMATS),
        default=None,
        help="dot (Graphviz), mermaid or svg (laid out by plugsim, no Graphviz needed). "
        "Default: from the --output suffix, else dot.",
    )(fn)


def _output_option(help_text: str) -> Any:
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, writable=True),
        help=help_text,
    )


def _write(text: str, output: str | None) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    Path(output).write_text(text, encoding="utf-8")
    click.echo(f"wrote {output}", err=True)


def _render_graph(graph: Any, fmt: str | None, output: str | None) -> None:
    from simulator.views.graph import to_dot, to_mermaid, to_svg

    if fmt is None:
        suffix = Path(output).suffix.lstrip(".").lower() if output else ""
        fmt = {"svg": "svg", "mmd": "mermaid", "mermaid": "mermaid"}.get(suffix, "dot")
    render = {"dot": to_dot, "mermaid": to_mermaid, "svg": to_svg}[fmt]
    _write(render(graph), output)


@click.command("graph")
@untrusted_template_options("drawing")
@_graph_format_option
@_output_option("Write the graph to this file instead of standard output.")
@pass_options
def template_graph(
    opts: Options,
    template_path: str,
    environment: Sequence[str],
    parameters: Sequence[str],
    trust_project: bool,
    fmt: str | None,
    output: str | None,
) -> None:
    """Draw the dependency graph of a template (edges: get_resource, get_attr, depends_on)."""
    from simulator.template import StackDefinition
    from simulator.views.graph import from_definition
    from simulator.world import World

    with opts.heat_options():
        world = World(plugin_dirs=opts.plugin_dirs)
    try:
        args = (template_path, list(environment), parse_parameters(parameters))
        world.validate_template(*args, trust_project=trust_project)
        source = world.source(*args, project_plugins=trust_project)
        name = Path(template_path).stem
        definition = StackDefinition(
            source.load_template(),
            source.environment,
            dict(source.parameters),
            stack_name=name,
            stack_id=name,
            project_id=world.project_id,
        )
        graph = from_definition(definition, name)
    finally:
        world.close()
    _render_graph(graph, fmt, output)


@click.command("graph")
@_graph_format_option
@_output_option("Write the graph to this file instead of standard output.")
@click.argument("name")
@pass_options
def stack_graph(opts: Options, fmt: str | None, output: str | None, name: str) -> None:
    """Draw stack NAME's dependency graph with each resource's state; nested stacks as clusters."""
    from simulator.views.graph import from_stack

    world = opts.open_world(readonly=True)  # a reader never changes a live stack
    try:
        graph = from_stack(world.get_stack(name))
    finally:
        world.close()
    _render_graph(graph, fmt, output)


def _stack_page(world: Any, name: str) -> Any:
    """A :class:`RunPage` of everything stack NAME (and its nested stacks) recorded."""
    from simulator.views.graph import from_stack, to_svg
    from simulator.views.page import RunPage

    stack = world.get_stack(name, deleted_ok=True)
    ids = {stack.id}
    pending = [stack.id]
    while pending:  # the nested stacks, however deep, so their events are on the page too
        for rec in world.store.list_stacks(parent_id=pending.pop(), include_deleted=True):
            if rec.id not in ids:
                ids.add(rec.id)
                pending.append(rec.id)
    events = [e for e in world.store.events() if e.stack_id in ids]
    graph = stack.dependency_graph()
    live = not stack.record.deleted
    abandoned = stack.action == "ABANDON" and stack.status == "COMPLETE"
    if live:
        picture = to_svg(from_stack(stack))
    elif (
        abandoned
    ):  # its rows are gone but its resources live on: draw them as the events left them
        picture = to_svg(from_stack(stack, events=events))
    else:
        picture = ""
    return RunPage(
        title=f"stack {stack.name}",
        ok=stack.status != "FAILED",
        verdict="abandoned" if abandoned else "",
        seed=world.seed,
        summary=[("State", str(stack.state)), ("Reason", stack.status_reason)],
        events=events,
        faults=[f.to_dict() for f in world.cloud.injected_faults()],
        outputs=stack.outputs() if live and stack.status != "IN_PROGRESS" else [],
        graph_svg=picture,
        dependencies={"": {n: graph.requires(n) for n in graph}},
    )


@click.command("timeline")
@click.option(
    "--svg", "as_svg", is_flag=True, help="Print the timeline as SVG instead of for the terminal."
)
@_output_option("Write the timeline to this file instead of standard output.")
@click.argument("name")
@pass_options
def stack_timeline(opts: Options, as_svg: bool, output: str | None, name: str) -> None:
    """Draw the timeline of every action stack NAME went through, in virtual time."""
    from rich.console import Console

    from simulator.views.gantt import render_svg, render_terminal

    world = opts.open_world(readonly=True)  # a reader never changes a live stack
    try:
        page = _stack_page(world, name)
    finally:
        world.close()
    timeline = page.timeline()
    if as_svg or (output and output.lower().endswith(".svg")):
        _write(render_svg(timeline, title=page.title), output)
        return
    console = Console(highlight=False, soft_wrap=False)
    text = render_terminal(timeline, console.width)
    if output:
        Path(output).write_text(text.plain, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    else:
        console.print(text, end="")
    for line in timeline.describe_paths():
        click.echo(f"critical path {line}")


@click.command("report")
@_output_option("Where to write the HTML page (default: NAME.html).")
@click.argument("name")
@pass_options
def stack_report(opts: Options, output: str | None, name: str) -> None:
    """Write one self-contained HTML page about stack NAME: timeline, graph, events, faults."""
    from simulator.views.page import render_page

    world = opts.open_world(readonly=True)  # a reader never changes a live stack
    try:
        html = render_page(_stack_page(world, name))
    finally:
        world.close()
    target = output or f"{name}.html"
    Path(target).write_text(html, encoding="utf-8")
    click.echo(f"wrote {target}")
