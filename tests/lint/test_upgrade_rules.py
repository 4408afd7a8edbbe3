"""plugsim lint --against: each upgrade rule fires exactly where a version pair breaks it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from sdk.lint.runner import lint_paths

HEADER = """
from sdk import attributes, constraints, properties, support
from sdk.resource import Resource
S = properties.Schema
"""

BASE = {
    "name": 'S(S.STRING, "Name.", required=True)',
    "ttl": 'S(S.INTEGER, "TTL.", default=3600, update_allowed=True, '
    "constraints=[constraints.Range(60, 86400)])",
    "kind": 'S(S.STRING, "Kind.", constraints=[constraints.AllowedValues(["A", "B"])])',
    "email": 'S(S.STRING, "Contact.")',
    "legacy": 'S(S.STRING, "Old.", support_status=support.SupportStatus(support.DEPRECATED))',
}
ATTRS = {"serial": 'attributes.Schema("Serial.")'}
TYPES = {"Acme::Zone": "Zone"}


def module(props=BASE, attrs=ATTRS, types=TYPES, extra=""):
    lines = [HEADER, "class Zone(Resource):", '    """A zone."""', "    properties_schema = {"]
    lines += [f"        {name!r}: {schema}," for name, schema in props.items()]
    lines += ["    }", "    attributes_schema = {"]
    lines += [f"        {name!r}: {schema}," for name, schema in attrs.items()]
    lines += ["    }", textwrap.indent(textwrap.dedent(extra), "    "), ""]
    lines += [
        "def resource_mapping():",
        f"    return {{{', '.join(f'{k!r}: {v}' for k, v in types.items())}}}",
    ]
    return "\n".join(lines) + "\n"


def project(root: Path, text: str) -> Path:
    (root / "acme").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'acme'\n")
    (root / "acme" / "zone.py").write_text(text)
    return root


def upgrade_findings(tmp_path, old_text, new_text):
    old = project(tmp_path / "old", old_text)
    new = project(tmp_path / "new", new_text)
    report = lint_paths([new / "acme"], against=str(old), dynamic=False)
    return sorted((f.rule_id, f.message) for f in report.findings if f.rule_id.startswith("PS8"))


def changed(**props):
    return module({**BASE, **props})


CASES = [
    (
        "PS801",
        module({k: v for k, v in BASE.items() if k != "email"}),
        "property 'email' was removed",
    ),
    ("PS802", module(attrs={}), "attribute 'serial' was removed"),
    (
        "PS803",
        changed(
            email='S(S.STRING, "Contact.", support_status=support.SupportStatus(support.HIDDEN))'
        ),
        "property 'email' became HIDDEN without a translation rule",
    ),
    (
        "PS804",
        changed(
            ttl='S(S.INTEGER, "TTL.", default=3600, constraints=[constraints.Range(60, 86400)])'
        ),
        "property 'ttl' was updatable in place and no longer is",
    ),
    ("PS805", changed(zone='S(S.STRING, "Zone.", required=True)'), "property 'zone' is required"),
    (
        "PS806",
        changed(kind='S(S.STRING, "Kind.", constraints=[constraints.AllowedValues(["A"])])'),
        "AllowedValues no longer allows ['B']",
    ),
    (
        "PS807",
        changed(
            ttl='S(S.INTEGER, "TTL.", default=60, update_allowed=True, '
            "constraints=[constraints.Range(60, 86400)])"
        ),
        "the default of property 'ttl' changed from 3600 to 60",
    ),
    (
        "PS808",
        module(types={"Acme::DNSZone": "Zone"}),
        "Acme::Zone was removed (renamed to Acme::DNSZone?)",
    ),
]


@pytest.mark.parametrize(("rule_id", "new_text", "words"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_fires_exactly_on_the_change_that_breaks_it(tmp_path, rule_id, new_text, words):
    findings = upgrade_findings(tmp_path, module(), new_text)
    assert [r for r, _ in findings] == [rule_id]
    assert words in findings[0][1]


def test_a_release_that_follows_the_deprecation_policy_is_clean(tmp_path):
    new = module(
        {
            **BASE,
            "legacy": None,  # deprecated before: may go
            "email": 'S(S.STRING, "Contact.", support_status=support.SupportStatus(support.HIDDEN))',
            "contact": 'S(S.STRING, "Contact.")',
            "kind": 'S(S.STRING, "Kind.", constraints=[constraints.AllowedValues(["A", "B", "C"])])',
            "zone": 'S(S.STRING, "Zone.", required=True, default="z")',
        },
        types={"Acme::Zone": "Zone", "Acme::DNSZone": "Zone"},
        extra="""
        def translation_rules(self, props):
            return [("replace", ["contact"], ["email"])]
        """,
    )
    new = new.replace("    'legacy': None,\n", "")
    assert upgrade_findings(tmp_path, module(), new) == []


def test_the_old_version_can_be_a_git_ref_or_a_wheel(tmp_path):
    repo = project(tmp_path / "repo", module())
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    (repo / "acme" / "zone.py").write_text(module(attrs={}))
    report = lint_paths([repo / "acme"], against="HEAD", dynamic=False)
    assert [f.rule_id for f in report.findings if f.rule_id.startswith("PS8")] == ["PS802"]

    wheel = tmp_path / "acme-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("acme/zone.py", module())
    report = lint_paths([repo / "acme"], against=str(wheel), dynamic=False)
    assert [f.rule_id for f in report.findings if f.rule_id.startswith("PS8")] == ["PS802"]


def test_an_unknown_old_version_is_one_clear_line(tmp_path):
    repo = project(tmp_path / "repo", module())
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sdk.lint",
            str(repo / "acme"),
            "--against",
            "no-such-ref",
            "--no-dynamic",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--against no-such-ref" in lines[0]
