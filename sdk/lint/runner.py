"""Running the catalogue over paths: collect files, run each rule, filter, sort.

:func:`lint_paths` is the one entry point the CLI and tests use. It raises
:class:`LintUsageError` when it cannot run at all (a path that does not exist
or cannot be read, a broken configuration); everything a plug-in does wrong,
including crashing on import, is a :class:`~sdk.lint.registry.Finding`. The
report's shapes live in :mod:`sdk.lint.report`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sdk.exception import ConfigurationError, PlugsimError
from sdk.lint import suppress
from sdk.lint.config import LintConfig, find_config
from sdk.lint.registry import Finding, Hit, Rule, all_rules
from sdk.lint.report import LintReport, display_path
from sdk.lint.source import PluginModule

#: Directories never descended into: the loader does not load tests, and tools' caches.
SKIP_DIRS = frozenset(
    {"tests", "__pycache__", "build", "dist", "node_modules", "venv", ".venv", ".git", ".tox"}
)
TEMPLATE_SUFFIXES = (".yaml", ".yml")


class LintUsageError(PlugsimError):
    """The linter cannot run: bad arguments, an unreadable path, a broken configuration."""


def collect(paths: Sequence[str | os.PathLike[str]]) -> tuple[list[Path], list[Path]]:
    """The Python files and template files under *paths*, each list sorted.

    Raises :class:`LintUsageError` for a path that does not exist or is not a
    Python/YAML file or a directory.
    """
    python: set[Path] = set()
    templates: set[Path] = set()
    if not paths:
        raise LintUsageError("no path given: say which plug-in files or directories to lint")
    for raw in paths:
        path = Path(raw)
        if not path.exists() and _is_heat_module_name(os.fspath(raw)):
            python.update(_heat_module_files(os.fspath(raw)))
            continue
        if not path.exists():
            raise LintUsageError(f"{raw}: no such file or directory")
        if path.is_file():
            if path.suffix == ".py":
                python.add(path)
            elif path.suffix in TEMPLATE_SUFFIXES:
                templates.add(path)
            else:
                raise LintUsageError(f"{raw}: not a Python file, a YAML template or a directory")
            continue
        if not os.access(path, os.R_OK | os.X_OK):
            raise LintUsageError(f"{raw}: directory cannot be read")
        for directory, subdirs, files in os.walk(path):
            subdirs[:] = sorted(
                d
                for d in subdirs
                if d not in SKIP_DIRS and not d.startswith(".") and not d.endswith(".egg-info")
            )
            for name in files:
                full = Path(directory) / name
                if name.endswith(".py"):
                    python.add(full)
                elif name.endswith(TEMPLATE_SUFFIXES):
                    templates.add(full)
    return sorted(python), sorted(templates)


def _is_heat_module_name(text: str) -> bool:
    """``heat.engine.resources...``: a module of the installed openstack-heat, by dotted name."""
    return text.split(".", 1)[0] == "heat" and "." in text and os.sep not in text


def _heat_module_files(name: str) -> list[Path]:
    """The files of a Heat module or package, looked up in ``$PLUGSIM_HEAT_PYTHON``'s Heat."""
    from simulator.heat_compat.loader import resolve_heat_targets

    try:
        return resolve_heat_targets(name)
    except ConfigurationError as ex:
        raise LintUsageError(str(ex)) from None


def _read_module(path: Path) -> PluginModule:
    try:
        return PluginModule.read(path, display_path(path))
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LintUsageError(f"{path}: cannot be read: {reason}") from None


def _read_templates(paths: list[Path], modules: list[PluginModule]) -> list[Any]:
    from sdk.lint.loading import is_resource_class
    from sdk.lint.mapping_rules import mapping_calls
    from sdk.lint.template_rules import read_template

    plugin_types: dict[str, type] = {}
    for module in modules:
        for call in mapping_calls(module):
            for name, cls in (call.mapping or {}).items():
                if isinstance(name, str) and is_resource_class(cls):
                    plugin_types.setdefault(name, cls)
    templates = []
    for path in paths:
        try:
            template = read_template(path, display_path(path))
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise LintUsageError(f"{path}: cannot be read: {reason}") from None
        template.plugin_types = plugin_types
        templates.append(template)
    return templates


