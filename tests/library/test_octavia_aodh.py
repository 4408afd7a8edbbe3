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
    assert out["listener_lbs"] == [{"id": out["lb_id"]}]
    assert out["pool_members"] == [out["member"]]
    assert out["pool_monitor"] == out["monitor"]
    # Octavia's pool document lists its members (the octavia_lbaas scenario counts them)
    assert out["pool"]["members"] == [{"id": out["member"]}]
    assert out["pool"]["healthmonitor_id"] == out["monitor"]
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


def test_an_alarms_zaqar_queues_follow_its_actions_as_trust_zaqar_urls(world):
    """Heat appends one ``trust+zaqar://?queue_name=Q`` URL per queue to the state's actions."""
    alarm = {
        "type": "OS::Aodh::GnocchiResourcesAlarm",
        "properties": {
            "metric": "cpu_util",
            "resource_id": "r-1",
            "resource_type": "instance",
            "threshold": 50,
            "alarm_actions": ["http://example.invalid/hook"],
            "alarm_queues": ["scale up"],
            "ok_queues": ["calm"],
        },
    }
    doc = tmpl({"alarm": alarm}, outputs={"a": {"value": {"get_attr": ["alarm", "show"]}}})
    stack = world.create_stack("s", doc)
    assert stack.status == "COMPLETE", stack.status_reason
    shown = outputs(stack)["a"]
    assert shown["alarm_actions"] == [
        "http://example.invalid/hook",
        "trust+zaqar://?queue_name=scale+up",
    ]
    assert shown["ok_actions"] == ["trust+zaqar://?queue_name=calm"]
    assert shown["insufficient_data_actions"] == []
    alarm["properties"]["ok_queues"] = []
    alarm["properties"]["insufficient_data_queues"] = ["q2"]
    updated = world.update_stack("s", tmpl({"alarm": alarm}))
    assert updated.status == "COMPLETE", updated.status_reason
    entities = world.client_plugin("entity").client().entities
    stored = entities.get(stack.resources["alarm"].resource_id).to_dict()
    assert stored["ok_actions"] == []
    assert stored["insufficient_data_actions"] == ["trust+zaqar://?queue_name=q2"]


def test_a_members_tags_change_in_place_and_its_monitor_port_replaces_it(world):
    """Heat 27 updates a member's tags in place; a new monitor_address/monitor_port replaces it."""
    member = {
        "pool": {"get_resource": "pool"},
        "address": "10.9.0.7",
        "protocol_port": 80,
        "tags": ["a"],
        "monitor_port": 81,
    }

    def doc():
        pool = {"loadbalancer": {"get_resource": "lb"}, "protocol": "HTTP"}
        return tmpl(
            _pool_doc(
                {
                    "pool": {
                        "type": "OS::Octavia::Pool",
                        "properties": {**pool, "lb_algorithm": "ROUND_ROBIN"},
                    },
                    "m": {"type": "OS::Octavia::PoolMember", "properties": dict(member)},
                }
            )
        )

    stack = world.create_stack("s", doc())
    assert stack.status == "COMPLETE", stack.status_reason
    first = stack.resources["m"].resource_id
    entities = world.client_plugin("entity").client().entities
    member["tags"] = ["a", "b"]
    stack = world.update_stack("s", doc())
    assert stack.status == "COMPLETE", stack.status_reason
    assert stack.resources["m"].resource_id == first
    assert entities.get(first).to_dict()["tags"] == ["a", "b"]
    # a new monitor_port means a new member, made before the old one is deleted (Heat's
    # replacement), and Octavia refuses a second member on the same address and port
    member["monitor_port"] = 82
    stack = world.update_stack("s", doc())
    assert stack.status == "FAILED"
    assert "already using ip 10.9.0.7 on protocol_port 80" in stack.status_reason
    assert entities.get(first).to_dict()["monitor_port"] == 81
    assert world.delete_stack("s").status == "COMPLETE"
    assert world.cloud.leaks(world.baseline) == []
