"""Run the public HOT template corpus (openstack/heat-templates ``hot/``) through plugsim.

Usage::

    python tools/hot_corpus.py SOURCE [--world WORLD] [--json OUT] [--only SUBSTRING]

SOURCE is a checkout of openstack/heat-templates or its bare git directory (read
with ``git ls-tree``/``git show``; nothing is copied into this repository: the
tree is written to a temporary directory and removed afterwards). Every
``hot/`` template (a mapping with ``heat_template_version``) whose resource
types are all bundled with plugsim, or are template files next to it whose own
types are (group members included), is

1. validated (``World.validate_template``), then
2. simulated (create, update, suspend, resume, snapshot, delete; no leak),

with parameters generated from their declarations (constraints, allowed values,
names such as ``image``/``flavor``/``key_name``/``network``; a string is made to
match the parameter's ``allowed_pattern``) against the world WORLD: by default
DevStack plus one keypair (``extends: devstack``), plus the images a template
allows only (its ``allowed_values``), as its user would declare them. The tool
prints one line per template and the totals; it exits 0 whatever the figures
(it measures, it does not judge). ``nox -s hot_corpus -- SOURCE`` runs it.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

KEYPAIR = "heat_key"
IMAGE = "cirros-0.6.3-x86_64-disk"
FLAVOR = "m1.small"
#: The id of the server the world holds for templates that name one that must already exist.
SERVER_ID = "c0a95e2b-5e7a-4f4e-8c1d-0000000c0a95"
_SERVER_PARAMS = ("instance_id", "instance_uuid", "server_id", "instance", "server")
WORLD = {
    "plugsim_world": 1,
    "extends": "devstack",
    "keypairs": [
        {"name": KEYPAIR, "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHotCorpus corpus"}
    ],
}
#: What main had before world files: used when the engine takes no world (the "before" figure).
DEFAULT_WORLD_VALUES = {"image": "cirros", "flavor": "m1.small", "key": "default", "net": "public"}


def _tree(source: Path, workdir: Path) -> Path:
    """Return a directory holding SOURCE's ``hot/`` tree (a checkout is used in place)."""
    if (source / "hot").is_dir():
        return source
    names = subprocess.run(
        ["git", "--git-dir", str(source), "ls-tree", "-r", "--name-only", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    for name in names:
        blob = subprocess.run(
            ["git", "--git-dir", str(source), "show", f"HEAD:{name}"],
            check=True,
            capture_output=True,
        ).stdout
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
    return workdir


def _templates(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted((root / "hot").rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".template") or not path.is_file():
            continue
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
        except yaml.YAMLError:
            continue
        if isinstance(doc, dict) and "heat_template_version" in doc:
            yield path, doc


def _types(doc: dict[str, Any]) -> list[str]:
    """The resource types *doc* names, a group's member type included."""
    resources = doc.get("resources") or {}
    if not isinstance(resources, dict):
        return []
    out = []
    for body in resources.values():
        if not isinstance(body, dict):
            continue
        if isinstance(body.get("type"), str):
            out.append(body["type"])
        props = body.get("properties") or {}
        member = None
        if body.get("type") == "OS::Heat::ResourceGroup" and isinstance(props, dict):
            member = props.get("resource_def")
        elif body.get("type") == "OS::Heat::AutoScalingGroup" and isinstance(props, dict):
            member = props.get("resource")
        if isinstance(member, dict) and isinstance(member.get("type"), str):
            out.append(member["type"])
    return out


def _uses_bundled_types(
    path: Path, doc: dict[str, Any], bundled: set[str], seen: set[Path] | None = None
) -> bool:
    """True when every type *doc* uses, in the template files it nests too, is bundled."""
    seen = set() if seen is None else seen
    seen.add(path.resolve())
    for rtype in _types(doc):
        if rtype in bundled:
            continue
        nested = path.parent / rtype
        if not rtype.endswith((".yaml", ".yml", ".template")) or not nested.is_file():
            return False
        if nested.resolve() in seen:
            continue
        try:
            inner = yaml.safe_load(nested.read_text(encoding="utf-8", errors="replace"))
        except yaml.YAMLError:
            continue
        if isinstance(inner, dict) and not _uses_bundled_types(nested, inner, bundled, seen):
            return False
    return True


#: Strings tried, in order, when a generated value breaks a parameter's pattern or length.
_STEMS = ("corpus", "Corpus1", "Passw0rd!", "Corpus1!", "c1", "1")


def _fits(value: str, schema: dict[str, Any]) -> bool:
    for c in schema.get("constraints") or []:
        if not isinstance(c, dict):
            continue
        if isinstance(c.get("allowed_pattern"), str):
            try:
                if re.fullmatch(c["allowed_pattern"], value) is None:
                    return False
            except re.error:
                return True
        length = c.get("length")
        if isinstance(length, dict):
            if length.get("min") is not None and len(value) < int(length["min"]):
                return False
            if length.get("max") is not None and len(value) > int(length["max"]):
                return False
    return True


def _value(name: str, schema: dict[str, Any], values: dict[str, str]) -> Any:
    """A value for parameter *name* that its declaration accepts (patterns and lengths too)."""
    value = _first_guess(name, schema, values)
    if not isinstance(value, str) or _fits(value, schema):
        return value
    lengths = [c.get("length") for c in schema.get("constraints") or [] if isinstance(c, dict)]
    lengths = [n for n in lengths if isinstance(n, dict)]
    low = max([int(n.get("min") or 0) for n in lengths] or [0])
    high = min([int(n["max"]) for n in lengths if n.get("max") is not None] or [255])
    for stem in (value, *_STEMS):
        candidate = (stem + stem[-1] * max(0, low - len(stem)))[:high]
        if _fits(candidate, schema):
            return candidate
    return value


def _names_a_server(name: str, schema: dict[str, Any]) -> bool:
    """True for a parameter whose value is a server that must already exist."""
    constraints = [c for c in schema.get("constraints") or [] if isinstance(c, dict)]
    if any(c.get("custom_constraint") == "nova.server" for c in constraints):
        return True
    return str(schema.get("type", "string")).lower() == "string" and name.lower() in _SERVER_PARAMS


def _first_guess(name: str, schema: dict[str, Any], values: dict[str, str]) -> Any:
    ptype = str(schema.get("type", "string")).lower()
    lname = name.lower()
    if "server" in values and _names_a_server(name, schema):
        return values["server"]
    for c in schema.get("constraints") or []:
        if isinstance(c, dict) and c.get("allowed_values"):
            return c["allowed_values"][0]
        custom = c.get("custom_constraint") if isinstance(c, dict) else None
        if custom == "nova.flavor":
            return values["flavor"]
        if custom == "glance.image":
            return values["image"]
        if custom == "nova.keypair":
            return values["key"]
        if custom == "neutron.network":
            return values["public" if "public" in lname or "ext" in lname else "net"]
        if custom == "neutron.subnet":
            return values["subnet"]
    if ptype in ("number", "integer"):
        low = next(
            (
                c["range"].get("min")
                for c in schema.get("constraints") or []
                if isinstance(c, dict)
                and isinstance(c.get("range"), dict)
                and c["range"].get("min") is not None
            ),
            None,
        )
        return low if low is not None else 1
    if ptype == "boolean":
        return False
    if ptype == "json":
        return {}
    if ptype == "comma_delimited_list":
        return "8,16"
    if "flavor" in lname:
        return values["flavor"]
    if "image" in lname:
        return values["image"]
    if "key" in lname and "name" in lname or lname in ("key", "keypair", "ssh_key"):
        return values["key"]
    if "cidr" in lname:
        return "10.20.0.0/24"
    if "gateway" in lname:
        return "10.20.0.1"
    if "pool_start" in lname:
        return "10.20.0.10"
    if "pool_end" in lname:
        return "10.20.0.200"
    if "dns" in lname:
        return "8.8.8.8"
    if "subnet" in lname:
        return values["subnet"]
    if "net" in lname:
        return values[
            "public" if "public" in lname or "ext" in lname or "floating" in lname else "net"
        ]
    if "cidr" in lname:
        return "10.20.0.0/24"
    if "pass" in lname:
        return "Passw0rd"
    if "email" in lname or "mail" in lname:
        return "admin@example.com"
    minimum = 0
    for c in schema.get("constraints") or []:
        if isinstance(c, dict) and isinstance(c.get("length"), dict):
            minimum = int(c["length"].get("min") or 0)
    return "corpus" + "x" * max(0, minimum - 6)


_CLOUD_CONSTRAINTS = (
    "nova.flavor",
    "glance.image",
    "nova.keypair",
    "neutron.network",
    "neutron.subnet",
)
_CLOUD_NAMES = ("image", "flavor", "key_name", "keyname", "network", "net_id", "subnet")


def _names_a_cloud_object(name: str, schema: dict[str, Any]) -> bool:
    """True for a parameter whose value is an image, flavor, keypair, network or subnet name."""
    constraints = schema.get("constraints") or []
    if any(
        isinstance(c, dict) and c.get("custom_constraint") in _CLOUD_CONSTRAINTS
        for c in constraints
    ):
        return True
    lname = name.lower()
    return str(schema.get("type", "string")).lower() == "string" and any(
        n in lname for n in _CLOUD_NAMES
    )


def _parameters(doc: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """Values for parameters without a default, and for those naming cloud objects (a user
    passes what their cloud holds: the defaults name images of 2014 clouds)."""
    params = doc.get("parameters") or {}
    out = {}
    for name, schema in params.items() if isinstance(params, dict) else []:
        if not isinstance(schema, dict):
            continue
        if "default" not in schema or _names_a_cloud_object(str(name), schema):
            out[name] = _value(str(name), schema, values)
    return out


def world_for(doc: dict[str, Any], world: Any) -> Any:
    """The world to run *doc* in: *world* plus the images its image parameters insist on.

    A parameter that allows only some images (``allowed_values`` on a parameter with the
    ``glance.image`` constraint or named like an image) gets its first value, so the world
    must hold it: a user of such a template adds the image to a world file, as this does.
    """
    if not isinstance(world, dict):
        return world
    names = []
    params = doc.get("parameters") or {}
    for name, schema in params.items() if isinstance(params, dict) else []:
        if not isinstance(schema, dict):
            continue
        constraints = [c for c in schema.get("constraints") or [] if isinstance(c, dict)]
        is_image = "image" in str(name).lower() or any(
            c.get("custom_constraint") == "glance.image" for c in constraints
        )
        allowed = next((c["allowed_values"] for c in constraints if c.get("allowed_values")), None)
        if is_image and allowed and isinstance(allowed[0], str) and allowed[0] not in names:
            names.append(allowed[0])
    from fake_clouds import worldfile

    held = {i.get("name") for i in worldfile.resolve(world)[0].get("images", [])}
    names = [n for n in names if n not in held]
    servers = _servers_named(doc)
    regions = [r for r in _regions_named(doc) if r != "RegionOne"]
    if not names and not servers and not regions:
        return world
    out = dict(world)
    if regions:
        out["regions"] = [*world.get("regions", []), *({"name": r} for r in regions)]
    if names:
        out["images"] = [*world.get("images", []), *({"name": n} for n in names)]
    if servers:
        running = {"image": IMAGE, "flavor": FLAVOR, "networks": ["private"]}
        out["servers"] = [*world.get("servers", []), *({**s, **running} for s in servers)]
    return out


def _regions_named(doc: dict[str, Any]) -> list[str]:
    """The regions *doc*'s remote stacks (``OS::Heat::Stack``) are made in: a literal
    ``context.region_name`` or the default of the parameter it names. A user of a
    multi-region template declares those regions in the world file, as this does."""
    params = doc.get("parameters") or {}
    params = params if isinstance(params, dict) else {}
    out: list[str] = []
    resources = doc.get("resources") or {}
    for body in resources.values() if isinstance(resources, dict) else []:
        if not isinstance(body, dict) or body.get("type") != "OS::Heat::Stack":
            continue
        context = (body.get("properties") or {}).get("context") or {}
        region = context.get("region_name") if isinstance(context, dict) else None
        if isinstance(region, dict) and isinstance(region.get("get_param"), str):
            region = (params.get(region["get_param"]) or {}).get("default")
        if isinstance(region, str) and region not in out:
            out.append(region)
    return out


def _servers_named(doc: dict[str, Any]) -> list[dict[str, str]]:
    """The servers *doc* expects to exist: one for a server-id parameter, one per server
    ``external_id`` (its literal id, or the default of the parameter it names)."""
    out = []
    params = doc.get("parameters") or {}
    params = params if isinstance(params, dict) else {}
    if any(isinstance(v, dict) and _names_a_server(str(k), v) for k, v in params.items()):
        out.append({"name": "corpus-server", "id": SERVER_ID})
    resources = doc.get("resources") or {}
    for rname, body in resources.items() if isinstance(resources, dict) else []:
        if not isinstance(body, dict) or body.get("type") != "OS::Nova::Server":
            continue
        ext = body.get("external_id")
        if isinstance(ext, dict) and isinstance(ext.get("get_param"), str):
            ext = (params.get(ext["get_param"]) or {}).get("default")
        if isinstance(ext, str) and ext and all(s["id"] != ext for s in out):
            out.append({"name": f"external-{rname}", "id": ext})
    return out


def _with_alarm(seconds: int, call: Any) -> Any:
    def expired(*_: Any) -> None:
        raise TimeoutError(f"took more than {seconds} s of wall time")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        return call()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run(source: Path, world: Any, only: str | None = None) -> list[dict[str, Any]]:
    """Validate and simulate every eligible template; return one record per template."""
    from simulator.simulate import simulate
    from simulator.world import World

    takes_world = "world_file" in inspect.signature(World.__init__).parameters
    values = (
        {
            "image": IMAGE,
            "flavor": FLAVOR,
            "key": KEYPAIR,
            "net": "private",
            "public": "public",
            "subnet": "private-subnet",
            "server": SERVER_ID,
        }
        if takes_world
        else {**DEFAULT_WORLD_VALUES, "public": "public", "subnet": "public-subnet"}
    )
    probe = World()
    bundled = set(probe.registry.plugins())
    probe.close()
    records = []
    with tempfile.TemporaryDirectory(prefix="hot-corpus-") as tmp:
        root = _tree(source, Path(tmp))
        for path, doc in _templates(root):
            rel = str(path.relative_to(root))
            if only and only not in rel or not _uses_bundled_types(path, doc, bundled):
                continue
            params = _parameters(doc, values)
            env = Path(tmp) / "corpus-env.yaml"
            env.write_text(yaml.safe_dump({"parameters": params}))
            record: dict[str, Any] = {"template": rel, "validate": False, "simulate": False}
            world_path = Path(tmp) / "corpus-world.yaml"
            mine = world_for(doc, world) if takes_world else world
            world_path.write_text(yaml.safe_dump(mine) if isinstance(mine, dict) else "")
            world_arg = str(world_path) if isinstance(mine, dict) else mine
            kwargs = {"world_file": world_arg} if takes_world else {}
            cwd = os.getcwd()
            os.chdir(path.parent)
            try:
                w = World(**kwargs)
                try:
                    _with_alarm(
                        60, lambda w=w, p=path, e=env: w.validate_template(str(p), [str(e)])
                    )
                    record["validate"] = True
                finally:
                    w.close()
                report = _with_alarm(
                    60, lambda p=path, e=env, k=kwargs: simulate(str(p), [str(e)], **k)
                )
                record["simulate"] = bool(report.ok)
                if not report.ok:
                    bad = [p for p in report.phases if not p.state.endswith("COMPLETE")]
                    leaks = getattr(report, "leaks", None)
                    record["error"] = (
                        f"{bad[0].name}: {bad[0].reason}" if bad else f"leaked {leaks}"
                    )
            except Exception as ex:  # noqa: BLE001 - a measurement records every failure
                record["error"] = f"{type(ex).__name__}: {ex}".splitlines()[0][:300]
            finally:
                os.chdir(cwd)
            records.append(record)
    return records


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--world", help="world file or preset (default: devstack + a keypair)")
    parser.add_argument("--json", type=Path, help="also write the records as JSON here")
    parser.add_argument("--only", help="only templates whose path contains this text")
    args = parser.parse_args(argv)
    records = run(args.source, args.world or WORLD, args.only)
    for r in records:
        mark = "ok  " if r["simulate"] else ("val " if r["validate"] else "FAIL")
        print(f"{mark} {r['template']}" + (f"  -- {r['error']}" if r.get("error") else ""))
    total = len(records)
    print(
        f"\n{sum(r['validate'] for r in records)}/{total} validate, "
        f"{sum(r['simulate'] for r in records)}/{total} simulate create -> delete cleanly"
    )
    if args.json:
        args.json.write_text(json.dumps(records, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
