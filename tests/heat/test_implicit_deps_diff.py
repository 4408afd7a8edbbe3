"""Implicit dependencies, differentially: the graph Heat 27's engine builds for each fixture of
tests/fixtures/implicit_deps and the one plugsim builds (``tools/heat_diff/heat_graph.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _heat_diff import ROOT, heat_graphs, requires_heat

from simulator.world import World

pytestmark = [requires_heat, pytest.mark.material]

FIXTURES = sorted((ROOT / "tests" / "fixtures" / "implicit_deps").glob("*.yaml"))


def plugsim_graph(path: Path) -> dict:
    world = World()
    try:
        stack = world.new_stack("graph", world.source(str(path)))
        graph = stack.dependency_graph()
        return {n: sorted(graph.requires(n)) for n in graph}
    except Exception as ex:  # noqa: BLE001 - compared with Heat's refusal
        return {"error": type(ex).__name__}
    finally:
        world.close()


def test_every_fixture_has_heats_graph():
    heat = heat_graphs(FIXTURES)
    for path in FIXTURES:
        expected = heat[str(path)]
        if "error" in expected:  # Heat's CircularDependencyException; plugsim's own error class
            assert expected["error"].startswith("CircularDependencyException"), expected
            assert plugsim_graph(path) == {"error": "StackValidationFailed"}, path.name
        else:
            assert plugsim_graph(path) == expected, path.name
