"""The default world, and how any world file turns into pre-seeded entities.

A *world file* (see :mod:`fake_clouds.worldfile`) declares what a fake cloud
holds before its first call. This module holds the data of the ``default``
world (:data:`DEFAULT_WORLD`, in world-file form) and :func:`seeds`, which turns
a world's data into the entities each service creates in
:meth:`fake_clouds.core.service.Service.seed_defaults`. Pre-seeded entities have
stable ids (the same for every seed, derived from kind and name unless the
file gives one), cost no latency, leave no trace entry, do not count against
quotas and are never reported as leaks.

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

import hashlib
import uuid
from collections.abc import Mapping
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

#: The ``default`` world in world-file form (what a world holds when no world file is named).
DEFAULT_WORLD: dict[str, Any] = {
    "plugsim_world": 1,
    "flavors": [
        {"name": name, "id": fid, "vcpus": vcpus, "ram": ram, "disk": disk}
        for fid, name, vcpus, ram, disk in FLAVORS
    ],
    "images": [
        {"name": name, "file": file_name, "size": size, "min_disk": min_disk, "min_ram": min_ram}
        for name, file_name, size, min_disk, min_ram in IMAGES
    ],
    "keypairs": [{"name": "default", "public_key": DEFAULT_PUBLIC_KEY}],
    "networks": [
        {
            "name": "public",
            "external": True,
            "subnets": [
                {
                    "name": "public-subnet",
                    "cidr": "172.24.4.0/24",
                    "gateway_ip": "172.24.4.1",
                    "allocation_pools": [{"start": "172.24.4.2", "end": "172.24.4.254"}],
                }
            ],
        }
    ],
    "security_groups": [{"name": "default", "description": "Default security group"}],
}

#: Per-field defaults of a world file's entries (what a field left out means).
FIELD_DEFAULTS: dict[str, dict[str, Any]] = {
    "flavors": {"swap": 0, "ephemeral": 0, "is_public": True, "rxtx_factor": 1.0},
    "images": {
        "size": 0,
        "min_disk": 0,
        "min_ram": 0,
        "disk_format": "qcow2",
        "container_format": "bare",
        "visibility": "public",
        "status": "active",
        "metadata": {},
    },
    "networks": {"external": False, "shared": False, "mtu": 1500, "subnets": []},
    "subnets": {
        "ip_version": 4,
        "enable_dhcp": True,
        "dns_nameservers": [],
        "host_routes": [],
    },
    "routers": {"external_gateway": None, "enable_snat": True, "interfaces": []},
    "security_groups": {"description": "", "rules": []},
    "rules": {
        "ethertype": "IPv4",
        "protocol": None,
        "port_range_min": None,
        "port_range_max": None,
        "remote_ip_prefix": None,
        "remote_group": None,
    },
    "volume_types": {"description": "", "is_public": True, "extra_specs": {}},
    "projects": {"description": "", "domain": "default", "enabled": True},
    "regions": {"description": ""},
    "users": {"project": None, "roles": [], "domain": "default", "enabled": True},
}


def stable_id(label: str) -> str:
    """Return the fixed UUID of a pre-seeded entity called *label*."""
    return str(uuid.uuid5(_NAMESPACE, label))


def stable_mac(label: str) -> str:
    """Return a fixed, OpenStack-looking MAC address for the pre-seeded port *label*."""
    digest = hashlib.sha256(label.encode()).digest()
    return "fa:16:3e:" + ":".join(f"{b:02x}" for b in digest[:3])


class Seed(NamedTuple):
    """One pre-seeded entity: what a service passes to its ``_create``."""

    kind: str
    name: str
    status: str
    attrs: dict[str, Any]
    id: str


def with_defaults(section: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """Return *entry* of world-file *section* completed with :data:`FIELD_DEFAULTS`."""
    full = {k: _copy(v) for k, v in FIELD_DEFAULTS.get(section, {}).items()}
    full.update({k: _copy(v) for k, v in entry.items()})
    return full


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _compute(world: Mapping[str, Any]) -> list[Seed]:
    seeds = []
    for entry in world.get("flavors", []):
        f = with_defaults("flavors", entry)
        attrs = {
            k: f[k]
            for k in ("vcpus", "ram", "disk", "swap", "ephemeral", "is_public", "rxtx_factor")
        }
        fid = str(f.get("id") or stable_id(f"flavor:{f['name']}"))
        seeds.append(Seed("flavor", f["name"], "ACTIVE", attrs, fid))
    for entry in world.get("images", []):
        i = with_defaults("images", entry)
        attrs = {
            "file": i.get("file", i["name"]),
            "size": i["size"],
            "min_disk": i["min_disk"],
            "min_ram": i["min_ram"],
            "disk_format": i["disk_format"],
            "container_format": i["container_format"],
            "visibility": i["visibility"],
            "image_type": "image",
            "metadata": i["metadata"],
        }
        iid = str(i.get("id") or stable_id(f"image:{i['name']}"))
        seeds.append(Seed("image", i["name"], i["status"], attrs, iid))
    for entry in world.get("keypairs", []):
        seeds.append(
            Seed(
                "keypair",
                entry["name"],
                "ACTIVE",
                {"public_key": entry["public_key"]},
                entry["name"],
            )
        )
    return seeds


def _finder(entries: list[dict[str, Any]], what: str) -> Any:
    """Return a function finding an entry's id by name or id (world files may use either)."""
    by_key: dict[str, str] = {}
    for e in entries:
        by_key[e["id"]] = e["id"]
        by_key.setdefault(e["name"], e["id"])

    def find(ref: str, where: str) -> str:
        if ref not in by_key:
            from sdk.exception import ConfigurationError

            raise ConfigurationError(f"{where}: no {what} named {ref!r} in this world")
        return by_key[ref]

    return find


