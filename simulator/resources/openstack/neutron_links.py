"""Neutron types that link existing objects instead of owning one of their own.

``OS::Neutron::RouterInterface`` plugs a subnet or port into a router and
``OS::Neutron::FloatingIPAssociation`` points a floating IP at a port. Their
resource ids are composite (``<router id>:subnet_id=<id>``,
``<floating IP id>:<port id>``). Re-exported by
:mod:`simulator.resources.openstack.neutron`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import exception, properties, support
from sdk.resource import Resource
from simulator.resources.openstack import neutron_order
from simulator.resources.openstack._base import (
    SINCE,
    Translated,
    hidden,
    neutron_id,
    prop_path,
    reference,
)

_PRIVATE_NETWORK: dict[str, Any] = {
    "net": {"type": "OS::Neutron::Net"},
    "subnet": {
        "type": "OS::Neutron::Subnet",
        "properties": {"network": {"get_resource": "net"}, "cidr": "10.98.0.0/24"},
    },
    "router": {
        "type": "OS::Neutron::Router",
        "properties": {"external_gateway_info": {"network": "public"}},
    },
}
"""Companions for the linter: a private network and a router with a gateway to ``public``."""


class RouterInterface(Translated):  # plugsim: ignore[PS301] - see the package
    """``OS::Neutron::RouterInterface``: a subnet (or port) plugged into a router.

    The resource id is ``<router id>:subnet_id=<id>`` or ``<router id>:port_id=<id>``.
    """

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "network"
    translations: ClassVar[dict[str, str]] = {
        "router_id": "router",
        "subnet_id": "subnet",
        "port_id": "port",
    }
    lint_properties: ClassVar[dict[str, Any]] = {
        "router": {"get_resource": "router"},
        "subnet": {"get_resource": "subnet"},
    }
    lint_companions: ClassVar[dict[str, Any]] = _PRIVATE_NETWORK
    properties_schema = {
        "router": reference("neutron.router", "Name or id of the router.", required=True),
        "router_id": hidden(reference("neutron.router", ""), "router"),
        "subnet_id": hidden(reference("neutron.subnet", ""), "subnet"),
        "port_id": hidden(reference("neutron.port", ""), "port"),
        "subnet": reference("neutron.subnet", "Name or id of the subnet (or give a port)."),
        "port": reference("neutron.port", "Name or id of the port (or give a subnet)."),
    }

    def validate(self) -> None:
        """Exactly one of subnet and port."""
        super().validate()
        if bool(self.properties["subnet"]) == bool(self.properties["port"]):
            raise exception.StackValidationFailed(
                error_message="Exactly one of subnet and port must be given",
                path=prop_path(self, "subnet"),
            )

    def handle_create(self) -> None:
        """Plug the subnet or port into the router."""
        self.validate()
        neutron = self.client()
        router = neutron_id(neutron, "router", self.properties["router"])
        if self.properties["subnet"]:
            key, value = "subnet_id", neutron_id(neutron, "subnet", self.properties["subnet"])
        else:
            key, value = "port_id", neutron_id(neutron, "port", self.properties["port"])
        neutron.add_interface_router(router, {key: value})
        self.resource_id_set(f"{router}:{key}={value}")

    def handle_delete(self) -> None:
        """Unplug it (already gone is fine)."""
        if not self.resource_id:
            return
        router, _, rest = str(self.resource_id).partition(":")
        key, _, value = rest.partition("=")
        try:
            self.client().remove_interface_router(router, {key: value})
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)


class FloatingIPAssociation(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Neutron::FloatingIPAssociation``: associates a floating IP with a port."""

    implicit_requirements = classmethod(neutron_order.floating_ip_association)

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "network"
    lint_properties: ClassVar[dict[str, Any]] = {
        "floatingip_id": {"get_resource": "fip"},
        "port_id": {"get_resource": "port"},
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        **_PRIVATE_NETWORK,
        "interface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {
                "router": {"get_resource": "router"},
                "subnet": {"get_resource": "subnet"},
            },
        },
        "port": {
            "type": "OS::Neutron::Port",
            "properties": {"network": {"get_resource": "net"}},
            "depends_on": ["subnet"],
        },
        "fip": {
            "type": "OS::Neutron::FloatingIP",
            "properties": {"floating_network": "public"},
            "depends_on": ["interface"],
        },
    }
    properties_schema = {
        "floatingip_id": properties.Schema(
            properties.Schema.STRING,
            "Id of the floating IP (a change moves the association to it).",
            required=True,
            update_allowed=True,
        ),
        "port_id": reference(
            "neutron.port", "Port to associate with.", required=True, update_allowed=True
        ),
        "fixed_ip_address": properties.Schema(
            properties.Schema.STRING, "Which fixed address of the port.", update_allowed=True
        ),
    }

    def _associate(self, fip: str, port: str, fixed: str | None) -> str:
        neutron = self.client()
        body: dict[str, Any] = {"port_id": neutron_id(neutron, "port", port)}
        if fixed:
            body["fixed_ip_address"] = fixed
        neutron.update_floatingip(fip, {"floatingip": body})
        return str(body["port_id"])

    def handle_create(self) -> None:
        """Point the floating IP at the port."""
        fip = self.properties["floatingip_id"]
        port = self._associate(fip, self.properties["port_id"], self.properties["fixed_ip_address"])
        self.resource_id_set(f"{fip}:{port}")

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Move the association in place, as Heat does: another floating IP is associated
        after the old one is released; another port or fixed address re-points the same one."""
        diff = dict(prop_diff or {})
        if not diff:
            return
        new = {k: diff.get(k, self.properties[k]) for k in self.properties_schema}
        old_fip = self.properties["floatingip_id"]
        if old_fip != new["floatingip_id"]:
            try:
                self.client().update_floatingip(old_fip, {"floatingip": {"port_id": None}})
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)
        self._associate(new["floatingip_id"], new["port_id"], new["fixed_ip_address"])

    def handle_delete(self) -> None:
        """Disassociate (a floating IP already gone is fine)."""
        if not self.resource_id:
            return
        # the current floating IP (an update may have moved the association; the id stays)
        fip = self.properties["floatingip_id"] or str(self.resource_id).partition(":")[0]
        try:
            self.client().update_floatingip(fip, {"floatingip": {"port_id": None}})
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
