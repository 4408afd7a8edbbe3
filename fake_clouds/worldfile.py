"""World files: a YAML file declaring what a fake cloud holds before its first call.

A world file names images, flavors, keypairs, networks (with their subnets),
routers, security groups, servers already running, volume types, projects and
users, and may set
quotas, latency overrides and a fault profile. It is validated against the
JSON schema shipped as ``fake_clouds/worlds/world.schema.json`` (and in the
docs); a bad file is one line naming the file and the key. ``extends: PRESET``
starts from a preset and adds to it (lists are appended, ``quotas`` and
``latency`` merged).

:func:`resolve` turns ``FILE|PRESET`` (or data) into checked world data,
:func:`build` makes a :class:`~fake_clouds.core.world.FakeCloud` of it and
:func:`export` writes a cloud's current contents back as a world file, so
``export(build(resolve(export(c))))`` equals ``export(c)``.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from importlib import resources
from typing import Any

import yaml

from fake_clouds import default_world
from sdk import exception

#: The world-file sections that are lists of entities, in the order they are written.
LIST_SECTIONS = (
    "images",
    "flavors",
    "keypairs",
    "networks",
    "routers",
    "security_groups",
    "servers",
    "volume_types",
    "projects",
    "users",
    "regions",
)
#: Presets shipped with plugsim (``default`` is the world used when none is named).
PRESETS = ("default", "devstack")


def schema() -> dict[str, Any]:
    """Return the world-file JSON schema (draft 2020-12)."""
    text = resources.files("fake_clouds").joinpath("worlds/world.schema.json").read_text()
    return json.loads(text)  # type: ignore[no-any-return]


def preset(name: str) -> dict[str, Any]:
    """Return the data of the preset world *name* (``default`` or ``devstack``)."""
    if name == "default":
        return copy.deepcopy(default_world.DEFAULT_WORLD)
    if name not in PRESETS:
        raise exception.ConfigurationError(
            f"no world preset {name!r} (presets: {', '.join(PRESETS)}; or give a YAML file)"
        )
    text = resources.files("fake_clouds").joinpath(f"worlds/{name}.yaml").read_text()
    return yaml.safe_load(text)  # type: ignore[no-any-return]


def _key(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def validate(data: Any, label: str) -> None:
    """Raise a one-line ConfigurationError naming *label* and the key if *data* breaks the schema."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.path)), e.message))
    if errors:
        err = min(errors, key=lambda e: -len(e.path))
        # the deepest error names the key best; oneOf failures explain themselves less well
        raise exception.ConfigurationError(f"{label}: {_key(err.path)}: {err.message}")


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if key == "extends":
            continue
        if key in LIST_SECTIONS:
            out[key] = [*out.get(key, []), *copy.deepcopy(value)]
        elif key in ("quotas", "latency") and isinstance(value, Mapping):
            merged = out.setdefault(key, {})
            for sub, entries in value.items():
                merged[sub] = {**merged.get(sub, {}), **copy.deepcopy(entries)}
        else:
            out[key] = copy.deepcopy(value)
    return out


def _unique_names(data: Mapping[str, Any], label: str) -> None:
    for section in LIST_SECTIONS:
        seen: dict[str, int] = {}
        for i, entry in enumerate(data.get(section, [])):
            name = entry.get("name")
            if name in seen:
                raise exception.ConfigurationError(
                    f"{label}: {section}[{i}].name: {name!r} is already {section}[{seen[name]}]"
                )
            seen[name] = i


