"""The lifecycle lint rules (PS7xx) on good and bad plug-in sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from sdk.lint import lifecycle_rules
from sdk.lint.registry import _RULES
from sdk.lint.source import PluginModule

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "lifecycle" / "lifecycle_examples"

BAD = '''"""Bad lifecycle plug-ins."""

from sdk.lifecycle_plugin import LifecyclePlugin


class Base(LifecyclePlugin):
    """A local base class."""


class StringOrdinal(Base):
    """Ordinal as text."""

    def get_ordinal(self):
        return "10"


class NoReturn(LifecyclePlugin):
    """Ordinal missing."""

    def get_ordinal(self):
        self.x = 1


class WrongPost(LifecyclePlugin):
    """Misses current_stack."""

    def do_post_op(self, context, stack, action=None):
        return None


class AsyncPre(LifecyclePlugin):
    """Async pre-op."""

    async def do_pre_op(self, context, stack, current_stack=None, action=None):
        return None


class Flexible(LifecyclePlugin):
    """Takes anything: fine."""

    def do_pre_op(self, *args, **kwargs):
        return None


class NotAPlugin:
    """Not a lifecycle class: never checked."""

    def get_ordinal(self):
        return "x"
'''


CHECKS = {
    "PS701": lifecycle_rules.check_ordinal,
    "PS702": lifecycle_rules.check_signatures,
    "PS703": lifecycle_rules.check_async,
}


def _findings(path):
    """Run the family's checks directly (the catalogue is shared with families in progress)."""
    module = PluginModule.read(Path(path))
    out = []
    for rule_id, check in CHECKS.items():
        for hit in check(module):
            finding = _RULES[rule_id].finding(hit)
            out.append((finding.rule_id, finding.line, finding.message))
    return sorted(out)


def test_bad_plugins_are_reported(tmp_path):
    path = tmp_path / "bad_lifecycle.py"
    path.write_text(BAD)
    assert _findings(path) == [
        (
            "PS701",
            14,
            "StringOrdinal.get_ordinal returns '10', not an int",
        ),
        ("PS701", 20, "NoReturn.get_ordinal returns None (no return statement), not an int"),
        (
            "PS702",
            27,
            "WrongPost.do_post_op must take (self, context, stack, current_stack=None, "
            "action=None, is_stack_failure=False), not (self, context, stack, action=None)",
        ),
        (
            "PS703",
            34,
            "AsyncPre.do_pre_op is async; the engine calls lifecycle methods synchronously",
        ),
    ]


@pytest.mark.parametrize("name", ["racks.py", "license_check.py", "policies.py"])
def test_bundled_examples_are_clean(name):
    assert _findings(EXAMPLES / name) == []


def test_rules_are_registered_in_the_lifecycle_family():
    from sdk.lint.registry import FAMILIES

    assert FAMILIES["lifecycle"] == ("sdk.lint.lifecycle_rules",)
    assert _RULES["PS701"].name == "lifecycle-ordinal-not-int"
    assert {_RULES[r].family for r in CHECKS} == {"lifecycle"}
    assert {_RULES[r].severity.value for r in CHECKS} == {"error"}
