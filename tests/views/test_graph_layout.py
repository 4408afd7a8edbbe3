"""The graph's layered layout: fewer crossings than the old one-pass columns, edges clear of boxes,
never-created resources drawn as such."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from simulator.views.graph import Node, StackGraph, to_dot, to_mermaid, to_svg
from simulator.views.layered import layout

SVG = "{http://www.w3.org/2000/svg}"

#: Template order chosen so that placing each column once by template order tangles the edges.
NAMES = [f"r{i}" for i in range(8)]
EDGES = [
    ("r1", "r3"),
    ("r3", "r4"),
    ("r2", "r4"),
    ("r0", "r5"),
    ("r4", "r6"),
    ("r1", "r6"),
    ("r0", "r7"),
]


def _segments_cross(p1, p2, p3, p4) -> bool:
    """True when the open segments p1-p2 and p3-p4 cross properly (shared ends do not count)."""

    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return 0 if abs(v) < 1e-6 else (1 if v > 0 else -1)

    if {p1, p2} & {p3, p4}:
        return False
    o1, o2, o3, o4 = orient(p1, p2, p3), orient(p1, p2, p4), orient(p3, p4, p1), orient(p3, p4, p2)
    return o1 * o2 < 0 and o3 * o4 < 0


def _crossings(polylines) -> int:
    segments = [
        (i, line[k], line[k + 1]) for i, line in enumerate(polylines) for k in range(len(line) - 1)
    ]
    return sum(
        1
        for n, (i, a, b) in enumerate(segments)
        for j, c, d in segments[n + 1 :]
        if i != j and _segments_cross(a, b, c, d)
    )


def _old_layout_polylines():
    """The layout before this one: longest-path columns, each sorted once by its requirements'
    mean position (ties by template order), straight edges between box centres."""
    requires = {n: [r for r, d in EDGES if d == n] for n in NAMES}
    level = {}
    for n in NAMES:  # the graph is ordered so requirements come first
        level[n] = 1 + max((level[r] for r in requires[n]), default=-1)
    columns = [[n for n in NAMES if level[n] == c] for c in range(max(level.values()) + 1)]
    position = {}
    for column in columns:
        column.sort(
            key=lambda n: (
                sum(position[r] for r in requires[n]) / len(requires[n])
                if requires[n]
                else NAMES.index(n),
                NAMES.index(n),
            )
        )
        position.update({n: float(i) for i, n in enumerate(column)})
    at = {n: (float(level[n]), position[n]) for n in NAMES}
    return [[at[r], at[d]] for r, d in EDGES]


def _svg_polylines(root):
    lines = [e for e in root.iter(f"{SVG}polyline") if "edge" in (e.get("class") or "")]
    return [[tuple(float(v) for v in p.split(",")) for p in e.get("points").split()] for e in lines]


def test_the_layered_layout_crosses_fewer_edges_than_the_old_columns():
    old = _crossings(_old_layout_polylines())
    graph = StackGraph(
        "g", [Node(n, "OS::Heat::None") for n in NAMES], [(r, d, "depends_on") for r, d in EDGES]
    )
    root = ET.fromstring(to_svg(graph))
    new = _crossings(_svg_polylines(root))
    assert (old, new) == (4, 0)
    assert layout(NAMES, EDGES).crossings() == 0


def test_long_edges_bend_around_boxes_instead_of_crossing_them():
    # a → d spans two layers; the nested stack box of `big` sits in the layer between.
    inner = StackGraph("inner", [Node("i1", "T"), Node("i2", "T")], [("i1", "i2", "get_resource")])
    graph = StackGraph(
        "g",
        [Node("a", "T"), Node("big", "T"), Node("d", "T")],
        [("a", "big", "get_resource"), ("a", "d", "depends_on"), ("big", "d", "get_attr")],
        {"big": inner},
    )
    root = ET.fromstring(to_svg(graph))
    boxes = {
        g.get("data-resource"): [
            float(g.find(f"{SVG}rect").get(k)) for k in ("x", "y", "width", "height")
        ]
        for g in root.iter(f"{SVG}g")
        if g.get("data-resource")
    }
    edges = _svg_polylines(root)
    assert len(edges) == 4
    outer = [line for line in edges if not _inside(line, boxes["big"])]
    assert len(outer) == 3  # the nested stack's own edge stays inside its owner's box
    for line in outer:
        for (x1, y1), (x2, y2) in zip(line, line[1:], strict=False):
            for k in range(1, 50):  # no point of any segment lies strictly inside any box
                px, py = x1 + (x2 - x1) * k / 50, y1 + (y2 - y1) * k / 50
                hit = [n for n, box in boxes.items() if _inside([(px, py)], box, margin=1)]
                assert not hit, (hit, line)


def _inside(points, box, margin=0.0) -> bool:
    bx, by, bw, bh = box
    return all(
        bx + margin < x < bx + bw - margin and by + margin < y < by + bh - margin for x, y in points
    )


def test_a_resource_never_created_is_drawn_as_such_not_in_success_green():
    graph = StackGraph(
        "g",
        [Node("net", "T", "CREATE_COMPLETE"), Node("db", "T", "INIT_COMPLETE")],
        [("net", "db", "get_resource")],
    )
    root = ET.fromstring(to_svg(graph))
    nodes = {g.get("data-resource"): g for g in root.iter(f"{SVG}g") if g.get("data-resource")}
    db, net = nodes["db"], nodes["net"]
    assert "not-created" in db.get("class").split()
    texts = [t.text for t in db.iter(f"{SVG}text")]
    assert "not created" in texts and "INIT_COMPLETE" not in texts
    rect = db.find(f"{SVG}rect")
    assert rect.get("fill") != net.find(f"{SVG}rect").get("fill")
    assert rect.get("stroke-dasharray")
    assert '"db" [label="db\\nT\\nnot created", style="filled,dashed"' in to_dot(graph)
    assert 'n_db["db<br/>T<br/>not created"]' in to_mermaid(graph)


def test_in_a_failed_run_the_resources_never_reached_are_drawn_not_created():
    from pathlib import Path

    from simulator.simulate import simulate

    example = Path(__file__).resolve().parents[2] / "examples" / "three-tier"
    # seed 0 under the flaky preset: db_volume fails, so db and the web tiers are never created
    run = simulate(str(example / "stack.yaml"), [str(example / "env.yaml")], seed=0, faults="flaky")
    assert not run.ok
    root = ET.fromstring(to_svg(run.graph))
    nodes = {g.get("data-resource"): g for g in root.iter(f"{SVG}g") if g.get("data-resource")}
    classes = {name: set(g.get("class").split()) for name, g in nodes.items()}
    assert {n for n, c in classes.items() if "not-created" in c} == {"db", "web1", "web2"}
    assert "failed" in classes["db_volume"] and "not-created" not in classes["net"]
    db_texts = [t.text for t in nodes["db"].iter(f"{SVG}text")]
    assert db_texts == ["db", "Example::Compute::Server", "not created"]
