"""The contribution checklist (PS5xx), applied with ``plugsim lint --inclusion PATH``.

The plug-in guide's "Resource Contributions" list, as rules:

1. the resources' support status is UNSUPPORTED (PS501);
2. every third-party import is a declared dependency (``[project].dependencies``
   of the package's ``pyproject.toml``) or is guarded so that the plug-in
   disables itself: the import is hidden and the plug-in loaded again with
   :mod:`sdk.plugins`; the loader must not fail and the mapping must be empty
   (PS502, with the import check PS304);
3. tests live under ``tests/`` and the loader does not load them (PS503-PS505);
4. the code passes ``ruff check`` (PS506; PS507 when ruff is not installed, in
   which case the item is "not checked", never "passed");
5. every public resource and property is documented (PS101, PS201, PS202).

The report ends with a table of these items, each ✔/✘ with its rule ids.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk.lint.config import LintConfig
from sdk.lint.loading import network_blocked
from sdk.lint.mapping_rules import is_plugin
from sdk.lint.registry import Finding, Hit, Severity, rule
from sdk.lint.report import ChecklistItem, display_path
from sdk.lint.schema_model import parse_support
from sdk.lint.source import PluginModule

#: The checklist: title and the rules whose findings fail the item.
CHECKLIST: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("support status is UNSUPPORTED", ("PS501",)),
    ("dependencies declared or guarded", ("PS304", "PS502")),
    ("tests under tests/, not loaded", ("PS503", "PS504", "PS505")),
    ("code passes ruff check", ("PS506", "PS507")),
    ("resources and properties documented", ("PS101", "PS201", "PS202")),
)

#: The host's own packages: always importable by a plug-in, never a third-party dependency.
HOST_PACKAGES = frozenset({"sdk", "simulator", "fake_clouds", "__future__"})
_TEST_FILE = re.compile(r"^(test_.*|.*_test|conftest)\.py$")


def normalize(name: str) -> str:
    """PEP 503 normalisation of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def is_test_file(path: Path) -> bool:
    """Whether *path* is named like a pytest test module."""
    return _TEST_FILE.match(path.name) is not None


def _find_pyproject(start: Path) -> Path | None:
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


@dataclass
class Package:
    """The package under review: its root, pyproject, plug-in modules and files."""

    root: Path
    pyproject: Path | None
    dependencies: frozenset[str]
    modules: list[PluginModule]
    plugin_dirs: list[Path]
    ruff: str | None
    problems: list[str] = field(default_factory=list)

    @classmethod
    def discover(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        modules: list[PluginModule],
        ruff: str | None = "ruff",
    ) -> Package:
        """Find the package around *paths*: the nearest pyproject.toml is its root."""
        first = Path(paths[0])
        pyproject = _find_pyproject(first)
        if pyproject is not None:
            root = pyproject.parent
        else:
            root = first.resolve() if first.is_dir() else first.resolve().parent
        dependencies: set[str] = set()
        problems: list[str] = []
        if pyproject is not None:
            try:
                with pyproject.open("rb") as handle:
                    data = tomllib.load(handle)
                for requirement in data.get("project", {}).get("dependencies", []):
                    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", str(requirement))
                    if match:
                        dependencies.add(normalize(match.group(1)))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                problems.append(f"{pyproject}: cannot read the dependencies: {exc}")
        plugins = [m for m in modules if is_plugin(m)]
        plugin_dirs = sorted({m.path.resolve().parent for m in plugins})
        return cls(
            root=root,
            pyproject=pyproject,
            dependencies=frozenset(dependencies),
            modules=plugins,
            plugin_dirs=plugin_dirs,
            ruff=ruff,
            problems=problems,
        )

    def local_names(self, module: PluginModule) -> set[str]:
        """Top-level names importable from the package itself (siblings, root packages)."""
        names: set[str] = set()
        for directory in {module.path.resolve().parent, self.root}:
            with contextlib.suppress(OSError):
                for entry in directory.iterdir():
                    if entry.suffix == ".py":
                        names.add(entry.stem)
                    elif entry.is_dir() and (entry / "__init__.py").exists():
                        names.add(entry.name)
        return names

    def declared(self, import_name: str) -> bool:
        """Whether the top-level *import_name* belongs to a declared dependency."""
        if normalize(import_name) in self.dependencies:
            return True
        distributions = importlib.metadata.packages_distributions().get(import_name, [])
        return any(normalize(d) in self.dependencies for d in distributions)

    def third_party_imports(self, module: PluginModule) -> list[tuple[str, Any]]:
        """(top-level name, import node) of each third-party import, first occurrence each."""
        import ast

        local = self.local_names(module)
        seen: dict[str, Any] = {}
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module.split(".")[0]]
            for name in names:
                if name in sys.stdlib_module_names or name in HOST_PACKAGES or name in local:
                    continue
                if name not in seen or node.lineno < seen[name].lineno:
                    seen[name] = node
        return sorted(seen.items(), key=lambda item: (item[1].lineno, item[0]))