def resolve(source: Any) -> tuple[dict[str, Any], str]:
    """Return ``(world data, label)`` for a preset name, a YAML file path or a mapping."""
    if isinstance(source, Mapping):
        data, label = copy.deepcopy(dict(source)), "world"
    elif isinstance(source, str | os.PathLike) and str(source) in PRESETS:
        return preset(str(source)), str(source)
    elif isinstance(source, str | os.PathLike):
        label = str(source)
        if not os.path.isfile(label):
            raise exception.ConfigurationError(
                f"{label}: no such world file (presets: {', '.join(PRESETS)})"
            )
        try:
            with open(label, encoding="utf-8") as fh:
                data = yaml.safe_load(fh)
        except yaml.YAMLError as ex:
            mark = getattr(ex, "problem_mark", None)
            where = f"line {mark.line + 1}: " if mark is not None else ""
            problem = getattr(ex, "problem", None) or str(ex)
            raise exception.ConfigurationError(f"{label}: {where}{problem}") from None
    else:
        raise exception.ConfigurationError(
            f"world: expected a file, a preset or a mapping, got {source!r}"
        )
    if isinstance(data, dict) and "extends" in data:
        base = data["extends"]
        if not isinstance(base, str) or base not in PRESETS:
            raise exception.ConfigurationError(
                f"{label}: extends: expected one of {', '.join(PRESETS)}, got {base!r}"
            )
        rest = {k: v for k, v in data.items() if k != "extends"}
        validate({"plugsim_world": 1, **rest}, label)
        data = _merge(preset(base), rest)
    validate(data, label)
    _unique_names(data, label)
    return data, label


def build(source: Any, **kwargs: Any) -> Any:
    """Return a new FakeCloud holding the world *source* (see :func:`resolve`).

    *kwargs* go to :class:`~fake_clouds.core.world.FakeCloud`; a ``faults``
    argument that is not None wins over the file's ``faults``.
    """
    from fake_clouds.core.world import FakeCloud

    data, label = resolve(source)
    if kwargs.get("faults") is None and "faults" in data:
        kwargs["faults"] = data["faults"]
    if "latency" in data and kwargs.get("latency") is None:
        kwargs["latency"] = data["latency"]
    try:
        cloud = FakeCloud(preseed=False, quotas=data.get("quotas"), **kwargs)
        for name in cloud.service_names():
            cloud.service(name).seed_defaults(data)
        _seed_servers(cloud, data.get("servers", []))
    except exception.ConfigurationError as ex:
        raise exception.ConfigurationError(f"{label}: {ex}") from None
    return cloud


def _find(svc: Any, kind: str, ref: str, where: str) -> Any:
    """The live *kind* of *svc* whose id, else only name, is *ref*; else a one-line error."""
    live = list(svc._live(kind)) if svc is not None and kind in svc._store else []
    found = [e for e in live if e.id == ref] or [e for e in live if e.name == ref]
    if len(found) != 1:
        what = "several" if found else "no"
        raise exception.ConfigurationError(
            f"{where}: {what} {kind} named {ref!r} in this world"
            + (" (use an id)" if found else "")
        )
    return found[0]


def _seed_servers(cloud: Any, servers: list[dict[str, Any]]) -> None:
    """Add the servers a world declares: running (or shut off) from the start, with a port on
    each network they name; like every declared entity they are no leak and use no quota."""
    if not servers:
        return
    from fake_clouds.compute import TASK

    compute = cloud.service("compute")
    network = cloud.service("network") if "network" in cloud.service_names() else None
    for i, entry in enumerate(servers):
        where = f"servers[{i}]"
        image = _find(compute, "image", entry["image"], f"{where}.image")
        flavor = _find(compute, "flavor", entry["flavor"], f"{where}.flavor")
        key_name = entry.get("key_name")
        if key_name is not None:
            key_name = _find(compute, "keypair", key_name, f"{where}.key_name").name
        nets = [
            {"uuid": _find(network, "network", ref, f"{where}.networks[{k}]").id}
            for k, ref in enumerate(entry.get("networks", []))
        ]
        server_id = str(entry.get("id") or default_world.stable_id(f"server:{entry['name']}"))
        attrs = {
            "flavor": {"id": flavor.id, "original_name": flavor.name},
            "image": {"id": image.id},
            "key_name": key_name,
            "metadata": dict(entry.get("metadata") or {}),
            "addresses": {},
            "security_groups": [{"name": "default"}],
            "user_data": None,
            "OS-EXT-AZ:availability_zone": "nova",
            TASK: None,
            "os-extended-volumes:volumes_attached": [],
            "description": None,
        }
        status = entry.get("status", "ACTIVE")
        server = compute._create(
            "server", entry["name"], status, attrs, entity_id=server_id, preseeded=True
        )
        if nets and network is not None:
            server.attrs["addresses"] = network._plug_server(server_id, nets)
            for port in network._live("port"):
                if port.attrs.get("device_id") == server_id:
                    port.preseeded = True


