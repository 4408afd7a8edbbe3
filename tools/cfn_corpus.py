"""Measure the public CloudFormation-format templates (openstack/heat-templates) in plugsim.

Usage::

    PLUGSIM_HEAT_PYTHON=/path/to/heatvenv/bin/python \\
        python tools/cfn_corpus.py SOURCE [--json OUT] [--only SUBSTRING]

SOURCE is a checkout of openstack/heat-templates or its bare git directory (as
for ``tools/hot_corpus.py``; nothing is copied into this repository). Every
file whose top level carries ``AWSTemplateFormatVersion`` or
``HeatTemplateFormatVersion`` is

1. loaded (:func:`simulator.template.load_template`: sections, parameter
   declarations, functions - the template layer alone), then
2. validated (``World.validate_template``) with Heat 27's own AWS plug-ins
   (``heat.engine.resources.aws.*`` and ``OS::Heat::InstanceGroup``) loaded
   through the compat layer when ``$PLUGSIM_HEAT_PYTHON`` names a Heat
   virtualenv - the AWS types are not bundled with plugsim.

Parameters and the world are made as ``tools/hot_corpus.py`` makes them (from the
declarations, read HOT-shaped), plus the images the template's image mappings
(a ``Mappings`` entry whose name mentions AMI or Image) and literal ``ImageId``
properties name, as a user would declare them in a world file. The tool prints one line per template and the
totals; it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hot_corpus  # noqa: E402  (a sibling tool: parameters, world, source tree)

CFN_KEYS = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")
#: Heat 27's modules for the AWS types (and the InstanceGroup the CFN templates use).
HEAT_MODULES = tuple(
    "heat.engine.resources." + m
    for m in (
        "aws.autoscaling.autoscaling_group",
        "aws.autoscaling.launch_config",
        "aws.autoscaling.scaling_policy",
        "aws.cfn.stack",
        "aws.cfn.wait_condition",
        "aws.cfn.wait_condition_handle",
        "aws.ec2.eip",
        "aws.ec2.instance",
        "aws.ec2.internet_gateway",
        "aws.ec2.network_interface",
        "aws.ec2.route_table",
        "aws.ec2.security_group",
        "aws.ec2.subnet",
        "aws.ec2.volume",
        "aws.ec2.vpc",
        "aws.iam.user",
        "aws.lb.loadbalancer",
        "aws.s3.s3",
        "openstack.heat.instance_group",
    )
)


def _templates(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".template", ".json") or not path.is_file():
            continue
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
        except yaml.YAMLError:
            continue
        if isinstance(doc, dict) and any(k in doc for k in CFN_KEYS):
            yield path, doc


def _mapped_images(mappings: Any) -> list[str]:
    names: list[str] = []
    for map_name, table in (mappings or {}).items():
        if not any(w in str(map_name).lower() for w in ("ami", "image")):
            continue
        stack = [table]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item[k] for k in sorted(item, key=str, reverse=True))
            elif isinstance(item, str) and item not in names:
                names.append(item)
    return names


def _literal_images(resources: Any) -> list[str]:
    found = []
    for body in (resources or {}).values():
        props = body.get("properties") if isinstance(body, dict) else None
        image = props.get("ImageId") if isinstance(props, dict) else None
        if isinstance(image, str) and image not in found:
            found.append(image)
    return found


def _world(hot: dict[str, Any], base: dict[str, Any]) -> Any:
    world = hot_corpus.world_for(hot, base)
    images = _mapped_images(hot.get("mappings")) + _literal_images(hot.get("resources"))
    if not images:
        return world
    out = dict(world)
    out["images"] = [*world.get("images", []), *({"name": n} for n in images)]
    return out


def run(source: Path, only: str | None = None) -> list[dict[str, Any]]:
    """Load and validate every CFN template of *source*; return one record per template."""
    from simulator.template import load_template
    from simulator.world import World

    heat = bool(os.environ.get("PLUGSIM_HEAT_PYTHON"))
    values = {  # the names hot_corpus gives with a world (DevStack plus a keypair)
        "image": hot_corpus.IMAGE,
        "flavor": hot_corpus.FLAVOR,
        "key": hot_corpus.KEYPAIR,
        "net": "private",
        "public": "public",
        "subnet": "private-subnet",
        "server": hot_corpus.SERVER_ID,
    }
    records = []
    with tempfile.TemporaryDirectory(prefix="cfn-corpus-") as tmp:
        root = hot_corpus._tree(source, Path(tmp))
        for path, _doc in _templates(root):
            rel = str(path.relative_to(root))
            if only and only not in rel:
                continue
            record: dict[str, Any] = {"template": rel, "loads": False, "validates": False}
            records.append(record)
            try:
                tmpl = load_template(path)
            except Exception as ex:  # noqa: BLE001 - a measurement records every failure
                record["error"] = str(ex).splitlines()[0][:300]
                continue
            record["loads"] = True
            if not heat:
                continue
            env = Path(tmp) / "corpus-env.yaml"
            env.write_text(yaml.safe_dump({"parameters": hot_corpus._parameters(tmpl.raw, values)}))
            world_path = Path(tmp) / "corpus-world.yaml"
            world_path.write_text(yaml.safe_dump(_world(tmpl.raw, hot_corpus.WORLD)))
            record["validates"] = _validate(World, path, env, world_path, record)
    return records


def _validate(world_cls: Any, path: Path, env: Path, world_path: Path, record: dict) -> bool:
    from simulator.heat_compat import use_heat_plugins

    world = world_cls(world_file=str(world_path), entry_points=True)
    try:
        use_heat_plugins(world, *HEAT_MODULES)
        hot_corpus._with_alarm(60, lambda: world.validate_template(str(path), [str(env)]))
        return True
    except Exception as ex:  # noqa: BLE001 - a measurement records every failure
        record["error"] = f"{type(ex).__name__}: {ex}".splitlines()[0][:300]
        return False
    finally:
        world.close()


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--json", type=Path, help="also write the records as JSON here")
    parser.add_argument("--only", help="only templates whose path contains this text")
    args = parser.parse_args(argv)
    records = run(args.source, args.only)
    for r in records:
        marks = ("load" if r["loads"] else "----") + " " + ("valid" if r["validates"] else "-----")
        print(f"{marks}  {r['template']}" + (f"  # {r['error']}" if "error" in r else ""))
    loads = sum(r["loads"] for r in records)
    valid = sum(r["validates"] for r in records)
    print(f"loads {loads}/{len(records)}, validates {valid}/{len(records)}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
