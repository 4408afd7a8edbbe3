"""Shrinking a template's failure to a smaller stack: the fewest resources that still fail the same way.

A failed lifecycle run ran a whole template. :func:`shrink_stack` cuts resources out of it (and out of
the ``--update-template``, keeping the same names in both) while the run of the same seed still fails
with the same signature. Delta debugging (:func:`~sdk.testing.campaign.shrink.ddmin`) over the
resource names proposes subsets; a subset's candidate stack is its :meth:`Stack.interior`, the
resources whose dependencies (:func:`references`: ``get_resource``, ``get_attr``, ``depends_on`` and
their CloudFormation spellings, in either template) are all in it, so cutting a resource cuts what
needs it and a kept resource always has what it needs; the outputs that name a cut resource go too.
The first candidate is what the failing resource needs (the resources of the signature's type with
their dependencies); ddmin goes on from there, or from the whole stack when that does not fail the
same way. The result is a stack from which no resource (with what needs it) can go, within a budget
of runs.

Each candidate runs first with the shrunk schedule (its faults and the drifts of kept resources).
Cutting resources moves the virtual instants and call numbers the faults were pinned to, so when that
does not fail the same way the candidate runs again with the campaign's own faults (and the adversary
drawing from the seed); a stack found that way has its faults and drifts shrunk again
(:func:`~sdk.testing.campaign.shrink.shrink`). The shrunk template is written as a file (relative
template-resource and ``get_file`` paths made absolute; the project's ``plugsim.yaml`` plug-in
directories passed as ``--plugin-dir``) so the report and the replay line can run it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from sdk.testing.campaign.adversary import schedule_of
from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.shrink import Shrunk, ddmin, shrink

#: Where a template keeps its resources, outputs and dependencies (HOT and CloudFormation).
RESOURCES = ("resources", "Resources")
OUTPUTS = ("outputs", "Outputs")
DEPENDS = ("depends_on", "DependsOn")
#: Functions whose argument names a resource: ``{fn: name}`` or ``{fn: [name, ...]}``.
NAMING = ("get_resource", "get_attr", "Ref", "Fn::GetAtt")


def references(node: Any, names: Iterable[str]) -> set[str]:
    """The resources of *names* that *node* (a piece of template) refers to."""
    known = set(names)
    found: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, Mapping):
            for key, value in item.items():
                if key in NAMING:
                    head = value[0] if isinstance(value, list) and value else value
                    if isinstance(head, str) and head.split(".")[0] in known:
                        found.add(head.split(".")[0])
                if key in DEPENDS:
                    found.update(v for v in _strings(value) if v in known)
                todo.append(value)
        elif isinstance(item, list):
            todo.extend(item)
    return found


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _section(data: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str | None, dict[str, Any]]:
    for key in keys:
        if isinstance(data.get(key), Mapping):
            return key, dict(data[key])
    return None, {}


class Stack:
    """A template (and its update template) that can be cut to a set of resource names."""

    def __init__(self, template: str, update: str | None) -> None:
        from simulator.template.text import parse_text

        self.paths = [p for p in (template, update) if p is not None]
        self.data = [
            parse_text(Path(p).read_text(encoding="utf-8"), p, "template") for p in self.paths
        ]
        self.names = sorted({n for data in self.data for n in _section(data, RESOURCES)[1]})
        self.needs: dict[str, set[str]] = {name: set() for name in self.names}
        self.types: dict[str, str] = {}
        for data in self.data:
            resources = _section(data, RESOURCES)[1]
            for name, body in resources.items():
                self.needs[name] |= references(body, resources) - {name}
                kind = body.get("type", body.get("Type")) if isinstance(body, Mapping) else None
                self.types.setdefault(name, str(kind))

    def interior(self, names: Iterable[str]) -> frozenset[str]:
        """The resources of *names* whose dependencies (all of them, in either template) are in
        *names* too: what is left of a stack when the others go, with whatever needs them."""
        chosen = set(names)
        return frozenset(n for n in chosen if self.closure([n]) <= chosen)

    def closure(self, names: Iterable[str]) -> frozenset[str]:
        """*names* with everything they depend on, in either template."""
        kept = set(names)
        todo = list(kept)
        while todo:
            for need in self.needs.get(todo.pop(), ()):
                if need not in kept:
                    kept.add(need)
                    todo.append(need)
        return frozenset(kept)

    def cut(self, kept: frozenset[str], directory: Path, stem: str) -> list[str]:
        """Write the templates with only *kept* resources into *directory*; their paths."""
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for index, (path, data) in enumerate(zip(self.paths, self.data, strict=True)):
            out = dict(data)
            key, resources = _section(data, RESOURCES)
            if key is not None:
                out[key] = {n: body for n, body in resources.items() if n in kept}
                okey, outputs = _section(data, OUTPUTS)
                if okey is not None:
                    names = list(resources)
                    out[okey] = {
                        n: body for n, body in outputs.items() if references(body, names) <= kept
                    }
            target = directory / f"{stem}{'.update' if index else ''}.yaml"
            text = yaml.safe_dump(_absolute(out, Path(path).resolve().parent), sort_keys=False)
            target.write_text(text, encoding="utf-8")
            written.append(str(target))
        return written


def _absolute(node: Any, base: Path) -> Any:
    """*node* with relative template-resource types and ``get_file`` paths made absolute."""
    if isinstance(node, Mapping):
        out = {}
        for key, value in node.items():
            relative = (
                isinstance(value, str)
                and key in ("type", "Type", "get_file")
                and value.endswith((".yaml", ".yml", ".template", ".json"))
                and "://" not in value
                and not Path(value).is_absolute()
            )
            if relative and (base / value).exists():
                out[key] = str((base / value).resolve())
            else:
                out[key] = _absolute(value, base)
        return out
    if isinstance(node, list):
        return [_absolute(v, base) for v in node]
    return node


def _project_dirs(template: str) -> tuple[str, ...]:
    """The plug-in directories the ``plugsim.yaml`` next to *template* names (absolute)."""
    from simulator.project_config import read_config

    return tuple(read_config(Path(template).resolve().parent).get("plugin_dirs", ()))


def shrink_stack(spec: Any, shrunk: Shrunk, directory: Path, stem: str, budget: int) -> Shrunk:
    """Cut *spec*'s stack to the fewest resources whose run of *shrunk*'s seed still fails with its
    signature (see the module docstring); *shrunk* itself when nothing can go."""
    stack = Stack(spec.template, spec.update_template)
    whole = frozenset(stack.names)
    if len(whole) < 2:
        return shrunk
    dirs = tuple(dict.fromkeys([*spec.plugin_dirs, *_project_dirs(spec.template)]))
    tried: dict[frozenset[str], tuple[bool, Any, RunResult, bool]] = {}
    drifted = getattr(spec, "adversary", False)

    def attempt(names: list[str]) -> bool:
        kept = stack.interior(names)
        if not kept or kept == whole:
            return bool(kept)
        if kept not in tried:
            paths = stack.cut(kept, scratch, f"{stem}-{len(tried)}")
            cut = replace(
                spec,
                template=paths[0],
                update_template=paths[1] if len(paths) > 1 else None,
                plugin_dirs=dirs,
            )
            drifts = schedule_of(_kept_drifts(shrunk.drifts, kept))
            pinned = (
                cut.run(shrunk.seed, faults=shrunk.rules, drifts=drifts)
                if drifted
                else cut.run(shrunk.seed, faults=shrunk.rules)
            )
            if pinned.sig == shrunk.signature:
                tried[kept] = (True, cut, pinned, False)
            else:
                again = cut.run(shrunk.seed)  # the campaign's faults, the seed's own drifts
                tried[kept] = (again.sig == shrunk.signature, cut, again, True)
        return tried[kept][0]

    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        # first what the failing resource needs (its type is the signature's), then whatever else
        roots = [n for n in stack.names if stack.types.get(n) == shrunk.signature.resource_type]
        start = sorted(stack.closure(roots))
        if not roots or len(start) == len(whole) or not attempt(start):
            start = stack.names
        names, _ = ddmin(start, attempt, budget)
    kept = stack.interior(names)
    if kept == whole or kept not in tried:
        return shrunk
    _, cut, result, fresh = tried[kept]
    paths = stack.cut(kept, directory, stem)
    final = replace(cut, template=paths[0], update_template=paths[1] if len(paths) > 1 else None)
    if fresh:  # found under the campaign's faults: shrink its own faults and drifts again
        smaller = shrink(final, result, budget=budget)
        smaller.runs += len(tried)
    else:
        smaller = replace(
            shrunk,
            result=result,
            drifts=_kept_drifts(shrunk.drifts, kept),
            runs=shrunk.runs + len(tried),
        )
    return replace(
        smaller,
        spec=final,
        resources=list(stack.names),
        kept=sorted(kept),
        original=shrunk.original,
    )


def _kept_drifts(drifts: Iterable[Mapping[str, Any]], kept: frozenset[str]) -> list[dict[str, Any]]:
    """The drifts of *kept* resources; a credential rotation (the whole cloud's, whatever resource
    it was drawn for) moves to the first kept resource instead of going."""
    out = []
    for drift in drifts:
        if drift["resource"] in kept:
            out.append(dict(drift))
        elif drift["drift"] == "rotate" and kept:
            out.append({**drift, "resource": min(kept)})
    return out


def cuttable(spec: Any) -> bool:
    """True for a campaign over a template's lifecycle (not plug-in paths, sequences or upgrades)."""
    from sdk.testing.campaign.runs import RunSpec
    from sdk.testing.campaign.upgrade_mode import UpgradeSpec

    return isinstance(spec, RunSpec) and not isinstance(spec, UpgradeSpec)


