"""``lifecycle_plugins`` in a ``plugsim.yaml`` next to the template run around that stack."""

import sys

import pytest

from sdk import exception
from simulator.project_config import read_config
from simulator.world import World

PLUGIN = '''
from sdk.lifecycle_plugin import LifecyclePlugin


class Gate(LifecyclePlugin):
    """Refuses every create."""

    def do_pre_op(self, context, stack, current_stack=None, action=None):
        if action == "CREATE":
            raise ValueError("creates are closed today")
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "gate_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "stack.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Heat::None}\n"
    )
    (tmp_path / "plugsim.yaml").write_text("lifecycle_plugins: ['gate_plugin:Gate']\n")
    yield tmp_path
    sys.modules.pop("gate_plugin", None)


def test_the_listed_plugin_runs_for_a_stack_from_that_directory(project):
    world = World(seed=3)
    try:
        stack = world.create_stack("s", str(project / "stack.yaml"))
        assert stack.state == "CREATE_FAILED"
        assert "creates are closed today" in stack.status_reason
        assert stack.resources["a"].state == "INIT_COMPLETE"  # no resource was touched
    finally:
        world.close()


def test_both_keys_are_read_and_others_are_named(tmp_path):
    (tmp_path / "plugsim.yaml").write_text("plugin_dirs: [p]\nlifecycle_plugins: ['m:C']\n")
    assert read_config(tmp_path) == {
        "plugin_dirs": [str((tmp_path / "p").resolve())],
        "lifecycle_plugins": ["m:C"],
    }
    (tmp_path / "plugsim.yaml").write_text("plugins: [p]\n")
    with pytest.raises(exception.ConfigurationError, match="unknown key 'plugins'"):
        read_config(tmp_path)