class _Hide(importlib.abc.MetaPathFinder):
    """A meta-path finder that makes one top-level package unimportable."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == self.name or fullname.startswith(self.name + "."):
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (hidden by plugsim lint)", name=fullname
            )
        return None


@contextlib.contextmanager
def hidden(name: str) -> Iterator[None]:
    """Make the top-level package *name* (and its submodules) unimportable for a while."""
    saved = {k: v for k, v in sys.modules.items() if k == name or k.startswith(name + ".")}
    for key in saved:
        del sys.modules[key]
    finder = _Hide(name)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
        sys.modules.update(saved)


def load_with_sdk(path: Path) -> tuple[dict[str, Any], list[str]]:
    """Load one plug-in file with :mod:`sdk.plugins`: (mapping, loader errors)."""
    from sdk.exception import PluginConflict
    from sdk.plugins import PluginLoader

    loader = PluginLoader()
    with network_blocked():
        loader.load_file(path)
        try:
            report = loader._finish()
        except PluginConflict as exc:
            return {}, [str(exc)]
    return dict(report.mapping), [e.message for e in report.errors]


@rule(
    "PS501",
    "support-status-not-unsupported",
    severity=Severity.ERROR,
    family="inclusion",
    scope="package",
    message="{cls}: support status is {status}; a contributed resource must be UNSUPPORTED",
    summary="Contributed resources carry support status UNSUPPORTED.",
    doc="""
        The project does not take responsibility for contributed resources; their
        ``support_status`` says so with ``support.UNSUPPORTED``.
    """,
    bad="""
        class Thing(resource.Resource):
            \"\"\"A vendor thing.\"\"\"

            support_status = support.SupportStatus(version="1.0.0")
    """,
    good="""
        class Thing(resource.Resource):
            \"\"\"A vendor thing.\"\"\"

            support_status = support.SupportStatus(support.UNSUPPORTED, version="1.0.0")
    """,
)
def check_unsupported(package: Package) -> Iterator[Hit]:
    """Resource classes whose support status is not UNSUPPORTED."""
    for module in package.modules:
        for cls in module.resource_classes:
            if cls.name.startswith("_"):
                continue
            found = cls.attribute("support_status")
            if found is None:
                yield module.hit(cls.node, cls=cls.name, status="not set")
                continue
            spec = parse_support(found[1])
            status = spec.status if spec is not None else None
            if status != "UNSUPPORTED":
                yield module.hit(found[0], cls=cls.name, status=status or "not a SupportStatus")


@rule(
    "PS502",
    "dependency-not-declared-or-guarded",
    severity=Severity.ERROR,
    family="inclusion",
    scope="package",
    message="import of {name} is not a declared dependency ({where}) and without it {problem}",
    summary="A third-party import is neither declared nor guarded.",
    doc="""
        Each third-party import must either be listed in ``[project].dependencies``
        or be optional: with the package hidden, the loader must still load the
        plug-in without error and it must register nothing (its
        ``available_resource_mapping()`` returns ``{}``). The linter checks this by
        hiding the import and loading the plug-in with ``sdk.plugins``.
    """,
    bad="""
        import vendor_sdk


        def resource_mapping():
            return {"Vendor::Service::Thing": Thing}
    """,
    good="""
        try:
            import vendor_sdk
        except ImportError:
            vendor_sdk = None


        def available_resource_mapping():
            if vendor_sdk is None:
                return {}
            return {"Vendor::Service::Thing": Thing}
    """,
)
def check_dependencies(package: Package) -> Iterator[Hit]:
    """Undeclared imports whose absence breaks the plug-in or leaves it registered."""
    where = (
        f"[project].dependencies of {display_path(package.pyproject)}"
        if package.pyproject is not None
        else "no pyproject.toml found"
    )
    for module in package.modules:
        if module.syntax_error is not None:
            continue
        imports = [(n, node) for n, node in package.third_party_imports(module)]
        undeclared = [(n, node) for n, node in imports if not package.declared(n)]
        if not undeclared:
            continue
        load_with_sdk(module.path)  # the normal load first, so shared modules are cached
        for name, node in undeclared:
            with hidden(name):
                mapping, errors = load_with_sdk(module.path)
            if errors:
                problem = "the loader reports: " + "; ".join(errors)
            elif mapping:
                problem = "the plug-in still registers " + ", ".join(sorted(mapping))
            else:
                continue
            yield module.hit(node, name=name, where=where, problem=problem)


@rule(
    "PS503",
    "test-outside-tests",
    severity=Severity.ERROR,
    family="inclusion",
    scope="package",
    message="test module {file} is not under a tests/ directory, so the loader would load it",
    summary="Test modules belong under tests/.",
    doc="""
        The loader never loads anything below a ``tests`` directory, which keeps
        test-only dependencies out of production. A test module elsewhere is
        imported as a plug-in.
    """,
    bad="""
        my_plugin/thing.py
        my_plugin/test_thing.py
    """,
    good="""
        my_plugin/thing.py
        tests/test_thing.py
    """,
)
def check_tests_location(package: Package) -> Iterator[Hit]:
    """Test-named modules outside a ``tests`` directory."""
    for path in _package_files(package.root):
        relative = path.relative_to(package.root)
        if is_test_file(path) and "tests" not in relative.parts[:-1]:
            yield Hit(display_path(path), 1, 1, {"file": relative.as_posix()})


def _package_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(
            d
            for d in subdirs
            if not d.startswith(".")
            and d not in ("__pycache__", "build", "dist", "venv")
            and not d.endswith(".egg-info")
        )
        out.extend(Path(directory) / f for f in sorted(files) if f.endswith(".py"))
    return out


@rule(
    "PS504",
    "tests-missing",
    severity=Severity.ERROR,
    family="inclusion",
    scope="package",
    message="no test module (test_*.py) under {tests}",
    summary="A contribution comes with tests under tests/.",
    doc="""
        Contributions are reviewed with their tests. Put them in a ``tests``
        directory at the package root, named ``test_*.py``.
    """,
    bad="""
        pyproject.toml
        my_plugin/thing.py
    """,
    good="""
        pyproject.toml
        my_plugin/thing.py
        tests/test_thing.py
    """,
)
def check_tests_exist(package: Package) -> Iterator[Hit]:
    """A package root without ``tests/test_*.py``."""
    tests = package.root / "tests"
    found = tests.is_dir() and any(is_test_file(p) for p in _package_files(tests))
    if not found:
        shown = display_path(tests) + "/"
        where = display_path(package.pyproject) if package.pyproject else display_path(package.root)
        yield Hit(where, 1, 1, {"tests": shown})


@rule(
    "PS505",
    "loader-loads-tests",
    severity=Severity.ERROR,
    family="inclusion",
    scope="package",
    message="the plug-in loader loads {file}, a test module",
    summary="Loading the plug-in directories must not import test modules.",
    doc="""
        The linter loads each plug-in directory with ``sdk.plugins`` and checks
        that no module it imported is a test module or lives under ``tests/``.
    """,
    bad="""
        my_plugin/thing.py
        my_plugin/checks/test_thing.py   # loaded as a plug-in
    """,
    good="""
        my_plugin/thing.py
        tests/test_thing.py              # never loaded
    """,
)
def check_loader_skips_tests(package: Package) -> Iterator[Hit]:
    """Modules under tests/ or named like tests that the SDK loader imports."""
    from sdk.plugins import iter_plugin_files

    for directory in package.plugin_dirs:
        for path in iter_plugin_files(directory):
            relative = path.resolve().relative_to(package.root.resolve())
            if is_test_file(path) or "tests" in relative.parts[:-1]:
                yield Hit(display_path(path), 1, 1, {"file": relative.as_posix()})


def find_ruff(name: str | None) -> str | None:
    """The ruff executable: *name* on PATH or next to the running Python; None if absent."""
    if name is None:
        return None
    found = shutil.which(name)
    if found is None:
        candidate = Path(sys.executable).parent / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            found = str(candidate)
    return found


@rule(
    "PS506",
    "ruff-check",
    severity=Severity.ERROR,
    family="inclusion",
    scope="package",
    message="ruff {code}: {text}",
    summary="The code must pass ruff check.",
    doc="""
        Contributed code is held to the project's quality bar; ``ruff check`` runs
        on every Python file of the package (named explicitly, so ``exclude``
        settings do not hide contributed code) with the package's own ruff
        configuration, and each of its diagnostics is a finding.
    """,
    bad="""
        import os  # F401: imported but unused
    """,
    good="""
        # only the imports the module uses
    """,
)
def check_ruff(package: Package) -> Iterator[Hit]:
    """Run ruff on the package and turn its diagnostics into findings."""
    result = run_ruff(package)
    if isinstance(result, list):
        yield from result


def run_ruff(package: Package) -> list[Hit] | str:
    """Ruff's diagnostics as hits, or a string saying why ruff could not run."""
    if "ruff" in package.__dict__.get("_cache", {}):
        return package.__dict__["_cache"]["ruff"]
    executable = find_ruff(package.ruff)
    result: list[Hit] | str
    if executable is None:
        result = "ruff is not installed (pip install ruff)"
    else:
        try:
            files = [p.relative_to(package.root).as_posix() for p in _package_files(package.root)]
            proc = subprocess.run(
                [executable, "check", "--output-format", "json", "--no-cache", "--", *files],
                cwd=package.root,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            result = f"ruff could not run: {exc}"
        else:
            try:
                diagnostics = json.loads(proc.stdout or "[]")
            except json.JSONDecodeError:
                result = f"ruff gave no JSON output: {proc.stderr.strip()[:200]}"
            else:
                result = sorted(
                    (
                        Hit(
                            display_path(Path(d["filename"])),
                            int(d["location"]["row"]),
                            int(d["location"]["column"]),
                            {"code": d.get("code") or "error", "text": d.get("message", "")},
                        )
                        for d in diagnostics
                    ),
                    key=lambda h: (h.path, h.line, h.col, h.args["code"]),
                )
    package.__dict__.setdefault("_cache", {})["ruff"] = result
    return result


@rule(
    "PS507",
    "ruff-not-available",
    severity=Severity.INFO,
    family="inclusion",
    scope="package",
    message="code style not checked: {reason}",
    summary="ruff could not run, so the ruff item is not checked.",
    doc="""
        ``ruff`` is a development dependency. Without it the checklist marks the
        code-style item "not checked" rather than passing it.
    """,
    bad="""
        $ pip install plugsim          # no ruff
    """,
    good="""
        $ pip install 'plugsim[dev]'   # brings ruff
    """,
)
def check_ruff_available(package: Package) -> Iterator[Hit]:
    """Say so when ruff is missing or broken."""
    result = run_ruff(package)
    if isinstance(result, str):
        where = display_path(package.pyproject) if package.pyproject else display_path(package.root)
        yield Hit(where, 1, 1, {"reason": result})


def checklist(package: Package, findings: list[Finding], config: LintConfig) -> list[ChecklistItem]:
    """Evaluate the checklist from the run's findings."""
    by_rule: dict[str, int] = {}
    for finding in findings:
        by_rule[finding.rule_id] = by_rule.get(finding.rule_id, 0) + 1
    from sdk.lint.registry import get_rule

    items = []
    for title, ids in CHECKLIST:
        disabled = [i for i in ids if not config.enabled(get_rule(i))]
        failing = [i for i in ids if by_rule.get(i) and i != "PS507"]
        if failing:
            count = sum(by_rule[i] for i in failing)
            status, note = "fail", f"{count} finding" + ("" if count == 1 else "s")
        elif "PS507" in ids and by_rule.get("PS507"):
            reason = run_ruff(package)
            status, note = "not checked", reason if isinstance(reason, str) else ""
        elif len(disabled) == len(ids) or ("PS506" in ids and "PS506" in disabled):
            status, note = "not checked", "disabled by configuration"
        else:
            status, note = "pass", ""
        items.append(ChecklistItem(title, ids, status, note))
    return items
