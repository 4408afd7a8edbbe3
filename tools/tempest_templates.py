"""Run heat-tempest-plugin's templates through plugsim: create, then delete.

Usage::

    python tools/tempest_templates.py SOURCE [--heat-plugins] [--json OUT] [--only TEXT]

SOURCE is a checkout of openstack/heat-tempest-plugin or its bare git directory.
The templates are extracted at run time and never written into this repository:

* every string literal in the functional and scenario test modules that parses
  as a YAML mapping with ``heat_template_version`` (a class attribute, a module
  constant, a local variable), and every dict literal holding that key;
* every template file under ``tests/scenario/templates``.

A scenario test's ``environment={'resource_registry': {...}}`` is passed with the
templates naming its types. A test module's ``files={...: self.x}`` arguments name the template strings its
nested stacks are served from; each of the module's templates gets them (by
file name), as the test passes them. Parameters without a default, and those
naming cloud objects, get the values ``tools/hot_corpus.py`` generates, in the
same world (``extends: devstack`` plus one keypair): tempest's own configuration
names the image, flavor, keypair and networks of a DevStack cloud the same way.

A scenario template given a ``backup_id`` runs after the test's first stack: the
sibling template whose volume has the ``Snapshot`` deletion policy is created and
deleted in the same world, and the backup it leaves is passed, as the test does.

Each template is created, then deleted, in a fresh in-memory world; it passes
when the create ends ``CREATE_COMPLETE`` and the delete ``DELETE_COMPLETE``.
``--heat-plugins`` (with ``$PLUGSIM_HEAT_PYTHON``) loads, for each type a
template names, the Heat 27 module that registers it, so Heat's own plug-ins
run in place of plugsim's; ``--heat-plugins missing`` only for the types plugsim
does not bundle (what a user adds with ``--heat-plugin``). The tool prints one line per template and the
figure; it exits 0 whatever the figure (``nox -s tempest_templates -- SOURCE``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hot_corpus  # noqa: E402  (a sibling tool: the same parameter values and world)

TESTS = "heat_tempest_plugin/tests/"
#: What tempest's configuration ([heat_plugin] options) names on a DevStack cloud: the
#: values a test's ``parameters={...: self.conf.<option>}`` take here.
TEMPEST_CONF = {
    "fixed_network_name": "private",
    "fixed_subnet_name": "private-subnet",
    "floating_network_name": "public",
    "image_ref": hot_corpus.IMAGE,
    "minimal_image_ref": hot_corpus.IMAGE,
    "instance_type": hot_corpus.FLAVOR,
    "minimal_instance_type": hot_corpus.FLAVOR,
    "keypair_name": hot_corpus.KEYPAIR,
    "volume_size": 1,
    "build_timeout": 1200,
    "dns_servers": ["8.8.8.8", "8.8.4.4"],
}
#: tempest's default ``[heat_plugin] boot_config_env``: the environment scenario tests pass.
BOOT_CONFIG_ENV = "boot_config_none_env.yaml"
SCENARIO_TEMPLATES = TESTS + "scenario/templates/"


def _read_tree(source: Path) -> dict[str, str]:
    """``{path: text}`` of the test modules and scenario templates in SOURCE."""
    wanted = re.compile(
        r"^heat_tempest_plugin/tests/((functional|scenario)/[^/]*\.py|scenario/templates/.*)$"
    )
    if (source / "heat_tempest_plugin").is_dir():
        return {
            str(p.relative_to(source)): p.read_text(encoding="utf-8")
            for p in sorted(source.rglob("*"))
            if p.is_file() and wanted.match(str(p.relative_to(source)))
        }
    git = ["git", "--git-dir", str(source)]
    names = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    return {
        name: subprocess.run(
            [*git, "show", f"HEAD:{name}"], check=True, capture_output=True, text=True
        ).stdout
        for name in sorted(names)
        if wanted.match(name)
    }


def _as_template(node: ast.AST) -> dict[str, Any] | None:
    """The template a string or dict literal holds, else None."""
    value: Any
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if "heat_template_version" not in node.value:
            return None
        try:
            value = yaml.safe_load(_substituted(node.value))
        except yaml.YAMLError:
            return None
    elif isinstance(node, ast.Dict):
        try:
            value = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError):
            return None
    else:
        return None
    return value if isinstance(value, dict) and "heat_template_version" in value else None


def _substituted(text: str) -> str:
    """*text* with the ``$NAME`` placeholder lines a test's ``setUp`` replaces by ``''``."""
    return re.sub(r"(?m)^\$[A-Z_]+\n", "", text)


