"""``plugsim lint``: the rule catalogue for plug-ins, static and import-time checks.

The public facade is small::

    from sdk.lint import lint_paths, all_rules, get_rule, render
    report = lint_paths(["my_plugin/"], inclusion=True)
    print(render(report, "sarif"))

Rules live in one module per family (``resource_rules``, ``schema_rules``,
``mapping_rules``, ``template_rules`` with ``environment_rules``,
``dynamic_rules``, ``driver_rules`` with ``driver_dynamic``, ``inclusion``);
formatters, the ``pyproject.toml`` configuration and inline suppression have
their own modules. The dynamic rules run a plug-in's handlers (and a driver's
functions) only on a fake cloud, in virtual time, bounded by a wall-clock
watchdog, with the network blocked; ``lint_paths(..., dynamic=False)`` (the
CLI's ``--no-dynamic``) leaves them out. A plug-in that crashes on import is a
finding.
"""

from sdk.lint.config import LintConfig, find_config, load_config
from sdk.lint.formatters import render
from sdk.lint.registry import Finding, Rule, Severity, all_rules, get_rule
from sdk.lint.report import ChecklistItem, LintReport
from sdk.lint.runner import LintUsageError, lint_paths

__all__ = [
    "ChecklistItem",
    "Finding",
    "LintConfig",
    "LintReport",
    "LintUsageError",
    "Rule",
    "Severity",
    "all_rules",
    "find_config",
    "get_rule",
    "lint_paths",
    "load_config",
    "render",
]
