"""simulator.simulate.simulate takes lifecycle plug-ins directly (no environment variables)."""

import os

from sdk.lifecycle_plugin import LifecyclePlugin
from simulator.lifecycle import ENV_PLUGINS, ENV_STRICT
from simulator.simulate import simulate

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {"a": {"type": "OS::Heat::None"}},
}


class Journal(LifecyclePlugin):
    """Records every pre-op it sees."""

    def __init__(self):
        self.seen = []

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        self.seen.append(action)


class Renamer(LifecyclePlugin):
    """Breaks the no-modification rule."""

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        stack.parameters["sneaky"] = "x"


def test_plugins_run_around_every_phase():
    journal = Journal()
    report = simulate(TEMPLATE, lifecycle_plugins=[journal])
    assert report.ok
    assert journal.seen[0] == "CREATE" and "DELETE" in journal.seen
    assert ENV_PLUGINS not in os.environ and ENV_STRICT not in os.environ


def test_strict_mode_fails_a_mutating_plugin():
    assert simulate(TEMPLATE, lifecycle_plugins=[Renamer()]).ok
    report = simulate(TEMPLATE, lifecycle_plugins=[Renamer()], strict_lifecycle=True)
    assert not report.ok
    assert any("parameters" in (e.get("reason") or "") for e in report.to_dict()["events"])
