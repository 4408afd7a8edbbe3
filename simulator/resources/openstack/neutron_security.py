"""``OS::Neutron::SecurityGroup`` and ``OS::Neutron::SecurityGroupRule``.

A group is created with its rules and replaced when they change; a rule on its
own points at an existing group. Both sit on :class:`.neutron.NeutronResource`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import constraints, properties, support
from simulator.resources.openstack._base import SINCE, neutron_id, reference
from simulator.resources.openstack.neutron import NeutronResource, _name

__all__ = ["SecurityGroup", "SecurityGroupRule"]


_RULE_SCHEMA = {
    "direction": properties.Schema(
        properties.Schema.STRING,
        "ingress or egress.",
        default="ingress",
        constraints=[constraints.AllowedValues(["ingress", "egress"])],
    ),
    "ethertype": properties.Schema(
        properties.Schema.STRING,
        "IPv4 or IPv6.",
        default="IPv4",
        constraints=[constraints.AllowedValues(["IPv4", "IPv6"])],
    ),
    "protocol": properties.Schema(properties.Schema.STRING, "tcp, udp, icmp or a number."),
    "port_range_min": properties.Schema(
        properties.Schema.INTEGER, "Lowest port.", constraints=[constraints.Range(0, 65535)]
    ),
    "port_range_max": properties.Schema(
        properties.Schema.INTEGER, "Highest port.", constraints=[constraints.Range(0, 65535)]
    ),
    "remote_ip_prefix": properties.Schema(properties.Schema.STRING, "Source/target CIDR."),
    "remote_group_id": properties.Schema(
        properties.Schema.STRING, "Source/target security group (remote_mode remote_group_id)."
    ),
    "remote_mode": properties.Schema(
        properties.Schema.STRING,
        "remote_ip_prefix or remote_group_id.",
        default="remote_ip_prefix",
        constraints=[constraints.AllowedValues(["remote_ip_prefix", "remote_group_id"])],
    ),
}


def _rule_body(group_id: str, rule: dict[str, Any]) -> dict[str, Any]:
    body = {"security_group_id": group_id}
    for key in ("direction", "ethertype", "protocol"):
        if rule.get(key):
            body[key] = rule[key]
    # An unset port reads as 0; a 0-0 range means "no range" (every port).
    ports = (rule.get("port_range_min"), rule.get("port_range_max"))
    if any(ports):
        body["port_range_min"], body["port_range_max"] = ports
    if rule.get("remote_mode") == "remote_group_id":
        body["remote_group_id"] = rule.get("remote_group_id") or group_id
    elif rule.get("remote_ip_prefix"):
        body["remote_ip_prefix"] = rule["remote_ip_prefix"]
    return body


class SecurityGroup(NeutronResource):  # plugsim: ignore[PS301] - see the package
    """``OS::Neutron::SecurityGroup``: a security group with its rules (replaced on update)."""

    support_status = support.SupportStatus(version=SINCE)
    kind = "security_group"
    properties_schema = {
        "name": _name(),
        "description": properties.Schema(
            properties.Schema.STRING, "Description.", default="", update_allowed=True
        ),
        "rules": properties.Schema(
            properties.Schema.LIST,
            "The rules.",
            default=[],
            update_allowed=True,
            schema=_RULE_SCHEMA,
        ),
    }
    plain = ("description",)

    def _add_rules(self, rules: list[dict[str, Any]]) -> None:
        for rule in rules:
            self.neutron().create_security_group_rule(
                {"security_group_rule": _rule_body(self.resource_id, rule)}
            )

    def handle_create(self) -> str:
        """Create the group, then its rules."""
        group_id = super().handle_create()
        self._add_rules(self.properties["rules"] or [])
        return group_id

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Change name/description; replace every rule when the rules changed."""
        diff = dict(prop_diff or {})
        super().handle_update(
            json_snippet, tmpl_diff, {k: v for k, v in diff.items() if k != "rules"}
        )
        if "rules" in diff:
            neutron = self.neutron()
            existing = neutron.list_security_group_rules(security_group_id=self.resource_id)
            for rule in existing["security_group_rules"]:
                try:
                    neutron.delete_security_group_rule(rule["id"])
                except Exception as ex:
                    self.client_plugin().ignore_not_found(ex)
            self._add_rules(diff["rules"] or [])


class SecurityGroupRule(NeutronResource):
    """``OS::Neutron::SecurityGroupRule``: one rule added to an existing group."""

    support_status = support.SupportStatus(version=SINCE)
    kind = "security_group_rule"
    #: The property map ``plugsim lint`` creates this type with (default-world entities).
    lint_properties: ClassVar[dict[str, Any]] = {
        "security_group": "default",
        "protocol": "tcp",
        "port_range_min": 22,
        "port_range_max": 22,
    }
    properties_schema = {
        "security_group": reference(
            "neutron.security_group", "Name or id of the group.", required=True
        ),
        **{k: v for k, v in _RULE_SCHEMA.items() if k != "remote_group_id"},
        "remote_group": reference(
            "neutron.security_group", "Remote group (remote_mode remote_group_id)."
        ),
    }

    def create_body(self) -> dict[str, Any]:
        """Resolve the groups and build the rule."""
        neutron = self.neutron()
        group = neutron_id(neutron, "security_group", self.properties["security_group"])
        rule = {k: self.properties[k] for k in _RULE_SCHEMA if k in self.properties}
        if self.properties["remote_group"]:
            rule["remote_group_id"] = neutron_id(
                neutron, "security_group", self.properties["remote_group"]
            )
        return _rule_body(group, rule)
