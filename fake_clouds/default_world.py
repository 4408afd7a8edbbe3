"""The default world: everything a fresh fake cloud holds before any call.

This module is the one place that says what the default world holds; each
service adds its part in :meth:`fake_clouds.core.service.Service.seed_defaults`
when a world is built with ``preseed=True`` (the default). Pre-seeded
entities have stable ids (the same for every seed), cost no latency, leave no
trace entry, do not count against quotas and are never reported as leaks.

=================  =============================================================================
compute flavors    ``m1.tiny`` (id 1: 1 vCPU, 512 MB, 1 GB), ``m1.small`` (2: 1, 2048, 20),
                   ``m1.medium`` (3: 2, 4096, 40), ``m1.large`` (4: 4, 8192, 80),
                   ``m1.xlarge`` (5: 8, 16384, 160)
compute images     ``cirros`` (cirros-0.6.2), ``fedora`` (Fedora 39), ``ubuntu`` (22.04), all
                   ``active`` and public
compute keypairs   ``default`` (an ed25519 public key)
network            ``public``: external network with subnet ``public-subnet`` 172.24.4.0/24;
                   security group ``default``
=================  =============================================================================
"""

from __future__ import annotations

import uuid
from typing import Any, NamedTuple

_NAMESPACE = uuid.UUID("7b0f3c52-6a0e-4c1e-9a57-2d1f1c0c5a11")

FLAVORS = [
    ("1", "m1.tiny", 1, 512, 1),
    ("2", "m1.small", 1, 2048, 20),
    ("3", "m1.medium", 2, 4096, 40),
    ("4", "m1.large", 4, 8192, 80),
    ("5", "m1.xlarge", 8, 16384, 160),
]

IMAGES = [
    ("cirros", "cirros-0.6.2-x86_64", 21430272, 1, 64),
    ("fedora", "Fedora-Cloud-Base-39", 544997376, 5, 1024),
    ("ubuntu", "ubuntu-22.04-server-cloudimg-amd64", 676724736, 3, 512),
]

DEFAULT_PUBLIC_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlugsimDefaultWorldKeyNotARealKey000000 plugsim-default"
)


def stable_id(label: str) -> str:
    """Return the fixed UUID of a pre-seeded entity called *label*."""
    return str(uuid.uuid5(_NAMESPACE, label))


class Seed(NamedTuple):
    """One pre-seeded entity: what a service passes to its ``_create``."""

    kind: str
    name: str
    status: str
    attrs: dict[str, Any]
    id: str


def _compute() -> list[Seed]:
    seeds = []
    for fid, name, vcpus, ram, disk in FLAVORS:
        attrs = {
            "vcpus": vcpus,
            "ram": ram,
            "disk": disk,
            "swap": 0,
            "ephemeral": 0,
            "is_public": True,
            "rxtx_factor": 1.0,
        }
        seeds.append(Seed("flavor", name, "ACTIVE", attrs, fid))
    for name, file_name, size, min_disk, min_ram in IMAGES:
        attrs = {
            "file": file_name,
            "size": size,
            "min_disk": min_disk,
            "min_ram": min_ram,
            "disk_format": "qcow2",
            "container_format": "bare",
            "visibility": "public",
            "image_type": "image",
            "metadata": {},
        }
        seeds.append(Seed("image", name, "active", attrs, stable_id(f"image:{name}")))
    seeds.append(
        Seed("keypair", "default", "ACTIVE", {"public_key": DEFAULT_PUBLIC_KEY}, "default")
    )
    return seeds


def _network() -> list[Seed]:
    net_id = stable_id("network:public")
    sub_id = stable_id("subnet:public-subnet")
    subnet = {
        "network_id": net_id,
        "cidr": "172.24.4.0/24",
        "gateway_ip": "172.24.4.1",
        "allocation_pools": [{"start": "172.24.4.2", "end": "172.24.4.254"}],
    }
    return [
        Seed("network", "public", "ACTIVE", {"router:external": True, "subnets": [sub_id]}, net_id),
        Seed("subnet", "public-subnet", "ACTIVE", subnet, sub_id),
        Seed(
            "security_group",
            "default",
            "ACTIVE",
            {"description": "Default security group"},
            stable_id("security_group:default"),
        ),
    ]


def seeds(service: str) -> list[Seed]:
    """Return the entities the default world gives *service*, in creation order.

    Attributes are the ones that differ from the service's defaults; the
    service completes them (a keypair's fingerprint, a network's defaults).
    """
    if service == "compute":
        return _compute()
    if service == "network":
        return _network()
    return []
