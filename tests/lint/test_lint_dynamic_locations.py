"""Where dynamic findings point, and that no finding hides another (plugsim issue #6).

A package's ``resource_mapping()`` lists classes defined in sibling modules; each
dynamic finding must point at the class's own file and line, so that findings of
different classes never share one location and collapse into one.
"""

import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sdk.lint import LintConfig, lint_paths
from sdk.lint.registry import Finding, Severity

FIXTURES = Path(__file__).parent / "fixtures" / "dynamic_pkg"
P = "tests/lint/fixtures/dynamic_pkg"
GENERATED = (
    " (the properties were generated from the schema; give a working map in "
    "[tool.plugsim.lint] properties or a lint_properties class attribute)"
)
DYNAMIC = LintConfig(select=("PS15",))

EXPECTED = [
    # Blank is made by type(): no class statement, so the mapping function is the place.
    f"{P}/__init__.py:7:1: PS150 Blank (Example::Things::Blank): dynamic checks skipped: "
    "creating Example::Things::Blank with properties {} ended CREATE_FAILED: Resource CREATE "
    "failed: BadRequest: resources.resource: blanks are never made" + GENERATED,
    f"{P}/pkg_gadgets.py:8:1: PS150 Gadget (Example::Things::Gadget): dynamic checks skipped: "
    "creating Example::Things::Gadget with properties {} ended CREATE_FAILED: Resource CREATE "
    "failed: BadRequest: resources.resource: the gadget factory is closed" + GENERATED,
    f"{P}/pkg_gadgets.py:31:19: PS151 Gizmo: attribute colour is declared but "
    "_resolve_attribute returned None on a created resource",
    f"{P}/pkg_widgets.py:8:1: PS150 Widget (Example::Things::Widget): dynamic checks skipped: "
    "creating Example::Things::Widget with properties {'model': ''} ended CREATE_FAILED: "
    "Resource CREATE failed: BadRequest: resources.resource: unknown model ''" + GENERATED,
]


def _lines(paths, config=DYNAMIC):
    report = lint_paths(paths, config=config)
    return [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]


def test_each_class_of_a_package_mapping_is_reported_at_its_own_definition():
    assert _lines([FIXTURES]) == EXPECTED


def test_linting_only_the_package_init_still_points_into_the_sibling_modules():
    assert _lines([FIXTURES / "__init__.py"]) == EXPECTED


def test_a_class_of_an_installed_module_points_at_its_source_file(tmp_path):
    # The fixture's Widget lives in an importable module of the test package.
    plugin = tmp_path / "reexport.py"
    plugin.write_text(
        "from tests.lint.fixtures.dynamic.ps152_bad import Widget\n\n\n"
        "def resource_mapping():\n"
        '    return {"Example::Things::Widget": Widget}\n'
    )
    assert _lines([plugin], LintConfig(select=("PS152",))) == [
        "tests/lint/fixtures/dynamic/ps152_bad.py:16:5: PS152 Widget.handle_create completed "
        "without calling resource_id_set"
    ]


def test_a_suppression_comment_at_the_class_definition_applies_to_its_dynamic_finding(tmp_path):
    copy = tmp_path / "pkg"
    shutil.copytree(FIXTURES, copy)
    widgets = copy / "pkg_widgets.py"
    widgets.write_text(
        widgets.read_text().replace(
            "class Widget(resource.Resource):",
            "class Widget(resource.Resource):  # plugsim: ignore[PS150]",
        )
    )
    report = lint_paths([copy / "__init__.py"], config=DYNAMIC)
    assert sorted((Path(f.path).name, f.line, f.rule_id) for f in report.findings) == [
        ("__init__.py", 7, "PS150"),
        ("pkg_gadgets.py", 8, "PS150"),
        ("pkg_gadgets.py", 31, "PS151"),
    ]


def _finding(message, line=3):
    return Finding("a.py", line, 1, "PS150", Severity.INFO, message)


def test_two_findings_differing_only_in_their_message_are_both_kept():
    first, second = _finding("Widget: skipped"), _finding("Gadget: skipped")
    assert first != second
    assert sorted({first, second}) == [second, first]
    assert sorted({first, _finding("Widget: skipped")}) == [first]


@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from(["a", "b", "c"])), max_size=12))
def test_dedup_keeps_exactly_the_distinct_findings(items):
    findings = [_finding(message, line) for line, message in items]
    kept = sorted(set(findings))
    assert [(f.line, f.message) for f in kept] == sorted(set(items))
