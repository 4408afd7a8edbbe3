"""CloudStack's catalogue as the fake shows it: zones, offerings, templates, signing.

The zones are basic zones with security groups; the service offerings are
CloudStack's stock ones (``Small Instance``, ``Medium Instance``, ``Large
Instance``); the templates are the world's images by family. Every entry is
shown with a stable UUID (:func:`stable_id`). :class:`CatalogueRoutes` holds
the listing commands the dialect (:mod:`fake_clouds.rest.cloudstack`) serves.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from typing import Any
from urllib.parse import quote

from fake_clouds.rest.common import iso
from fake_clouds.rest.dialect import Reply, Request, route

_NAMESPACE = uuid.UUID("5b1c7b9e-0d0a-4c4e-9a55-c10d57ac0000")

#: Zones: name -> (description, the world's availability zone it maps to).
ZONES: dict[str, str] = {"zone1": "Basic zone 1", "zone2": "Basic zone 2"}
#: Stock service offerings: name -> (CPUs, CPU speed MHz, memory MB).
OFFERINGS: dict[str, tuple[int, int, int]] = {
    "Small Instance": (1, 500, 512),
    "Medium Instance": (1, 1000, 1024),
    "Large Instance": (2, 2000, 4096),
}
#: Templates: name -> (the world's image family, OS type name, password enabled).
TEMPLATES: dict[str, tuple[str, str, bool]] = {
    "Ubuntu 22.04": ("ubuntu", "Ubuntu 22.04 LTS (64-bit)", True),
    "Fedora 39": ("fedora", "Fedora Linux (64 bit)", True),
    "CirrOS 0.6.2": ("cirros", "Other Linux (64-bit)", False),
}


def stable_id(kind: str, name: str) -> str:
    """Return the stable UUID a catalogue entry (zone, offering, template) is shown with."""
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{name}"))


def sign(params: dict[str, str], secret: str, safe: str = "[]*") -> str:
    """Return CloudStack's request signature of *params* (``signature`` itself excluded)."""
    pairs = sorted((k.lower(), v) for k, v in params.items() if k.lower() != "signature")
    text = "&".join(f"{quote(k, safe='[]')}={quote(v, safe=safe)}" for k, v in pairs)
    digest = hmac.new(secret.encode(), text.lower().replace("+", "%20").encode(), hashlib.sha1)
    return base64.b64encode(digest.digest()).decode()


class CatalogueRoutes:
    """The listing commands of the CloudStack dialect (a mixin of its class).

    It relies on the dialect's ``listing``, ``required``, ``param`` and ``compute``.
    """

    cloud: Any
    compute: Any

    @route("GET", "/listZones")
    def list_zones(self, req: Request) -> Reply:
        """``listZones``: basic zones with security groups."""
        zones = [
            {
                "id": stable_id("zone", name),
                "name": name,
                "description": text,
                "networktype": "Basic",
                "securitygroupsenabled": True,
                "allocationstate": "Enabled",
                "zonetoken": stable_id("zonetoken", name),
                "dhcpprovider": "VirtualRouter",
                "localstorageenabled": False,
                "tags": [],
            }
            for name, text in ZONES.items()
        ]
        return self.listing(req, "zone", zones)

    @route("GET", "/listServiceOfferings")
    def list_offerings(self, req: Request) -> Reply:
        """``listServiceOfferings``: the stock offerings."""
        offerings = [
            {
                "id": stable_id("offering", name),
                "name": name,
                "displaytext": f"{name}, {cpus} CPU x {speed} MHz, {memory} MB",
                "cpunumber": cpus,
                "cpuspeed": speed,
                "memory": memory,
                "created": iso(0.0).replace("Z", "+0000"),
                "storagetype": "shared",
                "offerha": False,
                "limitcpuuse": False,
                "isvolatile": False,
                "issystem": False,
                "defaultuse": False,
                "iscustomized": False,
            }
            for name, (cpus, speed, memory) in OFFERINGS.items()
        ]
        return self.listing(req, "serviceoffering", offerings)

    def templates(self) -> dict[str, dict[str, Any]]:
        """Return the templates this world has an image for: name -> the world's image."""
        images = {i["name"]: i for i in self.compute.list_images() if i["status"] == "active"}
        return {name: images[fam] for name, (fam, _, _) in TEMPLATES.items() if fam in images}

    @route("GET", "/listTemplates")
    def list_templates(self, req: Request) -> Reply:
        """``listTemplates`` (``templatefilter`` is required, as in CloudStack)."""
        self.required(req, "templatefilter")
        zone = self.param(req, "zoneid")
        zones = [n for n in ZONES if zone in (None, stable_id("zone", n))]
        items = []
        for name, image in self.templates().items():
            _, os_type, password = TEMPLATES[name]
            for zone_name in zones:
                items.append(
                    {
                        "id": stable_id("template", name),
                        "name": name,
                        "displaytext": name,
                        "ispublic": True,
                        "isready": True,
                        "isfeatured": True,
                        "passwordenabled": password,
                        "format": "QCOW2",
                        "hypervisor": "KVM",
                        "ostypename": os_type,
                        "size": int(image.get("size") or 0) or 2 * 1024**3,
                        "zoneid": stable_id("zone", zone_name),
                        "zonename": zone_name,
                        "templatetype": "USER",
                        "created": iso(0.0).replace("Z", "+0000"),
                    }
                )
        return self.listing(req, "template", items)

    @route("GET", "/listProjects")
    def list_projects(self, req: Request) -> Reply:
        """``listProjects``: the account has none."""
        return self.listing(req, "project", [])

    @route("GET", "/listPublicIpAddresses")
    def list_public_ips(self, req: Request) -> Reply:
        """``listPublicIpAddresses``: none (a basic zone's NICs carry the addresses)."""
        return self.listing(req, "publicipaddress", [])

    @route("GET", "/listPortForwardingRules")
    def list_port_forwarding(self, req: Request) -> Reply:
        """``listPortForwardingRules``: none (no NAT in a basic zone)."""
        return self.listing(req, "portforwardingrule", [])

    @route("GET", "/listIpForwardingRules")
    def list_ip_forwarding(self, req: Request) -> Reply:
        """``listIpForwardingRules``: none (no NAT in a basic zone)."""
        return self.listing(req, "ipforwardingrule", [])

    @route("GET", "/listSecurityGroups")
    def list_security_groups(self, req: Request) -> Reply:
        """``listSecurityGroups``: the account's ``default`` group."""
        group = {
            "id": stable_id("securitygroup", "default"),
            "name": "default",
            "description": "Default Security Group",
            "ingressrule": [],
            "egressrule": [],
            "tags": [],
        }
        return self.listing(req, "securitygroup", [group])

    @route("GET", "/listSSHKeyPairs", op=("compute", "keypairs.list", "keypair"))
    def list_key_pairs(self, req: Request) -> Reply:
        """``listSSHKeyPairs``: the world's keypairs."""
        keys = [
            {"name": k["name"], "fingerprint": k["fingerprint"]}
            for k in self.compute.list_keypairs()
        ]
        return self.listing(req, "sshkeypair", keys)
