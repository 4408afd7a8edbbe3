"""The network service's agents (neutron's ``agents`` extension), a mixin of
:class:`fake_clouds.network.NetworkService`.

Four agents run on host ``plugsim``: the DHCP agent, the L3 agent, the Open
vSwitch agent and the metadata agent, alive and administratively up. Their
ids are fixed (derived from their binaries), so they draw nothing from the
seeded streams. An operator may change an agent's ``description`` and
``admin_state_up``, hand a network to the DHCP agent (and take it back) and a
router to the L3 agent; a network or router deleted is no longer hosted.
Scheduling is explicit: nothing is placed on an agent by itself.
"""

from __future__ import annotations

import copy
from typing import Any

from fake_clouds.core.service import operation
from fake_clouds.daemons import stable_uuid
from sdk import exception

#: (agent type, binary, topic) of the agents, in neutron's listing order.
AGENTS = (
    ("DHCP agent", "neutron-dhcp-agent", "dhcp_agent"),
    ("L3 agent", "neutron-l3-agent", "l3_agent"),
    ("Open vSwitch agent", "neutron-openvswitch-agent", "N/A"),
    ("Metadata agent", "neutron-metadata-agent", "N/A"),
)
#: agent type -> (hosted kind, attribute listing them)
_HOSTS = {"DHCP agent": ("network", "networks"), "L3 agent": ("router", "routers")}


def agent_id(binary: str) -> str:
    """The fixed UUID of the agent running *binary*."""
    return stable_uuid(f"agent:{binary}")


def _error(cls: type[exception.ClientError], kind: str, message: str) -> exception.ClientError:
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


class NetworkAgentOperations:
    """Listing and updating agents; networks on the DHCP agent, routers on the L3 agent."""

    agents: dict[str, dict[str, Any]]

    def __init__(self, world: Any) -> None:
        super().__init__(world)  # type: ignore[call-arg]
        self._init_agents()

    def _init_agents(self) -> None:
        self.agents = {
            agent_id(binary): {
                "agent_type": kind,
                "binary": binary,
                "topic": topic,
                "host": "plugsim",
                "description": None,
                "admin_state_up": True,
                "networks": [],
                "routers": [],
            }
            for kind, binary, topic in AGENTS
        }

    def to_state(self) -> dict[str, Any]:
        """Return the service's state with its agents."""
        state = super().to_state()  # type: ignore[misc]
        state["agents"] = copy.deepcopy(self.agents)
        return state  # type: ignore[no-any-return]

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the service's state (its agents too) with *state*."""
        super().load_state(state)  # type: ignore[misc]
        self._init_agents()
        self.agents.update(copy.deepcopy(state.get("agents") or {}))

    def _agent(self: Any, ident: Any) -> dict[str, Any]:
        agent = self.agents.get(ident) if isinstance(ident, str) else None
        if agent is None:
            raise _error(exception.NotFound, "AgentNotFound", f"Agent {ident} could not be found.")
        return agent

    def _agent_view(self: Any, ident: str) -> dict[str, Any]:
        agent = self._agent(ident)
        live = {kind: {e.id for e in self._live(kind)} for kind in ("network", "router")}
        return {
            "id": ident,
            **{k: v for k, v in agent.items() if k not in ("networks", "routers")},
            "networks": [n for n in agent["networks"] if n in live["network"]],
            "routers": [r for r in agent["routers"] if r in live["router"]],
        }

    @operation("agents.list", kind=None)
    def list_agents(self: Any) -> list[dict[str, Any]]:
        """Return every agent (hosted networks and routers included)."""
        order = [agent_id(binary) for _kind, binary, _topic in AGENTS]
        return [self._agent_view(ident) for ident in order if ident in self.agents]

    @operation("agents.get", kind=None)
    def get_agent(self: Any, agent_id: str) -> dict[str, Any]:
        """Return one agent."""
        return self._agent_view(agent_id)

    @operation("agents.update", kind=None)
    def update_agent(self: Any, agent_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Change an agent's ``description`` or ``admin_state_up``."""
        agent = self._agent(agent_id)
        if not isinstance(changes, dict):
            raise _error(exception.BadRequest, "HTTPBadRequest", "Agent changes must be a mapping")
        unknown = sorted(set(changes) - {"description", "admin_state_up"})
        if unknown:
            raise _error(
                exception.BadRequest,
                "HTTPBadRequest",
                f"Cannot update read-only attribute {unknown[0]}",
            )
        if "admin_state_up" in changes and not isinstance(changes["admin_state_up"], bool):
            raise _error(exception.BadRequest, "InvalidInput", "admin_state_up must be a boolean")
        agent.update(copy.deepcopy(changes))
        return self._agent_view(agent_id)

    def _hosting(self: Any, agent_id: str, kind: str) -> tuple[dict[str, Any], str]:
        agent = self._agent(agent_id)
        hosted = _HOSTS.get(agent["agent_type"])
        if hosted is None or hosted[0] != kind:
            raise _error(
                exception.BadRequest,
                "HTTPBadRequest",
                f"Agent {agent_id} is a {agent['agent_type']}, which hosts no {kind}s.",
            )
        return agent, hosted[1]

    @operation("agents.host", kind=None)
    def host_on_agent(self: Any, agent_id: str, kind: str, entity_id: str) -> dict[str, Any]:
        """Schedule a network on the DHCP agent or a router on the L3 agent (409 if there)."""
        agent, key = self._hosting(agent_id, kind)
        self._need(kind, entity_id, f"{kind.capitalize()}NotFound")
        if entity_id in self._agent_view(agent_id)[key]:
            raise _error(
                exception.Conflict,
                f"{kind.capitalize()}HostedByAgent",
                f"The {kind} {entity_id} is already hosted by agent {agent_id}.",
            )
        agent[key] = [*agent[key], entity_id]
        return self._agent_view(agent_id)

    @operation("agents.unhost", kind=None)
    def unhost_from_agent(self: Any, agent_id: str, kind: str, entity_id: str) -> dict[str, Any]:
        """Take a network off the DHCP agent or a router off the L3 agent (404 if not there)."""
        agent, key = self._hosting(agent_id, kind)
        if entity_id not in agent[key]:
            raise _error(
                exception.NotFound,
                f"{kind.capitalize()}NotHostedByAgent",
                f"The {kind} {entity_id} is not hosted by agent {agent_id}.",
            )
        agent[key] = [e for e in agent[key] if e != entity_id]
        return self._agent_view(agent_id)