def _target_name(parent: ast.AST | None) -> str | None:
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Name):
            return target.id
        if isinstance(target, ast.Attribute):
            return target.attr
    return None


def _string_of(
    node: ast.AST, strings: dict[str, str], local: dict[str, str] | None = None
) -> str | None:
    """The text a ``files`` value stands for: a literal, a named string or template (a bare
    name is the test function's own first, ``self.x`` the class's), or
    ``yaml.safe_dump(<one of those>)``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and node.args:
        return _string_of(node.args[0], strings, local)
    if isinstance(node, ast.Attribute):
        return strings.get(node.attr)
    ref = getattr(node, "id", None)
    if not isinstance(ref, str):
        return None
    return (local or {}).get(ref, strings.get(ref))


#: ``{test module: {parameter: value}}`` read from the tests' ``parameters = {...}``
PASSED: dict[str, dict[str, Any]] = {}
#: ``{test module: {type: template file}}`` read from the ``resource_registry`` the tests pass
REGISTRY: dict[str, dict[str, str]] = {}


def _test_value(name: str, node: ast.AST) -> Any:
    """The value a test passes for parameter *name*: a literal, a tempest option (its
    DevStack value), or a fresh name where the test draws a random one."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Attribute) and node.attr in TEMPEST_CONF:
        return TEMPEST_CONF[node.attr]
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "rand_name":
        return f"tempest-{name.replace('_', '-')}"
    # self.net['id'] / self.net['subnets'][0]: the ids of the test network and its subnet
    text = ast.unparse(node)
    if text == "self.net['subnets'][0]":
        return {ID_OF: ["subnet", TEMPEST_CONF["fixed_subnet_name"]]}
    if text == "self.net['id']":
        return {ID_OF: ["network", TEMPEST_CONF["fixed_network_name"]]}
    return None


#: a parameter value standing for the id of the named network object of the world
ID_OF = "__id_of__"


def _resolve_ids(world: Any, params: dict[str, Any]) -> dict[str, Any]:
    """*params* with each ``{ID_OF: [kind, name]}`` replaced by that object's id."""
    out = dict(params)
    for key, value in params.items():
        if isinstance(value, dict) and ID_OF in value:
            kind, ref = value[ID_OF]
            client = world.client_plugin("network").client()
            found = getattr(client, f"list_{kind}s")()[f"{kind}s"]
            out[key] = next((o["id"] for o in found if o.get("name") == ref), ref)
    return out


