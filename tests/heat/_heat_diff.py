"""Differential harness: the same cases in OpenStack Heat (subprocess) and in plugsim.

Heat runs in its own virtualenv through ``tools/heat_diff/heat_runner.py``
(``$PLUGSIM_HEAT_PYTHON`` or ``/tmp/heatvenv/bin/python``); plugsim runs
in-process with Heat's clientless plug-ins loaded through the compat layer.
Both sides produce the same shape: per step the validation error (kind,
path) or the state, outputs and (resource, action, status) events.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from sdk import exception
from simulator.heat_compat import (
    HEAT_PYTHON_ENV,
    clientless_plugins,
    find_heat_package,
    heat_python,
    use_heat_plugins,
)
from simulator.store import Store
from simulator.world import World

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tools" / "heat_diff" / "heat_runner.py"
CORPUS = Path(__file__).resolve().parent / "corpus"

HEAT_MISSING = (
    f"openstack-heat is not installed: set {HEAT_PYTHON_ENV} to the python of a virtualenv "
    "with `pip install openstack-heat fixtures testtools` (plugsim[heat])"
)


def heat_available() -> bool:
    """True when a Heat virtualenv with the package is present."""
    return heat_python() is not None and find_heat_package() is not None


#: Marks a test that needs the Heat virtualenv (skipped with the reason otherwise).
requires_heat = pytest.mark.skipif(not heat_available(), reason=HEAT_MISSING)


def corpus_cases() -> list[dict[str, Any]]:
    """The HOT corpus as create-only cases, in file order."""
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        step = {"op": "create", "template": doc["template"]}
        if doc.get("parameters"):
            step["parameters"] = doc["parameters"]
        if doc.get("files"):
            step["files"] = doc["files"]
        cases.append({"name": path.stem, "stack_name": f"c{path.stem[:3]}", "steps": [step]})
    return cases


def heat_graphs(fixtures: list[Path]) -> dict[str, Any]:
    """``{path: {resource: sorted requirements}}``: the graph Heat's engine builds for each
    template (``tools/heat_diff/heat_graph.py`` in the Heat venv)."""
    proc = subprocess.run(
        [heat_python(), str(ROOT / "tools" / "heat_diff" / "heat_graph.py"), *map(str, fixtures)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(proc.stdout)


def run_heat(cases: list[dict[str, Any]], timeout: float = 600) -> dict[str, Any]:
    """Run *cases* in real Heat; return ``{case name: result}``."""
    python = heat_python()
    if python is None:
        raise RuntimeError("no Heat virtualenv")
    proc = subprocess.run(
        [python, str(RUNNER)],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"heat_runner failed ({proc.returncode}): {proc.stderr[-2000:]}")
    answer = json.loads(proc.stdout)
    return {r["name"]: r for r in answer["results"]}


def _error(ex: BaseException) -> dict[str, Any]:
    path = getattr(ex, "path", None)
    return {
        "kind": type(ex).__name__,
        "message": str(ex),
        "path": [str(p) for p in path] if isinstance(path, list | tuple) else path,
    }


def run_plugsim(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Run *cases* in plugsim with Heat's plug-ins through the compat layer."""
    plugins = clientless_plugins()
    results: dict[str, Any] = {}
    for case in cases:
        world = World(Store(":memory:"), seed=7)
        if plugins:
            # a case may name more of Heat's modules to run (``heat_plugins``: dotted names)
            report = use_heat_plugins(world, *plugins, *case.get("heat_plugins", ()))
            if report.errors:
                raise RuntimeError(f"{case['name']}: {report.errors[0]}")
        events: list[list[str]] = []
        world.listeners.append(
            lambda ev, events=events: (
                events.append([ev.resource_name, ev.action, ev.status])
                if not ev.is_stack_event
                else None
            )
        )
        steps = []
        name = case.get("stack_name", "s")
        for step in case["steps"]:
            events.clear()
            op = step["op"]
            out: dict[str, Any] = {"op": op}
            try:
                if op == "create":
                    stack = world.create_stack(
                        name,
                        step["template"],
                        parameters=step.get("parameters"),
                        files=step.get("files"),
                        disable_rollback=step.get("disable_rollback", True),
                    )
                elif op == "update":
                    stack = world.update_stack(
                        name,
                        step["template"],
                        parameters=step.get("parameters"),
                        files=step.get("files"),
                        disable_rollback=step.get("disable_rollback", True),
                    )
                else:
                    stack = getattr(world, f"{op}_stack")(name)
            except exception.PlugsimError as ex:
                out["validation_error"] = _error(ex)
                steps.append(out)
                break
            out["state"] = [stack.action, stack.status]
            out["reason"] = stack.status_reason
            if op in ("create", "update") and stack.status == "COMPLETE":
                outputs = {}
                for item in stack.outputs():
                    if "output_error" in item:
                        outputs[item["output_key"]] = {"error": {"message": item["output_error"]}}
                    else:
                        outputs[item["output_key"]] = {"value": item["output_value"]}
                out["outputs"] = dict(sorted(outputs.items()))
            out["events"] = list(events)
            steps.append(json.loads(json.dumps(out, default=str)))
        world.close()
        results[case["name"]] = {"name": case["name"], "steps": steps}
    return results


if __name__ == "__main__":  # debugging aid: print both sides of the corpus
    which = sys.argv[1:] or None
    cases = [c for c in corpus_cases() if which is None or c["name"] in which]
    print(json.dumps({"heat": run_heat(cases), "plugsim": run_plugsim(cases)}, indent=1))
