"""The quickstart's pictures, drawn at docs build time from a real run of the README's example.

``docs/conf.py`` calls :func:`write_example_pictures` when Sphinx starts, so the timeline and the graph in
the docs always show what the current code does with ``examples/three-tier`` (seed 0), never a pasted image.
"""

from __future__ import annotations

from pathlib import Path

from simulator.simulate import simulate
from simulator.views.gantt import render_svg
from simulator.views.graph import to_svg
from simulator.views.timeline import build_timeline


def write_example_pictures(root: Path, out_dir: Path) -> list[Path]:
    """Simulate ``examples/three-tier`` under *root* and write its timeline and graph as SVG."""
    example = root / "examples" / "three-tier"
    report = simulate(str(example / "stack.yaml"), [str(example / "env.yaml")], seed=0)
    out_dir.mkdir(parents=True, exist_ok=True)
    timeline = build_timeline(report.events, report.faults, report.dependencies)
    pictures = {
        "three-tier-timeline.svg": render_svg(timeline, title="Timeline of the three-tier example"),
        "three-tier-graph.svg": to_svg(report.graph),
    }
    written = []
    for name, text in pictures.items():
        path = out_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
