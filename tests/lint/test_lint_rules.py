"""Every rule fires on its failing example and stays quiet on its passing one.

The fixtures are small plug-in files under ``fixtures/rules``: ``psNNN_bad.py``
and ``psNNN_good.py`` (a directory for the cross-file rule PS305).
"""

from pathlib import Path

import pytest

from sdk.lint import LintConfig, all_rules, lint_paths

FIXTURES = Path(__file__).parent / "fixtures"

RULES = FIXTURES / "rules"
R = "tests/lint/fixtures/rules"

EXPECTED = {
    "PS001": [f"{R}/ps001_bad.py:4:23: PS001 cannot parse the file: expected ':'"],
    "PS101": [f"{R}/ps101_bad.py:5:1: PS101 resource class Volume has no docstring"],
    "PS102": [
        f"{R}/ps102_bad.py:6:5: PS102 resource class Volume: docstring summary does not fit on "
        "one line or is not followed by a blank line",
        f"{R}/ps102_bad.py:11:5: PS102 resource class Disk: docstring summary line does not end "
        "with a period",
    ],
    "PS103": [f"{R}/ps103_bad.py:5:1: PS103 resource class Volume does not set support_status"],
    "PS104": [
        f"{R}/ps104_bad.py:8:5: PS104 Volume.check_create_complete is defined but "
        "Volume.handle_create is not"
    ],
    "PS105": [
        f"{R}/ps105_bad.py:9:9: PS105 Volume: property name is update_allowed but Volume has no "
        "handle_update, so every update replaces the resource"
    ],
    "PS106": [
        f"{R}/ps106_bad.py:12:5: PS106 Volume.handle_update is defined but no property of Volume "
        "is update_allowed"
    ],
    "PS107": [
        f"{R}/ps107_bad.py:8:5: PS107 Port overrides add_dependencies; express dependencies "
        "through properties",
        f"{R}/ps107_bad.py:16:5: PS107 Subnet overrides implicit_requirements; express "
        "dependencies through properties",
    ],
    "PS108": [
        f"{R}/ps108_bad.py:8:5: PS108 Alarm sets entity but not default_client_name, so the "
        "default handle_delete has no client"
    ],
    "PS109": [
        f"{R}/ps109_bad.py:8:5: PS109 Alarm sets default_client_name but neither entity nor "
        "handle_delete, so deleting it leaves the physical resource behind"
    ],
    "PS110": [
        f"{R}/ps110_bad.py:8:5: PS110 Volume declares attributes_schema but defines neither "
        "_resolve_attribute nor FnGetAtt"
    ],
    "PS111": [
        f"{R}/ps111_bad.py:12:9: PS111 Server.handle_create calls time.sleep; return a token and "
        "poll in check_<action>_complete",
        f"{R}/ps111_bad.py:16:9: PS111 Server.check_create_complete calls time.sleep; return a "
        "token and poll in check_<action>_complete",
    ],
    "PS112": [
        f"{R}/ps112_bad.py:12:9: PS112 Webhook.handle_create calls requests.get() without "
        "timeout=, which can hang the handler forever",
        f"{R}/ps112_bad.py:13:9: PS112 Webhook.handle_create calls requests.post() without "
        "timeout=, which can hang the handler forever",
    ],
    "PS201": [
        f"{R}/ps201_bad.py:9:9: PS201 Volume: property size has no description",
        f"{R}/ps201_bad.py:13:21: PS201 Volume: property tags.owner has no description",
    ],
    "PS202": [f"{R}/ps202_bad.py:9:17: PS202 Volume: attribute size has no description"],
    "PS203": [
        f"{R}/ps203_bad.py:9:35: PS203 Volume: property name gives its type as the literal "
        "'String'; use the symbolic name Schema.STRING",
        f"{R}/ps203_bad.py:12:52: PS203 Volume: attribute size gives its type as the literal "
        "'Integer'; use the symbolic name Schema.INTEGER",
    ],
    "PS204": [
        f"{R}/ps204_bad.py:9:35: PS204 Volume: property size has unknown type 'Float'",
        f"{R}/ps204_bad.py:10:35: PS204 Volume: property kind has unknown type "
        "properties.Schema.TEXT",
    ],
    "PS205": [
        f"{R}/ps205_bad.py:10:64: PS205 Volume: property name of type STRING has the constraint "
        "Range, which applies only to INTEGER, NUMBER",
        f"{R}/ps205_bad.py:13:61: PS205 Volume: property tags of type MAP has the constraint "
        "AllowedValues, which applies only to INTEGER, STRING, NUMBER, BOOLEAN, LIST",
    ],
    "PS206": [
        f"{R}/ps206_bad.py:9:17: PS206 Volume: property size of type INTEGER has default 'large' "
        "of the wrong type",
        f"{R}/ps206_bad.py:10:15: PS206 Volume: property on of type BOOLEAN has default 'yes' of "
        "the wrong type",
        f"{R}/ps206_bad.py:11:17: PS206 Volume: property tags of type MAP has default [] of the "
        "wrong type",
    ],
    "PS207": [
        f"{R}/ps207_bad.py:13:26: PS207 Volume: default 0 of property size has value 0, below the "
        "minimum 1 (Range)",
        f"{R}/ps207_bad.py:19:26: PS207 Volume: default 'x' of property name does not match the "
        "pattern '[a-z]{3,}' (AllowedPattern)",
        f"{R}/ps207_bad.py:25:26: PS207 Volume: default 'huge' of property flavor is not one of "
        "['small', 'large'] (AllowedValues)",
        f"{R}/ps207_bad.py:31:26: PS207 Volume: default 4 of property count is not 1 plus a "
        "multiple of 2 (Modulo)",
        f"{R}/ps207_bad.py:37:26: PS207 Volume: default ['a', 'b', 'c'] of property tags has "
        "length 3, above the maximum 2 (Length)",
    ],
    "PS208": [
        f"{R}/ps208_bad.py:9:17: PS208 Volume: property size is required but has a default, "
        "which is never used"
    ],
    "PS209": [
        f"{R}/ps209_bad.py:9:17: PS209 Volume: property name is both update_allowed and immutable"
    ],
    "PS210": [
        f"{R}/ps210_bad.py:9:19: PS210 Volume: property flavor is HIDDEN but required, so no "
        "template can be valid"
    ],
    "PS211": [
        f"{R}/ps211_bad.py:8:22: PS211 Volume: support_status of class Volume lists version 1.0.0 "
        "after previous_status version 2.0.0; each previous_status must be older",
        f"{R}/ps211_bad.py:17:28: PS211 Volume: support_status of property name lists version "
        "2023.2 after previous_status version 2023.2; each previous_status must be older",
    ],
    "PS301": [
        f"{R}/ps301_bad.py:4:1: PS301 the module defines resource class Volume but no "
        "resource_mapping() function"
    ],
    "PS302": [
        f"{R}/ps302_bad.py:17:37: PS302 resource_mapping() maps 'Example::Storage::Helper' to "
        "Helper, which is not a Resource subclass",
        f"{R}/ps302_bad.py:18:35: PS302 resource_mapping() maps 'Example::Storage::Size' to 42, "
        "which is not a Resource subclass",
    ],
    "PS303": [
        f"{R}/ps303_bad.py:12:9: PS303 type name 'volume' is not of the form "
        "Vendor::Service::Thing",
        f"{R}/ps303_bad.py:13:9: PS303 type name 'Example::Volume' is not of the form "
        "Vendor::Service::Thing",
        f"{R}/ps303_bad.py:14:9: PS303 type name 'Example::Storage::1Volume' is not of the form "
        "Vendor::Service::Thing",
    ],
    "PS304": [
        f"{R}/ps304_bad.py:10:1: PS304 importing the plug-in failed: RuntimeError: backend "
        "unreachable"
    ],
    "PS305": [
        f"{R}/ps305_bad/b_legacy.py:11:13: PS305 type name 'Example::Storage::Volume' is already "
        f"registered at {R}/ps305_bad/a_volumes.py:11"
    ],
    "PS306": [
        f"{R}/ps306_bad.py:10:1: PS306 resource_mapping() returned list, not a dict",
        f"{R}/ps306_bad.py:14:1: PS306 available_resource_mapping() raised KeyError: 'config'",
    ],
    "PS307": [
        f"{R}/ps307_bad.py:11:13: PS307 type name 'OS::Heat::None' is already registered by an "
        "installed plug-in (simulator.resources.NoneResource); the engine refuses to "
        "load both"
    ],
}


