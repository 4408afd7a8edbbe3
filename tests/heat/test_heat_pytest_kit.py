"""The pytest kit drives a plug-in written against Heat: fixtures and ``ResourceConformance``.

``sdk.testing.load_plugins`` loads a Heat plug-in file (or a ``heat.…`` module
of the installed openstack-heat) through the compat layer, as the engine and
``plugsim conformance`` do, and hands back its classes by type name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sdk import exception
from sdk.testing import ResourceConformance, load_plugins

WIDGET_FILE = Path(__file__).resolve().parent / "heat_style" / "widget.py"
WIDGET = load_plugins(str(WIDGET_FILE))["Test::Heat::Widget"]


def test_the_harness_creates_updates_and_deletes_a_heat_plugin(resource_harness):
    widget = resource_harness(WIDGET, {"size": 3}).create()
    assert widget.state == "CREATE_COMPLETE", widget.status_reason
    assert widget.resource.FnGetAtt("size") == 3
    assert widget.update({"size": 4}).state == "UPDATE_COMPLETE"
    assert widget.resource.FnGetAtt("size") == 4
    assert widget.delete().state == "DELETE_COMPLETE"


def test_the_plugins_own_validation_reaches_the_test(resource_harness):
    widget = resource_harness(WIDGET, {"size": 7})
    with pytest.raises(exception.StackValidationFailed, match="Seven is not a size"):
        widget.create()


def test_load_plugins_names_what_it_cannot_load(tmp_path: Path) -> None:
    with pytest.raises(exception.ConfigurationError, match="nowhere.py"):
        load_plugins(str(tmp_path / "nowhere.py"))


class TestWidgetConformance(ResourceConformance):
    """The kit's whole suite on the Heat-style Widget."""

    resource_class = WIDGET
    resource_type = "Test::Heat::Widget"
    valid_properties = {"size": 2}
    update_in_place = {"size": 5}
    expected_attributes = {"size": 2}
