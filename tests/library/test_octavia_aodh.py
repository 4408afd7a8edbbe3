"""OS::Octavia::* and OS::Aodh::Gnocchi*Alarm, kept in the entity service with the services' rules.

The Octavia fixture is shaped like heat-tempest-plugin's ``octavia_lbaas`` scenario (load
balancer, listener, pool, monitor, member); the alarm like its ``test_aodh_alarm``.
"""

import ipaddress
from pathlib import Path

import pytest

from sdk import exception
from tests.library.conftest import outputs, tmpl

LB = str(Path(__file__).parent / "templates" / "octavia" / "lb.yaml")


def test_a_load_balancer_takes_a_vip_port_on_its_subnet_and_leaves_nothing(world):
    stack = world.create_stack("lb", LB)
    assert stack.status == "COMPLETE", stack.status_reason
    out = outputs(stack)
    assert out["lb"]["provisioning_status"] == "ACTIVE"
    assert out["lb"]["operating_status"] == "ONLINE"
    assert ipaddress.ip_address(out["vip"]) in ipaddress.ip_network("10.8.0.0/24")
    network = world.client_plugin("network").client()
    port = network.show_port(out["vip_port"])["port"]
    assert port["fixed_ips"][0]["ip_address"] == out["vip"]
    assert len(out["listeners"]) == 2
    assert out["pool_members"] == [out["member"]]
    assert out["pool_monitor"] == out["monitor"]
    assert world.delete_stack("lb").status == "COMPLETE"
    assert world.cloud.leaks(world.baseline) == []
    ports = [p["id"] for p in network.list_ports()["ports"]]
    assert out["vip_port"] not in ports


def test_two_listeners_on_one_port_of_a_load_balancer_conflict(world):
    stack = world.create_stack("lb", LB, parameters={"second_listener_port": 80})
    assert stack.status == "FAILED"
    assert "already has a listener with protocol_port of 80" in stack.status_reason


def _pool_doc(extra):
    net = {"type": "OS::Neutron::Net"}
    subnet = {
        "type": "OS::Neutron::Subnet",
        "properties": {"network": {"get_resource": "net"}, "cidr": "10.9.0.0/24"},
    }
    lb = {
        "type": "OS::Octavia::LoadBalancer",
        "properties": {"vip_subnet": {"get_resource": "subnet"}},
    }
    return {"net": net, "subnet": subnet, "lb": lb, **extra}


def test_a_pool_needs_a_listener_or_a_load_balancer(world):
    doc = tmpl(
        _pool_doc(
            {
                "pool": {
                    "type": "OS::Octavia::Pool",
                    "properties": {"protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
                }
            }
        )
    )
    with pytest.raises(exception.StackValidationFailed, match="listener, loadbalancer"):
        world.create_stack("s", doc)


def test_a_member_address_must_be_an_ip_address(world):
    pool = {"listener": None, "loadbalancer": {"get_resource": "lb"}, "protocol": "HTTP"}
    member = {"pool": {"get_resource": "pool"}, "address": "web", "protocol_port": 80}
    doc = tmpl(
        _pool_doc(
            {
                "pool": {
                    "type": "OS::Octavia::Pool",
                    "properties": {**pool, "lb_algorithm": "SOURCE_IP"},
                },
                "m": {"type": "OS::Octavia::PoolMember", "properties": member},
            }
        )
    )
    with pytest.raises(exception.StackValidationFailed, match="not an IP address"):
        world.create_stack("s", doc)


def test_a_pool_has_one_health_monitor(world):
    monitor = {
        "type": "HTTP",
        "delay": 3,
        "timeout": 3,
        "max_retries": 3,
        "pool": {"get_resource": "pool"},
    }
    doc = tmpl(
        _pool_doc(
            {
                "pool": {
                    "type": "OS::Octavia::Pool",
                    "properties": {
                        "loadbalancer": {"get_resource": "lb"},
                        "protocol": "HTTP",
                        "lb_algorithm": "SOURCE_IP",
                    },
                },
                "m1": {"type": "OS::Octavia::HealthMonitor", "properties": monitor},
                "m2": {
                    "type": "OS::Octavia::HealthMonitor",
                    "depends_on": "m1",
                    "properties": monitor,
                },
            }
        )
    )
    stack = world.create_stack("s", doc)
    assert stack.status == "FAILED"
    assert "already has a health monitor" in stack.status_reason


def test_a_member_of_a_pool_that_does_not_exist_fails_validation(world):
    """Heat's octavia.pool constraint: the pool is looked up when the template is validated."""
    member = {"pool": "nope", "address": "10.0.0.5", "protocol_port": 80}
    with pytest.raises(
        exception.StackValidationFailed, match=r"The Pool \(nope\) could not be found"
    ):
        world.create_stack(
            "s", tmpl({"m": {"type": "OS::Octavia::PoolMember", "properties": member}})
        )


def test_a_gnocchi_alarm_holds_its_rule_and_signal_url_and_is_disabled_by_suspend(world):
    doc = tmpl(
        {
            "asg": {
                "type": "OS::Heat::AutoScalingGroup",
                "properties": {
                    "min_size": 1,
                    "max_size": 3,
                    "resource": {"type": "OS::Heat::RandomString"},
                },
            },
            "up": {
                "type": "OS::Heat::ScalingPolicy",
                "properties": {
                    "adjustment_type": "change_in_capacity",
                    "auto_scaling_group_id": {"get_resource": "asg"},
                    "scaling_adjustment": 1,
                },
            },
            "alarm": {
                "type": "OS::Aodh::GnocchiAggregationByMetricsAlarm",
                "properties": {
                    "metrics": ["m-1", "m-2"],
                    "comparison_operator": "ge",
                    "aggregation_method": "mean",
                    "granularity": 60,
                    "evaluation_periods": 1,
                    "threshold": 10,
                    "alarm_actions": [{"get_attr": ["up", "signal_url"]}, "up"],
                },
            },
        },
        outputs={
            "alarm": {"value": {"get_attr": ["alarm", "show"]}},
            "url": {"value": {"get_attr": ["up", "signal_url"]}},
        },
    )
    stack = world.create_stack("s", doc)
    assert stack.status == "COMPLETE", stack.status_reason
    out = outputs(stack)
    alarm = out["alarm"]
    assert alarm["type"] == "gnocchi_aggregation_by_metrics_threshold"
    rule = alarm["gnocchi_aggregation_by_metrics_threshold_rule"]
    assert rule["metrics"] == ["m-1", "m-2"] and rule["threshold"] == 10
    assert alarm["alarm_actions"] == [out["url"], out["url"]]  # a resource name is its signal URL
    assert alarm["state"] == "insufficient data" and alarm["enabled"] is True
    entities = world.client_plugin("entity").client().entities
    alarm_id = stack.resources["alarm"].resource_id
    assert world.suspend_stack("s").status == "COMPLETE"
    assert entities.get(alarm_id).to_dict()["enabled"] is False
    resumed = world.resume_stack("s")
    assert resumed.status == "COMPLETE", resumed.status_reason
    assert entities.get(alarm_id).to_dict()["enabled"] is True
    assert world.delete_stack("s").status == "COMPLETE"
    assert world.cloud.leaks(world.baseline) == []
