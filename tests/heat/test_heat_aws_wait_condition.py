"""Heat's own AWS::CloudFormation::WaitCondition with Heat's AWS handle, both loaded by file.

Heat's ``aws/cfn/wait_condition.py`` imports ``wait_condition_handle`` and checks the
handle with ``isinstance``; loaded as two plug-in files (``--heat-plugin FILE`` twice,
in either order), both must share one handle module, or the check fails
(``WaitCondition invalid Handle WaitHandle``). With nothing signalling, the condition
then ends as Heat's does: its timeout passes.
"""

from __future__ import annotations

import pytest
from _heat_diff import requires_heat

from simulator.world import World

pytestmark = requires_heat

DOC = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "WaitHandle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
        "WaitCondition": {
            "Type": "AWS::CloudFormation::WaitCondition",
            "Properties": {"Handle": {"Ref": "WaitHandle"}, "Timeout": 10},
        },
    },
}


@pytest.mark.parametrize(
    "order",
    [("wait_condition", "wait_condition_handle"), ("wait_condition_handle", "wait_condition")],
)
def test_the_aws_wait_condition_accepts_the_aws_handle_in_either_load_order(order):
    from simulator.heat_compat import find_heat_package, use_heat_plugins

    base = find_heat_package() / "engine" / "resources" / "aws" / "cfn"
    world = World()
    try:
        report = use_heat_plugins(world, *(str(base / f"{name}.py") for name in order))
        assert not report.errors, report.errors
        stack = world.create_stack("s", DOC)
        assert stack.status == "FAILED"
        assert "invalid Handle" not in stack.status_reason
        assert "WaitConditionTimeout" in stack.status_reason
    finally:
        world.close()
