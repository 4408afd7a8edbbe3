"""The timeline drawn in the terminal and as SVG, and the dependency graph as DOT, Mermaid and SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from simulator.environment import Environment
from simulator.events import format_time
from simulator.simulate import simulate
from simulator.template import StackDefinition, load_template
from simulator.views.gantt import render_svg, render_terminal, short_action
from simulator.views.graph import StackGraph, from_definition, to_dot, to_mermaid, to_svg
from simulator.views.timeline import build_timeline

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def flaky_run():
    """Seed 3 under the flaky preset: web1 and web2 fail to create, faults are injected."""
    return simulate(
        str(EXAMPLE / "stack.yaml"), [str(EXAMPLE / "env.yaml")], seed=3, faults="flaky"
    )


def _lines(timeline, width):
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    console.print(render_terminal(timeline, width))
    return console.export_text().splitlines()


@pytest.mark.parametrize("width", [60, 100, 160])
def test_the_terminal_timeline_fits_the_width_and_marks_what_happened(flaky_run, width):
    timeline = build_timeline(flaky_run.events, flaky_run.faults, flaky_run.dependencies)
    lines = _lines(timeline, width)
    assert all(len(line) <= width for line in lines)
    pairs = [line.split("│", 1) for line in lines if "│" in line]
    labels = [label.rstrip() for label, _ in pairs]
    rows = {label.rstrip(): bar for label, bar in pairs}
    assert "█" in rows["db"] and "█" in rows["db_volume"]  # the create's critical path
    assert "█" not in rows["web1"]
    assert sum(bar.count("✗") for _, bar in pairs) == len(flaky_run.faults)
    assert labels[labels.index("web1") + 1] == "  server"  # nested rows indented under their owner
    axis = next(line for line in lines if "└" in line)
    end = max(e.time for e in flaky_run.events)
    assert end > 30  # the run lasted, so the axis has two distinct ends
    assert "00:00:00.000" in axis and format_time(end) in axis


def test_the_svg_timeline_has_a_bar_per_action_coloured_by_outcome(flaky_run):
    timeline = build_timeline(flaky_run.events, flaky_run.faults, flaky_run.dependencies)
    root = ET.fromstring(render_svg(timeline))
    bars = root.findall(f".//{SVG}rect[@data-row]")
    assert len(bars) == len(timeline.spans)
    failed = {b.get("data-row") for b in bars if "failed" in b.get("class").split()}
    assert failed == {s.row for s in timeline.failed()} and "web1" in failed
    critical = {b.get("data-row") for b in bars if "critical" in b.get("class").split()}
    assert {"db_volume", "db"} <= critical
    assert len(root.findall(f".//{SVG}g[@class='fault']")) == len(flaky_run.faults)
    assert root.find(f"{SVG}title").text == "Timeline"


def test_the_svg_timeline_labels_every_bar_with_its_action_and_bands_the_phases(tmp_path):
    from click.testing import CliRunner

    from simulator.cli import main

    state = tmp_path / "w.db"
    stack = str(EXAMPLE / "stack.yaml")
    runner = CliRunner()
    for args in (
        ["stack", "create", "s1", "-t", stack, "-e", str(EXAMPLE / "env.yaml")],
        ["stack", "suspend", "s1"],
        ["stack", "resume", "s1"],
        ["stack", "delete", "s1"],
    ):
        result = runner.invoke(main, ["--state", str(state), *args], catch_exceptions=False)
        assert result.exit_code == 0, (args, result.output)
    out = tmp_path / "t.svg"
    result = runner.invoke(
        main, ["--state", str(state), "stack", "timeline", "s1", "--svg", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    root = ET.fromstring(out.read_text())
    bars = root.findall(f".//{SVG}rect[@data-row]")
    labels = root.findall(f".//{SVG}text[@class]")
    written = [t for t in labels if t.get("class").startswith("bar-label")]
    # every bar has its action written next to it, readable without hovering
    assert sorted((t.get("data-row"), t.get("data-action")) for t in written) == sorted(
        (b.get("data-row"), b.get("data-action")) for b in bars
    )
    assert all(
        t.text in (t.get("data-action"), short_action(t.get("data-action"))) for t in written
    )
    assert {t.text for t in written} >= {"CREATE", "SUSPEND", "RESUME", "DELETE"}
    # labels beside their bars never cover another bar or label of their row
    by_row: dict = {}
    for t in written:
        if "inside" not in t.get("class").split():
            x0 = float(t.get("x"))
            by_row.setdefault(t.get("data-row"), []).append((x0, x0 + 6 * len(t.text), "label"))
    for b in bars:
        x0, w = float(b.get("x")), float(b.get("width"))
        by_row.setdefault(b.get("data-row"), []).append((x0, x0 + w, "bar"))
    overlaps = [
        (row, p, q)
        for row, spans in by_row.items()
        for i, p in enumerate(spans)
        for q in spans[i + 1 :]
        if "label" in (p[2], q[2]) and p[0] < q[1] - 0.5 and q[0] < p[1] - 0.5
    ]
    assert overlaps == []
    phases = root.findall(f".//{SVG}g[@class='phase']")
    assert [p.get("data-phase") for p in phases] == ["CREATE", "SUSPEND", "RESUME", "DELETE"]
    for phase in phases:  # a labelled band that spans every row
        band = phase.find(f"{SVG}rect[@class='phase-band']")
        assert phase.find(f"{SVG}text").text == phase.get("data-phase")
        rows_bottom = max(float(b.get("y")) + float(b.get("height")) for b in bars)
        assert float(band.get("y")) < min(float(b.get("y")) for b in bars)
        assert float(band.get("y")) + float(band.get("height")) >= rows_bottom
        assert float(band.get("width")) > 0
    # it fills its container's width: a viewBox, width 100%, no fixed height
    assert root.get("width") == "100%" and root.get("height") is None
    assert len(root.get("viewBox").split()) == 4


def test_timelines_sharing_a_page_do_not_borrow_each_others_clip(flaky_run):
    full = build_timeline(flaky_run.events, flaky_run.faults)
    half = build_timeline([e for e in flaky_run.events if e.resource_name in ("net", "db")], [])
    ids = []
    for timeline in (full, half):
        root = ET.fromstring(render_svg(timeline))
        own = {c.get("id") for c in root.iter(f"{SVG}clipPath")}
        used = {g.get("clip-path")[5:-1] for g in root.iter(f"{SVG}g") if g.get("clip-path")}
        assert used and used <= own
        ids.append(own)
    assert not ids[0] & ids[1]  # different shapes, different ids: one page can hold both


TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  net: {type: OS::Heat::None}
  port:
    type: OS::Heat::Value
    properties: {value: {get_resource: net}}
  server:
    type: OS::Heat::Value
    depends_on: [net]
    properties: {value: {get_attr: [port, value]}}
  lonely: {type: OS::Heat::None}
"""


