"""``OS::Octavia::*``: load balancers as Octavia's v2 API keeps them, in the entity service.

No fake serves Octavia's wire API; these types keep its objects as entities
(kinds ``octavia_loadbalancer``, ``octavia_listener``, ``octavia_pool``,
``octavia_member``, ``octavia_healthmonitor``) and hold Octavia's rules,
read in Octavia's API reference and Heat 27's plug-ins and written anew:

* a load balancer takes its VIP on a subnet: a neutron port is made there (its
  address is ``vip_address``) and deleted with the load balancer;
* a listener belongs to a load balancer, and no two of its listeners share a
  ``protocol_port`` (Octavia's 409);
* a pool hangs off a listener or a load balancer (one of them is required), a
  member off a pool, and a pool has at most one health monitor (409);
* a child needs its parent to exist (Heat's ``The ... could not be found``).

``show`` reports ``provisioning_status`` as Octavia words it (``PENDING_CREATE``
while the entity is being made, then ``ACTIVE``) and ``operating_status``.
"""

from __future__ import annotations

import ipaddress
from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource
from simulator.resources.openstack._base import (
    SINCE,
    gone,
    neutron_id,
    not_found,
    prop_path,
    status_done,
)

__all__ = ["HealthMonitor", "Listener", "LoadBalancer", "Pool", "PoolMember"]

_PROVISIONING = {
    "CREATING": "PENDING_CREATE",
    "UPDATING": "PENDING_UPDATE",
    "DELETING": "PENDING_DELETE",
    "ACTIVE": "ACTIVE",
    "ERROR": "ERROR",
}
PROTOCOLS = ["TCP", "HTTP", "HTTPS", "TERMINATED_HTTPS", "PROXY", "PROXYV2", "UDP", "SCTP"]
LB_ALGORITHMS = ["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"]
MONITOR_TYPES = ["PING", "TCP", "HTTP", "HTTPS", "TLS-HELLO", "UDP-CONNECT", "SCTP"]


_NET = {"type": "OS::Neutron::Net"}
_SUBNET = {
    "type": "OS::Neutron::Subnet",
    "properties": {"network": {"get_resource": "net"}, "cidr": "10.7.0.0/24"},
}
_LB = {
    "type": "OS::Octavia::LoadBalancer",
    "properties": {"vip_subnet": {"get_resource": "subnet"}},
}
_LISTENER = {
    "type": "OS::Octavia::Listener",
    "properties": {"loadbalancer": {"get_resource": "lb"}, "protocol": "HTTP", "protocol_port": 80},
}
_POOL = {
    "type": "OS::Octavia::Pool",
    "properties": {
        "listener": {"get_resource": "listener"},
        "protocol": "HTTP",
        "lb_algorithm": "ROUND_ROBIN",
    },
}


def _port(description: str, **kwargs: Any) -> properties.Schema:
    return properties.Schema(
        properties.Schema.INTEGER,
        description,
        constraints=[constraints.Range(min=1, max=65535)],
        **kwargs,
    )


def _string(description: str, **kwargs: Any) -> properties.Schema:
    return properties.Schema(properties.Schema.STRING, description, **kwargs)


def _admin_state() -> properties.Schema:
    return properties.Schema(
        properties.Schema.BOOLEAN, "Administrative state.", default=True, update_allowed=True
    )


