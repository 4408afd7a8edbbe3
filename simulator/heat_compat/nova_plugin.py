"""What Heat's ``OS::Nova::Server`` reads of Heat's nova and glance client plug-ins.

Heat's server plug-in resolves its flavor and image through the client
plug-ins (``find_flavor_by_name_or_id``, glance's
``find_image_by_name_or_id``), builds the user data with
``build_userdata``, boots with python-novaclient's ``servers.create``
arguments and polls ``_check_active`` / ``check_delete_server_complete``.
This module answers those over the fake compute client, written from Heat's
documented behaviour: a server is done when ``ACTIVE``, fails in ``ERROR``
or an unknown state, and is gone once nova no longer finds it. The fake
compute serves the images (plugsim runs no separate glance), so glance's
client plug-in is the compute one with glance's surface.
"""

from __future__ import annotations

import email.mime.multipart
import email.mime.text
import json
from collections.abc import Mapping
from typing import Any

from sdk import exception
from simulator.heat_compat.engine_api import HeatClientPlugin

#: States in which a booting server is still on its way (Heat's list).
DEFERRED_STATES = frozenset({"BUILD", "HARD_REBOOT", "PASSWORD", "REBOOT", "RESCUE", "RESIZE",
                             "REVERT_RESIZE", "SHUTOFF", "SUSPENDED", "VERIFY_RESIZE"})  # fmt: skip

#: python-novaclient's ``servers.create`` arguments, and the fake compute's names for them.
_RENAMED = {"userdata": "user_data", "meta": "metadata"}
#: The keys of a novaclient ``nics`` entry, and those of nova's API it sends.
_NIC_KEYS = {
    "net-id": "uuid",
    "port-id": "port",
    "v4-fixed-ip": "fixed_ip",
    "v6-fixed-ip": "fixed_ip",
}


def _api_nics(nics: Any) -> Any:
    """novaclient's ``nics`` as nova's API takes them (``'auto'``/``'none'`` as they are)."""
    if not isinstance(nics, list):
        return nics
    return [
        {_NIC_KEYS.get(k, k): v for k, v in nic.items() if v is not None}
        if isinstance(nic, Mapping)
        else nic
        for nic in nics
    ]


def _find(items: list[Any], ref: Any, kind: str) -> Any:
    for item in items:
        if getattr(item, "id", None) == ref:
            return item
    named = [item for item in items if getattr(item, "name", None) == ref]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise exception.Conflict(f"Multiple {kind} matches found for '{ref}', use an ID")
    raise exception.EntityNotFound(entity=kind, name=ref)


class Interface:
    """One of a server's network interfaces, as novaclient's ``interface_list()`` gives them."""

    def __init__(self, port: Mapping[str, Any]) -> None:
        self.port_id = port["id"]
        self.net_id = port.get("network_id")
        self.mac_addr = port.get("mac_address")
        self.fixed_ips = [dict(ip) for ip in port.get("fixed_ips", [])]
        self.port_state = port.get("status")


class ServerView:
    """A fake compute server with novaclient's ``interface_list()`` (its neutron ports)."""

    def __init__(self, server: Any, ports: Any) -> None:
        self._server = server
        self._ports = ports

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    def suspend(self) -> None:
        """Suspend the server (novaclient's ``server.suspend()``)."""
        self._server.manager.suspend(self._server.id)

    def resume(self) -> None:
        """Resume the server."""
        self._server.manager.resume(self._server.id)

    def change_password(self, password: str) -> None:
        """Set the server's administrator password."""
        self._server.manager.change_password(self._server.id, password)

    def rebuild(
        self,
        image: Any,
        password: str | None = None,
        preserve_ephemeral: bool = False,
        meta: Mapping[str, str] | None = None,
        files: Any = None,
    ) -> None:
        """Rebuild the server from *image* (novaclient's ``server.rebuild()``).

        A new *password* is set once the server is back; *meta* replaces
        the metadata keys it names; injected *files* are not supported.
        """
        if files:
            raise exception.NotSupported(feature="Injecting files on rebuild")
        manager = self._server.manager
        manager.rebuild(self._server.id, getattr(image, "id", image))
        if meta:
            manager.set_meta(self._server.id, dict(meta))

    def interface_list(self) -> list[Interface]:
        """The server's ports, as interfaces (empty without a network client)."""
        if self._ports is None:
            return []
        return [Interface(port) for port in self._ports(self._server.id)]


