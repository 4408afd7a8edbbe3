"""A server's interfaces (nova's ``os-interface``), mixed into
:class:`fake_clouds.compute.ComputeService`.

An interface is a port bound to the server. Attaching one either binds an
existing, unbound port (``port_id``) or has nova make a port on a network
(``net_id``, with an optional ``fixed_ip``; neither means nova's choice, the one
tenant network); the server's ``addresses`` gain
the port's addresses after the ones it already has. Detaching unbinds the
port and takes its addresses away; a port nova made for the server is deleted,
a port the user made is left ``DOWN`` for reuse. Both happen at once (nova's
are asynchronous, but a caller polling the interface list sees the same end).
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.service import operation
from sdk import exception


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


class InterfaceOperations:
    """Attach, detach and list a server's interfaces."""

    def _network_service(self: Any) -> Any:
        if "network" not in self.world.service_names():
            raise _bad("Network services are not available")
        return self.world.service("network")

    def _interface_view(self: Any, port: Any) -> dict[str, Any]:
        return {
            "port_id": port.id,
            "net_id": port.attrs["network_id"],
            "mac_addr": port.attrs["mac_address"],
            "fixed_ips": [dict(ip) for ip in port.attrs["fixed_ips"]],
            "port_state": port.status,
        }

    @operation("servers.interface_list", kind="server", id_arg="server_id")
    def list_interfaces(self: Any, server_id: str) -> list[dict[str, Any]]:
        """The ports bound to the server, in the order of its ``addresses``."""
        server = self._get("server", server_id, label="Instance")
        network = self._network_service()
        bound = [p for p in network._live("port") if p.attrs.get("device_id") == server.id]
        order = [
            a.get("OS-EXT-IPS-MAC:mac_addr") for n in server.attrs["addresses"].values() for a in n
        ]
        bound.sort(
            key=lambda p: (
                order.index(p.attrs["mac_address"])
                if p.attrs["mac_address"] in order
                else len(order),
                p.id,
            )
        )
        return [self._interface_view(p) for p in bound]

    @operation("servers.interface_attach", kind="server", id_arg="server_id")
    def attach_interface(
        self: Any,
        server_id: str,
        port_id: str | None = None,
        net_id: str | None = None,
        fixed_ip: str | None = None,
    ) -> dict[str, Any]:
        """Bind *port_id*, or a new port on *net_id*; return the interface."""
        server = self._get("server", server_id, label="Instance")
        if server.attrs.get("OS-EXT-STS:task_state") == "deleting":
            raise exception.Conflict(f"Cannot attach an interface to {server.id} while deleting")
        if port_id and net_id:
            raise _bad("Give port_id or net_id to attach an interface, not both")
        network = self._network_service()
        if not port_id and not net_id:
            only = self._only_network()
            if not only:
                raise _bad("No network to attach: give port_id or net_id")
            net_id = only[0]["uuid"]
        nic: dict[str, Any] = {"port": port_id} if port_id else {"uuid": net_id}
        if fixed_ip and not port_id:
            nic["fixed_ip"] = fixed_ip
        before = {p.id for p in network._live("port") if p.attrs.get("device_id") == server.id}
        added = network._plug_server(server.id, [nic])
        addresses = {k: list(v) for k, v in server.attrs["addresses"].items()}
        for net_name, entries in added.items():
            addresses.setdefault(net_name, []).extend(entries)
        self._set(server, addresses=addresses)
        new = [p for p in network._live("port") if p.attrs.get("device_id") == server.id]
        port = next(p for p in new if p.id not in before)
        return self._interface_view(port)

    @operation("servers.interface_detach", kind="server", id_arg="server_id")
    def detach_interface(self: Any, server_id: str, port_id: str) -> None:
        """Unbind *port_id* from the server (a port nova made for it is deleted)."""
        server = self._get("server", server_id, label="Instance")
        network = self._network_service()
        port = network._store["port"].get(port_id)
        if port is None or port.deleted or port.attrs.get("device_id") != server.id:
            raise exception.NotFound(
                f"Port {port_id} is not attached to instance {server.id}",
                body={"itemNotFound": {"code": 404, "message": "Port not attached"}},
            )
        mac = port.attrs["mac_address"]
        addresses = {}
        for net_name, entries in server.attrs["addresses"].items():
            kept = [a for a in entries if a.get("OS-EXT-IPS-MAC:mac_addr") != mac]
            if kept:
                addresses[net_name] = kept
        network._unplug_port(port)
        self._set(server, addresses=addresses)
