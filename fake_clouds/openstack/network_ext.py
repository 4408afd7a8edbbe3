"""neutron's API extensions on the wire, a mixin of :class:`fake_clouds.openstack.network.NetworkAPI`.

The extension kinds of the network service (:mod:`fake_clouds.network_extensions`)
under the paths neutron serves them at: ``/v2.0/qos/policies`` (bodies
``policy``/``policies``) and a policy's rules
(``/v2.0/qos/policies/{id}/bandwidth_limit_rules`` ...), ``/v2.0/fw/...``
(FWaaS v1), ``/v2.0/metering/metering-labels`` and ``metering-label-rules``,
``/v2.0/sfc/...`` and ``/v2.0/taas/...``; trunks (with ``add_subports``,
``remove_subports``, ``get_subports``), RBAC policies, L2 gateways and network
gateways (``connect_network`` / ``disconnect_network``) sit at the top level
beside the core collections. Lists filter, page and pick ``fields`` as the
core collections do.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.network_ext_schema import QOS_RULES
from fake_clouds.core.network_schema import PLURALS
from fake_clouds.openstack.base import ApiError, ApiRequest, Reply, bad, route

#: URL group -> (URL collection -> entity kind) of the extensions served under a group.
GROUPS: dict[str, dict[str, str]] = {
    "qos": {"policies": "qos_policy"},
    "fw": {
        "firewalls": "firewall",
        "firewall_policies": "firewall_policy",
        "firewall_rules": "firewall_rule",
    },
    "metering": {
        "metering-labels": "metering_label",
        "metering-label-rules": "metering_label_rule",
    },
    "sfc": {
        "port_pairs": "port_pair",
        "port_pair_groups": "port_pair_group",
        "flow_classifiers": "flow_classifier",
        "port_chains": "port_chain",
    },
    "taas": {"tap_services": "tap_service", "tap_flows": "tap_flow"},
}
#: Extension kinds whose neutron body shows no ``status``.
STATUSLESS = frozenset(
    {"qos_policy", "rbac_policy", "firewall_policy", "firewall_rule", "metering_label"}
    | {"metering_label_rule", "l2_gateway", "l2_gateway_connection", "network_gateway"}
    | set(QOS_RULES)
)
#: URL collection of a QoS policy's rules -> rule kind.
RULE_COLLECTIONS = {kind + "s": kind for kind in QOS_RULES}


def _group_of(req: ApiRequest) -> str:
    """The group segment after ``/v2.0/`` of the request's path."""
    return req.raw.path.split("/v2.0/", 1)[-1].split("/", 1)[0]


def _lift(rule: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rule.items() if k not in ("name", "description", "status")}


