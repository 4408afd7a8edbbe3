"""``OS::Neutron::Trunk`` and ``OS::Neutron::ExtraRouteSet`` on the fake network service.

A trunk carries sub-ports (VLAN-tagged) over its parent port; changing
``sub_ports`` adds and removes them through neutron's ``add_subports`` /
``remove_subports``, as Heat 27's plug-in does. An extra route set adds its
routes to a router with ``extraroute-atomic`` (``add_extraroutes``) and takes
exactly those routes away on delete, so routes the router had (or another set
added) stay.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sdk import attributes, constraints, properties, support
from sdk.resource import Resource
from simulator.resources.openstack import neutron_order
from simulator.resources.openstack._base import SINCE, neutron_id, reference
from simulator.resources.openstack.neutron import NeutronResource

__all__ = ["ExtraRouteSet", "Trunk"]

_SUBPORT = {
    "port": reference("neutron.port", "Name or id of the sub-port.", required=True),
    "segmentation_type": properties.Schema(
        properties.Schema.STRING,
        "Segmentation type.",
        required=True,
        constraints=[constraints.AllowedValues(["vlan"])],
    ),
    "segmentation_id": properties.Schema(
        properties.Schema.INTEGER,
        "VLAN id the sub-port is presented on.",
        required=True,
        constraints=[constraints.Range(1, 4094)],
    ),
}


class Trunk(NeutronResource):  # plugsim: ignore[PS301] - see the package
    """``OS::Neutron::Trunk``: a parent port carrying VLAN sub-ports."""

    support_status = support.SupportStatus(version=SINCE)
    kind = "trunk"
    lint_properties: ClassVar[dict[str, Any]] = {"port": {"get_resource": "parent"}}
    lint_companions: ClassVar[dict[str, Any]] = {
        "net": {"type": "OS::Neutron::Net"},
        "parent": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": "net"}}},
    }
    plain = ("description", "admin_state_up")
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Trunk name.", update_allowed=True),
        "port": reference("neutron.port", "Name or id of the parent port.", required=True),
        "sub_ports": properties.Schema(
            properties.Schema.LIST,
            "Sub-ports: port, segmentation_type, segmentation_id.",
            default=[],
            update_allowed=True,
            schema=properties.Schema(properties.Schema.MAP, "One sub-port.", schema=_SUBPORT),
        ),
        "description": properties.Schema(
            properties.Schema.STRING, "Description.", update_allowed=True
        ),
        "admin_state_up": properties.Schema(
            properties.Schema.BOOLEAN, "Administrative state.", default=True, update_allowed=True
        ),
    }
    attributes_schema = {
        "port_id": attributes.Schema("The parent port's id.", type=attributes.Schema.STRING),
    }

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "port_id":
            return self.show().get("port_id")
        return super()._resolve_attribute(name)

    def _subports(self, items: Any) -> list[dict[str, Any]]:
        return [
            {
                "port_id": neutron_id(self.neutron(), "port", s["port"]),
                "segmentation_type": s["segmentation_type"],
                "segmentation_id": s["segmentation_id"],
            }
            for s in items or []
        ]

    def create_body(self) -> dict[str, Any]:
        """The parent port and the sub-ports, by id."""
        body = super().create_body()
        body["port_id"] = neutron_id(self.neutron(), "port", self.properties["port"])
        body["sub_ports"] = self._subports(self.properties["sub_ports"])
        return body

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Change the plain fields; add and remove the sub-ports that changed."""
        diff = dict(prop_diff or {})
        if "sub_ports" not in diff:
            super().handle_update(json_snippet, tmpl_diff, diff)
            return
        subs = diff.pop("sub_ports")
        super().handle_update(json_snippet, tmpl_diff, diff)
        old = {s["port_id"]: s for s in self._subports(self.properties["sub_ports"])}
        new = {s["port_id"]: s for s in self._subports(subs)}
        gone_ports = [{"port_id": p} for p in old if p not in new or new[p] != old[p]]
        added = [s for p, s in new.items() if p not in old or old[p] != s]
        if gone_ports:
            self.neutron().trunk_remove_subports(self.resource_id, {"sub_ports": gone_ports})
        if added:
            self.neutron().trunk_add_subports(self.resource_id, {"sub_ports": added})


class ExtraRouteSet(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Neutron::ExtraRouteSet``: routes added to a router (and only those removed)."""

    implicit_requirements = classmethod(neutron_order.extra_route_set)

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "network"
    lint_properties: ClassVar[dict[str, Any]] = {
        "router": {"get_resource": "router"},
        "routes": [{"destination": "10.6.10.0/24", "nexthop": "10.6.0.10"}],
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {
            "type": "OS::Neutron::Subnet",
            "properties": {"network": {"get_resource": "net"}, "cidr": "10.6.0.0/24"},
        },
        "router": {"type": "OS::Neutron::Router"},
        "interface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {
                "router": {"get_resource": "router"},
                "subnet": {"get_resource": "subnet"},
            },
        },
    }
    properties_schema = {
        "router": reference("neutron.router", "Name or id of the router.", required=True),
        "routes": properties.Schema(
            properties.Schema.LIST,
            "Routes: destination (a CIDR) and nexthop (an address).",
            default=[],
            update_allowed=True,
            schema=properties.Schema(
                properties.Schema.MAP,
                "One route.",
                schema={
                    "destination": properties.Schema(
                        properties.Schema.STRING, "Destination CIDR.", required=True
                    ),
                    "nexthop": properties.Schema(
                        properties.Schema.STRING, "Next hop address.", required=True
                    ),
                },
            ),
        ),
    }

    def _router(self) -> str:
        return neutron_id(self.client(), "router", self.properties["router"])

    @staticmethod
    def _routes(items: Any) -> list[dict[str, str]]:
        return [{"destination": r["destination"], "nexthop": r["nexthop"]} for r in items or []]

    def handle_create(self) -> None:
        """Add the routes to the router."""
        router = self._router()
        routes = self._routes(self.properties["routes"])
        self.client().add_extra_routes_to_router(router, {"router": {"routes": routes}})
        self.resource_id_set(router)

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Remove the routes no longer listed, add the new ones."""
        if "routes" not in (prop_diff or {}):
            return
        old = self._routes(self.properties["routes"])
        new = self._routes(prop_diff["routes"])
        removed = [r for r in old if r not in new]
        added = [r for r in new if r not in old]
        if removed:
            self.client().remove_extra_routes_from_router(
                self.resource_id, {"router": {"routes": removed}}
            )
        if added:
            self.client().add_extra_routes_to_router(
                self.resource_id, {"router": {"routes": added}}
            )

    def handle_delete(self) -> None:
        """Take this set's routes away (a router already gone is fine)."""
        if self.resource_id is None:
            return
        routes = self._routes(self.properties["routes"])
        try:
            self.client().remove_extra_routes_from_router(
                self.resource_id, {"router": {"routes": routes}}
            )
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)

    def _resolve_attribute(self, name: str) -> Any:
        return None