def _network(world: Mapping[str, Any]) -> list[Seed]:
    seeds: list[Seed] = []
    nets: list[dict[str, Any]] = []
    subnets: list[dict[str, Any]] = []
    for n, entry in enumerate(world.get("networks", [])):
        net = with_defaults("networks", entry)
        net["id"] = str(net.get("id") or stable_id(f"network:{net['name']}"))
        nets.append(net)
        subs = []
        for s, sub_entry in enumerate(net["subnets"]):
            sub = with_defaults("subnets", sub_entry)
            sub["id"] = str(sub.get("id") or stable_id(f"subnet:{sub['name']}"))
            sub["network_id"] = net["id"]
            sub["where"] = f"networks[{n}].subnets[{s}]"
            subs.append(sub)
        net["subnets"] = subs
        subnets.extend(subs)
    for net in nets:
        attrs = {
            "router:external": net["external"],
            "shared": net["shared"],
            "mtu": net["mtu"],
            "subnets": [s["id"] for s in net["subnets"]],
        }
        if "description" in net:
            attrs["description"] = net["description"]
        seeds.append(Seed("network", net["name"], "ACTIVE", attrs, net["id"]))
        for sub in net["subnets"]:
            attrs = {
                k: sub[k]
                for k in ("network_id", "cidr", "ip_version", "enable_dhcp")
                + ("dns_nameservers", "host_routes")
            }
            attrs["gateway_ip"] = sub.get("gateway_ip", _first_host(sub["cidr"]))
            attrs["allocation_pools"] = sub.get("allocation_pools") or _pools(
                sub["cidr"], attrs["gateway_ip"]
            )
            seeds.append(Seed("subnet", sub["name"], "ACTIVE", attrs, sub["id"]))
    find_net = _finder(nets, "network")
    find_sub = _finder(subnets, "subnet")
    gateways = {s.id: s for s in seeds if s.kind == "subnet"}
    for r, entry in enumerate(world.get("routers", [])):
        router = with_defaults("routers", entry)
        rid = str(router.get("id") or stable_id(f"router:{router['name']}"))
        gateway = None
        if router["external_gateway"] is not None:
            gateway = {
                "network_id": find_net(
                    router["external_gateway"], f"routers[{r}].external_gateway"
                ),
                "enable_snat": router["enable_snat"],
            }
        interfaces = []
        for k, ref in enumerate(router["interfaces"]):
            sid = find_sub(ref, f"routers[{r}].interfaces[{k}]")
            subnet = gateways[sid]
            pid = stable_id(f"port:{router['name']}:{subnet.name}")
            port = {
                "network_id": subnet.attrs["network_id"],
                "fixed_ips": [{"subnet_id": sid, "ip_address": subnet.attrs["gateway_ip"]}],
                "mac_address": stable_mac(pid),
                "device_id": rid,
                "device_owner": "network:router_interface",
            }
            seeds.append(Seed("port", "", "ACTIVE", port, pid))
            interfaces.append(
                {"id": rid, "subnet_id": sid, "port_id": pid, "network_id": port["network_id"]}
            )
        attrs = {"external_gateway_info": gateway, "interfaces": interfaces}
        seeds.append(Seed("router", router["name"], "ACTIVE", attrs, rid))
    groups = []
    for entry in world.get("security_groups", []):
        sg = with_defaults("security_groups", entry)
        sg["id"] = str(sg.get("id") or stable_id(f"security_group:{sg['name']}"))
        groups.append(sg)
    find_sg = _finder(groups, "security group")
    for g, sg in enumerate(groups):
        seeds.append(
            Seed(
                "security_group", sg["name"], "ACTIVE", {"description": sg["description"]}, sg["id"]
            )
        )
        for k, rule_entry in enumerate(sg["rules"]):
            rule = with_defaults("rules", rule_entry)
            remote = rule.pop("remote_group")
            attrs = {k2: v for k2, v in rule.items() if k2 != "id"}
            attrs["security_group_id"] = sg["id"]
            attrs["remote_group_id"] = (
                find_sg(remote, f"security_groups[{g}].rules[{k}].remote_group") if remote else None
            )
            rid = str(rule.get("id") or stable_id(f"security_group_rule:{sg['name']}:{k}"))
            seeds.append(Seed("security_group_rule", "", "ACTIVE", attrs, rid))
    return seeds