# --- writing a cloud back as a world file ------------------------------------------------


def _live(cloud: Any, service: str, kind: str) -> list[Any]:
    if service not in cloud.service_names():
        return []
    svc = cloud.service(service)
    if kind not in svc._store:
        return []
    return list(svc._live(kind))  # creation order, which a reloaded world keeps


def _refs(entities: list[Any]) -> dict[str, str]:
    """Map ids to the name a world file can use (the id itself when a name is ambiguous)."""
    counts: dict[str, int] = {}
    for e in entities:
        counts[e.name] = counts.get(e.name, 0) + 1
    return {e.id: (e.name if counts[e.name] == 1 and e.name else e.id) for e in entities}


def _export_compute(cloud: Any, out: dict[str, Any]) -> None:
    for e in _live(cloud, "compute", "image"):
        a = e.attrs
        out.setdefault("images", []).append(
            {
                "name": e.name,
                "id": e.id,
                "file": a.get("file", e.name),
                "size": a.get("size", 0),
                "min_disk": a.get("min_disk", 0),
                "min_ram": a.get("min_ram", 0),
                "disk_format": a.get("disk_format", "qcow2"),
                "container_format": a.get("container_format", "bare"),
                "visibility": a.get("visibility", "public"),
                "status": e.status,
                "metadata": dict(sorted((a.get("metadata") or {}).items())),
            }
        )
    for e in _live(cloud, "compute", "flavor"):
        a = e.attrs
        keys = ("vcpus", "ram", "disk", "swap", "ephemeral", "is_public", "rxtx_factor")
        out.setdefault("flavors", []).append(
            {"name": e.name, "id": e.id, **{k: a[k] for k in keys}}
        )
    for e in _live(cloud, "compute", "keypair"):
        out.setdefault("keypairs", []).append({"name": e.name, "public_key": e.attrs["public_key"]})


def _export_servers(cloud: Any, out: dict[str, Any]) -> None:
    """The running and shut-off servers, so a run's servers can start the next world."""
    images = _refs(_live(cloud, "compute", "image"))
    flavors = _refs(_live(cloud, "compute", "flavor"))
    nets = _refs(_live(cloud, "network", "network"))
    ports = _live(cloud, "network", "port")
    for e in _live(cloud, "compute", "server"):
        if e.status not in ("ACTIVE", "SHUTOFF"):
            continue
        a = e.attrs
        mine = [p.attrs["network_id"] for p in ports if p.attrs.get("device_id") == e.id]
        out.setdefault("servers", []).append(
            {
                "name": e.name,
                "id": e.id,
                "image": images.get(a["image"]["id"], a["image"]["id"]),
                "flavor": flavors.get(a["flavor"]["id"], a["flavor"]["id"]),
                "networks": [nets.get(n, n) for n in mine],
                "key_name": a.get("key_name"),
                "metadata": dict(sorted((a.get("metadata") or {}).items())),
                "status": e.status,
            }
        )