@pytest.fixture
def graph(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    definition = StackDefinition(
        load_template(str(path)), Environment(), {}, stack_name="demo", stack_id="demo-id"
    )
    return from_definition(definition, "demo")


def test_edges_say_how_the_template_made_them(graph):
    assert graph.edges == [
        ("net", "port", "get_resource"),
        ("net", "server", "depends_on"),
        ("port", "server", "get_attr"),
    ]
    assert graph.layers() == [["net", "lonely"], ["port"], ["server"]]


def test_dot_and_mermaid_carry_nodes_edges_and_nested_clusters(graph):
    inner = StackGraph("demo-inner", [graph.nodes[0]], [])
    graph.nested["server"] = inner
    dot = to_dot(graph)
    assert '"net" -> "port" [style=solid, label="get_resource"];' in dot
    assert '"port" -> "server" [style=dashed, label="get_attr"];' in dot
    assert 'subgraph "cluster/server"' in dot and '"server/net"' in dot
    mermaid = to_mermaid(graph)
    assert mermaid.startswith("flowchart LR\n")
    assert "n_net -.->|get_attr|" not in mermaid and "n_port -.->|get_attr| n_server" in mermaid
    assert 'subgraph n_cluster_2f_server["server (demo-inner)"]' in mermaid


def test_the_svg_graph_needs_no_graphviz_and_draws_nested_stacks_inside_their_owner(graph):
    graph.nested["server"] = StackGraph("demo-inner", [graph.nodes[0]], [])
    root = ET.fromstring(to_svg(graph))
    nodes = {g.get("data-resource"): g for g in root.iter(f"{SVG}g") if g.get("data-resource")}
    assert set(nodes) == {"net", "port", "server", "lonely", "server/net"}
    assert nodes["server"].find(f".//{SVG}g[@data-resource='server/net']") is not None
    x = {n: float(g.find(f"{SVG}rect").get("x")) for n, g in nodes.items()}
    assert x["net"] < x["port"] < x["server"]  # requirements left of what needs them
    edges = [e for e in root.iter(f"{SVG}polyline") if "edge" in (e.get("class") or "")]
    assert sorted(e.get("class") for e in edges) == [
        "edge depends_on",
        "edge get_attr",
        "edge get_resource",
    ]


def test_a_stack_graph_shows_states(flaky_run):
    states = {n.name: n.state for n in flaky_run.graph.nodes}
    assert states["web1"] == "CREATE_FAILED" and states["net"] == "CREATE_COMPLETE"
    root = ET.fromstring(to_svg(flaky_run.graph))
    failed = [
        g.get("data-resource") for g in root.iter(f"{SVG}g") if "failed" in (g.get("class") or "")
    ]
    assert sorted(failed) == ["web1", "web1/data", "web2", "web2/server"]
    assert sorted(flaky_run.graph.nested) == ["web1", "web2"]


def test_a_stack_graph_draws_what_a_type_requires_by_itself():
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "implicit_deps"
    report = simulate(str(fixture / "port_server_subnet.yaml"), seed=0)
    implicit = sorted((req, dep) for req, dep, kind in report.graph.edges if kind == "implicit")
    assert implicit == [("subnet", "port"), ("subnet", "server")]
    assert ("net", "port", "get_resource") in report.graph.edges
    assert '"subnet" -> "port" [style=bold, label="implicit"];' in to_dot(report.graph)
    root = ET.fromstring(to_svg(report.graph))
    kinds = [
        e.get("class") for e in root.iter(f"{SVG}polyline") if "edge" in (e.get("class") or "")
    ]
    assert kinds.count("edge implicit") == 2
    assert report.dependencies[""]["port"] == ["net", "subnet"]
