"""Lint reads the schema a class has at import time, not only its dict literal (issue 30)."""

import shutil
from pathlib import Path

from sdk.lint import lint_paths

FIXTURES = Path(__file__).parent / "fixtures"


def _lines(report):
    return [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in report.findings]


def test_a_property_added_after_the_literal_is_seen_by_ps201():
    report = lint_paths([FIXTURES / "schema_added.py"], dynamic=False)
    found = [line for line in _lines(report) if " PS201 " in line]
    assert found == [
        # added in a loop: only the imported class shows it, reported at the class statement
        "tests/lint/fixtures/schema_added.py:5:1: PS201 Volume: property colour has no description",
        "tests/lint/fixtures/schema_added.py:13:23: PS201 Volume: property zone has no description",
        "tests/lint/fixtures/schema_added.py:17:26: PS201 Volume: property tier has no description",
    ]


def test_the_inclusion_checklist_sees_an_undocumented_property_added_after_the_literal(tmp_path):
    package = tmp_path / "inclusion_ok"
    shutil.copytree(FIXTURES / "inclusion_ok", package)
    widget = package / "vendor_plugins" / "widget.py"
    text = widget.read_text()
    text = text.replace(
        "\n\ndef available_resource_mapping",
        '\n\nWidget.properties_schema["tier"] = properties.Schema(properties.Schema.STRING)'
        "\n\n\ndef available_resource_mapping",
    )
    widget.write_text(text)
    report = lint_paths([package], inclusion=True, dynamic=False)
    statuses = {item.title: item.status for item in report.checklist}
    assert statuses["resources and properties documented"] == "fail"
    assert any(
        f.rule_id == "PS201" and "property tier has no description" in f.message
        for f in report.findings
    )
