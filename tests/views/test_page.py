"""The report page: self-contained, complete without JavaScript, and right in a real browser."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from simulator.simulate import simulate
from simulator.views.page import render_page
from simulator.views.svg import COLOURS

from ._png import count_colour, read_png

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"
SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Collector(HTMLParser):
    """Collects the tags, the event table's rows and every URL-bearing attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.rows: list[list[str]] = []
        self.row_classes: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        for key in ("href", "src"):
            if key in attrs:
                self.urls.append(attrs[key])
        if tag == "table":
            self._table = attrs.get("id")
        if tag == "tr" and self._table == "events":
            self.rows.append([])
            self.row_classes.append(attrs.get("class") or "")
        if tag == "td" and self._table == "events":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        if tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _run(seed, faults=None):
    return simulate(
        str(EXAMPLE / "stack.yaml"), [str(EXAMPLE / "env.yaml")], seed=seed, faults=faults
    )


@pytest.fixture(scope="module")
def failed_page(tmp_path_factory):
    report = _run(3, "flaky")
    assert not report.ok
    path = tmp_path_factory.mktemp("page") / "failed.html"
    path.write_text(render_page(report.to_page()), encoding="utf-8")
    return report, path


def test_the_page_is_self_contained_and_complete_without_javascript(failed_page):
    report, path = failed_page
    html = path.read_text()
    page = Collector()
    page.feed(html)
    assert page.urls == [] and "<link" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html
    body = [row for row in page.rows if row]
    assert len(body) == len(report.events)
    failed = [
        row for row, css in zip(page.rows[1:], page.row_classes[1:], strict=True) if css == "failed"
    ]
    assert failed and all(row[4] == "FAILED" for row in failed)
    assert ["00:00:15.815", "web2", "server", "CREATE", "FAILED"] == failed[1][:5]
    assert report.replay() in html
    assert "CREATE: db_volume → db" in html


def _browse(path: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1400,1100",
            *args,
            path.as_uri(),
        ],
        capture_output=True,
        timeout=90,
        check=True,
    )


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


@pytest.mark.material
@pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_a_browser_shows_the_failed_resources_in_red_and_runs_the_filter(failed_page, tmp_path):
    report, failed_path = failed_page
    ok_path = tmp_path / "ok.html"
    ok_report = _run(0)
    assert ok_report.ok
    ok_path.write_text(render_page(ok_report.to_page()), encoding="utf-8")
    pixels = {}
    for name, path in (("failed", failed_path), ("ok", ok_path)):
        shot = tmp_path / f"{name}.png"
        _browse(path, tmp_path, f"--screenshot={shot}")
        _, _, rows = read_png(shot.read_bytes())
        pixels[name] = (
            count_colour(rows, _rgb(COLOURS["FAILED"])),
            count_colour(rows, _rgb(COLOURS["COMPLETE"])),
        )
    # A person sees red bars and nodes only where something failed, and green ones in both runs.
    assert pixels["failed"][0] > 2000 and pixels["failed"][1] > 2000
    assert pixels["ok"][0] == 0 and pixels["ok"][1] > 2000
    dom = _browse(failed_path, tmp_path, "--dump-dom").stdout.decode()
    assert '<input id="event-filter" type="search" placeholder' in dom  # the script un-hid it
    assert dom.count('class="bar failed') == len([s for s in report.to_page().timeline().failed()])


