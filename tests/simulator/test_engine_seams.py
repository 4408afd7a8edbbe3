"""The engine core's seams, read from the import graph (every import counts, as in tools/importgraph).

Issue #17: the engine core was one import circle; resources reached the stack
through ``EngineContext.engine_stack``; the type registry named its sources.
These tests keep it so.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ENGINE = (
    "simulator.context",
    "simulator.lifecycle",
    "simulator.lifecycle_view",
    "simulator.nested",
    "simulator.nested_stacks",
    "simulator.project_config",
    "simulator.registry",
    "simulator.signals",
    "simulator.stack",
    "simulator.stack_actions",
    "simulator.stack_api",
    "simulator.stack_loader",
    "simulator.stack_source",
    "simulator.stack_update",
    "simulator.type_sources",
    "simulator.world",
)


@pytest.fixture(scope="module")
def importgraph():
    spec = importlib.util.spec_from_file_location("_importgraph", ROOT / "tools" / "importgraph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["_importgraph"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("_importgraph", None)


@pytest.fixture(scope="module")
def edges(checkout_import_edges):
    return list(checkout_import_edges)


def _targets(edges, source):
    return {e.target for e in edges if e.source == source}


def test_no_engine_core_module_is_in_an_import_circle(importgraph, edges):
    for circle in importgraph.circles(edges):
        caught = [m for m in circle if m in ENGINE or m.startswith("simulator.heat_compat")]
        assert not caught, f"import circle: {' '.join(circle)}"


def test_the_resource_library_imports_only_sdk(edges):
    bad = [
        f"{e.path.relative_to(ROOT)}:{e.line}: {e.target}"
        for e in edges
        if e.source.startswith("simulator.resources")
        and not e.target.startswith(("sdk", "simulator.resources"))
    ]
    assert bad == []


def test_the_registry_names_none_of_its_sources(edges):
    found = _targets(edges, "simulator.registry")
    assert all(t.startswith("sdk.") or t == "simulator.stack_source" for t in found), found


def test_lifecycle_and_stack_loading_share_the_project_config_not_each_other(edges):
    assert "simulator.project_config" in _targets(edges, "simulator.lifecycle")
    assert "simulator.project_config" in _targets(edges, "simulator.stack_source")
    assert "simulator.stack_source" not in _targets(edges, "simulator.lifecycle")
    assert "simulator.lifecycle" not in _targets(edges, "simulator.stack_source")


def test_a_planted_back_door_would_be_caught(importgraph, tmp_path):
    for package in ("sdk", "simulator", "simulator/resources", "fake_clouds"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "simulator" / "stack.py").write_text("from simulator import world\n")
    (tmp_path / "simulator" / "world.py").write_text("from simulator.stack import Stack\n")
    (tmp_path / "simulator" / "resources" / "thing.py").write_text(
        "def f():\n    from simulator.stack import Stack\n"
    )
    planted = importgraph.graph(tmp_path)
    assert importgraph.circles(planted) == [["simulator.stack", "simulator.world"]]
    assert [e.target for e in importgraph.violations(planted)] == ["simulator.stack"]
