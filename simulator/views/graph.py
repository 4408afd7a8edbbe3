"""A stack's dependency graph: nodes by type and state, edges by how the template made them (or
the type itself: ``implicit``).

:class:`StackGraph` is built from a template's definition (:func:`from_definition`) and, for a stack that
exists, carries each resource's state and the graphs of the nested stacks its resources own (drawn as
clusters). It is written as Graphviz DOT (:func:`to_dot`), as Mermaid (:func:`to_mermaid`) or as SVG
(:func:`to_svg`, laid out here in Python, so a fresh machine without Graphviz gets a picture).

Arrows point in creation order: from a requirement to the resource that needs it. The edge kinds are
``get_resource`` (also ``Ref``), ``get_attr`` (also ``Fn::GetAtt``) and ``depends_on``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from simulator.views import svg
from simulator.views.layered import Dummy, Layering, layout

#: How each edge kind is drawn: (SVG dash pattern, colour, DOT style, Mermaid arrow).
EDGE_STYLES = {
    "get_resource": ("", "#1f4e79", "solid", "-->"),
    "get_attr": ("6 4", "#6a3d9a", "dashed", "-.->"),
    "depends_on": ("2 3", "#555555", "dotted", "==>"),
    # what a type requires by itself (Heat's add_dependencies: a port after its network's subnets)
    "implicit": ("1 4", "#b15928", "bold", "--o"),
}


@dataclass(frozen=True)
class Node:
    """A resource: its name, type and state (None when the graph is of a template only)."""

    name: str
    type: str
    state: str | None = None


@dataclass
class StackGraph:
    """Nodes in template order, edges ``(requirement, dependant, kind)``, nested graphs by owner."""

    name: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    nested: dict[str, StackGraph] = field(default_factory=dict)

    def layering(self) -> Layering:
        """The layered layout of this graph's own nodes (see :mod:`simulator.views.layered`)."""
        return layout([n.name for n in self.nodes], [(req, dep) for req, dep, _ in self.edges])

    def layers(self) -> list[list[str]]:
        """Columns of a left-to-right layout: every resource one column right of its last requirement."""
        return [[i for i in layer if isinstance(i, str)] for layer in self.layering().layers]


def from_definition(
    definition: Any,
    name: str,
    states: Mapping[str, str] | None = None,
    nested: Mapping[str, StackGraph] | None = None,
) -> StackGraph:
    """Build the graph of a :class:`~simulator.template.definition.StackDefinition`."""
    states = states or {}
    types = {n: d.resource_type for n, d in definition.resource_definitions().items()}
    graph = StackGraph(name=name)
    graph.nodes = [Node(n, types[n], states.get(n)) for n in types]
    graph.edges = [(req, dep, kind) for dep, req, kind in definition.references()]
    graph.nested = dict(nested or {})
    return graph


def from_stack(
    stack: Any,
    *,
    depth: int = 0,
    max_depth: int = 5,
    events: Sequence[Any] | None = None,
) -> StackGraph:
    """The graph of a stack that exists: resource states, and its nested stacks as clusters.

    *stack* is an engine :class:`~simulator.stack.Stack`; nested stacks are found through its world's
    store (a nested stack's id is the physical id of the resource that owns it). Only reads.

    *events* (the stack's and its nested stacks') are for a stack whose resource rows are gone, an
    abandoned one: each resource is drawn in the last state its events reached, and nested stacks are
    followed through the physical ids the events name, deleted records included.
    """
    states = {name: str(res.state) for name, res in stack.resources.items()}
    owners = {res.resource_id: name for name, res in stack.resources.items() if res.resource_id}
    if events is not None:
        for ev in sorted(events, key=lambda e: e.id):
            if ev.stack_id == stack.id and not ev.is_stack_event:
                states[ev.resource_name] = f"{ev.action}_{ev.status}"
                if ev.physical_resource_id:
                    owners.setdefault(ev.physical_resource_id, ev.resource_name)
    nested: dict[str, StackGraph] = {}
    if depth < max_depth:
        records = stack.world.store.list_stacks(
            parent_id=stack.id, include_deleted=events is not None
        )
        for record in records:
            owner = owners.get(record.id)
            if owner is not None:
                child = stack.world.get_stack(record.id, deleted_ok=events is not None)
                nested[owner] = from_stack(
                    child, depth=depth + 1, max_depth=max_depth, events=events
                )
    graph = from_definition(stack.definition, stack.name, states, nested)
    explicit = {(req, dep) for req, dep, _ in graph.edges}
    order = stack.dependency_graph()
    graph.edges += [
        (req, dep, "implicit")
        for dep in order
        for req in order.requires(dep)
        if (req, dep) not in explicit and req in order
    ]
    return graph


