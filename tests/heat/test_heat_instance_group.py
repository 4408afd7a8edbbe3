"""Heat's own ``OS::Heat::InstanceGroup`` runs unmodified: its members' nested stack is a
CloudFormation-format template (``HeatTemplateFormatVersion`` 2012-12-12) plugsim now reads.

The group, its AWS launch configuration and AWS instance are Heat 27's modules, loaded
through the compat layer; the test creates a group, resizes it up and down, reads the
group's attributes and deletes it, checking nothing is left behind.
"""

from __future__ import annotations

from typing import Any

from _heat_diff import requires_heat

from simulator.store import Store
from simulator.world import World

RESOURCES = "heat.engine.resources."
MODULES = (
    "openstack.heat.instance_group",
    "aws.autoscaling.launch_config",
    "aws.ec2.instance",
)


def _world() -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5, entry_points=True)
    assert not use_heat_plugins(world, *(RESOURCES + m for m in MODULES)).errors
    world.baseline = world.cloud.snapshot_inventory()  # type: ignore[attr-defined]
    return world


def _template(size: int) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "config": {
                "type": "AWS::AutoScaling::LaunchConfiguration",
                "properties": {"ImageId": "cirros", "InstanceType": "m1.tiny"},
            },
            "group": {
                "type": "OS::Heat::InstanceGroup",
                "properties": {
                    "LaunchConfigurationName": {"get_resource": "config"},
                    "AvailabilityZones": ["nova"],
                    "Size": size,
                },
            },
        },
    }


def _members(world: World, stack: Any) -> Any:
    nested = world.get_stack(str(stack.resources["group"].resource_id))
    return nested


@requires_heat
def test_heats_instance_group_creates_resizes_and_deletes_its_cfn_members() -> None:
    world = _world()
    stack = world.create_stack("s", _template(2))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nested = _members(world, stack)
    assert nested.definition.template.spec.label == "HeatTemplateFormatVersion 2012-12-12"
    assert len(nested.resources) == 2
    assert {r.type() for r in nested.resources.values()} == {"AWS::EC2::Instance"}
    assert {r.state for r in nested.resources.values()} == {("CREATE", "COMPLETE")}
    kept = sorted(nested.resources)
    servers = world.client_plugin("nova").client().servers
    assert len(servers.list()) == 2

    stack = world.update_stack("s", _template(3))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    nested = _members(world, stack)
    assert len(nested.resources) == 3 and set(kept) <= set(nested.resources)
    assert len(servers.list()) == 3
    # the members' CFN outputs: {"Ref": member} per member, resolved by plugsim's CFN Ref
    refs = {o["output_key"]: o.get("output_value") for o in nested.outputs()}["references"]
    assert refs == {n: r.resource_id for n, r in nested.resources.items()}
    assert sorted(s.id for s in servers.list()) == sorted(refs.values())

    stack = world.update_stack("s", _template(1))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert len(_members(world, stack).resources) == 1
    assert len(servers.list()) == 1

    stack = world.delete_stack("s")
    assert stack.state == "DELETE_COMPLETE", stack.status_reason
    assert world.store.list_stacks(nested=True) == []
    assert world.cloud.leaks(world.baseline) == []
