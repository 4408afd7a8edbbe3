"""What Heat's plug-ins read of Heat's ``openstack`` (openstacksdk) client plug-in.

Heat's newer neutron plug-ins (``OS::Neutron::Segment``,
``OS::Neutron::FloatingIPPortForward``) talk to openstacksdk's
``Connection``: ``self.client('openstack').network.create_segment(**attrs)``
returns a resource object with attributes and ``to_dict()``; the plug-in's
finders (``find_network_segment``, ``find_network_port``,
``find_network_ip``) turn a name or an address into an id.
:class:`OpenStackSDKClientPlugin` answers these over the fake network
service's python-neutronclient-like client, with openstacksdk's call shapes
(keyword attributes, the floating IP first for its port forwardings,
``ignore_missing``), read from openstacksdk's and Heat's sources and written
anew. A network call the proxy lacks is
:class:`~simulator.heat_compat.missing.MissingCloudEndpoint` naming it.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from typing import Any

from sdk import exception
from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.engine_api import HeatClientPlugin
from simulator.heat_compat.missing import MissingCloudEndpoint


class SDKResource:
    """An openstacksdk resource: the entity's fields as attributes, and ``to_dict()``."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = copy.deepcopy(fields)

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__.get("_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"openstacksdk resource has no attribute {name!r}")

    def __getitem__(self, name: str) -> Any:
        return self._fields[name]

    def to_dict(self) -> dict[str, Any]:
        """A plain copy of the fields."""
        return copy.deepcopy(self._fields)


class NetworkProxy:
    """``connection.network``: openstacksdk's network calls over the fake neutron client."""

    def __init__(self, neutron: Any) -> None:
        self._neutron = neutron

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingCloudEndpoint(
            "openstack", self, f"network.{name}", plugin_site(sys._getframe(1))
        )

    def _one(self, kind: str, body: dict[str, Any]) -> SDKResource:
        return SDKResource(body[kind])

    def _find(self, kind: str, plural: str, value: Any, *fields: str) -> SDKResource:
        items = getattr(self._neutron, f"list_{plural}")()[plural]
        for item in items:
            if item.get("id") == value:
                return SDKResource(item)
        named = [i for i in items if any(i.get(f) == value for f in fields)]
        if len(named) == 1:
            return SDKResource(named[0])
        if named:
            raise exception.Conflict(f"More than one {kind} exists with the name '{value}'.")
        raise exception.NotFound(f"No {kind} found for {value}")

    # -- segments ---------------------------------------------------------------------

    def create_segment(self, **attrs: Any) -> SDKResource:
        """Create a segment (``network_id``, ``network_type`` ...)."""
        return self._one("segment", self._neutron.create_segment({"segment": attrs}))

    def get_segment(self, segment: Any) -> SDKResource:
        """One segment by id."""
        return self._one("segment", self._neutron.show_segment(getattr(segment, "id", segment)))

    def update_segment(self, segment: Any, **attrs: Any) -> SDKResource:
        """Change a segment's name or description."""
        ident = getattr(segment, "id", segment)
        return self._one("segment", self._neutron.update_segment(ident, {"segment": attrs}))

    def delete_segment(self, segment: Any, ignore_missing: bool = True) -> None:
        """Delete a segment (gone already: nothing, unless *ignore_missing* is false)."""
        try:
            self._neutron.delete_segment(getattr(segment, "id", segment))
        except exception.NotFound:
            if not ignore_missing:
                raise

    def segments(self, **query: Any) -> Iterator[SDKResource]:
        """The segments whose fields equal *query*'s (``network_id=...``), as openstacksdk yields
        them."""
        for item in self._neutron.list_segments()["segments"]:
            if all(item.get(key) == value for key, value in query.items()):
                yield SDKResource(item)

    def find_segment(self, value: Any) -> SDKResource:
        """A segment by id or unique name."""
        return self._find("segment", "segments", value, "name")

    # -- ports and floating IPs ---------------------------------------------------------

    def find_port(self, value: Any) -> SDKResource:
        """A port by id or unique name."""
        return self._find("port", "ports", value, "name")

    def find_ip(self, value: Any) -> SDKResource:
        """A floating IP by id or address."""
        return self._find("ip", "floatingips", value, "floating_ip_address")

    # -- port forwardings (a floating IP's sub-resources) --------------------------------

    def create_floating_ip_port_forwarding(self, floating_ip: Any, **attrs: Any) -> SDKResource:
        """Forward a port of *floating_ip* to an internal port."""
        attrs = {"floatingip_id": getattr(floating_ip, "id", floating_ip), **attrs}
        body = self._neutron.create_port_forwarding({"port_forwarding": attrs})
        return self._one("port_forwarding", body)

    def _forwarding(self, floating_ip: Any, port_forwarding: Any) -> dict[str, Any]:
        ident = getattr(port_forwarding, "id", port_forwarding)
        found = self._neutron.show_port_forwarding(ident)["port_forwarding"]
        if found["floatingip_id"] != getattr(floating_ip, "id", floating_ip):
            raise exception.NotFound(f"Port forwarding {ident} not found on that floating IP")
        return dict(found)

    def get_port_forwarding(self, port_forwarding: Any, floating_ip: Any) -> SDKResource:
        """One port forwarding of *floating_ip* (openstacksdk's argument order)."""
        return SDKResource(self._forwarding(floating_ip, port_forwarding))

    def update_floating_ip_port_forwarding(
        self, floating_ip: Any, port_forwarding: Any, **attrs: Any
    ) -> SDKResource:
        """Change a port forwarding of *floating_ip*."""
        ident = self._forwarding(floating_ip, port_forwarding)["id"]
        body = self._neutron.update_port_forwarding(ident, {"port_forwarding": attrs})
        return self._one("port_forwarding", body)

    def delete_floating_ip_port_forwarding(
        self, floating_ip: Any, port_forwarding: Any, ignore_missing: bool = True
    ) -> None:
        """Delete a port forwarding of *floating_ip* (gone: nothing, with *ignore_missing*)."""
        try:
            ident = self._forwarding(floating_ip, port_forwarding)["id"]
            self._neutron.delete_port_forwarding(ident)
        except exception.NotFound:
            if not ignore_missing:
                raise


class SDKConnection:
    """openstacksdk's ``Connection`` as Heat's plug-ins use it: the ``network`` proxy."""

    def __init__(self, neutron: Any) -> None:
        self.network = NetworkProxy(neutron)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingCloudEndpoint("openstack", self, name, plugin_site(sys._getframe(1)))


class OpenStackSDKClientPlugin(HeatClientPlugin):
    """Heat's ``openstack`` client plug-in over the fake network's client plug-in."""

    def client(self, *args: Any, **kwargs: Any) -> SDKConnection:
        """The openstacksdk-shaped connection (``.network``)."""
        return SDKConnection(self._plugin.client())

    def is_not_found(self, ex: BaseException) -> bool:
        """True for a 404 (openstacksdk's ``NotFoundException``)."""
        return isinstance(ex, exception.NotFound)

    def find_network_segment(self, value: Any) -> str:
        """The id of segment *value* (an id or a unique name)."""
        return str(self.client().network.find_segment(value).id)

    def find_network_port(self, value: Any) -> str:
        """The id of port *value*."""
        return str(self.client().network.find_port(value).id)

    def find_network_ip(self, value: Any) -> str:
        """The id of floating IP *value* (an id or an address)."""
        return str(self.client().network.find_ip(value).id)

    def has_extension(self, alias: str) -> bool:
        """True: the fake network serves the segments and port forwardings Heat asks for."""
        return alias in ("segment", "floating-ip-port-forwarding")