class NetworkExtensionRoutes:
    """Routes of the extension kinds served under a group, and the extensions' actions."""

    network: Any
    view: Any
    list_kind: Any
    create_kind: Any
    show_kind: Any
    update_kind: Any
    _call: Any

    def _group_kind(self, req: ApiRequest, collection: str) -> str:
        kind = GROUPS.get(_group_of(req), {}).get(collection)
        if kind is None:
            raise ApiError(404, f"The resource {collection} could not be found.", unserved=True)
        return kind

    def _group_op(self, req: ApiRequest, collection: str, verb: str) -> Any:
        kind = GROUPS.get(_group_of(req), {}).get(collection)
        return None if kind is None else ("network", f"{PLURALS[kind][0]}.{verb}", kind)

    def op_group_list(self, req: ApiRequest, collection: str) -> Any:
        """The operation a grouped list dispatches as."""
        return self._group_op(req, collection, "list")

    def op_group_create(self, req: ApiRequest, collection: str) -> Any:
        """The operation a grouped create dispatches as."""
        return self._group_op(req, collection, "create")

    def op_group_get(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation a grouped show dispatches as."""
        return self._group_op(req, collection, "get")

    def op_group_update(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation a grouped update dispatches as."""
        return self._group_op(req, collection, "update")

    def op_group_delete(self, req: ApiRequest, collection: str, ident: str) -> Any:
        """The operation a grouped delete dispatches as."""
        return self._group_op(req, collection, "delete")

    @route("GET", "/v2.0/qos/<collection>", op="op_group_list")
    @route("GET", "/v2.0/fw/<collection>", op="op_group_list")
    @route("GET", "/v2.0/metering/<collection>", op="op_group_list")
    @route("GET", "/v2.0/sfc/<collection>", op="op_group_list")
    @route("GET", "/v2.0/taas/<collection>", op="op_group_list")
    def list_grouped(self, req: ApiRequest, collection: str) -> Reply:
        """List an extension collection served under a group."""
        url = f"{_group_of(req)}/{collection}"
        return self.list_kind(req, self._group_kind(req, collection), url)

    @route("POST", "/v2.0/qos/<collection>", op="op_group_create")
    @route("POST", "/v2.0/fw/<collection>", op="op_group_create")
    @route("POST", "/v2.0/metering/<collection>", op="op_group_create")
    @route("POST", "/v2.0/sfc/<collection>", op="op_group_create")
    @route("POST", "/v2.0/taas/<collection>", op="op_group_create")
    def create_grouped(self, req: ApiRequest, collection: str) -> Reply:
        """Create in an extension collection served under a group."""
        return self.create_kind(req, self._group_kind(req, collection))

    @route("GET", "/v2.0/qos/<collection>/<ident>", op="op_group_get")
    @route("GET", "/v2.0/fw/<collection>/<ident>", op="op_group_get")
    @route("GET", "/v2.0/metering/<collection>/<ident>", op="op_group_get")
    @route("GET", "/v2.0/sfc/<collection>/<ident>", op="op_group_get")
    @route("GET", "/v2.0/taas/<collection>/<ident>", op="op_group_get")
    def show_grouped(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Show one object of a grouped extension collection."""
        return self.show_kind(req, self._group_kind(req, collection), ident)

    @route("PUT", "/v2.0/qos/<collection>/<ident>", op="op_group_update")
    @route("PUT", "/v2.0/fw/<collection>/<ident>", op="op_group_update")
    @route("PUT", "/v2.0/metering/<collection>/<ident>", op="op_group_update")
    @route("PUT", "/v2.0/sfc/<collection>/<ident>", op="op_group_update")
    @route("PUT", "/v2.0/taas/<collection>/<ident>", op="op_group_update")
    def update_grouped(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Update one object of a grouped extension collection."""
        return self.update_kind(req, self._group_kind(req, collection), ident)

    @route("DELETE", "/v2.0/qos/<collection>/<ident>", op="op_group_delete")
    @route("DELETE", "/v2.0/fw/<collection>/<ident>", op="op_group_delete")
    @route("DELETE", "/v2.0/metering/<collection>/<ident>", op="op_group_delete")
    @route("DELETE", "/v2.0/sfc/<collection>/<ident>", op="op_group_delete")
    @route("DELETE", "/v2.0/taas/<collection>/<ident>", op="op_group_delete")
    def delete_grouped(self, req: ApiRequest, collection: str, ident: str) -> Reply:
        """Delete one object of a grouped extension collection."""
        self._call(self._group_kind(req, collection), "delete", ident)
        return Reply(204)

    # --- QoS rules (nested in their policy) ----------------------------------------------

    def _rule_kind(self, rules: str) -> str:
        kind = RULE_COLLECTIONS.get(rules)
        if kind is None:
            raise ApiError(404, f"The resource {rules} could not be found.", unserved=True)
        return kind

    def _policy_rule(self, kind: str, policy_id: str, rule_id: str) -> dict[str, Any]:
        self.network.get_qos_policy(policy_id)
        rule = dict(getattr(self.network, f"get_{kind}")(rule_id))
        if rule.get("qos_policy_id") != policy_id:
            raise ApiError(404, f"QoS rule {rule_id} for policy {policy_id} could not be found.")
        return rule

    @route("GET", "/v2.0/qos/policies/<policy_id>/<rules>", op=("network", "qos_rules.list", None))
    def list_rules(self, req: ApiRequest, policy_id: str, rules: str) -> Reply:
        """The rules of one type of a QoS policy."""
        kind = self._rule_kind(rules)
        self.network.get_qos_policy(policy_id)
        found = getattr(self.network, f"list_{kind}s")(qos_policy_id=policy_id)
        return Reply(200, {rules: [_lift(r) for r in found]})

    @route(
        "POST", "/v2.0/qos/policies/<policy_id>/<rules>", op=("network", "qos_rules.create", None)
    )
    def create_rule(self, req: ApiRequest, policy_id: str, rules: str) -> Reply:
        """Add a rule to a QoS policy."""
        kind = self._rule_kind(rules)
        attrs = {**req.member(kind), "qos_policy_id": policy_id}
        attrs.pop("tenant_id", None)
        attrs.pop("project_id", None)
        return Reply(201, {kind: _lift(getattr(self.network, f"create_{kind}")(attrs))})

    @route(
        "GET",
        "/v2.0/qos/policies/<policy_id>/<rules>/<rule_id>",
        op=("network", "qos_rules.get", None),
    )
    def show_rule(self, req: ApiRequest, policy_id: str, rules: str, rule_id: str) -> Reply:
        """One rule of a QoS policy."""
        kind = self._rule_kind(rules)
        return Reply(200, {kind: _lift(self._policy_rule(kind, policy_id, rule_id))})

    @route(
        "PUT",
        "/v2.0/qos/policies/<policy_id>/<rules>/<rule_id>",
        op=("network", "qos_rules.update", None),
    )
    def update_rule(self, req: ApiRequest, policy_id: str, rules: str, rule_id: str) -> Reply:
        """Change a rule of a QoS policy."""
        kind = self._rule_kind(rules)
        self._policy_rule(kind, policy_id, rule_id)
        changed = getattr(self.network, f"update_{kind}")(rule_id, dict(req.member(kind)))
        return Reply(200, {kind: _lift(changed)})

    @route(
        "DELETE",
        "/v2.0/qos/policies/<policy_id>/<rules>/<rule_id>",
        op=("network", "qos_rules.delete", None),
    )
    def delete_rule(self, req: ApiRequest, policy_id: str, rules: str, rule_id: str) -> Reply:
        """Delete a rule of a QoS policy."""
        kind = self._rule_kind(rules)
        self._policy_rule(kind, policy_id, rule_id)
        getattr(self.network, f"delete_{kind}")(rule_id)
        return Reply(204)

    # --- trunk and network gateway actions -----------------------------------------------

    def _sub_ports(self, req: ApiRequest) -> Any:
        subs = req.json().get("sub_ports")
        if not isinstance(subs, list):
            raise bad("Invalid input for sub_ports: a list is required.")
        return subs

    @route(
        "PUT", "/v2.0/trunks/<ident>/add_subports", op=("network", "trunks.add_subports", "trunk")
    )
    def add_subports(self, req: ApiRequest, ident: str) -> Reply:
        """Add sub-ports to a trunk; the trunk is the answer."""
        return Reply(
            200, self.view("trunk", self.network.trunk_add_subports(ident, self._sub_ports(req)))
        )

    @route(
        "PUT",
        "/v2.0/trunks/<ident>/remove_subports",
        op=("network", "trunks.remove_subports", "trunk"),
    )
    def remove_subports(self, req: ApiRequest, ident: str) -> Reply:
        """Remove sub-ports from a trunk."""
        trunk = self.network.trunk_remove_subports(ident, self._sub_ports(req))
        return Reply(200, self.view("trunk", trunk))

    @route("GET", "/v2.0/trunks/<ident>/get_subports", op=("network", "trunks.get", "trunk"))
    def get_subports(self, req: ApiRequest, ident: str) -> Reply:
        """The sub-ports of a trunk."""
        return Reply(200, {"sub_ports": self.network.get_trunk(ident)["sub_ports"]})

    @route(
        "PUT",
        "/v2.0/network-gateways/<ident>/connect_network",
        op=("network", "network_gateways.connect", "network_gateway"),
    )
    def connect_network(self, req: ApiRequest, ident: str) -> Reply:
        """Connect a network to a network gateway."""
        return Reply(200, self.network.connect_network_gateway(ident, req.json()))

    @route(
        "PUT",
        "/v2.0/network-gateways/<ident>/disconnect_network",
        op=("network", "network_gateways.disconnect", "network_gateway"),
    )
    def disconnect_network(self, req: ApiRequest, ident: str) -> Reply:
        """Disconnect a network from a network gateway."""
        self.network.disconnect_network_gateway(ident, req.json())
        return Reply(200, {})
