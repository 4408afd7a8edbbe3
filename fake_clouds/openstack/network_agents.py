"""Neutron's agents on the wire: list, show, update, DHCP networks and L3 routers.

The agents are the network service's (:mod:`fake_clouds.network_agents`).
"""

from __future__ import annotations

from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, bad, route
from fake_clouds.rest.common import iso

_A = "/v2.0/agents/<aid>"
_GET = ("network", "agents.get", None)
_HOST = ("network", "agents.host", None)
_UNHOST = ("network", "agents.unhost", None)


class NetworkAgentRoutes:
    """The agent routes of :class:`~fake_clouds.openstack.network.NetworkAPI` (a mixin)."""

    network: Any
    view: Any

    def agent_view(self, agent: dict[str, Any]) -> dict[str, Any]:
        """Return neutron's agent body."""
        out = {k: v for k, v in agent.items() if k not in ("networks", "routers")}
        stamp = iso(0).replace("T", " ").rstrip("Z")
        out.update(
            alive=True,
            availability_zone="nova" if agent["agent_type"] in ("DHCP agent", "L3 agent") else None,
            configurations={},
            created_at=stamp,
            started_at=stamp,
            heartbeat_timestamp=stamp,
            resources_synced=None,
        )
        return out

    @route("GET", "/v2.0/agents", op=("network", "agents.list", None))
    def list_agents(self, req: ApiRequest) -> Reply:
        """``GET /v2.0/agents`` (filters ``agent_type``, ``binary``, ``host``)."""
        items = self.network.list_agents()
        for key in ("agent_type", "binary", "host", "id"):
            if key in req.args:
                items = [a for a in items if a[key] in req.args.getlist(key)]
        return Reply(200, {"agents": [self.agent_view(a) for a in items]})

    @route("GET", _A, op=_GET)
    def get_agent(self, req: ApiRequest, aid: str) -> Reply:
        """``GET /v2.0/agents/{id}``."""
        return Reply(200, {"agent": self.agent_view(self.network.get_agent(aid))})

    @route("PUT", _A, op=("network", "agents.update", None))
    def update_agent(self, req: ApiRequest, aid: str) -> Reply:
        """``PUT /v2.0/agents/{id}``: ``description``, ``admin_state_up``."""
        changes = dict(req.member("agent"))
        return Reply(200, {"agent": self.agent_view(self.network.update_agent(aid, changes))})

    def _hosted(self, aid: str, kind: str, key: str) -> list[dict[str, Any]]:
        ids = self.network.get_agent(aid)[key]
        getter = getattr(self.network, f"get_{kind}")
        return [self.view(kind, getter(i)) for i in ids]

    @route("GET", f"{_A}/dhcp-networks", op=_GET)
    def dhcp_networks(self, req: ApiRequest, aid: str) -> Reply:
        """The networks the DHCP agent hosts."""
        return Reply(200, {"networks": self._hosted(aid, "network", "networks")})

    @route("POST", f"{_A}/dhcp-networks", op=_HOST)
    def add_dhcp_network(self, req: ApiRequest, aid: str) -> Reply:
        """Hand a network (``{"network_id"}``) to the DHCP agent."""
        network_id = req.json().get("network_id")
        if not isinstance(network_id, str):
            raise bad("Invalid input: 'network_id' is required")
        self.network.host_on_agent(aid, "network", network_id)
        return Reply(201, {})

    @route("DELETE", f"{_A}/dhcp-networks/<nid>", op=_UNHOST)
    def remove_dhcp_network(self, req: ApiRequest, aid: str, nid: str) -> Reply:
        """Take a network off the DHCP agent."""
        self.network.unhost_from_agent(aid, "network", nid)
        return Reply(204)

    @route("GET", f"{_A}/l3-routers", op=_GET)
    def l3_routers(self, req: ApiRequest, aid: str) -> Reply:
        """The routers the L3 agent hosts."""
        return Reply(200, {"routers": self._hosted(aid, "router", "routers")})

    @route("POST", f"{_A}/l3-routers", op=_HOST)
    def add_l3_router(self, req: ApiRequest, aid: str) -> Reply:
        """Hand a router (``{"router_id"}``) to the L3 agent."""
        router_id = req.json().get("router_id")
        if not isinstance(router_id, str):
            raise bad("Invalid input: 'router_id' is required")
        self.network.host_on_agent(aid, "router", router_id)
        return Reply(201, {})

    @route("DELETE", f"{_A}/l3-routers/<rid>", op=_UNHOST)
    def remove_l3_router(self, req: ApiRequest, aid: str, rid: str) -> Reply:
        """Take a router off the L3 agent."""
        self.network.unhost_from_agent(aid, "router", rid)
        return Reply(204)
