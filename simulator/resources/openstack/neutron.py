"""``OS::Neutron::*`` types on the fake network service (dict-style client ``network``).

Every type creates its object, polls it out of ``BUILD`` and, on delete,
polls until the object is gone. Names of referenced networks, subnets,
ports, routers and security groups are resolved to ids.

The types that own a neutron object (networks, subnets, ports, routers,
floating IPs, all on :class:`NeutronResource`) are here, security groups and
their rules in :mod:`.neutron_security`; the two that only link existing objects (router interfaces, floating IP
associations) are in :mod:`.neutron_links`, and are importable from here too.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource
from simulator.resources.openstack import neutron_order
from simulator.resources.openstack._base import (
    SINCE,
    Translated,
    gone,
    hidden,
    neutron_id,
    prop_path,
    reference,
    status_done,
)
from simulator.resources.openstack.neutron_links import FloatingIPAssociation, RouterInterface

__all__ = [
    "FloatingIP",
    "FloatingIPAssociation",
    "Net",
    "Port",
    "Router",
    "RouterInterface",
    "Subnet",
]


def _name(update: bool = True) -> properties.Schema:
    return properties.Schema(
        properties.Schema.STRING,
        "Name (default: derived from the stack and resource).",
        update_allowed=update,
    )


class NeutronResource(Resource):  # plugsim: ignore[PS301] - see the package
    """Base of the neutron types: create/poll/update/delete one object of :attr:`kind`."""

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "network"
    #: The neutron object kind (``network``, ``subnet``...).
    kind: ClassVar[str] = ""
    #: Properties passed unchanged under the same key on create and update.
    plain: ClassVar[tuple[str, ...]] = ()

    def create_body(self) -> dict[str, Any]:
        """Return the attributes to create the object with."""
        body = {}
        for key in self.plain:
            value = self.properties.get_user_value(key)
            if value is None:
                value = self.properties_schema[key].default
            if value is not None:
                body[key] = value
        if "name" in self.properties_schema:
            body["name"] = self.properties["name"] or self.physical_resource_name()
        return body

    def update_body(self, prop_diff: dict[str, Any]) -> dict[str, Any]:
        """Return the attributes to change for *prop_diff*."""
        body = {k: v for k, v in prop_diff.items() if k in self.plain}
        if "name" in prop_diff:
            body["name"] = prop_diff["name"] or self.physical_resource_name()
        return body

    def neutron(self) -> Any:
        """Return the network client."""
        return self.client()

    def show(self, object_id: str | None = None) -> dict[str, Any]:
        """Return the object's attributes."""
        return getattr(self.neutron(), f"show_{self.kind}")(object_id or self.resource_id)[
            self.kind
        ]

    def handle_create(self) -> str:
        """Create the object."""
        created = getattr(self.neutron(), f"create_{self.kind}")({self.kind: self.create_body()})
        self.resource_id_set(created[self.kind]["id"])
        return self.resource_id

    def check_create_complete(self, object_id: str) -> bool:
        """Done once the object leaves BUILD."""
        status = self.show(object_id).get("status", "ACTIVE")
        return status_done(
            f"{self.kind} {object_id}", status, ["ACTIVE", "DOWN"], pending=["BUILD"]
        )

    def handle_update(  # plugsim: ignore[PS106] - subclasses allow updates
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Send the changed attributes."""
        body = self.update_body(dict(prop_diff or {}))
        if body:
            getattr(self.neutron(), f"update_{self.kind}")(self.resource_id, {self.kind: body})

    def handle_delete(self) -> str | None:
        """Delete the object (already gone is fine)."""
        if self.resource_id is None:
            return None
        try:
            getattr(self.neutron(), f"delete_{self.kind}")(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None
        return self.resource_id

    def check_delete_complete(self, object_id: str | None) -> bool:
        """Done when the object is gone."""
        return object_id is None or gone(self, "network", lambda: self.show(object_id))

    def _show_resource(self) -> dict[str, Any]:
        return self.show()

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.show().get(name)


class Net(NeutronResource):
    """``OS::Neutron::Net``: a network."""

    kind = "network"
    plain = ("admin_state_up", "shared", "port_security_enabled")
    properties_schema = {
        "name": _name(),
        "admin_state_up": properties.Schema(
            properties.Schema.BOOLEAN, "Administrative state.", default=True, update_allowed=True
        ),
        "shared": properties.Schema(
            properties.Schema.BOOLEAN,
            "Shared with every project.",
            default=False,
            update_allowed=True,
        ),
        "port_security_enabled": properties.Schema(
            properties.Schema.BOOLEAN,
            "Port security on new ports (on unless switched off, as neutron does).",
            default=True,
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "name": attributes.Schema("Network name.", type=attributes.Schema.STRING),
        "status": attributes.Schema("Network status.", type=attributes.Schema.STRING),
        "subnets": attributes.Schema("Ids of the network's subnets.", type=attributes.Schema.LIST),
        "mtu": attributes.Schema("The MTU.", type=attributes.Schema.INTEGER),
        "port_security_enabled": attributes.Schema(
            "Whether port security is on for new ports.", type=attributes.Schema.BOOLEAN
        ),
        "admin_state_up": attributes.Schema(
            "Administrative state.", type=attributes.Schema.BOOLEAN
        ),
        "tenant_id": attributes.Schema("The project owning it.", type=attributes.Schema.STRING),
    }


class Subnet(Translated, NeutronResource):
    """``OS::Neutron::Subnet``: an IP range of a network (hidden ``network_id``: ``network``)."""

    kind = "subnet"
    translations: ClassVar[dict[str, str]] = {"network_id": "network"}
    #: The property map ``plugsim lint`` creates this type with (default-world entities).
    lint_properties: ClassVar[dict[str, Any]] = {"network": "public", "cidr": "10.99.0.0/24"}
    plain = ("cidr", "ip_version", "gateway_ip", "enable_dhcp", "dns_nameservers", "host_routes")
    properties_schema = {
        "name": _name(),
        "network": reference("neutron.network", "Name or id of the network.", required=True),
        "network_id": hidden(reference("neutron.network", ""), "network"),
        "cidr": properties.Schema(
            properties.Schema.STRING, "The IP range, e.g. 10.0.0.0/24.", required=True
        ),
        "ip_version": properties.Schema(
            properties.Schema.INTEGER,
            "4 or 6.",
            default=4,
            constraints=[constraints.AllowedValues([4, 6])],
        ),
        "gateway_ip": properties.Schema(
            properties.Schema.STRING,
            "Gateway address (default: the first host).",
            update_allowed=True,
        ),
        "enable_dhcp": properties.Schema(
            properties.Schema.BOOLEAN, "Run DHCP on the subnet.", default=True, update_allowed=True
        ),
        "allocation_pools": properties.Schema(
            properties.Schema.LIST,
            "Address ranges handed out.",
            schema={
                "start": properties.Schema(
                    properties.Schema.STRING, "First address.", required=True
                ),
                "end": properties.Schema(properties.Schema.STRING, "Last address.", required=True),
            },
            update_allowed=True,
        ),
        "dns_nameservers": properties.Schema(
            properties.Schema.LIST, "DNS servers.", default=[], update_allowed=True
        ),
        "host_routes": properties.Schema(
            properties.Schema.LIST,
            "Extra routes ({destination, nexthop}).",
            default=[],
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "name": attributes.Schema("Subnet name.", type=attributes.Schema.STRING),
        "cidr": attributes.Schema("The IP range.", type=attributes.Schema.STRING),
        "gateway_ip": attributes.Schema("Gateway address.", type=attributes.Schema.STRING),
        "network_id": attributes.Schema("Network id.", type=attributes.Schema.STRING),
        "allocation_pools": attributes.Schema("Address ranges.", type=attributes.Schema.LIST),
        "dns_nameservers": attributes.Schema("DNS servers.", type=attributes.Schema.LIST),
        "enable_dhcp": attributes.Schema("Whether DHCP runs.", type=attributes.Schema.BOOLEAN),
        "host_routes": attributes.Schema("Extra routes.", type=attributes.Schema.LIST),
        "ip_version": attributes.Schema("4 or 6.", type=attributes.Schema.INTEGER),
        "tenant_id": attributes.Schema("The project owning it.", type=attributes.Schema.STRING),
    }

    def create_body(self) -> dict[str, Any]:
        """Resolve the network and pass the pools."""
        body = super().create_body()
        body["network_id"] = neutron_id(self.neutron(), "network", self.properties["network"])
        if self.properties["allocation_pools"]:
            body["allocation_pools"] = self.properties["allocation_pools"]
        return body

    def update_body(self, prop_diff: dict[str, Any]) -> dict[str, Any]:
        """The plain changes, and the pools (removed from the template: none, as in Heat)."""
        body = super().update_body(prop_diff)
        if "allocation_pools" in prop_diff:
            body["allocation_pools"] = prop_diff["allocation_pools"] or []
        return body


class Port(Translated, NeutronResource):
    """``OS::Neutron::Port``: a port on a network, to plug a server into.

    The hidden ``network_id`` (and ``subnet_id`` in ``fixed_ips``) are translated.
    """

    implicit_requirements = classmethod(neutron_order.port)

    kind = "port"
    translations: ClassVar[dict[str, str]] = {"network_id": "network"}
    item_translations: ClassVar[dict[str, dict[str, str]]] = {"fixed_ips": {"subnet_id": "subnet"}}
    #: Hidden in Heat 27 and dropped: Heat keeps a port's identity across replacement anyway.
    ignored: ClassVar[tuple[str, ...]] = ("replacement_policy",)
    #: The property map ``plugsim lint`` creates this type with (default-world entities;
    #: port security given, since unset it reads whatever the network has).
    lint_properties: ClassVar[dict[str, Any]] = {"network": "public", "port_security_enabled": True}
    plain = (
        "admin_state_up",
        "port_security_enabled",
        "allowed_address_pairs",
        "device_id",
        "device_owner",
        "mac_address",
    )
    properties_schema = {
        "name": _name(),
        "network": reference("neutron.network", "Name or id of the network.", required=True),
        "network_id": hidden(reference("neutron.network", ""), "network"),
        # Hidden in Heat 27 and dropped before the port is made, as Heat drops it:
        "replacement_policy": properties.Schema(  # plugsim: ignore[PS153] - dropped
            properties.Schema.STRING,
            "Hidden: Heat keeps a port's identity across replacement anyway.",
            constraints=[constraints.AllowedValues(["REPLACE_ALWAYS", "AUTO"])],
            update_allowed=True,
            support_status=support.SupportStatus(
                status=support.HIDDEN,
                version="2016.2",
                previous_status=support.SupportStatus(status=support.DEPRECATED, version="2014.2"),
            ),
        ),
        "fixed_ips": properties.Schema(
            properties.Schema.LIST,
            "Addresses to ask for; a change keeps the port (an entry without ip_address "
            "keeps the port's address on its subnet; an empty list leaves the addresses).",
            schema={
                "subnet": reference("neutron.subnet", "Name or id of the subnet."),
                "subnet_id": hidden(reference("neutron.subnet", ""), "subnet"),
                "ip_address": properties.Schema(properties.Schema.STRING, "The address."),
            },
            update_allowed=True,
        ),
        "security_groups": properties.Schema(
            properties.Schema.LIST,
            "Names or ids of security groups.",
            update_allowed=True,
            schema=reference("neutron.security_group", "Name or id of a security group."),
        ),
        "admin_state_up": properties.Schema(
            properties.Schema.BOOLEAN, "Administrative state.", default=True, update_allowed=True
        ),
        "port_security_enabled": properties.Schema(
            properties.Schema.BOOLEAN,
            "Port security (unset: the network's, as in Neutron).",
            update_allowed=True,
        ),
        "allowed_address_pairs": properties.Schema(
            properties.Schema.LIST,
            "Extra addresses allowed through ({ip_address}).",
            update_allowed=True,
        ),
        "device_id": properties.Schema(
            properties.Schema.STRING, "Id of the device using the port.", update_allowed=True
        ),
        "device_owner": properties.Schema(
            properties.Schema.STRING, "What uses the port (compute:nova...).", update_allowed=True
        ),
        "mac_address": properties.Schema(
            properties.Schema.STRING, "The MAC address to give the port (default: neutron's)."
        ),
    }
    attributes_schema = {
        "name": attributes.Schema("Port name.", type=attributes.Schema.STRING),
        "fixed_ips": attributes.Schema("Addresses of the port.", type=attributes.Schema.LIST),
        "mac_address": attributes.Schema("MAC address.", type=attributes.Schema.STRING),
        "network_id": attributes.Schema("Network id.", type=attributes.Schema.STRING),
        "device_id": attributes.Schema(
            "Id of the device using the port.", type=attributes.Schema.STRING
        ),
        "status": attributes.Schema("Port status.", type=attributes.Schema.STRING),
        "admin_state_up": attributes.Schema(
            "Administrative state.", type=attributes.Schema.BOOLEAN
        ),
        "allowed_address_pairs": attributes.Schema(
            "Extra addresses allowed through.", type=attributes.Schema.LIST
        ),
        "device_owner": attributes.Schema("What uses the port.", type=attributes.Schema.STRING),
        "port_security_enabled": attributes.Schema(
            "Whether port security is on.", type=attributes.Schema.BOOLEAN
        ),
        "security_groups": attributes.Schema(
            "Ids of the security groups.", type=attributes.Schema.LIST
        ),
        "tenant_id": attributes.Schema("The project owning it.", type=attributes.Schema.STRING),
    }

    def _groups(self, names: list[str] | None) -> list[str] | None:
        if names is None:
            return None
        return [neutron_id(self.neutron(), "security_group", g) for g in names]

    def create_body(self) -> dict[str, Any]:
        """Resolve the network, subnets and security groups."""
        neutron = self.neutron()
        body = super().create_body()
        if self.properties.get_user_value("port_security_enabled") is None:
            body.pop("port_security_enabled", None)  # neutron gives the network's value
        body["network_id"] = neutron_id(neutron, "network", self.properties["network"])
        fixed = self._fixed_ips(self.properties["fixed_ips"])
        if fixed:
            body["fixed_ips"] = fixed
        groups = self._groups(self.properties["security_groups"])
        if groups is not None:
            body["security_groups"] = groups
        return body

    def validate(self) -> None:
        """Check the properties; a ``fixed_ips`` entry names a subnet or an address (Neutron
        refuses an empty one, at create and at update alike)."""
        super().validate()
        for index, entry in enumerate(self.properties["fixed_ips"] or []):
            if not entry["subnet"] and not entry["ip_address"]:
                raise exception.StackValidationFailed(
                    error_message="A fixed IP needs a subnet or an ip_address",
                    path=prop_path(self, "fixed_ips", index),
                )

    def _fixed_ips(self, entries: Any) -> list[dict[str, Any]]:
        """*entries* of ``fixed_ips`` as neutron takes them (subnet ids, no empty address)."""
        neutron = self.neutron()
        fixed = []
        for index, entry in enumerate(entries or []):
            if not entry["subnet"]:
                raise exception.StackValidationFailed(
                    error_message="A fixed IP needs a subnet",
                    path=prop_path(self, "fixed_ips", index, "subnet"),
                )
            item = {"subnet_id": neutron_id(neutron, "subnet", entry["subnet"])}
            if entry["ip_address"]:
                item["ip_address"] = entry["ip_address"]
            fixed.append(item)
        return fixed

    def update_body(self, prop_diff: dict[str, Any]) -> dict[str, Any]:
        """Resolve changed security groups and fixed IPs; port security removed from the
        template stays as is.

        Neutron has no "unset" for a port's port security, so going back to
        not giving it keeps the port's current value.
        """
        body = super().update_body(prop_diff)
        if body.get("port_security_enabled", False) is None:
            del body["port_security_enabled"]
        fixed = self._fixed_ips(prop_diff.get("fixed_ips"))
        if fixed:  # as in Heat, no entries leaves the port's addresses as they are
            body["fixed_ips"] = fixed
        if "security_groups" in prop_diff:
            body["security_groups"] = self._groups(prop_diff["security_groups"] or [])
        return body


class Router(NeutronResource):
    """``OS::Neutron::Router``: a router, optionally with an external gateway."""

    implicit_requirements = classmethod(neutron_order.router)

    kind = "router"
    #: The property map ``plugsim lint`` creates this type with (default-world entities).
    lint_properties: ClassVar[dict[str, Any]] = {"external_gateway_info": {"network": "public"}}
    plain = ("admin_state_up",)
    properties_schema = {
        "name": _name(),
        "external_gateway_info": properties.Schema(
            properties.Schema.MAP,
            "The external network the router routes to.",
            update_allowed=True,
            schema={
                "network": reference(
                    "neutron.network",
                    "Name or id of the external network.",
                    required=True,
                    update_allowed=True,
                ),
                "enable_snat": properties.Schema(
                    properties.Schema.BOOLEAN, "Source NAT.", default=True, update_allowed=True
                ),
            },
        ),
        "admin_state_up": properties.Schema(
            properties.Schema.BOOLEAN, "Administrative state.", default=True, update_allowed=True
        ),
    }
    attributes_schema = {
        "name": attributes.Schema("Router name.", type=attributes.Schema.STRING),
        "status": attributes.Schema("Router status.", type=attributes.Schema.STRING),
        "external_gateway_info": attributes.Schema("The gateway.", type=attributes.Schema.MAP),
        "admin_state_up": attributes.Schema(
            "Administrative state.", type=attributes.Schema.BOOLEAN
        ),
        "tenant_id": attributes.Schema("The project owning it.", type=attributes.Schema.STRING),
    }

    def _gateway(self, info: dict[str, Any] | None) -> dict[str, Any] | None:
        if not info or not info.get("network"):
            return None
        return {
            "network_id": neutron_id(self.neutron(), "network", info["network"]),
            "enable_snat": bool(info.get("enable_snat", True)),
        }

    def create_body(self) -> dict[str, Any]:
        """Resolve the gateway network."""
        body = super().create_body()
        gateway = self._gateway(self.properties["external_gateway_info"])
        if gateway:
            body["external_gateway_info"] = gateway
        return body

    def update_body(self, prop_diff: dict[str, Any]) -> dict[str, Any]:
        """Resolve a changed gateway."""
        body = super().update_body(prop_diff)
        if "external_gateway_info" in prop_diff:
            body["external_gateway_info"] = self._gateway(prop_diff["external_gateway_info"])
        return body


class FloatingIP(Translated, NeutronResource):
    """``OS::Neutron::FloatingIP``: a public address, optionally associated with a port."""

    implicit_requirements = classmethod(neutron_order.floating_ip)

    kind = "floatingip"
    #: The property map ``plugsim lint`` creates this type with (default-world entities).
    lint_properties: ClassVar[dict[str, Any]] = {"floating_network": "public"}
    translations: ClassVar[dict[str, str]] = {"floating_network_id": "floating_network"}
    properties_schema = {
        "floating_network_id": hidden(reference("neutron.network", ""), "floating_network"),
        "floating_network": reference(
            "neutron.network", "Name or id of the external network.", required=True
        ),
        "port_id": reference("neutron.port", "Port to associate with.", update_allowed=True),
        "fixed_ip_address": properties.Schema(
            properties.Schema.STRING, "Which fixed address of the port.", update_allowed=True
        ),
        "floating_ip_address": properties.Schema(
            properties.Schema.STRING, "The address to ask for."
        ),
    }
    attributes_schema = {
        "floating_ip_address": attributes.Schema("The address.", type=attributes.Schema.STRING),
        "floating_network_id": attributes.Schema(
            "External network id.", type=attributes.Schema.STRING
        ),
        # None until an association points the address at a port, as in Heat:
        "port_id": attributes.Schema(  # plugsim: ignore[PS151] - unassociated
            "The associated port (None while unassociated).", type=attributes.Schema.STRING
        ),
        "fixed_ip_address": attributes.Schema(  # plugsim: ignore[PS151] - unassociated
            "The associated fixed address (None while unassociated).",
            type=attributes.Schema.STRING,
        ),
        "tenant_id": attributes.Schema("The project owning it.", type=attributes.Schema.STRING),
    }

    def create_body(self) -> dict[str, Any]:
        """Resolve the network and port."""
        neutron = self.neutron()
        body: dict[str, Any] = {
            "floating_network_id": neutron_id(
                neutron, "network", self.properties["floating_network"]
            )
        }
        if self.properties["port_id"]:
            body["port_id"] = neutron_id(neutron, "port", self.properties["port_id"])
        for key in ("fixed_ip_address", "floating_ip_address"):
            if self.properties[key]:
                body[key] = self.properties[key]
        return body

    def update_body(self, prop_diff: dict[str, Any]) -> dict[str, Any]:
        """Re-associate."""
        body: dict[str, Any] = {}
        if "port_id" in prop_diff:
            port = prop_diff["port_id"]
            body["port_id"] = neutron_id(self.neutron(), "port", port) if port else None
        if "fixed_ip_address" in prop_diff:
            body["fixed_ip_address"] = prop_diff["fixed_ip_address"]
        return body