def _fixture(rule_id: str, kind: str):
    stem = f"{rule_id.lower()}_{kind}"
    directory = RULES / stem
    return directory if directory.is_dir() else RULES / f"{stem}.py"


def _lines(path, rule_id):
    report = lint_paths([path], config=LintConfig(), dynamic=False)
    return [
        f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}"
        for f in report.findings
        if f.rule_id == rule_id
    ]


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_rule_fires_on_its_failing_example(rule_id):
    assert _lines(_fixture(rule_id, "bad"), rule_id) == EXPECTED[rule_id]


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_rule_is_quiet_on_its_passing_example(rule_id):
    assert _lines(_fixture(rule_id, "good"), rule_id) == []


def test_every_static_and_mapping_rule_has_examples():
    families = {"general", "resource", "schema", "mapping"}
    ids = {r.id for r in all_rules() if r.family in families}
    assert ids == set(EXPECTED)
    for rule_id in ids:
        assert _fixture(rule_id, "bad").exists() and _fixture(rule_id, "good").exists()


def test_good_plugin_has_no_findings_at_all():
    report = lint_paths([FIXTURES / "good_plugin.py"], config=LintConfig())
    assert report.findings == []
    assert report.exit_code == 0


def test_mapping_values_are_read_from_the_source_when_the_import_fails():
    lines = _lines(RULES / "ps302_bad_static.py", "PS302")
    assert lines == [
        f"{R}/ps302_bad_static.py:18:77: PS302 resource_mapping() maps "
        "'Example::Storage::Helper' to Helper, which is not a Resource subclass"
    ]
    assert _lines(RULES / "ps302_bad_static.py", "PS304") == [
        f"{R}/ps302_bad_static.py:14:1: PS304 importing the plug-in failed: ImportError: vendor "
        "library missing"
    ]


def test_network_access_during_import_is_blocked_and_reported():
    lines = _lines(FIXTURES / "network_at_import.py", "PS304")
    assert lines == [
        "tests/lint/fixtures/network_at_import.py:7:1: PS304 importing the plug-in failed: "
        "NetworkBlocked: plugsim lint: network access is blocked while importing a plug-in"
    ]


def test_importing_a_plugin_leaves_sys_modules_and_sys_path_as_they_were():
    import sys

    modules, path = set(sys.modules), list(sys.path)
    lint_paths([RULES / "ps304_bad.py", RULES / "ps302_good.py"], config=LintConfig())
    assert not [m for m in set(sys.modules) - modules if m.startswith("_plugsim_lint_")]
    assert sys.path == path
