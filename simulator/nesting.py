"""Template resources checked before anything runs: no cycles, no deeper than the limit.

A template resource (a YAML file used as a resource type, directly or through
the environment's registry, or as the member type of a ResourceGroup or
AutoScalingGroup) is a nested stack. :func:`check_nesting` follows those
files from a stack's template without creating anything and refuses

* a **cycle** (a template that contains itself, directly or through others):
  it would nest without end;
* a chain **deeper than** ``max_nested_stack_depth``.

Each error names the file and the path of the resource that closes the cycle
or crosses the limit, and the whole chain. Only literal type names are
followed; a member type computed by a function is caught when the nested
stacks are created (:func:`simulator.limits.check_nested_depth`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.limits import exceeded

#: Resource types whose members are nested stacks: where their member type is.
MEMBER_TYPE_PATHS: dict[str, tuple[str, ...]] = {
    "OS::Heat::ResourceGroup": ("properties", "resource_def", "type"),
    "OS::Heat::AutoScalingGroup": ("properties", "resource", "type"),
}


@dataclass(frozen=True)
class _Node:
    key: str
    name: str
    source: str | None
    raw: dict[str, Any]
    base_dir: str | None


def _literal(body: dict[str, Any], keys: tuple[str, ...]) -> Any:
    value: Any = body
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _type_refs(raw: dict[str, Any]) -> list[tuple[str, str, list[Any]]]:
    """``(resource name, type name, path of the type)`` for every literal type of *raw*."""
    out = []
    resources = raw.get("resources")
    if not isinstance(resources, dict):
        return out
    for rname, body in resources.items():
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            continue
        out.append((rname, body["type"], ["resources", rname, "type"]))
        member = MEMBER_TYPE_PATHS.get(body["type"])
        if member is not None:
            mtype = _literal(body, member)
            if isinstance(mtype, str):
                out.append((rname, mtype, ["resources", rname, *member]))
    return out


class _Walker:
    def __init__(self, source: Any) -> None:
        self.source = source
        self.registry = source.environment.registry
        self.limit = source.limit_values().max_nested_stack_depth
        #: template key -> deepest level at which its subtree was found fine
        self.checked: dict[str, int] = {}

    @cached_property
    def root_dir(self) -> Path | None:
        """The stack's directory, resolved (names in messages are relative to it)."""
        return Path(self.source.base_dir).resolve() if self.source.base_dir else None

    def follows(self, rname: str, type_name: str) -> bool:
        """True when *type_name* (of resource *rname*) is a template resource (or a choice)."""
        return self.registry.resolve(type_name, rname).kind in ("template", "choices")

    def name(self, key: str) -> str:
        if self.root_dir is not None and os.path.isabs(key):
            rel = Path(key)
            if rel.is_relative_to(self.root_dir):
                return str(rel.relative_to(self.root_dir))
        return key

    def child(self, node: _Node, rname: str, type_name: str, path: list[Any]) -> _Node | None:
        if not self.follows(rname, type_name):
            return None
        try:
            found = self.registry.get_class(type_name, rname, {}, base_dir=node.base_dir)
        except exception.StackValidationFailed as ex:
            raise exception.StackValidationFailed(
                ex.error_message or str(ex), source=node.source, path=path
            ) from None
        except exception.PlugsimError:
            return None  # validation proper reports an unusable choice
        key = str(getattr(found, "path", found))
        raw, base = self.read(key, node.base_dir)
        return _Node(key, self.name(key), key, raw, base)

    def read(self, key: str, base_dir: str | None) -> tuple[dict[str, Any], str | None]:
        """The template file *key* (files map first) and the directory it resolves from."""
        from simulator.template.files import read_text
        from simulator.template.text import parse_text

        limits = self.source.limit_values()
        if key in self.source.files:
            text = self.source.files[key]
            base = str(Path(key).parent) if Path(key).is_absolute() else base_dir
        else:
            target = Path(base_dir or ".") / key
            text = read_text(target, f"The template resource {key}", limits=limits, source=None)
            base = str(target.resolve().parent)
        raw = parse_text(text, key, "template", limits=limits)
        if not isinstance(raw, dict):
            raise exception.StackValidationFailed(
                "The template resource's template must be a map of sections", source=key
            )
        return raw, base

    def walk(self, node: _Node, chain: list[tuple[_Node, str]]) -> None:
        depth = len(chain)
        if self.checked.get(node.key, -1) >= depth:
            return
        for rname, type_name, path in _type_refs(node.raw):
            child = self.child(node, rname, type_name, path)
            if child is None:
                continue
            here = [*chain, (node, rname)]
            keys = [n.key for n, _ in here]
            if child.key in keys:
                loop = here[keys.index(child.key) :]
                shown = " -> ".join(f"{n.name} (resources.{r})" for n, r in loop)
                raise exception.StackValidationFailed(
                    f"template resources form a cycle: {shown} -> {child.name}; a template "
                    "cannot contain itself",
                    source=node.source,
                    path=path,
                )
            if depth + 1 > self.limit:
                names = " -> ".join([*(n.name for n, _ in here), child.name])
                raise exceeded(
                    f"template resources nest {depth + 1} levels deep ({names})",
                    "max_nested_stack_depth",
                    self.limit,
                    source=node.source,
                    path=path,
                )
            self.walk(child, here)
        self.checked[node.key] = depth


def check_nesting(source: Any) -> None:
    """Refuse template-resource cycles and chains deeper than the limit in *source*."""
    if not isinstance(source.template, dict):
        return
    walker = _Walker(source)
    if not any(walker.follows(rname, tname) for rname, tname, _ in _type_refs(source.template)):
        return  # no template resource to follow (most nested stacks): nothing can nest deeper
    name = source.template_name
    root = _Node(
        key=str(Path(name).resolve()) if name and source.base_dir else (name or "<template>"),
        name=Path(name).name if name else "<template>",
        source=name,
        raw=source.template,
        base_dir=source.base_dir,
    )
    walker.walk(root, [])
