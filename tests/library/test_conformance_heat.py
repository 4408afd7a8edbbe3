"""The conformance suite on every bundled ``OS::Heat::*`` type, with cloud-valid property maps.

Types that need another resource first (a deployment's server and config, a
wait condition's handle and the server whose config agent signals it, a
scaling policy's group) declare ``prerequisites``: resources that go into
the same one-stack template as the resource under test, which refers to
them with ``get_resource``. They are created, updated and deleted with it,
so the suite's leak check covers them too.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

from sdk.testing import ResourceConformance
from sdk.testing.harness import PlugsimEnv, ResourceHarness

#: A server on the default world's public network, booted from its cirros image.
SERVER = {
    "type": "OS::Nova::Server",
    "properties": {
        "image": "cirros",
        "flavor": "m1.tiny",
        "key_name": "default",
        "networks": [{"network": "public"}],
    },
}


class PrerequisiteHarness(ResourceHarness):
    """A resource harness whose template also holds the resources the one under test needs."""

    def __init__(self, *args: Any, prerequisites: Mapping[str, Any], **kwargs: Any) -> None:
        """Build the harness; *prerequisites* maps resource names to template bodies."""
        self.prerequisites = dict(prerequisites)
        super().__init__(*args, **kwargs)

    def template_for(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """Return the template: the prerequisites, then the resource under test."""
        tmpl = super().template_for(properties)
        prerequisites = copy.deepcopy(self.prerequisites)
        if self.deletion_policy:
            # what a retained resource lives in is retained with it: deleting a network, say,
            # deletes its subnets (neutron does), so the retained one would go too
            for body in prerequisites.values():
                body["deletion_policy"] = self.deletion_policy
        tmpl["resources"] = {**prerequisites, **tmpl["resources"]}
        return tmpl


class PrerequisiteConformance(ResourceConformance):
    """A conformance class whose resource is created in a stack with ``prerequisites``."""

    conformance_abstract = True
    #: ``{resource name: template body}`` created alongside the resource under test.
    prerequisites: ClassVar[Mapping[str, Any]] = {}

    def _harness(
        self,
        env: PlugsimEnv,
        *,
        faults: Any = None,
        seed: int | None = None,
        plugin: type | None = None,
        properties: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> ResourceHarness:
        world = env.new_world(faults=faults, seed=seed if seed is not None else env.seed)
        return PrerequisiteHarness(
            env,
            world,
            plugin or self.plugin(),
            dict(self.valid_properties if properties is None else properties),
            type_name=self.type_name(),
            prerequisites=self.prerequisites,
            **kwargs,
        )

    def test_deletion_policy_retain(self, plugsim_env: PlugsimEnv) -> None:
        """Retain, prerequisites too: every entity stays after the delete, then goes out of band."""
        h = self._created(plugsim_env, deletion_policy="Retain")
        ids = [str(r.resource_id) for r in h.resources.values() if r.resource_id is not None]
        kept = [item for item in map(h.world.entity, ids) if item is not None]
        self._delete_all(h)
        h.world.settle()
        for item in reversed(kept):  # the resource under test first, then what it lives in
            assert h.world.entity(item.id) is not None, f"Retain deleted {item.kind} {item.id}"
            h.world.delete_entity(item)
        self._clean(h)


class TestAutoScalingGroup(ResourceConformance):
    resource_type = "OS::Heat::AutoScalingGroup"
    valid_properties = {
        "min_size": 1,
        "max_size": 3,
        "resource": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
    }
    update_in_place = {"desired_capacity": 2}
    expected_attributes = {"current_size": 1, "refs": lambda v: len(v) == 1}


class TestCloudConfig(ResourceConformance):
    resource_type = "OS::Heat::CloudConfig"
    valid_properties = {"cloud_config": {"packages": ["nginx"]}}
    update_replace = {"cloud_config": {"packages": ["httpd"]}}
    expected_attributes = {"config": lambda v: "nginx" in v}


class TestDelay(ResourceConformance):
    resource_type = "OS::Heat::Delay"
    valid_properties = {"min_wait": 5, "max_jitter": 0}
    update_in_place = {"min_wait": 10, "actions": ["CREATE", "UPDATE"]}


class TestMultipartMime(ResourceConformance):
    resource_type = "OS::Heat::MultipartMime"
    valid_properties = {"parts": [{"config": "#!/bin/sh\necho hello", "filename": "a.sh"}]}
    update_replace = {"parts": [{"config": "#!/bin/sh\necho bye", "filename": "a.sh"}]}
    expected_attributes = {"config": lambda v: "multipart/mixed" in v and 'filename="a.sh"' in v}


class TestRandomString(ResourceConformance):
    resource_type = "OS::Heat::RandomString"
    valid_properties = {"length": 12}
    update_replace = {"length": 16}
    expected_attributes = {"value": lambda v: len(v) == 12}


class TestResourceGroup(ResourceConformance):
    resource_type = "OS::Heat::ResourceGroup"
    valid_properties = {
        "count": 2,
        "resource_def": {"type": "OS::Heat::Value", "properties": {"value": "v%index%"}},
    }
    update_in_place = {"count": 3}
    expected_attributes = {"refs": lambda v: len(v) == 2, "attributes": lambda v: True}


class TestScalingPolicy(PrerequisiteConformance):
    resource_type = "OS::Heat::ScalingPolicy"
    prerequisites = {
        "group": {
            "type": "OS::Heat::AutoScalingGroup",
            "properties": {
                "min_size": 1,
                "max_size": 3,
                "resource": {"type": "OS::Heat::RandomString"},
            },
        }
    }
    valid_properties = {
        "auto_scaling_group_id": {"get_resource": "group"},
        "adjustment_type": "change_in_capacity",
        "scaling_adjustment": 1,
    }
    update_in_place = {"scaling_adjustment": 2, "cooldown": 60}
    expected_attributes = {"signal_url": lambda v: isinstance(v, str) and v != ""}


class TestSoftwareConfig(ResourceConformance):
    resource_type = "OS::Heat::SoftwareConfig"
    valid_properties = {"group": "script", "config": "#!/bin/sh\necho hello"}
    update_replace = {"config": "#!/bin/sh\necho bye"}
    expected_attributes = {"config": "#!/bin/sh\necho hello"}


class TestStructuredConfig(ResourceConformance):
    resource_type = "OS::Heat::StructuredConfig"
    valid_properties = {"group": "Heat::Ungrouped", "config": {"port": 80}}
    update_replace = {"config": {"port": 8080}}
    expected_attributes = {"config": "port: 80\n"}


class TestSoftwareDeployment(PrerequisiteConformance):
    resource_type = "OS::Heat::SoftwareDeployment"
    prerequisites = {
        "server": SERVER,
        "config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {"group": "script", "config": "#!/bin/sh\necho deployed"},
        },
    }
    valid_properties = {
        "config": {"get_resource": "config"},
        "server": {"get_resource": "server"},
    }
    update_in_place = {"input_values": {"release": "2"}}
    update_replace = {"signal_transport": "NO_SIGNAL"}
    expected_attributes = {"deploy_status_code": 0}


class TestStructuredDeployment(PrerequisiteConformance):
    resource_type = "OS::Heat::StructuredDeployment"
    prerequisites = {
        "server": SERVER,
        "config": {
            "type": "OS::Heat::StructuredConfig",
            "properties": {"config": {"port": {"get_input": "port"}}},
        },
    }
    valid_properties = {
        "config": {"get_resource": "config"},
        "server": {"get_resource": "server"},
        "input_values": {"port": 80},
    }
    update_in_place = {"input_values": {"port": 8080}}
    update_replace = {"signal_transport": "NO_SIGNAL"}
    expected_attributes = {"deploy_status_code": 0}


class TestTestResource(ResourceConformance):
    resource_type = "OS::Heat::TestResource"
    valid_properties = {"value": "hello", "wait_secs": 2}
    update_in_place = {"value": "bye"}
    update_replace = {"value": "bye", "update_replace": True}
    expected_attributes = {"output": "hello"}


class TestValue(ResourceConformance):
    resource_type = "OS::Heat::Value"
    valid_properties = {"value": "hello", "type": "string"}
    update_in_place = {"value": "bye"}
    expected_attributes = {"value": "hello"}


class TestWaitConditionHandle(ResourceConformance):
    resource_type = "OS::Heat::WaitConditionHandle"
    valid_properties: ClassVar[Mapping[str, Any]] = {}
    expected_attributes = {"endpoint": lambda v: v.startswith("https://")}


class TestWaitCondition(PrerequisiteConformance):
    resource_type = "OS::Heat::WaitCondition"
    prerequisites = {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "server": {
            **SERVER,
            "properties": {
                **SERVER["properties"],
                "user_data": {"get_attr": ["handle", "curl_cli"]},
                "user_data_format": "RAW",
            },
        },
    }
    valid_properties = {"handle": {"get_resource": "handle"}, "count": 1, "timeout": 600}
    update_replace = {"timeout": 300}
    expected_attributes = {"data": lambda v: isinstance(v, str)}
