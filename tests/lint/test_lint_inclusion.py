"""``--inclusion``: the contribution checklist on a compliant and a non-compliant package."""

import sys
from pathlib import Path

from click.testing import CliRunner

from sdk.lint import lint_paths, render
from sdk.lint.cli import lint
from sdk.lint.inclusion import find_ruff, hidden

FIXTURES = Path(__file__).parent / "fixtures"
OK = FIXTURES / "inclusion_ok"
BAD = FIXTURES / "inclusion_bad"
B = "tests/lint/fixtures/inclusion_bad"
RUFF = find_ruff("ruff")


def _statuses(report):
    return {item.title: item.status for item in report.checklist}


def test_compliant_package_passes_every_item():
    report = lint_paths([OK], inclusion=True, dynamic=False)
    assert [f for f in report.findings if f.rule_id != "PS507"] == []
    assert _statuses(report) == {
        "support status is UNSUPPORTED": "pass",
        "dependencies declared or guarded": "pass",
        "tests under tests/, not loaded": "pass",
        "code passes ruff check": "pass" if RUFF else "not checked",
        "resources and properties documented": "pass",
    }
    assert report.exit_code == 0


def test_non_compliant_package_fails_every_item_with_the_rule_ids():
    report = lint_paths([BAD], inclusion=True)
    lines = [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]
    assert f"{B}/pyproject.toml:1:1: PS504 no test module (test_*.py) under {B}/tests/" in lines
    assert (
        f"{B}/vendor_plugins/gadget.py:13:5: PS501 Gadget: support status is SUPPORTED; a "
        "contributed resource must be UNSUPPORTED"
    ) in lines
    assert (
        f"{B}/vendor_plugins/gadget.py:5:1: PS502 import of yaml is not a declared dependency "
        f"([project].dependencies of {B}/pyproject.toml) and without it the loader reports: "
        "failed to import: ModuleNotFoundError: No module named 'yaml' (hidden by plugsim lint)"
    ) in lines
    assert (
        f"{B}/vendor_plugins/gizmo.py:6:5: PS502 import of yaml is not a declared dependency "
        f"([project].dependencies of {B}/pyproject.toml) and without it the plug-in still "
        "registers Example::Catalogue::Gizmo"
    ) in lines
    assert (
        f"{B}/vendor_plugins/test_gadget.py:1:1: PS503 test module vendor_plugins/test_gadget.py "
        "is not under a tests/ directory, so the loader would load it"
    ) in lines
    assert (
        f"{B}/vendor_plugins/test_gadget.py:1:1: PS505 the plug-in loader loads "
        "vendor_plugins/test_gadget.py, a test module"
    ) in lines
    assert f"{B}/vendor_plugins/gadget.py:16:9: PS201 Gadget: property spec has no description" in (
        lines
    )
    if RUFF:
        assert f"{B}/vendor_plugins/gadget.py:3:8: PS506 ruff F401: `os` imported but unused" in (
            lines
        )
    assert _statuses(report) == {
        "support status is UNSUPPORTED": "fail",
        "dependencies declared or guarded": "fail",
        "tests under tests/, not loaded": "fail",
        "code passes ruff check": "fail" if RUFF else "not checked",
        "resources and properties documented": "fail",
    }
    assert report.exit_code == 1


def test_checklist_table_ends_the_text_report():
    output = render(lint_paths([BAD], inclusion=True, ruff=None), "text")
    table = output.split("Inclusion checklist:\n", 1)[1].splitlines()
    assert table[2:] == [
        "✘  support status is UNSUPPORTED        PS501                1 finding",
        "✘  dependencies declared or guarded     PS304, PS502         2 findings",
        "✘  tests under tests/, not loaded       PS503, PS504, PS505  3 findings",
        "–  code passes ruff check               PS506, PS507         ruff is not installed "
        "(pip install ruff)",
        "✘  resources and properties documented  PS101, PS201, PS202  1 finding",
    ]


def test_missing_ruff_is_not_checked_rather_than_passed():
    report = lint_paths([OK], inclusion=True, ruff="plugsim-no-such-ruff", dynamic=False)
    item = [i for i in report.checklist if i.title == "code passes ruff check"][0]
    assert (item.status, item.note) == ("not checked", "ruff is not installed (pip install ruff)")
    assert [(f.rule_id, f.severity.value, f.message) for f in report.findings] == [
        ("PS507", "info", "code style not checked: ruff is not installed (pip install ruff)")
    ]
    assert report.exit_code == 0


def test_inclusion_rules_only_run_with_the_flag():
    report = lint_paths([BAD])
    assert not [f for f in report.findings if f.rule_id.startswith("PS5")]
    assert report.checklist is None


def test_inclusion_in_json_and_cli():
    result = CliRunner().invoke(lint, ["--inclusion", "--format", "json", str(OK)])
    assert result.exit_code == 0
    assert '"item": "support status is UNSUPPORTED"' in result.output


def test_hiding_an_import_is_undone_afterwards():
    import yaml

    with hidden("yaml"):
        assert "yaml" not in sys.modules
        try:
            import yaml as again  # noqa: F401
        except ModuleNotFoundError as exc:
            assert "hidden by plugsim lint" in str(exc)
        else:
            raise AssertionError("yaml was importable while hidden")
    import yaml as restored

    assert restored is yaml