def make_smaller(
    spec: Any, failed: RunResult, out: Path | None, number: int, budget: int
) -> tuple[Shrunk, str, str]:
    """Shrink *failed* every way its spec allows: faults and drifts, then the stack, writing the
    shrunk fault profile, drift schedule and template into ``OUT/shrunk/`` as ``finding-NUMBER.*``.

    Returns the :class:`Shrunk` run, the profile's path and the replay line ("" without *out*).
    """
    from sdk.testing.campaign.schedule import write_drifts

    shrunk = shrink(spec, failed, budget=budget)
    stem = f"finding-{number}"
    if cuttable(spec):
        if out is not None:
            shrunk = shrink_stack(spec, shrunk, out / "shrunk", f"{stem}.template", budget)
        else:
            with tempfile.TemporaryDirectory() as scratch:
                shrunk = shrink_stack(spec, shrunk, Path(scratch), f"{stem}.template", budget)
            if shrunk.kept:
                shrunk.notes.append("the shrunk stack is written with --out")
    if out is None:
        return shrunk, "", ""
    folder = out / "shrunk"
    folder.mkdir(parents=True, exist_ok=True)
    profile = folder / f"{stem}.yaml"
    profile.write_text(yaml.safe_dump({"rules": shrunk.rules}, sort_keys=False), encoding="utf-8")
    ran = shrunk.spec if shrunk.spec is not None else spec
    if getattr(ran, "adversary", False):
        drifts = folder / f"{stem}.drifts.yaml"
        write_drifts(drifts, shrunk.drifts)
        return (
            shrunk,
            str(profile),
            ran.replay(failed.seed, faults=str(profile), drifts=str(drifts)),
        )
    return shrunk, str(profile), ran.replay(failed.seed, faults=str(profile))


def shrunk_lines(shrunk: Shrunk) -> list[str]:
    """What a report says of a shrunk run beyond its faults: its drifts and its stack."""
    lines = []
    original = shrunk.original or shrunk.result
    if original.drifts:
        lines.append(f"shrunk: {len(shrunk.drifts)} drift(s) (from {len(original.drifts)})")
        lines += [f"  {d['drift']} of {d['resource']} ({d['after']})" for d in shrunk.drifts]
    if shrunk.kept:
        lines.append(
            f"shrunk stack: {len(shrunk.kept)} of {len(shrunk.resources)} resources "
            f"({', '.join(shrunk.kept)}): {shrunk.spec.template}"
        )
    return lines
