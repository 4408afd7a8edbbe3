"""The floors of DESIGN.md hold: every import, read with ``ast``, goes down or stays on its floor.

Function-level imports and ``TYPE_CHECKING`` blocks count like module-level ones: they are the same coupling,
only hidden. The analysis lives in ``tools/importgraph.py`` so a developer can run it by hand.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_importgraph():
    spec = importlib.util.spec_from_file_location("_importgraph", ROOT / "tools" / "importgraph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_importgraph", module)
    spec.loader.exec_module(module)
    return module


ig = _load_importgraph()

# The circles left on purpose: each a private pair whose two halves are one concept split for size. They are
# named, with the reason, in docs/architecture.rst ("Import circles left on purpose").
DELIBERATE_CIRCLES: list[list[str]] = []


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for package in ig.PACKAGES:
        _write(tmp_path, f"{package}/__init__.py", "")
    for relative, text in files.items():
        _write(tmp_path, relative, text)
    return tmp_path


def _report(edges) -> str:
    return "\n".join(
        f"{e.path.relative_to(ROOT)}:{e.line}: {e.source} -> {e.target}" for e in edges
    )


def test_no_import_runs_against_the_floors(checkout_import_edges):
    bad = ig.violations(checkout_import_edges)
    assert not bad, "imports against the floors of DESIGN.md:\n" + _report(bad)


def test_only_the_deliberate_circles_are_left(checkout_import_edges):
    found = ig.circles(checkout_import_edges)
    assert found == DELIBERATE_CIRCLES, "\n".join(" <-> ".join(c) for c in found)
    assert len(found) <= 4


@pytest.mark.parametrize(
    ("relative", "text", "target"),
    [
        ("sdk/core.py", "import simulator.world\n", "simulator.world"),
        ("sdk/core.py", "def f():\n    from fake_clouds import compute\n", "fake_clouds.compute"),
        (
            "sdk/core.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from simulator import world\n",
            "simulator.world",
        ),
        ("simulator/resources/net.py", "from simulator import world\n", "simulator.world"),
        ("simulator/world.py", "from fake_clouds.compute import Compute\n", "fake_clouds.compute"),
        ("fake_clouds/compute.py", "from simulator.world import World\n", "simulator.world"),
        ("simulator/world.py", "from sdk.testing import harness\n", "sdk.testing.harness"),
    ],
)
def test_a_planted_violation_fails(tmp_path, relative, text, target):
    files = {
        "simulator/world.py": "",
        "fake_clouds/compute.py": "",
        "sdk/testing/__init__.py": "",
        "sdk/testing/harness.py": "",
    }
    root = _tree(tmp_path, {**files, relative: text})
    bad = ig.violations(ig.graph(root))
    assert [(e.target, e.line) for e in bad] == [(target, text.count("\n"))]


def test_allowed_imports_pass(tmp_path):
    root = _tree(
        tmp_path,
        {
            "sdk/core.py": "import yaml\n",
            "simulator/clock.py": "",
            "simulator/world.py": "from sdk import core\nfrom simulator import clock\n",
            "simulator/resources/net.py": "from sdk.core import x\n",
            "fake_clouds/compute.py": "from simulator.clock import VirtualClock\nfrom sdk import core\n",
            "sdk/testing/__init__.py": "from simulator import world\nfrom fake_clouds import compute\n",
            "simulator/cli/__init__.py": "from fake_clouds import compute\nfrom sdk.testing import x\n",
        },
    )
    assert ig.violations(ig.graph(root)) == []


def test_a_planted_circle_is_found_even_through_function_imports(tmp_path):
    root = _tree(
        tmp_path,
        {
            "simulator/a.py": "from simulator import b\n",
            "simulator/b.py": "def late():\n    from simulator import c\n",
            "simulator/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import simulator.a\n",
            "simulator/d.py": "from simulator import a\n",
        },
    )
    assert ig.circles(ig.graph(root)) == [["simulator.a", "simulator.b", "simulator.c"]]
