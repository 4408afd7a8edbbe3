"""plugsim's bundled Heat utility types (``OS::Heat::*``), written on the public SDK.

Published through the entry-point group ``plugsim.resources`` as ``heat``.
``OS::Heat::None`` is a built-in of :mod:`simulator.resources` and is not
repeated here.
"""

from __future__ import annotations

from sdk.resource import Resource
from simulator.resources.heat.autoscaling import AutoScalingGroup, ScalingPolicy
from simulator.resources.heat.deployment_group import (
    SoftwareDeploymentGroup,
    SoftwareDeployments,
    StructuredDeploymentGroup,
    StructuredDeployments,
)
from simulator.resources.heat.group import ResourceGroup
from simulator.resources.heat.remote_stack import RemoteStack
from simulator.resources.heat.software_config import (
    CloudConfig,
    MultipartMime,
    SoftwareConfig,
    StructuredConfig,
)
from simulator.resources.heat.software_deployment import (
    SoftwareDeployment,
    StructuredDeployment,
)
from simulator.resources.heat.testresource import TestResource
from simulator.resources.heat.utility import Delay, RandomString, Value
from simulator.resources.heat.wait_condition import (
    UpdateWaitConditionHandle,
    WaitCondition,
    WaitConditionHandle,
)

__all__ = [
    "AutoScalingGroup",
    "CloudConfig",
    "Delay",
    "MultipartMime",
    "RandomString",
    "RemoteStack",
    "ResourceGroup",
    "ScalingPolicy",
    "SoftwareConfig",
    "SoftwareDeployment",
    "SoftwareDeploymentGroup",
    "SoftwareDeployments",
    "StructuredConfig",
    "StructuredDeployment",
    "StructuredDeploymentGroup",
    "StructuredDeployments",
    "TestResource",
    "UpdateWaitConditionHandle",
    "Value",
    "WaitCondition",
    "WaitConditionHandle",
    "resource_mapping",
]


def resource_mapping() -> dict[str, type[Resource]]:
    """Return the Heat utility types this package provides."""
    return {
        "OS::Heat::AutoScalingGroup": AutoScalingGroup,
        "OS::Heat::CloudConfig": CloudConfig,
        "OS::Heat::Delay": Delay,
        "OS::Heat::MultipartMime": MultipartMime,
        "OS::Heat::RandomString": RandomString,
        "OS::Heat::ResourceGroup": ResourceGroup,
        "OS::Heat::ScalingPolicy": ScalingPolicy,
        "OS::Heat::SoftwareConfig": SoftwareConfig,
        "OS::Heat::Stack": RemoteStack,
        "OS::Heat::SoftwareDeployment": SoftwareDeployment,
        "OS::Heat::SoftwareDeploymentGroup": SoftwareDeploymentGroup,
        "OS::Heat::SoftwareDeployments": SoftwareDeployments,
        "OS::Heat::StructuredConfig": StructuredConfig,
        "OS::Heat::StructuredDeployment": StructuredDeployment,
        "OS::Heat::StructuredDeploymentGroup": StructuredDeploymentGroup,
        "OS::Heat::StructuredDeployments": StructuredDeployments,
        "OS::Heat::TestResource": TestResource,
        "OS::Heat::UpdateWaitConditionHandle": UpdateWaitConditionHandle,
        "OS::Heat::Value": Value,
        "OS::Heat::WaitCondition": WaitCondition,
        "OS::Heat::WaitConditionHandle": WaitConditionHandle,
    }
