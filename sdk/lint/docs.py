"""The rule reference, generated from the catalogue.

:func:`render_rules_rst` produces ``docs/lint-rules.rst``; a test keeps the
checked-in file equal to it (regenerate with ``python -m sdk.lint
--write-docs docs/lint-rules.rst``). :func:`explain` is what ``--explain ID``
prints and :func:`list_rules` what ``--list-rules`` prints.
"""

from __future__ import annotations

import ast
import textwrap

from sdk.lint.registry import FAMILIES, Rule, all_rules

FAMILY_TITLES = {
    "general": "Source files (PS0xx)",
    "resource": "Resource classes (PS1xx)",
    "schema": "Properties and attributes (PS2xx)",
    "mapping": "Registration: resource_mapping() (PS3xx)",
    "template": "Templates and environments (PS4xx)",
    "inclusion": "The inclusion checklist (PS5xx, with --inclusion)",
    "dynamic": "Resource classes on a fake cloud (PS15x, off with --no-dynamic)",
    "driver": "Cloud driver modules (PS6xx)",
    "lifecycle": "Stack lifecycle plug-ins (PS7xx)",
    "upgrade": "Upgrades: against the previous version (PS8xx, with --against OLD)",
}


def _code(text: str) -> str:
    return textwrap.indent(text, "   ")


def _language(example: str) -> str:
    """``python`` for examples that parse as Python, ``text`` for the others."""
    try:
        ast.parse(example)
    except SyntaxError:
        return "text"
    return "python"


def rule_rst(rule: Rule) -> str:
    """One rule's section of the reference."""
    title = f"{rule.id} {rule.name}"
    parts = [
        title,
        "-" * len(title),
        "",
        f"*{rule.severity.value}* — {_escape(rule.summary)}",
        "",
        f"Message: ``{rule.message}``",
        "",
        rule.doc,
        "",
        "Bad:",
        "",
        f".. code-block:: {_language(rule.bad)}",
        "",
        _code(rule.bad),
        "",
        "Good:",
        "",
        f".. code-block:: {_language(rule.good)}",
        "",
        _code(rule.good),
        "",
    ]
    return "\n".join(parts)


def _escape(text: str) -> str:
    """Escape reStructuredText inline markup characters in plain prose (e.g. ``**kwargs``)."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`")


def render_rules_rst() -> str:
    """The whole rule reference page as reStructuredText."""
    head = [
        "..",
        "   Generated from the rule catalogue by sdk.lint.docs.render_rules_rst();",
        "   regenerate with: python -m sdk.lint --write-docs docs/lint-rules.rst",
        "",
        "================",
        "Lint rules",
        "================",
        "",
        "``plugsim lint PATH...`` checks plug-in sources (and templates) against the",
        "rules below; ``--inclusion`` adds the contribution checklist. Each rule has a",
        "stable id, a default severity (overridable in ``[tool.plugsim.lint]``) and can",
        "be silenced on one line with ``# plugsim: ignore[ID]``. ``--select`` and",
        "``--ignore`` take rule ids or id prefixes (``--select PS2,PS404``).",
        "",
        "A plug-in written against Heat (a file that imports ``heat``) is imported",
        "through plugsim's Heat compatibility layer, as the engine loads it, and a",
        "PATH may be a module of the installed openstack-heat by its dotted name",
        "(``plugsim lint heat.engine.resources.openstack.nova.keypair``, looked up",
        "through ``$PLUGSIM_HEAT_PYTHON``). Heat's release strings are ordered as",
        "Heat released them: ``2013.1`` to ``2015.1``, then ``5.0.0`` onwards, and",
        "``2023.1`` with Heat 20.",
        "",
        "Severities and the exit status:",
        "",
        "- *error*: the plug-in or template does not work as written (the engine",
        "  refuses it, or a stack using it fails). Exit status 1.",
        "- *warning*: it works in the case at hand but breaks in a likely one (a",
        "  type name an installed plug-in also claims, an update that changes",
        "  nothing). Exit status 1 as well: a warning is a problem to fix or to",
        "  acknowledge explicitly (``# plugsim: ignore[ID]``, ``--ignore`` or a",
        "  severity of ``info`` in ``[tool.plugsim.lint]``).",
        "- *info*: something the linter could not check (dynamic checks skipped,",
        "  ruff missing). Never changes the exit status.",
        "",
        "Exit status 0 means no error and no warning; 2 means the linter could not",
        "run (bad arguments, an unreadable path, a broken configuration).",
        "",
    ]
    body: list[str] = []
    rules = all_rules()
    for family in FAMILIES:
        members = [r for r in rules if r.family == family]
        if not members:
            continue
        title = FAMILY_TITLES.get(family, family.capitalize())
        body.extend([title, "=" * len(title), ""])
        body.extend(rule_rst(r) for r in members)
    return "\n".join(head + body).rstrip() + "\n"


def explain(rule: Rule) -> str:
    """The documentation of one rule, for a terminal."""
    return (
        f"{rule.id} {rule.name} ({rule.severity.value}, {rule.family})\n\n"
        f"{rule.summary}\n\n{rule.doc}\n\nMessage: {rule.message}\n\n"
        f"Bad:\n\n{_code(rule.bad)}\n\nGood:\n\n{_code(rule.good)}\n"
    )


def list_rules() -> str:
    """One line per rule: id, severity, name and summary."""
    rules = all_rules()
    width = max(len(r.name) for r in rules)
    return "".join(
        f"{r.id}  {r.severity.value:<7}  {r.name:<{width}}  {r.summary}\n" for r in rules
    )
