"""The pictures from the command line, and what a person reads in the terminal."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"
STACK, ENV = str(EXAMPLE / "stack.yaml"), str(EXAMPLE / "env.yaml")


def run(*args, state=None):
    runner = CliRunner()
    prefix = ["--state", str(state)] if state else []
    return runner.invoke(main, [*prefix, *args], catch_exceptions=False)


def test_simulate_draws_the_timeline_names_the_critical_path_and_writes_a_report(tmp_path):
    page = tmp_path / "run.html"
    result = run("simulate", STACK, "-e", ENV, "--timeline", "--report", str(page))
    assert result.exit_code == 0, result.output
    assert "Critical path CREATE: db_volume → db" in result.output
    assert any(line.startswith("db_volume │█") for line in result.output.splitlines())
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and 'class="bar complete critical"' in html


def test_the_event_log_names_nested_resources_by_stack_path():
    result = run("simulate", STACK, "-e", ENV)
    lines = result.output.splitlines()
    assert any("  web1/server CREATE_IN_PROGRESS: state changed" in line for line in lines)
    assert any("  web1 (nested stack) CREATE_COMPLETE [" in line for line in lines)
    assert not any(line.split()[1:2] == ["server"] for line in lines if line.startswith("  00:"))


def test_simulate_shows_injected_faults_as_a_table():
    result = run("simulate", STACK, "-e", ENV, "--seed", "3", "--faults", "flaky")
    assert result.exit_code == 1
    assert "  time          call                       effect   rule" in result.output
    assert "{'time'" not in result.output


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("dot", '"net" -> "web1" [style=solid, label="get_resource"];'),
        ("mermaid", "n_db_5f_volume ==>|depends_on| n_db"),
    ],
)
def test_template_graph_prints_dot_or_mermaid(fmt, expected):
    result = run("template", "graph", "--trust-project", "-t", STACK, "-e", ENV, "-f", fmt)
    assert result.exit_code == 0, result.output
    assert expected in result.output


def test_template_graph_writes_svg_by_suffix(tmp_path):
    out = tmp_path / "g.svg"
    result = run("template", "graph", "--trust-project", "-t", STACK, "-e", ENV, "-o", str(out))
    assert result.exit_code == 0, result.output
    root = ET.fromstring(out.read_text())
    assert root.tag.endswith("svg")


def test_stack_graph_timeline_and_report_read_a_stored_stack(tmp_path):
    state = tmp_path / "w.db"
    assert run("stack", "create", "s1", "-t", STACK, "-e", ENV, state=state).exit_code == 0
    dot = run("stack", "graph", "s1", state=state).output
    assert 'subgraph "cluster/web1"' in dot and "CREATE_COMPLETE" in dot
    timeline = run("stack", "timeline", "s1", state=state).output
    assert "critical path CREATE: db_volume → db" in timeline
    report = tmp_path / "s1.html"
    result = run("stack", "report", "s1", "-o", str(report), state=state)
    assert result.exit_code == 0 and "web1/server" in report.read_text()
    shown = run("stack", "show", "s1", state=state).output
    assert "00:00:38.036" in shown and "38.03" not in shown.replace("00:00:38.036", "")


def test_a_missing_stack_is_one_line(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["--state", str(tmp_path / "w.db"), "stack", "graph", "nope"])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("plugsim: error:") and "nope" in line


def test_json_keeps_seconds_and_adds_iso_virtual_timestamps(tmp_path):
    import json

    from simulator.events import format_iso

    assert format_iso(38.03572209992448) == "1970-01-01T00:00:38.036Z"
    assert format_iso(3600 * 25 + 0.0004) == "1970-01-02T01:00:00.000Z"
    state = tmp_path / "w.db"
    assert run("stack", "create", "s1", "-t", STACK, "-e", ENV, state=state).exit_code == 0
    shown = json.loads(run("stack", "show", "s1", "-f", "json", state=state).output)
    assert shown["updated_time"] == pytest.approx(38.0357, abs=1e-3)
    assert shown["updated_time_iso"] == "1970-01-01T00:00:38.036Z"
    events = json.loads(run("stack", "event", "list", "s1", "-f", "json", state=state).output)
    assert all(e["time_iso"] == format_iso(e["time"]) for e in events)
    report = json.loads(run("simulate", STACK, "-e", ENV, "--format", "json").stdout)
    assert report["phases"][0]["virtual_end_iso"] == "1970-01-01T00:00:38.036Z"


def test_an_abandoned_stacks_report_says_abandoned_and_draws_its_graph(tmp_path):
    state = tmp_path / "w.db"
    assert run("stack", "create", "s1", "-t", STACK, "-e", ENV, state=state).exit_code == 0
    assert run("stack", "abandon", "s1", state=state).exit_code == 0
    report = tmp_path / "s1.html"
    assert run("stack", "report", "s1", "-o", str(report), state=state).exit_code == 0
    html = report.read_text()
    heading = html[html.index("<h1>") : html.index("</h1>")]
    assert "abandoned" in heading and "OK" not in heading
    graph = html[html.index('id="graph"') :]
    root = ET.fromstring(graph[graph.index("<svg") : graph.index("</svg>") + 6])
    states = {
        g.get("data-resource"): g.find("{http://www.w3.org/2000/svg}title").text
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if g.get("data-resource")
    }
    # the resources were left in place as they were: created, not "not created"
    assert states["db"] == "db: CREATE_COMPLETE"
    assert states["web1/server"] == "web1/server: CREATE_COMPLETE"
