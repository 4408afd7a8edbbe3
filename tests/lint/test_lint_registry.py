"""The lint registry lists every rule family's modules; the lint package has no import circle."""

import importlib.util
import sys
from pathlib import Path

from sdk.lint import registry
from sdk.lint.registry import FAMILIES, all_rules

ROOT = Path(__file__).parents[2]


def _importgraph():
    spec = importlib.util.spec_from_file_location("_importgraph", ROOT / "tools" / "importgraph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_importgraph", module)
    spec.loader.exec_module(module)
    return module


def test_every_rule_is_defined_in_a_module_its_family_lists():
    for rule in all_rules():
        assert rule.check.__module__ in FAMILIES[rule.family], (rule.id, rule.check.__module__)


def test_every_listed_module_defines_rules_of_its_family():
    defined = {(r.family, r.check.__module__) for r in all_rules()}
    for family, modules in FAMILIES.items():
        for module in modules:
            assert (family, module) in defined, (family, module)


def test_rule_families_with_two_modules_are_listed_not_glued():
    assert FAMILIES["driver"] == ("sdk.lint.driver_rules", "sdk.lint.driver_dynamic")
    assert FAMILIES["template"] == ("sdk.lint.template_rules", "sdk.lint.environment_rules")


def test_loading_the_families_registers_rules_from_every_listed_module(monkeypatch):
    monkeypatch.setattr(registry, "_RULES", {})
    for modules in FAMILIES.values():
        for module in modules:
            monkeypatch.delitem(sys.modules, module, raising=False)
    ids = {r.id for r in all_rules()}
    assert {"PS408", "PS611"} <= ids  # an environment rule and a dynamic driver rule


def test_the_lint_package_has_no_import_circle(checkout_import_edges):
    graph = _importgraph()
    edges = [e for e in checkout_import_edges if e.source.startswith("sdk.lint")]
    lint_edges = [e for e in edges if e.target.startswith("sdk.lint")]
    assert graph.circles(lint_edges) == []
