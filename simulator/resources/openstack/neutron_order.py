"""The implicit requirements of the networking types (Heat 27's ``add_dependencies``).

Each function is a type's :meth:`sdk.resource.Resource.implicit_requirements`: given the resource's
name and its stack (:class:`simulator.implicit_deps.StackPeers`), the names it must follow. Values
compare as Heat compares them while it builds the graph of a stack about to be created (a
``get_resource`` is the resource's name); a deprecated ``*_id`` property stands in for its
successor, as Heat's translation makes it. Where Heat asks neutron (a floating IP whose port gives
only a network), the network does not exist yet when the stack is created, so the answer is no.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

SUBNET = "OS::Neutron::Subnet"
PORT = "OS::Neutron::Port"
ROUTER = "OS::Neutron::Router"
ROUTER_INTERFACE = "OS::Neutron::RouterInterface"


def _get(props: Mapping[str, Any], name: str) -> Any:
    """*name*, else its deprecated ``name_id`` (Heat's translation)."""
    value = props.get(name)
    return value if value is not None else props.get(f"{name}_id")


def _subnets(stack: Any) -> Iterator[tuple[str, Any]]:
    """(name, network) of every subnet of the stack whose properties resolve."""
    for name in stack.implementing(SUBNET):
        props = stack.properties(name)
        if props is not None:
            yield name, _get(props, "network")


def port(cls: type, name: str, stack: Any) -> list[str]:
    """A port follows every subnet of its network (it may take an address from any of them)."""
    props = stack.properties(name)
    if props is None:
        return []
    network = _get(props, "network")
    return [s for s, net in _subnets(stack) if net == network]


def server(cls: type, name: str, stack: Any) -> list[str]:
    """A server follows the subnets of its networks; a network entry that names no network (a
    port), or a subnet whose network is not known, makes it follow that subnet anyway."""
    props = stack.properties(name)
    nets = props.get("networks") if props is not None else None
    if not nets or not isinstance(nets, list):
        return []
    out = []
    for subnet, subnet_net in _subnets(stack):
        if not subnet_net:
            out.append(subnet)
            continue
        for entry in nets:
            net_id = (
                (entry.get("network") or entry.get("uuid")) if isinstance(entry, Mapping) else None
            )
            if not net_id or net_id == subnet_net:
                out.append(subnet)
                break
    return out


def router(cls: type, name: str, stack: Any) -> list[str]:
    """A router with an external gateway follows the subnets of the gateway's network."""
    props = stack.properties(name)
    gateway = props.get("external_gateway_info") if props is not None else None
    if not isinstance(gateway, Mapping) or not gateway:
        return []
    network = gateway.get("network")
    return [s for s, net in _subnets(stack) if net == network]


def _port_on_subnet(stack: Any, candidate: str, subnet: Any, *, all_entries: bool) -> bool:
    """Whether *candidate* is a port with an address on *subnet* (Heat's two variants: the
    floating IP looks at every fixed IP, the association at the first one only)."""
    if candidate not in stack.implementing(PORT):
        return False
    props = stack.properties(candidate)
    if props is None:
        return False
    fixed_ips = props.get("fixed_ips") or []
    if not fixed_ips and all_entries:
        # no address asked for: any interface may serve it when the interface names no subnet
        return subnet is None
    for entry in fixed_ips if isinstance(fixed_ips, list) else []:
        port_subnet = _get(entry, "subnet") if isinstance(entry, Mapping) else None
        if port_subnet == subnet:
            return True
        if not all_entries:
            return False
    return False


def _interfaces_for(stack: Any, name: str, *, all_entries: bool) -> list[str]:
    """The router interfaces on a subnet where a port *name* requires has an address."""
    out = []
    for interface in stack.implementing(ROUTER_INTERFACE):
        props = stack.properties(interface)
        if props is None:
            continue
        subnet = _get(props, "subnet")
        if any(
            _port_on_subnet(stack, r, subnet, all_entries=all_entries) for r in stack.requires(name)
        ):
            out.append(interface)
    return out


def floating_ip(cls: type, name: str, stack: Any) -> list[str]:
    """A floating IP follows the routers whose gateway is on its network and the router
    interfaces on the subnet of the port it is given."""
    props = stack.properties(name)
    if props is None:
        return []
    network = _get(props, "floating_network")
    out = []
    for other in stack.implementing(ROUTER):
        other_props = stack.properties(other)
        gateway = other_props.get("external_gateway_info") if other_props is not None else None
        if isinstance(gateway, Mapping) and gateway and gateway.get("network") == network:
            out.append(other)
    return out + _interfaces_for(stack, name, all_entries=True)


def floating_ip_association(cls: type, name: str, stack: Any) -> list[str]:
    """An association follows the router interfaces on the subnet of its port."""
    return _interfaces_for(stack, name, all_entries=False)


def extra_route_set(cls: type, name: str, stack: Any) -> list[str]:
    """Extra routes follow every interface of their router."""
    props = stack.properties(name)
    if props is None:
        return []
    router_ref = _get(props, "router")
    out = []
    for interface in stack.implementing(ROUTER_INTERFACE):
        other = stack.properties(interface)
        if other is not None and _get(other, "router") == router_ref:
            out.append(interface)
    return out