class _OctaviaResource(Resource):  # plugsim: ignore[PS301] - see the package
    """One Octavia object kept as an entity of :attr:`kind`."""

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "entity"
    entity = "entities"
    kind: ClassVar[str] = ""
    #: the label Heat's not-found message gives this kind
    label: ClassVar[str] = ""

    def body(self) -> dict[str, Any]:
        """The object's attributes (properties as Octavia names them)."""
        return {k: self.properties[k] for k in self.properties_schema if k != "name"}

    def parent(self, kind: str, label: str, ref: Any) -> Any:
        """The entity of *kind* that *ref* names (its id or name), or Heat's not-found error."""
        for found in self.client().entities.list(kind):
            if ref in (found.id, found.name):
                return found
        raise not_found(label, ref)

    def check_create(self) -> dict[str, Any]:
        """Octavia's checks before the create; the extra attributes to store."""
        return {}

    def handle_create(self) -> str:
        """Create the object (after Octavia's checks)."""
        extra = self.check_create()
        named = "name" in self.properties_schema  # a health monitor has no name in Heat 27
        name = (self.properties["name"] if named else None) or self.physical_resource_name()
        created = self.client().entities.create(self.kind, {**self.body(), **extra}, name=name)
        self.resource_id_set(created.id)
        return created.id

    def check_create_complete(self, entity_id: str) -> bool:
        """Done when Octavia reports the object ACTIVE."""
        status = self.client().entities.get(entity_id).status
        return status_done(f"{self.kind} {entity_id}", status, ["ACTIVE"], pending=["CREATING"])

    def handle_update(  # plugsim: ignore[PS106] - the subclasses allow updates
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Send the changed attributes."""
        diff = dict(prop_diff or {})
        name = diff.pop("name", None)
        if diff or name:
            self.client().entities.update(self.resource_id, diff or None, name=name)

    def check_update_complete(self, token: Any = None) -> bool:
        """Done when Octavia leaves PENDING_UPDATE."""
        status = self.client().entities.get(self.resource_id).status
        return status_done(
            f"{self.kind} {self.resource_id}", status, ["ACTIVE"], pending=["UPDATING"]
        )

    def check_delete_complete(self, entity_id: str | None) -> bool:
        """Done when the object is gone."""
        if entity_id is None:
            return True
        return gone(self, "entity", lambda: self.client().entities.get(entity_id))

    def _show_resource(self) -> dict[str, Any] | None:
        found = self.client().entities.get(self.resource_id).to_dict()
        status = str(found.get("status", "ACTIVE"))
        found["provisioning_status"] = _PROVISIONING.get(status, status)
        found["operating_status"] = "ONLINE" if status == "ACTIVE" else "OFFLINE"
        return found

    def _children(self, kind: str, key: str) -> list[str]:
        return sorted(
            e.id
            for e in self.client().entities.list(kind)
            if e.to_dict().get(key) == self.resource_id
        )

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.client().entities.get(self.resource_id).to_dict().get(name)


class LoadBalancer(_OctaviaResource):
    """``OS::Octavia::LoadBalancer``: a load balancer with a VIP port on a subnet."""

    kind = "octavia_loadbalancer"
    label = "Load Balancer"
    lint_properties: ClassVar[dict[str, Any]] = {"vip_subnet": {"get_resource": "subnet"}}
    lint_companions: ClassVar[dict[str, Any]] = {"net": _NET, "subnet": _SUBNET}
    properties_schema = {
        "name": _string("Name of the load balancer.", update_allowed=True),
        "description": _string("Description.", default="", update_allowed=True),
        "vip_subnet": _string(
            "The subnet (name or id) the VIP port is made on.",
            required=True,
            constraints=[constraints.CustomConstraint("neutron.subnet")],
        ),
        "vip_address": _string("A fixed VIP address on the subnet."),
        "admin_state_up": _admin_state(),
        "provider": _string("Provider driver name."),
        "flavor": _string("Octavia flavor (name or id)."),
        "availability_zone": _string("Availability zone."),
        "tenant_id": _string("Owning project."),
    }
    attributes_schema = {
        "vip_address": attributes.Schema("The VIP address.", type=attributes.Schema.STRING),
        "vip_port_id": attributes.Schema("The VIP port's id.", type=attributes.Schema.STRING),
        "vip_subnet_id": attributes.Schema("The VIP subnet's id.", type=attributes.Schema.STRING),
        "pools": attributes.Schema("Pools of the load balancer.", type=attributes.Schema.LIST),
        "flavor_id": attributes.Schema("The flavor's id.", type=attributes.Schema.STRING),
    }

    def check_create(self) -> dict[str, Any]:
        """Make the VIP port on the subnet: its address and id are the load balancer's."""
        network = self.client("network")
        subnet = neutron_id(network, "subnet", self.properties["vip_subnet"])
        net = network.show_subnet(subnet)["subnet"]["network_id"]
        fixed: dict[str, Any] = {"subnet_id": subnet}
        if self.properties["vip_address"]:
            fixed["ip_address"] = self.properties["vip_address"]
        body = {
            "network_id": net,
            "fixed_ips": [fixed],
            "name": f"octavia-lb-{self.physical_resource_name()}",
            "device_owner": "Octavia",
        }
        port = network.create_port({"port": body})["port"]
        self.data_set("vip_port_id", port["id"])
        return {
            "vip_subnet_id": subnet,
            "vip_port_id": port["id"],
            "vip_address": port["fixed_ips"][0]["ip_address"],
            "vip_network_id": net,
        }

    def handle_delete(self) -> Any:
        """Delete the load balancer, then its VIP port."""
        deleted = super().handle_delete()
        port = self.data().get("vip_port_id")
        if port:
            try:
                self.client("network").delete_port(port)
            except Exception as ex:
                self.client_plugin("network").ignore_not_found(ex)
        return deleted

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is not None and name == "pools":
            return self._children("octavia_pool", "loadbalancer_id")
        if name == "flavor_id":
            return self.properties["flavor"]
        return super()._resolve_attribute(name)


class Listener(_OctaviaResource):
    """``OS::Octavia::Listener``: a protocol port of a load balancer."""

    kind = "octavia_listener"
    label = "Listener"
    lint_properties: ClassVar[dict[str, Any]] = dict(_LISTENER["properties"])
    lint_companions: ClassVar[dict[str, Any]] = {"net": _NET, "subnet": _SUBNET, "lb": _LB}
    properties_schema = {
        "name": _string("Name of the listener.", update_allowed=True),
        "description": _string("Description.", default="", update_allowed=True),
        "loadbalancer": _string(
            "The load balancer (name or id).",
            required=True,
            constraints=[constraints.CustomConstraint("octavia.loadbalancer")],
        ),
        "default_pool": _string("The default pool (name or id).", update_allowed=True),
        "protocol": _string(
            "Protocol.", required=True, constraints=[constraints.AllowedValues(PROTOCOLS)]
        ),
        "protocol_port": _port("Port listened on.", required=True),
        "connection_limit": properties.Schema(
            properties.Schema.INTEGER,
            "Connection limit (-1: none).",
            default=-1,
            update_allowed=True,
            constraints=[constraints.Range(min=-1)],
        ),
        "admin_state_up": _admin_state(),
        "allowed_cidrs": properties.Schema(
            properties.Schema.LIST, "CIDRs allowed to connect.", update_allowed=True
        ),
        "default_tls_container_ref": _string("TLS certificate ref.", update_allowed=True),
        "sni_container_refs": properties.Schema(
            properties.Schema.LIST,
            "Refs of the further TLS certificates served by name (SNI).",
            update_allowed=True,
        ),
        "tenant_id": _string("Owning project."),
    }
    attributes_schema = {
        "loadbalancers": attributes.Schema("Its load balancer.", type=attributes.Schema.LIST),
        "default_pool_id": attributes.Schema("Default pool id.", type=attributes.Schema.STRING),
    }

    def check_create(self) -> dict[str, Any]:
        """The load balancer exists; its listeners do not use this protocol port."""
        lb = self.parent("octavia_loadbalancer", "Load Balancer", self.properties["loadbalancer"])
        port = self.properties["protocol_port"]
        for other in self.client().entities.list("octavia_listener"):
            data = other.to_dict()
            if data.get("loadbalancer_id") == lb.id and data.get("protocol_port") == port:
                raise exception.Conflict(
                    f"Load Balancer {lb.id} already has a listener with protocol_port of {port}"
                )
        return {"loadbalancer_id": lb.id}

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        data = self.client().entities.get(self.resource_id).to_dict()
        if name == "loadbalancers":
            return [{"id": data.get("loadbalancer_id")}]
        if name == "default_pool_id":
            return data.get("default_pool")
        return data.get(name)


class Pool(_OctaviaResource):
    """``OS::Octavia::Pool``: backends of a listener (or of a load balancer)."""

    kind = "octavia_pool"
    label = "Pool"
    lint_properties: ClassVar[dict[str, Any]] = dict(_POOL["properties"])
    lint_companions: ClassVar[dict[str, Any]] = {
        "net": _NET,
        "subnet": _SUBNET,
        "lb": _LB,
        "listener": _LISTENER,
        "monitor": {  # so that healthmonitor_id has a value to resolve
            "type": "OS::Octavia::HealthMonitor",
            "properties": {
                "pool": {"get_resource": "resource"},
                "type": "TCP",
                "delay": 3,
                "timeout": 3,
                "max_retries": 3,
            },
        },
    }
    properties_schema = {
        "name": _string("Name of the pool.", update_allowed=True),
        "description": _string("Description.", default="", update_allowed=True),
        "listener": _string(
            "The listener (name or id).",
            constraints=[constraints.CustomConstraint("octavia.listener")],
        ),
        "loadbalancer": _string(
            "The load balancer (name or id).",
            constraints=[constraints.CustomConstraint("octavia.loadbalancer")],
        ),
        "lb_algorithm": _string(
            "Balancing algorithm.",
            required=True,
            update_allowed=True,
            constraints=[constraints.AllowedValues(LB_ALGORITHMS)],
        ),
        "protocol": _string(
            "Protocol.", required=True, constraints=[constraints.AllowedValues(PROTOCOLS)]
        ),
        "session_persistence": properties.Schema(
            properties.Schema.MAP, "Session persistence.", update_allowed=True
        ),
        "admin_state_up": _admin_state(),
        "tls_enabled": properties.Schema(
            properties.Schema.BOOLEAN, "Re-encrypt to members.", default=False, update_allowed=True
        ),
    }
    attributes_schema = {
        "listeners": attributes.Schema("Its listener.", type=attributes.Schema.LIST),
        "members": attributes.Schema("Members of the pool.", type=attributes.Schema.LIST),
        "healthmonitor_id": attributes.Schema("Its monitor.", type=attributes.Schema.STRING),
    }

    def validate(self) -> None:
        """A pool hangs off a listener or a load balancer (Heat's wording when neither)."""
        super().validate()
        if not (self.properties["listener"] or self.properties["loadbalancer"]):
            raise exception.StackValidationFailed(
                error_message=(
                    "At least one of the following properties must be specified: "
                    "listener, loadbalancer."
                ),
                path=["resources", self.name, "properties"],
            )

    def check_create(self) -> dict[str, Any]:
        """The listener (or load balancer) exists; the pool records both ids."""
        out: dict[str, Any] = {"listener_id": None, "loadbalancer_id": None}
        if self.properties["listener"]:
            listener = self.parent("octavia_listener", "Listener", self.properties["listener"])
            out["listener_id"] = listener.id
            out["loadbalancer_id"] = listener.to_dict().get("loadbalancer_id")
        if self.properties["loadbalancer"]:
            lb = self.parent(
                "octavia_loadbalancer", "Load Balancer", self.properties["loadbalancer"]
            )
            out["loadbalancer_id"] = lb.id
        return out

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        data = self.client().entities.get(self.resource_id).to_dict()
        if name == "listeners":
            return [{"id": data["listener_id"]}] if data.get("listener_id") else []
        if name == "members":
            return self._children("octavia_member", "pool_id")
        if name == "healthmonitor_id":
            monitors = self._children("octavia_healthmonitor", "pool_id")
            return monitors[0] if monitors else None
        return data.get(name)

    def _show_resource(self) -> dict[str, Any] | None:
        """Octavia's pool document: its members, listeners and health monitor with it."""
        found = super()._show_resource()
        if found is None:
            return None
        found["members"] = [{"id": m} for m in self._children("octavia_member", "pool_id")]
        listener = found.get("listener_id")
        found["listeners"] = [{"id": listener}] if listener else []
        lb = found.get("loadbalancer_id")
        found["loadbalancers"] = [{"id": lb}] if lb else []
        monitors = self._children("octavia_healthmonitor", "pool_id")
        found["healthmonitor_id"] = monitors[0] if monitors else None
        return found


class PoolMember(_OctaviaResource):
    """``OS::Octavia::PoolMember``: one backend address of a pool."""

    kind = "octavia_member"
    label = "Member"
    lint_properties: ClassVar[dict[str, Any]] = {
        "pool": {"get_resource": "pool"},
        "address": "10.7.0.9",
        "protocol_port": 80,
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "net": _NET,
        "subnet": _SUBNET,
        "lb": _LB,
        "listener": _LISTENER,
        "pool": _POOL,
    }
    properties_schema = {
        "pool": _string(
            "The pool (name or id).",
            required=True,
            constraints=[constraints.CustomConstraint("octavia.pool")],
        ),
        "address": _string("The member's IP address.", required=True),
        "protocol_port": _port("The member's port.", required=True),
        "weight": properties.Schema(
            properties.Schema.INTEGER,
            "Share of the traffic.",
            default=1,
            update_allowed=True,
            constraints=[constraints.Range(min=0, max=256)],
        ),
        "subnet": _string(
            "Subnet (name or id) the member is reached on.",
            constraints=[constraints.CustomConstraint("neutron.subnet")],
        ),
        "admin_state_up": _admin_state(),
        "monitor_address": _string("Address the monitor checks (fixed once made)."),
        "monitor_port": _port("Port the monitor checks (fixed once made)."),
        "tags": properties.Schema(
            properties.Schema.LIST, "Tags kept on the member.", update_allowed=True
        ),
    }
    # no attributes_schema: Heat 27 gives a member no attribute of its own (only ``show``)

    def validate(self) -> None:
        """The address is an IP address (Heat's ``ip_addr`` constraint)."""
        super().validate()
        address = self.properties["address"]
        try:
            ipaddress.ip_address(str(address))
        except ValueError:
            raise exception.StackValidationFailed(
                error_message=f"{address!r} does not validate ip_addr (not an IP address)",
                path=prop_path(self, "address"),
            ) from None

    def check_create(self) -> dict[str, Any]:
        """The pool exists; no other member of it has this address and port (409)."""
        pool = self.parent("octavia_pool", "Pool", self.properties["pool"])
        key = (self.properties["address"], self.properties["protocol_port"])
        for other in self.client().entities.list("octavia_member"):
            data = other.to_dict()
            if (
                data.get("pool_id") == pool.id
                and (data.get("address"), data.get("protocol_port")) == key
            ):
                raise exception.Conflict(
                    f"Another member on this pool is already using ip {key[0]} on "
                    f"protocol_port {key[1]}"
                )
        return {"pool_id": pool.id}


class HealthMonitor(_OctaviaResource):
    """``OS::Octavia::HealthMonitor``: checks the members of one pool."""

    kind = "octavia_healthmonitor"
    label = "Health Monitor"
    lint_properties: ClassVar[dict[str, Any]] = {
        "pool": {"get_resource": "pool"},
        "type": "HTTP",
        "delay": 3,
        "timeout": 3,
        "max_retries": 3,
    }
    lint_companions: ClassVar[dict[str, Any]] = {
        "net": _NET,
        "subnet": _SUBNET,
        "lb": _LB,
        "listener": _LISTENER,
        "pool": _POOL,
    }
    properties_schema = {
        "pool": _string(
            "The pool (name or id).",
            required=True,
            constraints=[constraints.CustomConstraint("octavia.pool")],
        ),
        "type": _string(
            "Probe type.", required=True, constraints=[constraints.AllowedValues(MONITOR_TYPES)]
        ),
        "delay": properties.Schema(
            properties.Schema.INTEGER,
            "Seconds between probes.",
            required=True,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "timeout": properties.Schema(
            properties.Schema.INTEGER,
            "Seconds a probe may take.",
            required=True,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "max_retries": properties.Schema(
            properties.Schema.INTEGER,
            "Successes before a member is up.",
            required=True,
            update_allowed=True,
            constraints=[constraints.Range(min=1, max=10)],
        ),
        "http_method": _string("HTTP method of the probe.", update_allowed=True),
        "expected_codes": _string("HTTP codes meaning healthy.", update_allowed=True),
        "url_path": _string("HTTP path probed.", update_allowed=True),
        "admin_state_up": _admin_state(),
        "tenant_id": _string("Owning project."),
    }
    attributes_schema = {
        "pools": attributes.Schema("Its pool.", type=attributes.Schema.LIST),
    }

    def check_create(self) -> dict[str, Any]:
        """The pool exists and has no monitor yet (Octavia's 409)."""
        pool = self.parent("octavia_pool", "Pool", self.properties["pool"])
        for other in self.client().entities.list("octavia_healthmonitor"):
            if other.to_dict().get("pool_id") == pool.id:
                raise exception.Conflict(f"Pool {pool.id} already has a health monitor")
        return {"pool_id": pool.id}

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        data = self.client().entities.get(self.resource_id).to_dict()
        if name == "pools":
            return [{"id": data.get("pool_id")}]
        return data.get(name)