def test_the_timeline_fills_the_page_and_its_zoom_is_only_added_by_the_script(failed_page):
    _, path = failed_page
    html = path.read_text()
    start = html.index('<div class="picture" id="timeline">')
    svg = html[html.index("<svg", start) : html.index("</svg>", start) + 6]
    root = ET.fromstring(svg)
    assert root.get("width") == "100%" and root.get("height") is None
    _, _, vb_w, _ = (float(v) for v in root.get("viewBox").split())
    assert float(root.get("data-left")) + float(root.get("data-area")) < vb_w
    assert float(root.get("data-start")) == 0.0 and float(root.get("data-end")) > 30
    # without JavaScript the zoom controls stay hidden and the whole run is drawn
    assert '<div id="timeline-controls" hidden>' in html
    assert "max-width" not in html[: html.index("</style>")]
    phases = [g for g in root.iter(f"{SVG}g") if g.get("class") == "phase"]
    assert [g.get("data-phase") for g in phases] == ["CREATE", "DELETE"]
    script = html[html.rindex("<script>") + 8 : html.rindex("</script>")]
    assert "timeline-reset" in script and "data-t0" in script


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_script_parses(failed_page, tmp_path):
    _, path = failed_page
    html = path.read_text()
    script = tmp_path / "page.js"
    script.write_text(html[html.rindex("<script>") + 8 : html.rindex("</script>")])
    result = subprocess.run(["node", "--check", str(script)], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode()


@pytest.mark.material
@pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_a_browser_draws_the_timeline_across_the_whole_window(failed_page, tmp_path):
    from simulator.views.gantt import _BANDS

    _, path = failed_page
    shot = tmp_path / "wide.png"
    _browse(path, tmp_path, f"--screenshot={shot}")
    width, _, rows = read_png(shot.read_bytes())
    bands = {_rgb(c) for c in _BANDS}
    columns = [x for row in rows for x in range(width) if tuple(row[3 * x : 3 * x + 3]) in bands]
    # the phase bands reach the right tenth of a 1400-pixel window: the chart is not fixed-width
    assert columns and max(columns) > 0.9 * width


def _dom(html: str) -> list[dict]:
    """The timeline's controls and SVG elements, flat, each with its parent's index."""
    start = html.index('<div id="timeline-controls"')
    end = html.index("</svg>", start) + 6
    fragment = html[start:end].replace('<div class="picture" id="timeline">', "")
    root = ET.fromstring(f"<root>{fragment}</root>".replace("hidden>", 'hidden="">', 1))
    out: list[dict] = []

    def walk(el, parent):
        tag = el.tag.rpartition("}")[2]
        out.append({"tag": tag, "attrs": dict(el.attrib), "text": el.text or "", "parent": parent})
        me = len(out) - 1
        for child in el:
            walk(child, me)

    for child in root:
        walk(child, None)
    return out


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_zoom_rescales_the_axis_to_a_phase_or_a_dragged_range_and_resets(failed_page):
    import json

    from simulator.events import format_time

    _, path = failed_page
    html = path.read_text()
    elements = _dom(html)
    svg = next(e["attrs"] for e in elements if e["tag"] == "svg")
    left, area = float(svg["data-left"]), float(svg["data-area"])
    t_start, t_end = float(svg["data-start"]), float(svg["data-end"])
    script = html[html.rindex("<script>") + 8 : html.rindex("</script>")]
    steps = [
        {"click_phase": "DELETE"},
        {"reset": True},
        {"drag": [left + area / 4, left + area / 2]},
    ]
    harness = Path(__file__).with_name("zoom_harness.js")
    result = subprocess.run(
        ["node", str(harness)],
        input=json.dumps({"elements": elements, "script": script, "steps": steps}).encode(),
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    first, deleted, reset, dragged = json.loads(result.stdout)
    assert not first["controlsHidden"] and first["resetDisabled"] and first["range"] == "whole run"
    original = {(b["data-row"], b["data-action"]): float(b["x"]) for b in first["bars"]}
    # zoomed to the DELETE phase: its band fills the chart, the CREATE bars are left of it
    band = next(b for b in deleted["bands"] if b["data-t0"] != "0.0")
    d0, d1 = float(band["data-t0"]), float(band["data-t1"])
    assert float(band["x"]) == pytest.approx(left, abs=0.1)
    assert float(band["width"]) == pytest.approx(area, abs=0.1)
    for bar in deleted["bars"]:
        if bar["data-action"] == "CREATE":
            assert float(bar["x"]) + float(bar["width"]) <= left + 2.1
    assert deleted["range"] == f"{format_time(d0)} → {format_time(d1)}"
    # zoomed in, the DELETE bars are long enough to hold their whole word, written on the bar
    delete_labels = [t for t in deleted["labels"] if t["data-action"] == "DELETE"]
    assert delete_labels and all(t["text"] == "DELETE" for t in delete_labels)
    bars_at = {
        b["data-row"]: float(b["x"]) for b in deleted["bars"] if b["data-action"] == "DELETE"
    }
    assert all(
        float(t["x"]) == pytest.approx(bars_at[t["data-row"]] + 3, abs=0.2) for t in delete_labels
    )
    assert not deleted["resetDisabled"]
    assert all(format_time(d0) <= t <= format_time(d1) for t in deleted["ticks"])
    # "Whole run" puts every bar back where the SVG drew it
    assert {
        (b["data-row"], b["data-action"]): float(b["x"]) for b in reset["bars"]
    } == pytest.approx(original, abs=0.1)
    # dragging across the second quarter of the chart zooms to that quarter of the run
    quarter = (t_end - t_start) / 4
    assert dragged["range"] == (
        f"{format_time(t_start + quarter)} → {format_time(t_start + 2 * quarter)}"
    )
