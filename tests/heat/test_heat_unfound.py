"""A plug-in that uses the None of an unfound reference fails in one line naming it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator.heat_compat.unfound import UnfoundReference, explain, note_lookup
from simulator.store import Store
from simulator.world import World

PLUGIN = "/plugins/uses_lookup.py"
SOURCE = "def use(found):\n    conf = found\n    return conf.frozen_definition()\n"


def _raise_in_plugin() -> AttributeError:
    """The AttributeError a plug-in file's line 3 raises on None."""
    namespace: dict[str, Any] = {"__name__": "plugsim_heat_plugins.uses_lookup"}
    exec(compile(SOURCE, PLUGIN, "exec"), namespace)
    try:
        namespace["use"](None)
    except AttributeError as ex:
        return ex
    raise AssertionError("no error")


def test_using_the_none_of_a_failed_lookup_names_the_reference_and_the_line() -> None:
    note_lookup("my-launch-config", False, f"{PLUGIN}:2")
    error = explain(_raise_in_plugin())
    assert isinstance(error, UnfoundReference)
    assert error.refid == "my-launch-config"
    assert str(error) == (
        f"{PLUGIN}:3: the plug-in needs a resource of the stack with reference id "
        "'my-launch-config'; stack.resource_by_refid (line 2) found none and it used the None "
        "('NoneType' object has no attribute 'frozen_definition')"
    )


@pytest.mark.parametrize(
    "lookup",
    [
        None,  # the last lookup found its resource
        ("x", "/plugins/other.py:2"),  # a lookup in another file
        ("x", f"{PLUGIN}:9"),  # a lookup after the line that failed
    ],
)
def test_other_none_errors_are_left_as_they_are(lookup: Any) -> None:
    if lookup is None:
        note_lookup("x", True, None)
    else:
        note_lookup(lookup[0], False, lookup[1])
    raised = _raise_in_plugin()
    assert explain(raised) is raised


def test_errors_outside_plugin_code_are_left_as_they_are() -> None:
    note_lookup("x", False, f"{PLUGIN}:2")
    plain = AttributeError("'NoneType' object has no attribute 'y'")
    assert explain(plain) is plain
    other = ValueError("boom")
    assert explain(other) is other


@requires_heat
def test_heats_instance_group_without_a_launch_configuration_fails_in_one_line() -> None:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5)
    report = use_heat_plugins(world, "heat.engine.resources.openstack.heat.instance_group")
    assert not report.errors, report.errors
    props = {"AvailabilityZones": [], "LaunchConfigurationName": "", "Size": 1}
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"g": {"type": "OS::Heat::InstanceGroup", "properties": props}},
    }
    with pytest.raises(exception.StackValidationFailed) as caught:
        world.create_stack("s", template)
    message = str(caught.value)
    assert "\n" not in message
    assert "UnfoundReference" in message
    assert re.search(
        r"heat/instance_group\.py:\d+: the plug-in needs a resource of the stack", message
    )
    assert "reference id ''" in message
    world.close()
