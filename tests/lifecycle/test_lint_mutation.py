"""PS704: a lifecycle plug-in that changes the stack it is given is caught by running it."""

from __future__ import annotations

from sdk.lint import lint_paths

SOURCE = '''"""Lifecycle plug-ins for the mutation rule."""

from sdk.lifecycle_plugin import LifecyclePlugin


class Tagger(LifecyclePlugin):
    """Writes into the stack it observes."""

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        stack.parameters["owner"] = "ops"


class Watcher(LifecyclePlugin):
    """Only looks."""

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        return len(stack.resources)


class NeedsConfig(LifecyclePlugin):
    """Cannot be built without arguments, so it is not probed."""

    def __init__(self, url):
        self.url = url

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        stack.parameters["url"] = self.url
'''


def _findings(tmp_path, **kwargs):
    path = tmp_path / "plugins.py"
    path.write_text(SOURCE)
    report = lint_paths([path], ruff=None, **kwargs)
    return [f for f in report.findings if f.rule_id == "PS704"]


def test_a_mutating_plugin_is_reported_at_its_class(tmp_path):
    found = _findings(tmp_path)
    assert [(f.line, f.severity.value) for f in found] == [(6, "error")]
    assert found[0].message.startswith("Tagger changes the stack it is given: ")
    assert "parameters" in found[0].message


def test_no_dynamic_skips_the_probe(tmp_path):
    assert _findings(tmp_path, dynamic=False) == []