class ServerManagerAdapter:
    """``nova().servers`` taking python-novaclient's ``create`` arguments.

    ``userdata`` and ``meta`` become the fake compute's ``user_data`` and
    ``metadata``; arguments Heat leaves unset (``None`` or empty) are dropped;
    one the fake compute cannot honour fails naming it. Servers come back as
    :class:`ServerView` (with ``interface_list()``).
    """

    def __init__(self, servers: Any, ports: Any = None) -> None:
        self._servers = servers
        self._ports = ports

    def __getattr__(self, name: str) -> Any:
        return getattr(self._servers, name)

    def create(self, name: str, image: Any, flavor: Any, **kwargs: Any) -> ServerView:
        """Boot a server from novaclient-style arguments."""
        options = {}
        for key, value in kwargs.items():
            if value is None or value in ({}, [], "") or (key == "config_drive" and not value):
                continue  # unset in novaclient's terms
            options[_RENAMED.get(key, key)] = _api_nics(value) if key == "nics" else value
        return ServerView(self._servers.create(name, image, flavor, **options), self._ports)

    def get(self, server: Any) -> ServerView:
        """A fresh view of one server."""
        return ServerView(self._servers.get(getattr(server, "id", server)), self._ports)

    def tag_list(self, server: Any) -> list[str]:
        """The server's tags (novaclient, microversion 2.26; 404 for an unknown server).

        The fake compute keeps no tags, so a server it made has none.
        """
        view = self._servers.get(getattr(server, "id", server))
        return [str(t) for t in (getattr(view, "tags", None) or [])]


class ComputeClientAdapter:
    """The fake compute client with novaclient's server surface (see the adapter)."""

    def __init__(self, client: Any, ports: Any = None) -> None:
        self._client = client
        self.servers = ServerManagerAdapter(client.servers, ports)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


#: The console types Heat's ``console_urls`` attribute offers.
CONSOLE_TYPES = ("novnc", "xvpvnc", "spice-html5", "rdp-html5", "serial", "webmks")


class ConsoleUrls(Mapping[str, str]):
    """Heat's ``console_urls``: each console type's URL, read when asked for.

    As in Heat, a URL nova cannot give reads as the reason instead. The fake
    compute runs no console proxy (a nova without ``[vnc]``/``[spice]``
    consoles enabled), so each type reads nova's refusal; the server must exist.
    """

    def __init__(self, plugin: Any, server: Any) -> None:
        self._plugin = plugin
        self._server = getattr(server, "id", server)

    def __getitem__(self, key: str) -> str:
        if key not in CONSOLE_TYPES:
            return f"Unsupported console_type {key!r}"
        try:
            self._plugin.client().servers.get(self._server)
        except exception.PlugsimError as ex:
            return f"Cannot get console url: {ex}"
        return f"Cannot get console url: Unavailable console type {key}."

    def __iter__(self) -> Any:
        return iter(CONSOLE_TYPES)

    def __len__(self) -> int:
        return len(CONSOLE_TYPES)


