"""Segments and floating IP port forwardings of the network service (a mixin of
:class:`fake_clouds.network.NetworkService`).

A *segment* (neutron's ``segments`` extension) is a physical piece of a
network: its ``network_type`` is ``local``, ``flat``, ``vlan``, ``vxlan``, ``gre`` or
``geneve``; ``flat`` and ``vlan`` name a ``physical_network``, a ``vlan`` id
is 1-4094. A *port forwarding* (``floating-ip-port-forwarding``) sends a
floating IP's ``external_port`` to a port's ``internal_ip_address`` and
``internal_port`` for ``tcp``, ``udp``, ``udp-lite``, ``sctp`` or ``icmp``;
the floating IP must not be associated with a port, and the pair of floating
IP and external port is unique (409 otherwise), as neutron answers.
"""

from __future__ import annotations

from typing import Any

from sdk import exception

SEGMENT_TYPES = ("local", "flat", "vlan", "vxlan", "gre", "geneve")
PROTOCOLS = ("tcp", "udp", "udp-lite", "sctp", "icmp")


def _error(cls: type[exception.ClientError], kind: str, message: str) -> exception.ClientError:
    return cls(message, body={"NeutronError": {"type": kind, "message": message, "detail": ""}})


def _invalid(message: str) -> exception.ClientError:
    return _error(exception.BadRequest, "InvalidInput", f"Invalid input for operation: {message}")


class SegmentHooks:
    """Creation checks of segments and port forwardings (the generic create calls them)."""

    def _prepare_segment(self: Any, attrs: dict[str, Any]) -> str:
        self._need("network", attrs["network_id"], "NetworkNotFound")
        kind = attrs["network_type"]
        if kind not in SEGMENT_TYPES:
            raise _invalid(f"network type {kind!r} is not one of {', '.join(SEGMENT_TYPES)}.")
        if kind in ("flat", "vlan") and not attrs.get("physical_network"):
            raise _invalid(f"physical_network is required for a {kind} segment.")
        seg = attrs.get("segmentation_id")
        if kind == "vlan" and seg is not None and not 1 <= int(seg) <= 4094:
            raise _invalid(f"segmentation_id {seg} is out of the VLAN range 1-4094.")
        return "ACTIVE"

    def _prepare_port_forwarding(self: Any, attrs: dict[str, Any]) -> str:
        fip = self._need("floatingip", attrs["floatingip_id"], "FloatingIPNotFound")
        self._need("port", attrs["internal_port_id"], "PortNotFound")
        if attrs["protocol"] not in PROTOCOLS:
            raise _invalid(f"protocol {attrs['protocol']!r} is not one of {', '.join(PROTOCOLS)}.")
        if fip.attrs.get("port_id"):
            raise _error(
                exception.Conflict,
                "FipInUseByPort",
                f"Floating IP {fip.id} is associated with port {fip.attrs['port_id']}.",
            )
        for other in self._live("port_forwarding"):
            same = (
                other.attrs["floatingip_id"],
                other.attrs["external_port"],
                other.attrs["protocol"],
            )
            if same == (fip.id, attrs["external_port"], attrs["protocol"]):
                raise _error(
                    exception.Conflict,
                    "PortForwardingAlreadyExists",
                    f"A port forwarding of floating IP {fip.id} already uses external port "
                    f"{attrs['external_port']}/{attrs['protocol']}.",
                )
        return "ACTIVE"
