"""The SDK core's modules import each other without a circle (every import counted)."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
TOP = ("sdk.testing", "sdk.lint", "sdk.sphinxext")


def _importgraph():
    spec = importlib.util.spec_from_file_location("_importgraph", ROOT / "tools" / "importgraph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_importgraph", module)
    spec.loader.exec_module(module)
    return module


def _core(name: str) -> bool:
    return name.startswith("sdk") and not any(name == t or name.startswith(t + ".") for t in TOP)


def test_sdk_core_has_no_import_circle(checkout_import_edges):
    graph = _importgraph()
    edges = [e for e in checkout_import_edges if _core(e.source) and _core(e.target)]
    assert edges, "the graph reads the sdk's imports"
    assert graph.circles(edges) == []
