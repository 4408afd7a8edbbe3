"""The little SVG vocabulary the pictures share: colours by outcome, text widths, the document frame."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape

#: Fill colour of a bar or node by how it ended.
COLOURS = {
    "COMPLETE": "#b7e1b0",
    "FAILED": "#f4a6a6",
    "IN_PROGRESS": "#fde49c",
    None: "#e6e6e6",
}
#: Stroke of a span on the critical path, and of an injected fault's marker.
CRITICAL = "#1a1a1a"
FAULT = "#c0392b"
#: Monospace text: every character is this many pixels wide at the document's font size.
CHAR_WIDTH = 7.2
FONT = "font-family: ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px"


#: Fill and stroke of a resource that was never created (its state is still ``INIT_*``).
NOT_CREATED = "#f2f2f2"
NOT_CREATED_STROKE = "#999999"


def never_created(state: str | None) -> bool:
    """True when *state* says the resource was never created (``INIT_COMPLETE`` and the like)."""
    return bool(state) and str(state).startswith("INIT_")


def state_colour(state: str | None) -> str:
    """The fill of a node or bar in *state* (``CREATE_COMPLETE``, ``FAILED`` ...; None: unknown)."""
    if not state:
        return COLOURS[None]
    if never_created(state):
        return NOT_CREATED
    for outcome in ("COMPLETE", "FAILED", "IN_PROGRESS"):
        if state.endswith(outcome):
            return COLOURS[outcome]
    return COLOURS[None]


def text_width(text: str) -> float:
    """Width in pixels of *text* in the documents' monospace font."""
    return len(text) * CHAR_WIDTH


def document(
    width: float,
    height: float,
    body: Iterable[str],
    *,
    title: str,
    fluid: bool = False,
    attrs: Mapping[str, str] | None = None,
) -> str:
    """A standalone SVG document around *body* (an arrow marker is defined as ``#arrow``).

    A *fluid* document is ``width="100%"`` and scales with its container (its viewBox keeps the
    proportions); *attrs* are added to the root element.
    """
    size = 'width="100%"' if fluid else f'width="{width:.0f}" height="{height:.0f}"'
    extra = "".join(f' {k}="{escape(v, {chr(34): "&quot;"})}"' for k, v in (attrs or {}).items())
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" {size} '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img"{extra} style="{FONT}">'
        f"<title>{escape(title)}</title>"
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
        'fill="#444"/></marker></defs>'
        f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(body) + "</svg>\n"
    )