def _entity(world: Mapping[str, Any]) -> list[Seed]:
    seeds = []
    sections = (("volume_types", "volume_type"), ("projects", "project"), ("regions", "region"))
    for section, kind in sections:
        for entry in world.get(section, []):
            e = with_defaults(section, entry)
            eid = str(e.pop("id", None) or stable_id(f"{kind}:{e['name']}"))
            name = e.pop("name")
            seeds.append(Seed(kind, name, "ACTIVE", {"kind": kind, **e}, eid))
    projects = [s for s in seeds if s.kind == "project"]
    find_project = _finder([{"id": p.id, "name": p.name} for p in projects], "project")
    for u, entry in enumerate(world.get("users", [])):
        e = with_defaults("users", entry)
        eid = str(e.pop("id", None) or stable_id(f"user:{e['name']}"))
        name = e.pop("name")
        if e["project"] is not None:
            e["project"] = find_project(e["project"], f"users[{u}].project")
        seeds.append(Seed("user", name, "ACTIVE", {"kind": "user", **e}, eid))
    return seeds


def _first_host(cidr: str) -> str:
    import ipaddress

    return str(ipaddress.ip_network(cidr, strict=False)[1])


def _pools(cidr: str, gateway: str | None) -> list[dict[str, str]]:
    """Neutron's default allocation pools: every host address but the gateway."""
    import ipaddress

    net = ipaddress.ip_network(cidr, strict=False)
    first, last = net[1], (net[-2] if net.version == 4 else net[-1])
    gw = ipaddress.ip_address(gateway) if gateway else None
    if gw is None or not first <= gw <= last:
        return [{"start": str(first), "end": str(last)}]
    pools = []
    if gw > first:
        pools.append({"start": str(first), "end": str(gw - 1)})
    if gw < last:
        pools.append({"start": str(gw + 1), "end": str(last)})
    return pools


def seeds(service: str, world: Mapping[str, Any] | None = None) -> list[Seed]:
    """Return the entities *world* (default: :data:`DEFAULT_WORLD`) gives *service*, in order.

    Attributes are the ones that differ from the service's defaults; the
    service completes them (a keypair's fingerprint, a network's defaults).
    """
    if world is None:  # every new world: the default world's seeds, made once (as copies)
        known = _DEFAULT_SEEDS.get(service)
        if known is None or known[0] != DEFAULT_WORLD:  # made, and the default world as then
            known = _DEFAULT_SEEDS[service] = (_copy(DEFAULT_WORLD), _seeds(service, DEFAULT_WORLD))
        return [seed._replace(attrs=_copy(seed.attrs)) for seed in known[1]]
    return _seeds(service, world)


#: service -> (a copy of DEFAULT_WORLD, the seeds it gave the service)
_DEFAULT_SEEDS: dict[str, tuple[dict[str, Any], list[Seed]]] = {}


def _seeds(service: str, data: Mapping[str, Any]) -> list[Seed]:
    if service == "compute":
        return _compute(data)
    if service == "network":
        return _network(data)
    if service == "entity":
        return _entity(data)
    return []
