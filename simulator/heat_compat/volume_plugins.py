"""What Heat's volume and floating-IP plug-ins read of Heat's nova and cinder client plug-ins.

Heat's volume attachments (``OS::Cinder::VolumeAttachment``) attach through
nova's client plug-in (``attach_volume``, ``detach_volume``,
``check_detach_volume_complete``) and watch the volume through cinder's
(``check_attach_volume_complete``, ``check_detach_volume_complete``). These
classes answer those calls over the fake clouds' python-*client-like
clients, following Heat's rules: an attachment is done when the volume is
``in-use``, a detachment when the server no longer holds the volume and the
volume is ``available`` again; a conflict means "try again" (False).
Nova's ``associate_floatingip`` points a neutron floating IP at the server's
first port, as Heat's does.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from simulator.heat_compat.engine_api import HeatClientPlugin
from simulator.heat_compat.nova_plugin import NovaServerSurface

#: Volume states in which an attachment is still under way.
_ATTACHING = ("available", "attaching", "reserved")
#: Volume states in which a detachment is still under way.
_DETACHING = ("in-use", "detaching", "reserved")


def _attachments(volume: Any) -> list[dict[str, Any]]:
    return [dict(a) for a in (getattr(volume, "attachments", None) or [])]


class NovaClientPlugin(NovaServerSurface):
    """Heat's nova client plug-in surface: servers, flavors, volume attachments, floating IPs."""

    def attach_volume(self, server_id: str, volume_id: str, device: str | None) -> Any:
        """Attach *volume_id* to *server_id*; the attachment's id, or False on a conflict."""
        try:
            attachment = self.client().volumes.create_server_volume(
                server_id=server_id, volume_id=volume_id, device=device
            )
        except exception.Conflict:
            return False
        return attachment.id

    def __init__(self, plugin: Any, name: str | None = None, clients: Any = None) -> None:
        super().__init__(plugin, name)
        #: Heat's ``clients``: ``clients.client(name)`` gives another service's client
        self.clients = clients

    def _volume_of(self, attach_id: str) -> str | None:
        """The volume an attachment id belongs to (nova's attachment id may be the volume's)."""
        if self.clients is None:
            return attach_id
        for volume in self.clients.client("cinder").volumes.list():
            ids = {a.get("attachment_id") for a in _attachments(volume)}
            if attach_id in ids or attach_id == volume.id:
                return str(volume.id)
        return None

    def detach_volume(self, server_id: str, attach_id: str) -> bool:
        """Start detaching the attachment *attach_id*; False on a conflict (try again)."""
        volume_id = self._volume_of(attach_id)
        if volume_id is None:
            return True  # nothing attached any more, as Heat treats not-found
        try:
            self.client().volumes.delete_server_volume(server_id, volume_id)
        except exception.Conflict:
            return False
        except (exception.NotFound, exception.BadRequest):
            return True
        return True

    def check_detach_volume_complete(self, server_id: str, attach_id: str) -> bool:
        """True once the server no longer lists the attachment's volume."""
        try:
            held = self.client().volumes.get_server_volumes(server_id)
        except exception.NotFound:
            return True
        volume_id = self._volume_of(attach_id)
        return volume_id is None or all(v.id != volume_id for v in held)

    def associate_floatingip(self, server_id: str, floatingip_id: str) -> None:
        """Point the floating IP at the server's first port and its first IPv4 address."""
        neutron = self.clients.client("neutron")
        ports = neutron.list_ports(device_id=server_id)["ports"]
        if not ports:
            raise exception.NotFound(f"Server {server_id} has no interface")
        port = ports[0]
        fixed = next(
            (ip["ip_address"] for ip in port.get("fixed_ips", []) if "." in ip["ip_address"]),
            None,
        )
        body = {"floatingip": {"port_id": port["id"], "fixed_ip_address": fixed}}
        neutron.update_floatingip(floatingip_id, body)

    def dissociate_floatingip(self, floatingip_id: str) -> None:
        """Detach the floating IP from whatever port it points at."""
        body = {"floatingip": {"port_id": None, "fixed_ip_address": None}}
        self.clients.client("neutron").update_floatingip(floatingip_id, body)


class CinderClientPlugin(HeatClientPlugin):
    """Heat's cinder client plug-in surface for watching attachments and finding types."""

    def get_volume_type(self, volume_type: str) -> str:
        """The id of the volume type whose id or name is *volume_type*.

        :raises sdk.exception.EntityNotFound: no type has that id or name.
        """
        for vtype in self.client().volume_types.list():
            if volume_type in (vtype.id, vtype.name):
                return str(vtype.id)
        raise exception.EntityNotFound(entity="VolumeType", name=volume_type)

    def get_qos_specs(self, qos_specs: str) -> str:
        """The id of the QoS specs whose id or name is *qos_specs*.

        :raises sdk.exception.EntityNotFound: none has that id or name.
        """
        for item in self.client().qos_specs.list():
            if qos_specs in (item.id, item.name):
                return str(item.id)
        raise exception.EntityNotFound(entity="QoSSpecs", name=qos_specs)

    def check_attach_volume_complete(self, vol_id: str) -> bool:
        """True once the volume is ``in-use``; an unexpected state fails the resource."""
        volume = self.client().volumes.get(vol_id)
        if volume.status in _ATTACHING:
            return False
        if volume.status != "in-use":
            raise exception.ResourceUnknownStatus(
                resource_status=volume.status, result="Volume attachment failed"
            )
        return True

    def check_detach_volume_complete(self, vol_id: str, server_id: str | None = None) -> bool:
        """True once the volume is free of *server_id* (or of any server) and available."""
        try:
            volume = self.client().volumes.get(vol_id)
        except exception.NotFound:
            return True
        servers = [a.get("server_id") for a in _attachments(volume)]
        if server_id and server_id not in servers:
            return True
        if volume.status in _DETACHING:
            return False
        if volume.status not in ("available", "deleting"):
            raise exception.ResourceUnknownStatus(
                resource_status=volume.status, result="Volume detachment failed"
            )
        return True


__all__ = ["CinderClientPlugin", "NovaClientPlugin"]
