"""Read the project's import graph with ``ast`` and report circles and imports against the floors.

Run ``python tools/importgraph.py`` from the checkout root. Every import counts: module level, inside functions and
inside ``TYPE_CHECKING`` blocks alike, because each of them is a real coupling. ``tests/test_layers.py`` asserts on the
same functions.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("sdk", "simulator", "fake_clouds")


@dataclass(frozen=True)
class Import:
    """One import statement: the module that imports, the module imported, where."""

    source: str
    target: str
    path: Path
    line: int


def module_name(root: Path, path: Path) -> str:
    """Dotted name of the module stored at ``path`` under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def iter_modules(root: Path, packages: Iterable[str] = PACKAGES) -> Iterator[tuple[str, Path]]:
    """Every module of the given packages, sorted by path so reports are stable."""
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            yield module_name(root, path), path


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def imports_of(root: Path, module: str, path: Path, known: set[str]) -> list[Import]:
    """The project modules ``module`` imports, resolved to the deepest known module name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            names = [f"{base}.{alias.name}" for alias in node.names] or [base]
            names = [n if n in known else base for n in names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.append(Import(module, name, path, node.lineno))
    return found


def graph(root: Path) -> list[Import]:
    """Every import between project modules under ``root``."""
    modules = dict(iter_modules(root))
    known = set(modules)
    edges: list[Import] = []
    for name, path in modules.items():
        edges.extend(imports_of(root, name, path, known))
    return edges


def circles(edges: Iterable[Import]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted, largest first."""
    adjacency: dict[str, set[str]] = {}
    for edge in edges:
        adjacency.setdefault(edge.source, set()).add(edge.target)
        adjacency.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(adjacency[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adjacency[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))

    for node in sorted(adjacency):
        if node not in index:
            visit(node)
    return sorted(result, key=lambda c: (-len(c), c))


# The floors of ../shared/DESIGN.md, highest last. A module may import its own floor and any floor below it.
TOP = ("sdk.testing", "sdk.lint", "sdk.sphinxext", "simulator.cli", "simulator.orchestration_wire")


def floor(module: str) -> str:
    """The floor a module lives on: 'sdk', 'simulator', 'resources', 'fake_clouds' or 'top'."""
    if any(module == t or module.startswith(t + ".") for t in TOP):
        return "top"
    if module.startswith("simulator.resources"):
        return "resources"
    if module in ("simulator.clock", "simulator.rng"):
        return "base"
    return module.split(".")[0]


# What each floor may import, besides itself.
ALLOWED = {
    "base": set(),
    "sdk": set(),
    "resources": {"sdk"},
    "fake_clouds": {"sdk", "base"},
    "simulator": {"sdk", "base", "resources"},
    "top": {"sdk", "base", "resources", "fake_clouds", "simulator"},
}


def violations(edges: Iterable[Import]) -> list[Import]:
    """Imports that run against the floors."""
    bad = []
    for edge in edges:
        source, target = floor(edge.source), floor(edge.target)
        if source != target and target not in ALLOWED[source]:
            bad.append(edge)
    return sorted(bad, key=lambda e: (str(e.path), e.line, e.target))


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    edges = graph(root)
    found = circles(edges)
    print(f"{len(found)} circles")
    for component in found:
        print(f"  {len(component)}: {' '.join(component)}")
    bad = violations(edges)
    print(f"{len(bad)} imports against the floors")
    for edge in bad:
        print(f"  {edge.path.relative_to(root)}:{edge.line}: {edge.source} -> {edge.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