# --- DOT and Mermaid ------------------------------------------------------------------------------


def _dot_id(*parts: str) -> str:
    return '"' + "/".join(parts).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: StackGraph) -> str:
    """The graph as Graphviz DOT; nested stacks become ``cluster_`` subgraphs."""
    lines = [f"digraph {_dot_id(graph.name)} {{", "  rankdir=LR;", "  node [shape=box];"]
    lines += _dot_body(graph, (), "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_body(graph: StackGraph, prefix: tuple[str, ...], indent: str) -> list[str]:
    lines = []
    for node in graph.nodes:
        label = "\\n".join(_node_lines(node))
        colour = svg.state_colour(node.state)
        style = '"filled,dashed"' if svg.never_created(node.state) else "filled"
        lines.append(
            f'{indent}{_dot_id(*prefix, node.name)} [label="{label}", style={style}, '
            f'fillcolor="{colour}"];'
        )
        inner = graph.nested.get(node.name)
        if inner is not None:
            lines.append(f"{indent}subgraph {_dot_id('cluster', *prefix, node.name)} {{")
            lines.append(f'{indent}  label="{node.name} ({inner.name})";')
            lines += _dot_body(inner, (*prefix, node.name), indent + "  ")
            lines.append(f"{indent}}}")
    for req, dep, kind in graph.edges:
        style = EDGE_STYLES[kind][2]
        lines.append(
            f"{indent}{_dot_id(*prefix, req)} -> {_dot_id(*prefix, dep)} "
            f'[style={style}, label="{kind}"];'
        )
    return lines


def _mermaid_id(*parts: str) -> str:
    return "n_" + "".join(c if c.isalnum() else f"_{ord(c):x}_" for c in "/".join(parts))


def to_mermaid(graph: StackGraph) -> str:
    """The graph as a Mermaid flowchart; nested stacks become subgraphs."""
    lines = ["flowchart LR"]
    lines += _mermaid_body(graph, (), "  ")
    return "\n".join(lines) + "\n"


def _mermaid_body(graph: StackGraph, prefix: tuple[str, ...], indent: str) -> list[str]:
    lines = []
    for node in graph.nodes:
        text = "<br/>".join(_node_lines(node))
        text = text.replace('"', "#quot;")
        lines.append(f'{indent}{_mermaid_id(*prefix, node.name)}["{text}"]')
        inner = graph.nested.get(node.name)
        if inner is not None:
            sub = _mermaid_id("cluster", *prefix, node.name)
            lines.append(f'{indent}subgraph {sub}["{node.name} ({inner.name})"]')
            lines += _mermaid_body(inner, (*prefix, node.name), indent + "  ")
            lines.append(f"{indent}end")
    for req, dep, kind in graph.edges:
        arrow = EDGE_STYLES[kind][3]
        lines.append(
            f"{indent}{_mermaid_id(*prefix, req)} {arrow}|{kind}| {_mermaid_id(*prefix, dep)}"
        )
    return lines


# --- SVG --------------------------------------------------------------------------------------------

_PAD, _COL_GAP, _ROW_GAP, _LINE, _DUMMY_W, _DUMMY_H = 10, 56, 18, 16, 20.0, 6.0


@dataclass
class _Box:
    x: float
    y: float
    w: float
    h: float
    node: Node
    inner: _Layout | None = None


@dataclass
class _Layout:
    w: float
    h: float
    boxes: dict[str, _Box]
    graph: StackGraph
    #: each long edge's bend points: (left x, right x, y) of its slot in every column it passes
    bends: dict[tuple[str, str], list[tuple[float, float, float]]] = field(default_factory=dict)


def _node_lines(node: Node) -> list[str]:
    """The text lines of a node's box: name, type, and its state (or that it was never created)."""
    if svg.never_created(node.state):
        return [node.name, node.type, "not created"]
    return [node.name, node.type] + ([node.state] if node.state else [])


def _layout(graph: StackGraph) -> _Layout:
    sizes: dict[str, tuple[float, float, _Layout | None]] = {}
    for node in graph.nodes:
        lines = _node_lines(node)
        w = max(svg.text_width(t) for t in lines) + 2 * _PAD
        h = len(lines) * _LINE + 2 * _PAD
        inner = graph.nested.get(node.name)
        sub = _layout(inner) if inner is not None else None
        if sub is not None:
            w = max(w, sub.w + 2 * _PAD)
            h += sub.h + _PAD
        sizes[node.name] = (w, h, sub)
    by_name = {n.name: n for n in graph.nodes}
    layering = graph.layering()
    boxes: dict[str, _Box] = {}
    slots: dict[Dummy, tuple[float, float, float]] = {}
    x = float(_PAD)
    height = 0.0
    for column in layering.layers:
        width = max([sizes[n][0] for n in column if isinstance(n, str)] + [_DUMMY_W])
        y = float(_PAD)
        for item in column:
            if isinstance(item, Dummy):  # an edge passing through: its own slot of the column
                slots[item] = (x, x + width, y + _DUMMY_H / 2)
                y += _DUMMY_H + _ROW_GAP
                continue
            w, h, sub = sizes[item]
            boxes[item] = _Box(x, y, width, h, by_name[item], sub)
            y += h + _ROW_GAP
        height = max(height, y - _ROW_GAP + _PAD)
        x += width + _COL_GAP
    bends = {pair: [slots[d] for d in chain] for pair, chain in layering.chains.items()}
    return _Layout(max(x - _COL_GAP + _PAD, 2 * _PAD), max(height, 2 * _PAD), boxes, graph, bends)


def _draw(layout: _Layout, dx: float, dy: float, prefix: str, out: list[str]) -> None:
    for box in layout.boxes.values():
        x, y = box.x + dx, box.y + dy
        node = box.node
        lines = _node_lines(node)
        if svg.never_created(node.state):
            css, stroke = (
                "node not-created",
                f'stroke="{svg.NOT_CREATED_STROKE}" stroke-dasharray="5 3"',
            )
        else:
            failed = node.state and node.state.endswith("FAILED")
            css, stroke = "node" + (" failed" if failed else ""), 'stroke="#333"'
        out.append(
            f'<g class="{css}" data-resource="{escape(prefix + node.name)}">'
            f"<title>{escape(prefix + node.name)}: {escape(node.state or 'no state')}</title>"
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{box.w:.1f}" height="{box.h:.1f}" rx="4" '
            f'fill="{svg.state_colour(node.state)}" {stroke}/>'
        )
        for i, text in enumerate(lines):
            weight = ' font-weight="bold"' if i == 0 else ""
            style = ' font-style="italic" fill="#666"' if text == "not created" and i == 2 else ""
            out.append(
                f'<text x="{x + _PAD:.1f}" y="{y + _PAD + (i + 0.8) * _LINE:.1f}"{weight}{style}>'
                f"{escape(text)}</text>"
            )
        if box.inner is not None:
            top = y + _PAD + len(lines) * _LINE
            out.append(
                f'<rect x="{x + _PAD / 2:.1f}" y="{top:.1f}" width="{box.w - _PAD:.1f}" '
                f'height="{box.inner.h:.1f}" fill="#ffffff" fill-opacity="0.6" '
                f'stroke="#999" stroke-dasharray="3 3"/>'
            )
            _draw(box.inner, x + _PAD, top, prefix + node.name + "/", out)
        out.append("</g>")
    for req, dep, kind in layout.graph.edges:
        a, b = layout.boxes.get(req), layout.boxes.get(dep)
        if a is None or b is None:
            continue
        dash, colour, _, _ = EDGE_STYLES[kind]
        points = [(a.x + a.w, a.y + min(a.h, 3 * _LINE) / 2)]
        for left, right, y in layout.bends.get((req, dep), ()):
            points += [(left, y), (right, y)]
        points.append((b.x, b.y + min(b.h, 3 * _LINE) / 2))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        coords = " ".join(f"{px + dx:.1f},{py + dy:.1f}" for px, py in points)
        out.append(
            f'<polyline class="edge {kind}" points="{coords}" fill="none" '
            f'stroke="{colour}"{dash_attr} marker-end="url(#arrow)"/>'
        )


def to_svg(graph: StackGraph) -> str:
    """The graph as a standalone SVG document (no external fonts, scripts or links)."""
    layout = _layout(graph)
    legend_h = 2 * _LINE
    body: list[str] = []
    _draw(layout, 0.0, 0.0, "", body)
    x = _PAD
    y = layout.h + _LINE
    for kind, (dash, colour, _, _) in EDGE_STYLES.items():
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        body.append(
            f'<line x1="{x}" y1="{y:.1f}" x2="{x + 30}" y2="{y:.1f}" stroke="{colour}"{dash_attr} '
            f'marker-end="url(#arrow)"/><text x="{x + 36}" y="{y + 4:.1f}">{kind}</text>'
        )
        x += 50 + int(svg.text_width(kind))
    width = max(layout.w, x)
    return svg.document(width, layout.h + legend_h, body, title=f"Dependencies of {graph.name}")
