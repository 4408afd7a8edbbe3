"""One self-contained HTML page for a run: summary, timeline, graph, events, faults, leaks, outputs.

The page needs no network (no CDN, no web font) and is readable without JavaScript: every table is
complete in the HTML and the timeline is drawn whole. A few lines of inline script only add a filter box
over the event table and the timeline's zoom (click a phase band, drag a time range, "Whole run" resets). Failed
resources are highlighted in the timeline, in the graph and in the event table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from simulator.events import Event, format_time
from simulator.views.gantt import render_svg
from simulator.views.timeline import Timeline, build_timeline, stack_paths
from simulator.views.zoom import SCRIPT as ZOOM_SCRIPT

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.ok { color: #1d7a1d; } .failed-run { color: #b22222; } .abandoned { color: #7a5a00; }
code, pre, td.mono { font-family: ui-monospace, 'DejaVu Sans Mono', Menlo, monospace; font-size: 12px; }
pre.replay { background: #f4f4f4; padding: .5rem; overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tr.failed td { background: #fde2e2; }
.picture { overflow-x: auto; border: 1px solid #eee; padding: 4px; }
#event-filter { margin: .5rem 0; padding: 3px; width: 24rem; }
#timeline svg { display: block; width: 100%; height: auto; }
#timeline g.phase { cursor: zoom-in; } #timeline svg { cursor: crosshair; user-select: none; }
#timeline-controls { margin: .3rem 0; font-size: 13px; }
#timeline-range { font-family: ui-monospace, monospace; margin: 0 .5rem; }
"""

_SCRIPT = """
(function () {
  var box = document.getElementById('event-filter');
  if (!box) { return; }
  box.hidden = false;
  box.addEventListener('input', function () {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    document.querySelectorAll('#events tbody tr').forEach(function (row) {
      var text = row.textContent.toLowerCase();
      row.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    });
  });
})();
"""


@dataclass
class RunPage:
    """What a report page shows; every field but ``title`` may be empty."""

    title: str
    ok: bool | None = None
    #: a word that says more than OK/FAILED (``abandoned``); shown instead of it
    verdict: str = ""
    seed: int | None = None
    replay: str = ""
    summary: list[tuple[str, str]] = field(default_factory=list)
    phases: list[Mapping[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    faults: list[Mapping[str, Any]] = field(default_factory=list)
    leaks: list[Mapping[str, Any]] = field(default_factory=list)
    outputs: list[Mapping[str, Any]] = field(default_factory=list)
    graph_svg: str = ""
    dependencies: Mapping[str, Mapping[str, Iterable[str]]] | None = None

    def timeline(self) -> Timeline:
        """The run's timeline (built from the events and faults)."""
        return build_timeline(self.events, self.faults, self.dependencies)


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, table_id: str = "") -> str:
    ident = f' id="{table_id}"' if table_id else ""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        css = ' class="failed"' if any("FAILED" in str(c) for c in row) else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{escape(_text(c))}</td>" for c in row) + "</tr>")
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, sort_keys=True, default=str)


def render_page(page: RunPage) -> str:
    """The page as one HTML document."""
    timeline = page.timeline()
    paths = stack_paths(page.events)
    verdict = ""
    if page.verdict:
        verdict = f' <span class="verdict {escape(page.verdict)}">{escape(page.verdict)}</span>'
    elif page.ok is not None:
        css, word = ("ok", "OK") if page.ok else ("failed-run", "FAILED")
        verdict = f' <span class="{css}">{word}</span>'
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(page.title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(page.title)}{verdict}</h1>",
    ]
    summary = list(page.summary)
    if page.seed is not None:
        summary.insert(0, ("Seed", str(page.seed)))
    summary.append(("Virtual time", f"{format_time(timeline.start)} → {format_time(timeline.end)}"))
    failed = timeline.failed()
    summary.append(("Failed actions", ", ".join(f"{s.row} {s.action}" for s in failed) or "none"))
    summary.append(("Critical path", "; ".join(timeline.describe_paths()) or "none"))
    parts.append(_table(["", ""], summary))
    if page.replay:
        parts.append(f'<h2>Replay</h2><pre class="replay">{escape(page.replay)}</pre>')
    if page.phases:
        parts.append("<h2>Phases</h2>")
        parts.append(
            _table(
                ["Phase", "State", "Virtual duration", "Reason"],
                (
                    [
                        p.get("phase", ""),
                        p.get("state", ""),
                        format_time(float(p.get("virtual_seconds") or 0.0)),
                        p.get("reason", ""),
                    ]
                    for p in page.phases
                ),
            )
        )
    parts.append(
        '<h2>Timeline</h2><div id="timeline-controls" hidden>'
        '<button id="timeline-reset" type="button">Whole run</button>'
        '<span id="timeline-range">whole run</span>'
        "Click a phase band or drag across the chart to zoom.</div>"
    )
    parts.append('<div class="picture" id="timeline">')
    parts.append(render_svg(timeline, title=f"Timeline of {page.title}"))
    parts.append("</div>")
    if page.graph_svg:
        parts.append(f'<h2>Dependencies</h2><div class="picture" id="graph">{page.graph_svg}</div>')
    parts.append("<h2>Events</h2>")
    parts.append(
        '<input id="event-filter" type="search" hidden '
        'placeholder="Filter events (words: resource, action, status, reason)">'
    )
    parts.append(
        _table(
            ["Virtual time", "Stack path", "Resource", "Action", "Status", "Reason"],
            (
                [
                    format_time(e.time),
                    paths.get(e.stack_id, "").rstrip("/") or e.stack_name,
                    e.resource_name,
                    e.action,
                    e.status if e.status != "FAILED" else "FAILED",
                    e.reason,
                ]
                for e in page.events
            ),
            table_id="events",
        )
    )
    parts.append("<h2>Injected faults</h2>")
    parts.append(
        _table(
            ["Virtual time", "Service", "Operation", "Effect", "Rule", "Entity"],
            (
                [
                    format_time(float(f.get("time") or 0.0)),
                    f.get("service"),
                    f.get("operation"),
                    f.get("effect"),
                    f.get("rule_name"),
                    f.get("entity_id"),
                ]
                for f in page.faults
            ),
        )
        if page.faults
        else "<p>None.</p>"
    )
    parts.append("<h2>Leaked fake-cloud resources</h2>")
    parts.append(
        _table(
            ["Service", "Kind", "Name", "Id", "Status"],
            (
                [x.get("service"), x.get("kind"), x.get("name"), x.get("id"), x.get("status")]
                for x in page.leaks
            ),
        )
        if page.leaks
        else "<p>None.</p>"
    )
    if page.outputs:
        parts.append("<h2>Outputs</h2>")
        parts.append(
            _table(
                ["Output", "Value", "Error"],
                (
                    [o.get("output_key"), o.get("output_value"), o.get("output_error")]
                    for o in page.outputs
                ),
            )
        )
    parts.append(f"<script>{_SCRIPT}{ZOOM_SCRIPT}</script></body></html>\n")
    return "\n".join(parts)
