"""Drawing a :class:`~simulator.views.timeline.Timeline`: in the terminal with rich, and as SVG.

One row per resource (a nested stack's resources indented under the resource that owns it), one bar per
action coloured by how it ended, the critical path drawn heavy, injected faults marked where they happened,
and a time axis in virtual ``HH:MM:SS.mmm``.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape

from rich.text import Text

from simulator.events import format_time
from simulator.views import svg
from simulator.views.timeline import Span, Timeline

_STYLES = {"COMPLETE": "green", "FAILED": "red", "IN_PROGRESS": "yellow"}


def _label(row: str) -> str:
    depth = row.count("/")
    return "  " * depth + row.rpartition("/")[2]


def render_terminal(timeline: Timeline, width: int = 100) -> Text:
    """The timeline as rich :class:`~rich.text.Text` fitting *width* columns."""
    out = Text()
    rows = timeline.rows()
    if not rows:
        out.append("(no resource actions)\n")
        return out
    label_w = min(max(len(_label(r)) for r in rows), max(12, width // 3))
    bar_w = max(width - label_w - 3, 10)
    span = max(timeline.end - timeline.start, 1e-9)

    def col(t: float) -> int:
        return min(bar_w - 1, max(0, int((t - timeline.start) / span * (bar_w - 1) + 0.5)))

    for row in rows:
        cells: list[tuple[str, str]] = [(" ", "")] * bar_w
        for s in (s for s in timeline.spans if s.row == row):
            critical = timeline.is_critical(s)
            char = "█" if critical else "▬"
            style = _STYLES.get(s.status, "white") + (" bold" if critical else " dim")
            for c in range(col(s.start), col(s.end) + 1):
                cells[c] = (char, style)
        for f in timeline.faults:
            if f.row == row:
                cells[col(f.time)] = ("✗", "bold red")
        out.append(
            _label(row)[:label_w].ljust(label_w) + " │", style="bold" if "/" not in row else ""
        )
        for char, style in cells:
            out.append(char, style=style)
        out.append("\n")
    loose = [f for f in timeline.faults if f.row is None]
    if loose:
        cells = [" "] * bar_w
        for f in loose:
            cells[col(f.time)] = "✗"
        out.append("(faults)".ljust(label_w) + " │")
        out.append("".join(cells), style="bold red")
        out.append("\n")
    left, right = format_time(timeline.start), format_time(timeline.end)
    axis = left + right.rjust(max(bar_w - len(left), len(right) + 1))
    out.append(" " * label_w + " └" + axis[:bar_w] + "\n", style="dim")
    out.append("█ critical path  ▬ other actions  ✗ injected fault\n", style="dim")
    out.append("green: complete  red: failed  yellow: unfinished\n", style="dim")
    return out


# --- SVG ----------------------------------------------------------------------------------------------

_ROW_H, _BAR_H, _TOP, _AXIS_H, _BAR_AREA = 20, 12, 26, 40, 1100.0
#: Fill of a phase band, alternating so that neighbouring phases are told apart.
_BANDS = ("#eef3fb", "#f7f1e6")


def _tick_step(duration: float, target: int = 8) -> float:
    if duration <= 0:
        return 1.0
    raw = duration / target
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def render_svg(timeline: Timeline, *, title: str = "Timeline") -> str:
    """The timeline as a standalone SVG document that scales to its container's width.

    Every element placed in time carries its virtual instants (``data-t0``/``data-t1``), and the
    document its scale (``data-start``, ``data-end``, ``data-left``, ``data-area``), so the report
    page's script can zoom by recomputing positions; without a script the whole run is drawn.
    """
    rows = timeline.rows()
    loose = [f for f in timeline.faults if f.row is None]
    all_rows = rows + (["(faults)"] if loose else [])
    label_w = max([svg.text_width(_label(r)) for r in all_rows] + [60.0]) + 16
    duration = max(timeline.end - timeline.start, 1e-9)
    scale = _BAR_AREA / duration
    width = label_w + _BAR_AREA + 40  # room for the last tick's time
    height = _TOP + len(all_rows) * _ROW_H + _AXIS_H
    y_of = {row: _TOP + i * _ROW_H for i, row in enumerate(all_rows)}
    axis_y = _TOP + len(all_rows) * _ROW_H

    def x(t: float) -> float:
        return label_w + (t - timeline.start) * scale

    # Several timelines may share a page (a campaign report): clip ids are named by the geometry they
    # clip, so two documents share an id only when their clip rectangles are the same.
    clip = f"timeline-{label_w * 10:.0f}-{height * 10:.0f}"
    body: list[str] = [
        f'<clipPath id="{clip}-area"><rect x="{label_w:.1f}" y="0" width="{_BAR_AREA:.1f}" '
        f'height="{height:.1f}"/></clipPath>'
        # a fault's cross at the very start or end is drawn whole
        f'<clipPath id="{clip}-marks"><rect x="{label_w - 8:.1f}" y="0" '
        f'width="{_BAR_AREA + 16:.1f}" height="{height:.1f}"/></clipPath>'
    ]
    body.append(f'<g class="phases" clip-path="url(#{clip}-area)">')
    for i, phase in enumerate(timeline.phases):
        x0, x1 = x(phase.start), max(x(phase.end), x(phase.start) + 2.0)
        times = f'data-t0="{phase.start!r}" data-t1="{phase.end!r}"'
        tip = (
            f"{phase.action} {phase.status}: {format_time(phase.start)} → {format_time(phase.end)}"
        )
        body.append(
            f'<g class="phase" data-phase="{escape(phase.action)}" {times}>'
            f"<title>{escape(tip)}</title>"
            f'<rect class="phase-band" {times} x="{x0:.1f}" y="2" width="{x1 - x0:.1f}" '
            f'height="{axis_y - 2:.1f}" fill="{_BANDS[i % 2]}" stroke="#c9d3e3"/>'
            f'<text class="phase-label" {times} x="{x0 + 4:.1f}" y="16" font-size="11" '
            f'font-weight="bold" fill="#3d4f6b">{escape(phase.action)}</text></g>'
        )
    body.append("</g>")
    for row in all_rows:
        y = y_of[row]
        weight = ' font-weight="bold"' if "/" not in row and row != "(faults)" else ""
        name = row.rpartition("/")[2]
        body.append(
            f'<text class="row-label" x="{4 + 14 * row.count("/")}" y="{y + 14}"{weight}>'
            f"{escape(name)}</text>"
        )
        body.append(
            f'<line x1="{label_w:.1f}" y1="{y + _ROW_H:.1f}" x2="{label_w + _BAR_AREA:.1f}" '
            f'y2="{y + _ROW_H:.1f}" stroke="#e4e4e4"/>'
        )
    body.append(f'<g class="ticks" data-axis-y="{axis_y}" data-top="{_TOP}">')
    step = _tick_step(duration)
    tick = math.ceil(timeline.start / step) * step
    while tick <= timeline.end + 1e-9:
        body.append(
            f'<line x1="{x(tick):.1f}" y1="{_TOP}" x2="{x(tick):.1f}" y2="{axis_y + 4}" '
            f'stroke="#d0d0d0"/><text x="{x(tick) - 40:.1f}" y="{axis_y + 16}" '
            f'font-size="10">{format_time(tick)}</text>'
        )
        tick += step
    body.append("</g>")
    body.append(f'<g class="bars" clip-path="url(#{clip}-area)">')
    for s in timeline.spans:
        x0 = x(s.start)
        w = max(x(s.end) - x0, 2.0)
        body.append(_bar(s, x0, y_of[s.row], w, timeline))
    body += _bar_labels(timeline, x, y_of, label_w, label_w + _BAR_AREA)
    body.append("</g>")
    body.append(f'<g class="marks" clip-path="url(#{clip}-marks)">')
    for f in timeline.faults:
        y = y_of[f.row if f.row is not None else "(faults)"] + _ROW_H / 2
        body.append(
            f'<g class="fault" data-t0="{f.time!r}" data-y="{y:.1f}" '
            f'transform="translate({x(f.time):.1f} {y:.1f})">'
            f"<title>{escape(format_time(f.time))} {escape(f.label)}</title>"
            f'<path d="M -5 -5 L 5 5 M -5 5 L 5 -5" stroke="{svg.FAULT}" stroke-width="2.5"/></g>'
        )
    body.append("</g>")
    legend_y = axis_y + 32
    body.append(
        f'<text x="4" y="{legend_y}" font-size="11">Bands: the stack\'s actions.  Short labels: '
        "C create, U update, S suspend, R resume, D delete.  Heavy outline: "
        f"critical path.  Green: complete; red: failed; yellow: unfinished.  Red cross: injected "
        f"fault.</text>"
    )
    scale_attrs = {
        "class": "timeline",
        "data-start": repr(timeline.start),
        "data-end": repr(max(timeline.end, timeline.start + 1e-9)),
        "data-left": f"{label_w:.1f}",
        "data-area": f"{_BAR_AREA:.1f}",
    }
    return svg.document(width, height, body, title=title, fluid=True, attrs=scale_attrs)


#: Width of a character of a bar's label (10 px monospace); the page's zoom script uses the same figure.
_LABEL_CHAR = 6.0
#: Short forms of the actions, for a label with no room for the whole word.
SHORT_ACTIONS = {
    "CREATE": "C",
    "UPDATE": "U",
    "SUSPEND": "S",
    "RESUME": "R",
    "DELETE": "D",
    "CHECK": "CK",
    "ADOPT": "A",
    "ROLLBACK": "RB",
    "SNAPSHOT": "SN",
    "RESTORE": "RS",
}


def short_action(action: str) -> str:
    """The short form of *action* (its first two letters when it has none of its own)."""
    return SHORT_ACTIONS.get(action, action[:2])


def place_labels(
    bars: list[tuple[float, float, str, str]], left: float, right: float
) -> list[tuple[str, float, bool]]:
    """Where each bar's label goes in one row: *bars* are ``(x0, x1, action, short)`` in time order.

    A label is written inside its bar when it fits; else beside it, right then left (left then right
    when the next bar follows at once), where it covers no bar and no label already placed in the row; else the short form the same way; else (nothing
    fits) whole, right of the bar. Returns ``(text, x, inside)`` per bar. The zoom script on the report
    page does the same after rescaling, so a zoomed chart is labelled by the same rule.
    """
    taken = [(x0, max(x1, x0 + 2.0)) for x0, x1, _, _ in bars]
    out: list[tuple[str, float, bool]] = []
    for i, (x0, x1, action, short) in enumerate(bars):
        x1 = max(x1, x0 + 2.0)
        following = bars[i + 1][0] if i + 1 < len(bars) else math.inf
        place = None
        for text in (action, short):
            width = len(text) * _LABEL_CHAR
            if width + 6 <= x1 - x0:
                place = (text, x0 + 3, True)
                break
            sides = (x1 + 3, x0 - width - 3)
            if following < x1 + width + 4:  # the next bar is right there: its label goes right
                sides = sides[::-1]
            for at in sides:
                free = all(at + width + 1 <= a or at - 1 >= b for a, b in taken)
                if free and at >= left and at + width <= right:
                    place = (text, at, False)
                    taken.append((at, at + width))
                    break
            if place is not None:
                break
        out.append(place or (action, x1 + 3, False))
    return out


def _bar_labels(
    timeline: Timeline, x: Any, y_of: dict[str, float], left: float, right: float
) -> list[str]:
    """Every bar's action label, row by row (see :func:`place_labels`)."""
    rows: dict[str, list[Span]] = {}
    for s in timeline.spans:
        rows.setdefault(s.row, []).append(s)
    out = []
    for row, spans in rows.items():
        spans.sort(key=lambda s: (s.start, s.first_event))
        bars = [(x(s.start), x(s.end), s.action, short_action(s.action)) for s in spans]
        for s, (text, at, inside) in zip(spans, place_labels(bars, left, right), strict=True):
            out.append(
                f'<text class="bar-label{" inside" if inside else ""}" data-row="{escape(row)}" '
                f'data-t0="{s.start!r}" data-t1="{s.end!r}" data-action="{escape(s.action)}" '
                f'data-short="{escape(short_action(s.action))}" x="{at:.1f}" '
                f'y="{y_of[row] + _ROW_H / 2 + 3.5:.1f}" font-size="10" fill="#1a1a1a">'
                f"{escape(text)}</text>"
            )
    return out


def _bar(s: Span, x: float, y: float, w: float, timeline: Timeline) -> str:
    critical = timeline.is_critical(s)
    css = f"bar {s.status.lower()}" + (" critical" if critical else "")
    stroke = (
        f'stroke="{svg.CRITICAL}" stroke-width="2.5"'
        if critical
        else 'stroke="#777" stroke-width="1"'
    )
    tip = f"{s.row} {s.action}_{s.status} {format_time(s.start)} → {format_time(s.end)}"
    if s.reason and s.reason != "state changed":
        tip += f": {s.reason}"
    return (
        f'<rect class="{css}" data-row="{escape(s.row)}" data-action="{s.action}" '
        f'data-t0="{s.start!r}" data-t1="{s.end!r}" '
        f'x="{x:.1f}" y="{y + (_ROW_H - _BAR_H) / 2:.1f}" width="{w:.1f}" height="{_BAR_H}" '
        f'fill="{svg.state_colour(s.status)}" {stroke}><title>{escape(tip)}</title></rect>'
    )