#: Rules that drive code on a fake cloud; ``dynamic=False`` switches them off.
DYNAMIC_FAMILIES = frozenset({"dynamic"})


def _active_rules(config: LintConfig, inclusion: bool, dynamic: bool = True) -> list[Rule]:
    return [
        r
        for r in all_rules()
        if config.enabled(r)
        and (inclusion or r.family != "inclusion")
        and (dynamic or r.family not in DYNAMIC_FAMILIES)
    ]


def lint_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    config: LintConfig | None = None,
    inclusion: bool = False,
    ruff: str | None = "ruff",
    dynamic: bool = True,
    against: str | None = None,
) -> LintReport:
    """Lint *paths* (files or directories) and return the report.

    *config* defaults to the ``[tool.plugsim.lint]`` table found by walking up
    from the first path. With *inclusion* the inclusion checklist rules run
    too and the report carries the checklist; *ruff* names the ruff executable
    that checklist runs (None: treat ruff as not installed). With *against* (an
    old version: directory, wheel, distribution or git ref) the upgrade rules
    compare each resource type's schemas with the old version's.
    """
    python_files, template_files = collect(paths)
    if config is None:
        try:
            config = find_config(Path(paths[0]))
        except ConfigurationError as exc:
            raise LintUsageError(str(exc)) from None
    modules = [_read_module(p) for p in python_files]
    for module in modules:
        module.cache["lint_config"] = config
        module.cache["dynamic_enabled"] = dynamic
    templates: list[Any] = []
    rules = _active_rules(config, inclusion, dynamic)
    if template_files and any(r.scope == "template" for r in rules):
        templates = _read_templates(template_files, modules)
    package = None
    if inclusion:
        from sdk.lint.inclusion import Package

        package = Package.discover(paths, modules, ruff=ruff)
    versions = None
    if against is not None:
        from sdk.lint.upgrade import compare

        try:
            versions = compare(paths, against)
        except ConfigurationError as exc:
            raise LintUsageError(str(exc)) from None
    findings: list[Finding] = []
    for rule in rules:
        if rule.scope == "upgrade":
            hits = list(rule.check(versions)) if versions is not None else []
        else:
            hits = _run(rule, modules, templates, package)
        for hit in hits:
            path = Path(hit.path)
            if config.ignored_in(path, rule.id):
                continue
            findings.append(rule.finding(hit, config.severity_of(rule)))
    comments: dict[str, dict[int, str]] = {m.display: m.comments for m in modules}
    for template in templates:
        comments[template.display] = suppress.comments_of_text(template.text)
    _add_outside_comments(findings, comments)
    findings = sorted(set(suppress.apply(findings, comments)))
    report = LintReport(findings=findings, files=len(modules) + len(templates))
    if versions is not None:
        report.notes = list(versions.notes)
    if package is not None:
        from sdk.lint.inclusion import checklist

        report.checklist = checklist(package, findings, config)
    return report


def _add_outside_comments(findings: list[Finding], comments: dict[str, dict[int, str]]) -> None:
    """Read the comments of files findings point into that were not linted themselves.

    A dynamic finding points at the class's own file, which may lie outside the
    linted paths (linting only a package's ``__init__.py``); a suppression
    comment there applies all the same. A file that cannot be read has none.
    """
    for path in sorted({f.path for f in findings} - set(comments)):
        if not path.endswith(".py"):
            continue
        try:
            comments[path] = PluginModule.read(Path(path), path).comments
        except (OSError, UnicodeDecodeError):
            comments[path] = {}


def _run(rule: Rule, modules: list[PluginModule], templates: list[Any], package: Any) -> list[Hit]:
    if rule.scope == "module":
        return [hit for module in modules for hit in rule.check(module)]
    if rule.scope == "project":
        return list(rule.check(modules))
    if rule.scope == "template":
        return [hit for template in templates for hit in rule.check(template)]
    if rule.scope == "package":
        return list(rule.check(package)) if package is not None else []
    return []