def _module_templates(path: str, text: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The templates of one test module, and the files its tests pass."""
    tree = ast.parse(text)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[tuple[str, dict[str, Any], str]] = []
    strings: dict[str, str] = {}
    local: dict[ast.AST | None, dict[str, str]] = {}
    found_in: list[ast.AST | None] = []
    for node in ast.walk(tree):
        name = _target_name(parents.get(node))
        if name and isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.setdefault(name, node.value)
        doc = _as_template(node)
        if doc is None:
            continue
        # a dict nested in a bigger template literal is part of it, not its own
        if any(_as_template(p) is not None for p in _ancestors(node, parents)):
            continue
        name = name or f"line{getattr(node, 'lineno', 0)}"
        source = _substituted(node.value) if isinstance(node, ast.Constant) else yaml.safe_dump(doc)
        found.append((name, doc, source))
        found_in.append(_function_of(node, parents))
        strings.setdefault(name, source)
        local.setdefault(found_in[-1], {})[name] = source
    files: dict[str, str] = {}
    #: a test function's own files map, for the templates defined in that function
    own_files: dict[ast.AST | None, dict[str, str]] = {}
    placeholders: dict[str, str] = {}
    for node in ast.walk(tree):
        parent = parents.get(node)
        given_as = parent.arg if isinstance(parent, ast.keyword) else _target_name(parent)
        if isinstance(node, ast.Dict) and str(given_as).endswith("parameters"):
            for key, item in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and item is not None:
                    given = _test_value(str(key.value), item)
                    if given is not None:
                        PASSED.setdefault(path, {}).setdefault(str(key.value), given)
        # files={...} given to a call, or files = {...} built first (the tests do both)
        value = None
        if isinstance(node, ast.keyword) and node.arg == "files":
            value = node.value
        elif isinstance(node, ast.Assign) and _target_name(node) == "files":
            value = node.value
        if isinstance(value, ast.Dict):
            function = _function_of(node, parents)
            mine = local.get(function, {})
            for key, item in zip(value.keys, value.values, strict=True):
                text_of = _string_of(item, strings, mine) if item is not None else None
                if isinstance(key, ast.Constant) and text_of is not None:
                    files.setdefault(str(key.value), text_of)
                    if function is not None:
                        own_files.setdefault(function, {})[str(key.value)] = text_of
        # environment={'resource_registry': {TYPE: 'file.yaml' or self.x}}: the test's mappings
        if isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "resource_registry":
                    if isinstance(item, ast.Dict):
                        for rtype, target in zip(item.keys, item.values, strict=True):
                            text_of = _string_of(target, strings) if target is not None else None
                            if isinstance(rtype, ast.Constant) and text_of is not None:
                                REGISTRY.setdefault(path, {})[str(rtype.value)] = text_of
        # template.replace('$NETWORKS', '...'): the first substitution a test makes
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "replace"
            and len(node.args) == 2
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
            and str(node.args[0].value).startswith("$")
        ):
            receiver = node.func.value
            owner = (
                receiver.attr
                if isinstance(receiver, ast.Attribute)
                else getattr(receiver, "id", "")
            )
            placeholders.setdefault(f"{owner}|{node.args[0].value}", str(node.args[1].value))
    out = []
    for (name, doc, source), function in zip(found, found_in, strict=True):
        for owned, value in placeholders.items():
            owner, _, key = owned.partition("|")
            if owner == name and key in source:
                source = source.replace(key, value)
                doc = yaml.safe_load(source)
        out.append(
            {
                "name": f"{path.removeprefix(TESTS)}:{name}",
                "doc": doc,
                "text": source,
                "files": {**files, **own_files.get(function, {})},
            }
        )
    return out, files


def _function_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST | None:
    """The test function *node* sits in (None at module or class level)."""
    for above in _ancestors(node, parents):
        if isinstance(above, ast.FunctionDef | ast.AsyncFunctionDef):
            return above
    return None


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.AST]:
    out = []
    while node in parents:
        node = parents[node]
        out.append(node)
    return out


def extract(source: Path) -> list[dict[str, Any]]:
    """Every template of heat-tempest-plugin at SOURCE, in path order.

    A scenario template is served its sibling files (nested templates, the key
    file), as heatclient's ``get_template_contents`` reads them next to it.
    """
    out: list[dict[str, Any]] = []
    tree = _read_tree(source)
    siblings = {
        path.removeprefix(SCENARIO_TEMPLATES): text
        for path, text in tree.items()
        if path.startswith(SCENARIO_TEMPLATES)
    }
    for path, text in tree.items():
        if path.startswith(TESTS + "scenario/") and path.endswith(".py"):
            for key, value in _module_templates(path, text)[1].items():
                siblings.setdefault(key, value)
    for path, text in tree.items():
        if path.endswith(".py"):
            items = _module_templates(path, text)[0]
            for item in items:
                item["parameters"] = PASSED.get(path, {})
            out.extend(items)
        elif path.startswith(SCENARIO_TEMPLATES):
            try:
                doc = yaml.safe_load(text)
            except yaml.YAMLError:
                continue
            versions = ("heat_template_version", "HeatTemplateFormatVersion")
            if isinstance(doc, dict) and any(v in doc for v in versions):
                name = path.removeprefix(TESTS)
                base = path.rsplit("/", 1)[-1]
                scenario = {
                    k: v
                    for p, given in sorted(PASSED.items())
                    if "/scenario/" in p and base in tree[p]
                    for k, v in given.items()
                }
                # a nested template gets what the tests pass its parent (the same names)
                for p, given in sorted(PASSED.items()):
                    if "/scenario/" in p:
                        for k, v in given.items():
                            scenario.setdefault(k, v)
                # the environment a test passes with it: its mappings of types the template names
                registry = {
                    rtype: target
                    for p, mapping in sorted(REGISTRY.items())
                    if "/scenario/" in p
                    for rtype, target in mapping.items()
                    if rtype in text
                }
                out.append(
                    {
                        "name": name,
                        "doc": doc,
                        "text": text,
                        "files": siblings,
                        "parameters": scenario,
                        "registry": registry,
                    }
                )
    return out


def heat_type_modules(package: Path) -> dict[str, Path]:
    """``{type: module file}`` for the types Heat's in-tree modules register (read as text)."""
    mapping: dict[str, Path] = {}
    base = package / "engine" / "resources"
    for path in sorted(base.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tail = text.partition("def resource_mapping")[2]
        for type_name in re.findall(r"['\"]((?:OS|AWS)::[A-Za-z0-9:]+)['\"]\s*:", tail):
            mapping.setdefault(type_name, path)
    return mapping


def _types(doc: dict[str, Any]) -> list[str]:
    """The resource types *doc* names (HOT's ``resources``/``type`` or CFN's ``Resources``/``Type``)."""
    resources = doc.get("resources") or doc.get("Resources") or {}
    types = []
    for body in resources.values() if isinstance(resources, dict) else []:
        kind = body.get("type", body.get("Type")) if isinstance(body, dict) else None
        if isinstance(kind, str):
            types.append(kind)
    return types


def _hot_parameters(doc: dict[str, Any]) -> dict[str, Any]:
    """*doc*, with a CloudFormation-format ``Parameters`` section read as HOT's ``parameters``."""
    cfn = doc.get("Parameters")
    if not isinstance(cfn, dict):
        return doc
    params = {}
    for name, schema in cfn.items():
        if not isinstance(schema, dict):
            continue
        hot: dict[str, Any] = {"type": str(schema.get("Type", "String")).lower()}
        if "Default" in schema:
            hot["default"] = schema["Default"]
        if schema.get("AllowedValues"):
            hot["constraints"] = [{"allowed_values": schema["AllowedValues"]}]
        params[name] = hot
    return {**doc, "parameters": params}


def _backup_source(
    item: dict[str, Any], doc: dict[str, Any], params: dict[str, Any]
) -> tuple[str, str] | None:
    """For a scenario template taking a ``backup_id`` the test makes first: the sibling
    template (name, text) whose volume has the ``Snapshot`` deletion policy."""
    declared = doc.get("parameters") or {}
    if "backup_id" not in declared or not item["name"].startswith("scenario/"):
        return None
    for name, text in sorted(item["files"].items()):
        if not name.endswith(".yaml") or "deletion_policy" not in text:
            continue
        try:
            sibling = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        resources = (sibling or {}).get("resources") if isinstance(sibling, dict) else None
        for body in (resources or {}).values():
            if (
                isinstance(body, dict)
                and body.get("type") == "OS::Cinder::Volume"
                and body.get("deletion_policy") == "Snapshot"
            ):
                return name, text
    return None


def run_one(item: dict[str, Any], workdir: Path, heat_modules: dict[str, Path]) -> dict[str, Any]:
    """Create then delete one template in a fresh world; the record of what happened."""
    from simulator.heat_compat import use_heat_plugins
    from simulator.world import World

    record: dict[str, Any] = {"template": item["name"], "ok": False}
    doc = item["doc"]
    values = {
        "image": hot_corpus.IMAGE,
        "flavor": hot_corpus.FLAVOR,
        "key": hot_corpus.KEYPAIR,
        "net": "private",
        "public": "public",
        "subnet": "private-subnet",
        "server": hot_corpus.SERVER_ID,
    }
    params = hot_corpus._parameters(_hot_parameters(doc), values)
    declared = _hot_parameters(doc).get("parameters") or {}
    params.update({k: v for k, v in item.get("parameters", {}).items() if k in declared})
    here = workdir / re.sub(r"[^A-Za-z0-9_.-]", "_", item["name"])
    here.mkdir(parents=True, exist_ok=True)
    template = here / "template.yaml"
    template.write_text(item["text"], encoding="utf-8")
    files = {}
    for name, text in item["files"].items():
        files[name] = text
        if "/" not in name:
            (here / name).write_text(text, encoding="utf-8")
        # heatclient turns get_file: /x into the key file:///x of the files it sends
        files.setdefault(name.removeprefix("file://"), text)
    world_data = hot_corpus.world_for(doc, hot_corpus.WORLD)
    world_path = here / "world.yaml"
    world_path.write_text(yaml.safe_dump(world_data), encoding="utf-8")
    world = World(world_file=str(world_path), seed=1)
    try:
        modules = sorted({str(heat_modules[t]) for t in _types(doc) if t in heat_modules})
        if modules:
            report = use_heat_plugins(world, *modules)
            if report.errors:
                record["note"] = f"Heat module not loaded: {report.errors[0]}"[:200]
        envs = []
        env_text = (
            item["files"].get(BOOT_CONFIG_ENV) if item["name"].startswith("scenario/") else None
        )
        if env_text is not None:
            (here / BOOT_CONFIG_ENV).write_text(env_text, encoding="utf-8")
            envs.append(str(here / BOOT_CONFIG_ENV))
        if item.get("registry"):
            own_env = here / "test_environment.yaml"
            own_env.write_text(
                yaml.safe_dump({"resource_registry": item["registry"]}), encoding="utf-8"
            )
            envs.append(str(own_env))
        params = _resolve_ids(world, params)
        backup = _backup_source(item, doc, params)
        if backup is not None:
            # the test's first stack: a volume whose Snapshot deletion policy leaves the
            # backup this template is given (test_volumes' check_stack does the same)
            source, text = backup
            (here / "backup_source.yaml").write_text(text, encoding="utf-8")
            first = hot_corpus._parameters(yaml.safe_load(text), values)
            first.update({k: v for k, v in params.items() if k in first})
            hot_corpus._with_alarm(
                120,
                lambda: world.create_stack(
                    "tempest-first", str(here / "backup_source.yaml"), envs, first, files=files
                ),
            )
            hot_corpus._with_alarm(60, lambda: world.delete_stack("tempest-first"))
            made = world.client_plugin("block_storage").client().backups.list()
            if made:
                params["backup_id"] = made[-1].id
        stack = hot_corpus._with_alarm(
            120, lambda: world.create_stack("tempest", str(template), envs, params, files=files)
        )
        record["create"] = f"{stack.action}_{stack.status}"
        if record["create"] != "CREATE_COMPLETE":
            record["error"] = f"create: {stack.status_reason}"
            return record
        stack = hot_corpus._with_alarm(60, lambda: world.delete_stack("tempest"))
        record["delete"] = f"{stack.action}_{stack.status}"
        if record["delete"] != "DELETE_COMPLETE":
            record["error"] = f"delete: {stack.status_reason}"
            return record
        record["ok"] = True
    except Exception as ex:  # noqa: BLE001 - a measurement records every failure
        record["error"] = f"{type(ex).__name__}: {ex}".splitlines()[0]
    finally:
        world.close()
    if "error" in record:
        record["error"] = record["error"][:300]
    return record


def run(
    source: Path, heat_plugins: str | None = None, only: str | None = None
) -> list[dict[str, Any]]:
    """Extract and run every template; one record each.

    *heat_plugins*: ``"all"`` runs Heat's plug-in for every type it has, ``"missing"`` only
    for the types plugsim does not bundle (plugsim's own types otherwise).
    """
    heat_modules: dict[str, Path] = {}
    if heat_plugins:
        from simulator.heat_compat import find_heat_package

        package = find_heat_package()
        if package is None:
            raise SystemExit("--heat-plugins needs $PLUGSIM_HEAT_PYTHON (a Heat virtualenv)")
        heat_modules = heat_type_modules(package)
        if heat_plugins == "missing":
            from simulator.world import World

            probe = World()
            bundled = set(probe.registry.plugins())
            probe.close()
            heat_modules = {t: p for t, p in heat_modules.items() if t not in bundled}
    records = []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="tempest-templates-") as tmp:
        for item in extract(source):
            if only and only not in item["name"]:
                continue
            try:
                records.append(run_one(item, Path(tmp), heat_modules))
            finally:
                os.chdir(cwd)
    return records


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument(
        "--heat-plugins",
        nargs="?",
        const="all",
        choices=["all", "missing"],
        help="run Heat 27's own plug-ins: for every type (all, the default) or only for the "
        "types plugsim does not bundle (missing)",
    )
    parser.add_argument("--json", type=Path, help="also write the records as JSON here")
    parser.add_argument("--only", help="only templates whose name contains this text")
    args = parser.parse_args(argv)
    records = run(args.source, args.heat_plugins, args.only)
    for r in records:
        mark = "ok  " if r["ok"] else "FAIL"
        print(f"{mark} {r['template']}" + (f"  -- {r['error']}" if r.get("error") else ""))
    good = sum(r["ok"] for r in records)
    label = {
        None: "",
        "all": "with Heat's plug-ins, ",
        "missing": "with Heat's plug-ins for the types plugsim lacks, ",
    }[args.heat_plugins]
    print(f"\n{good}/{len(records)} templates {label}simulate create -> delete")
    if args.json:
        args.json.write_text(json.dumps(records, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