class NovaServerSurface(HeatClientPlugin):
    """Heat's nova client plug-in surface for servers and flavors."""

    deferred_server_statuses = DEFERRED_STATES

    def client(self, *args: Any, **kwargs: Any) -> Any:
        """The compute client, taking novaclient's boot arguments."""
        return ComputeClientAdapter(super().client(*args, **kwargs), self._server_ports)

    def _server_ports(self, server_id: str) -> list[dict[str, Any]]:
        clients = getattr(self, "clients", None)
        if clients is None:
            return []
        return list(clients.client("neutron").list_ports(device_id=server_id)["ports"])

    def associate_floatingip(self, server_id: str, floatingip_id: str) -> None:
        """Point the floating IP at the server's first port and its first IPv4 address."""
        ports = self._server_ports(server_id)
        if not ports:
            raise exception.NotFound(f"No network interface found for server {server_id}.")
        port = ports[0]
        fixed = next(
            (ip["ip_address"] for ip in port.get("fixed_ips", []) if "." in ip["ip_address"]),
            None,
        )
        body = {"floatingip": {"port_id": port["id"], "fixed_ip_address": fixed}}
        self.clients.client("neutron").update_floatingip(floatingip_id, body)

    def dissociate_floatingip(self, floatingip_id: str) -> None:
        """Detach the floating IP from its port (already gone is fine)."""
        body = {"floatingip": {"port_id": None, "fixed_ip_address": None}}
        try:
            self.clients.client("neutron").update_floatingip(floatingip_id, body)
        except Exception as ex:
            self.ignore_not_found(ex)

    def _floatingip_by_address(self, address: str) -> str:
        fips = self.clients.client("neutron").list_floatingips(floating_ip_address=address)
        found = fips["floatingips"]
        if not found:
            raise exception.EntityNotFound(entity="floatingip", name=address)
        return str(found[0]["id"])

    def associate_floatingip_address(self, server_id: str, fip_address: str) -> None:
        """Heat's EIP association by address: the floating IP with that address."""
        self.associate_floatingip(server_id, self._floatingip_by_address(fip_address))

    def dissociate_floatingip_address(self, fip_address: str) -> None:
        """Detach the floating IP with that address."""
        self.dissociate_floatingip(self._floatingip_by_address(fip_address))

    def get_flavor(self, flavor: str) -> Any:
        """The flavor whose id or name is *flavor*."""
        return _find(self.client().flavors.list(), flavor, "Flavor")

    def find_flavor_by_name_or_id(self, flavor: str) -> str:
        """The id of the flavor whose id or name is *flavor*."""
        return str(self.get_flavor(flavor).id)

    def get_server(self, server: str) -> Any:
        """A fresh view of the server (``EntityNotFound`` naming it when there is none)."""
        try:
            return self.client().servers.get(server)
        except exception.NotFound:
            raise exception.EntityNotFound(entity="Server", name=server) from None

    def get_console_urls(self, server: Any) -> ConsoleUrls:
        """The server's console URLs by console type, looked up when read (Heat's mapping)."""
        return ConsoleUrls(self, server)

    def server_to_ipaddress(self, server: Any) -> str | None:
        """The server's first address: networks by name, last name first (None when gone).

        Heat's AWS ``Instance`` reads its ``PublicIp`` / ``PrivateIp`` this way;
        the addresses are novaclient's ``server.networks`` (a network's name to
        its addresses), made from nova's ``addresses``.
        """
        try:
            view = self.client().servers.get(server)
        except exception.NotFound:
            return None
        addresses = getattr(view, "addresses", None) or {}
        for name in sorted(addresses, reverse=True):
            found = [a.get("addr") if isinstance(a, Mapping) else a for a in addresses[name]]
            if found and found[0]:
                return str(found[0])
        return None

    def fetch_server(self, server_id: str) -> Any:
        """A fresh view of the server, or None when nova cannot say now."""
        try:
            return self.client().servers.get(server_id)
        except exception.OverLimit:
            return None

    def refresh_server(self, server: Any) -> Any:
        """The server's current view (Heat refreshes the object in place)."""
        return self.fetch_server(server.id)

    def get_status(self, server: Any) -> str:
        """The server's status without a cloud's ``(detail)`` suffix."""
        return str(server.status).split("(")[0]

    def _check_active(self, server: Any, res_name: str = "Server") -> bool:
        """True when ACTIVE, False while booting; ``ERROR`` or an unknown state fails."""
        if isinstance(server, str):
            server = self.fetch_server(server)
            if server is None:
                return False
        status = self.get_status(server)
        if status != "ACTIVE":
            server = self.refresh_server(server) or server
            status = self.get_status(server)
        if status in self.deferred_server_statuses:
            return False
        if status == "ACTIVE":
            return True
        if status == "ERROR":
            fault = getattr(server, "fault", None) or {}
            raise exception.ResourceInError(
                resource_status=status,
                status_reason=f"Message: {fault.get('message', 'Unknown')}, "
                f"Code: {fault.get('code', 'Unknown')}",
            )
        raise exception.ResourceUnknownStatus(
            resource_status=status, result=f"{res_name} is not active"
        )

    def check_delete_server_complete(self, server_id: str) -> bool:
        """True once nova no longer finds the server (or shows it ``DELETED``)."""
        try:
            server = self.client().servers.get(server_id)
        except exception.NotFound:
            return True
        status = self.get_status(server)
        if status == "DELETED":
            return True
        if status == "ERROR":
            raise exception.ResourceInError(
                resource_status=status, status_reason="Server failed to delete"
            )
        return False

    def rebuild(
        self,
        server_id: str,
        image_id: str,
        password: str | None = None,
        preserve_ephemeral: bool = False,
        meta: Mapping[str, str] | None = None,
        files: Any = None,
    ) -> bool:
        """Start rebuilding the server from *image_id*; False when nova cannot find it now."""
        server = self.fetch_server(server_id)
        if server is None:
            return False
        server.rebuild(
            image_id,
            password=password,
            preserve_ephemeral=preserve_ephemeral,
            meta=meta,
            files=files,
        )
        return True

    def check_rebuild(self, server_id: str) -> bool:
        """True once the server is rebuilt; a rebuild ending in ``ERROR`` fails."""
        server = self.fetch_server(server_id)
        if server is None or server.status == "REBUILD":
            return False
        if server.status == "ERROR":
            from simulator.heat_compat.exceptions import Error

            raise Error(f"Rebuilding server failed, status '{server.status}'")
        return True

    def rename(self, server: Any, name: str) -> None:
        """Give the server a new name (nothing when nova cannot find it now)."""
        found = self.fetch_server(getattr(server, "id", server))
        if found is not None:
            self.client().servers.update(found.id, name=name)

    def meta_serialize(self, metadata: Any) -> dict[str, str]:
        """Metadata values as nova takes them: strings, anything else as JSON."""
        if not isinstance(metadata, Mapping):
            raise exception.StackValidationFailed(message="nova server metadata needs to be a Map.")
        return {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in metadata.items()
        }

    def build_userdata(
        self,
        metadata: Any,
        userdata: str | None = None,
        instance_user: str | None = None,
        user_data_format: str = "HEAT_CFNTOOLS",
    ) -> str:
        """The user data handed to nova.

        ``RAW`` is the user's text as it is. Any other format is a MIME
        multipart message with the user's text as a ``text/x-shellscript``
        part (or ``text/cloud-config`` when it starts so), which the fake
        cloud's config agent reads; Heat's own boot scripts (cfn-tools,
        os-collect-config set-up) are not added: plugsim's agent needs none.
        """
        if user_data_format == "RAW":
            return userdata or ""
        message = email.mime.multipart.MIMEMultipart()
        text = userdata or ""
        if text:
            subtype = "cloud-config" if text.startswith("#cloud-config") else "x-shellscript"
            part = email.mime.text.MIMEText(text, subtype, "utf-8")
            part.add_header("Content-Disposition", "attachment", filename="userdata")
            message.attach(part)
        return message.as_string()


class GlanceClientPlugin(HeatClientPlugin):
    """Heat's glance client plug-in surface over the fake compute's images."""

    def get_image(self, image: str) -> Any:
        """The image whose id or name is *image*."""
        return _find(self.client().images.list(), image, "Image")

    def find_image_by_name_or_id(self, image: str) -> str:
        """The id of the image whose id or name is *image*."""
        return str(self.get_image(image).id)


__all__ = [
    "DEFERRED_STATES",
    "ComputeClientAdapter",
    "GlanceClientPlugin",
    "Interface",
    "ServerView",
    "NovaServerSurface",
    "ServerManagerAdapter",
]