def _export_network(cloud: Any, out: dict[str, Any]) -> None:
    nets = _live(cloud, "network", "network")
    subnets = _live(cloud, "network", "subnet")
    net_ref, sub_ref = _refs(nets), _refs(subnets)
    for net in nets:
        subs = []
        by_id = {s.id: s for s in subnets}
        for s in [by_id[sid] for sid in net.attrs.get("subnets", []) if sid in by_id]:
            a = s.attrs
            subs.append(
                {
                    "name": s.name,
                    "id": s.id,
                    "cidr": a["cidr"],
                    "ip_version": a["ip_version"],
                    "gateway_ip": a["gateway_ip"],
                    "enable_dhcp": a["enable_dhcp"],
                    "allocation_pools": [dict(p) for p in a["allocation_pools"]],
                    "dns_nameservers": list(a["dns_nameservers"]),
                    "host_routes": list(a["host_routes"]),
                }
            )
        entry = {
            "name": net.name,
            "id": net.id,
            "description": net.attrs.get("description", ""),
            "external": bool(net.attrs.get("router:external")),
            "shared": bool(net.attrs.get("shared")),
            "mtu": net.attrs.get("mtu", 1500),
            "subnets": subs,
        }
        out.setdefault("networks", []).append(entry)
    for r in _live(cloud, "network", "router"):
        gw = r.attrs.get("external_gateway_info")
        out.setdefault("routers", []).append(
            {
                "name": r.name,
                "id": r.id,
                "external_gateway": net_ref.get(gw["network_id"], gw["network_id"]) if gw else None,
                "enable_snat": bool(gw.get("enable_snat", True)) if gw else True,
                "interfaces": [
                    sub_ref.get(i["subnet_id"], i["subnet_id"]) for i in r.attrs["interfaces"]
                ],
            }
        )
    groups = _live(cloud, "network", "security_group")
    sg_ref = _refs(groups)
    rules = _live(cloud, "network", "security_group_rule")
    for g in groups:
        mine = []
        for rule in rules:
            a = rule.attrs
            if a["security_group_id"] != g.id:
                continue
            remote = a.get("remote_group_id")
            mine.append(
                {
                    "id": rule.id,
                    "direction": a["direction"],
                    "ethertype": a["ethertype"],
                    "protocol": a["protocol"],
                    "port_range_min": a["port_range_min"],
                    "port_range_max": a["port_range_max"],
                    "remote_ip_prefix": a["remote_ip_prefix"],
                    "remote_group": sg_ref.get(remote, remote) if remote else None,
                }
            )
        out.setdefault("security_groups", []).append(
            {
                "name": g.name,
                "id": g.id,
                "description": g.attrs.get("description", ""),
                "rules": mine,
            }
        )


def _export_entity(cloud: Any, out: dict[str, Any]) -> None:
    for section, kind in (("volume_types", "volume_type"), ("projects", "project")):
        fields = [k for k in default_world.FIELD_DEFAULTS[section]]
        for e in _live(cloud, "entity", kind):
            entry = {"name": e.name, "id": e.id}
            entry.update({k: copy.deepcopy(e.attrs.get(k)) for k in fields})
            out.setdefault(section, []).append(entry)
    for e in _live(cloud, "entity", "region"):
        region = {"name": e.name, "description": e.attrs.get("description", "")}
        out.setdefault("regions", []).append(region)
    projects = _refs(_live(cloud, "entity", "project"))
    for e in _live(cloud, "entity", "user"):
        project = e.attrs.get("project")
        out.setdefault("users", []).append(
            {
                "name": e.name,
                "id": e.id,
                "project": projects.get(project, project) if project else None,
                "roles": list(e.attrs.get("roles", [])),
                "domain": e.attrs.get("domain", "default"),
                "enabled": bool(e.attrs.get("enabled", True)),
                **({"password": e.attrs["password"]} if e.attrs.get("password") else {}),
            }
        )


def export(cloud: Any) -> dict[str, Any]:
    """Return what *cloud* holds now (the kinds a world file declares) as world-file data."""
    out: dict[str, Any] = {"plugsim_world": 1}
    _export_compute(cloud, out)
    _export_network(cloud, out)
    _export_servers(cloud, out)
    _export_entity(cloud, out)
    quotas = {}
    for name in cloud.service_names():
        svc = cloud.service(name)
        changed = {k: v for k, v in sorted(svc.quotas.items()) if svc.default_quotas.get(k) != v}
        if changed:
            quotas[name] = changed
    if quotas:
        out["quotas"] = quotas
    from fake_clouds.core.latency import DEFAULT_LATENCY

    latency = {}
    for section, entries in cloud.latency.to_spec().items():
        changed = {k: v for k, v in entries.items() if DEFAULT_LATENCY[section].get(k) != v}
        if changed:
            latency[section] = changed
    if latency:
        out["latency"] = latency
    rules = cloud.faults.profile.to_spec()
    if rules:
        out["faults"] = rules
    return out


def dump(data: Mapping[str, Any]) -> str:
    """Return world data as YAML text (keys in the world-file order)."""
    return yaml.safe_dump(dict(data), sort_keys=False, default_flow_style=False, width=100)
