"""Print the dependency graph OpenStack Heat's engine builds for each template, as JSON.

Run with the python of the virtualenv where ``openstack-heat`` is installed::

    /work/heatvenv/bin/python tools/heat_diff/heat_graph.py a.yaml b.yaml

The answer maps each template path to ``{resource: [names it requires]}`` (explicit and implicit
requirements, sorted), or to ``{"error": "<exception class>: <message>"}`` when Heat cannot order the graph (a cycle
that only the implicit requirements close, say). Nothing else of the stack is validated: that
would need the clouds' services.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import heat_runner  # noqa: E402 - the runner's set-up of Heat, next to this file


def graph_of(path: str) -> dict:
    """Heat's graph of the template at *path*, or its validation error."""
    from heat.common import template_format

    template = template_format.parse(Path(path).read_text())
    stack = heat_runner._build(template, {}, "graph", True)
    try:
        list(stack.dependencies)  # ordering the graph raises on a cycle, as validation does
    except Exception as ex:  # noqa: BLE001 - reported, as the engine would
        return {"error": f"{type(ex).__name__}: {ex}"}
    graph = stack.dependencies.graph()
    return {res.name: sorted(dep.name for dep in graph[res]) for res in stack.values()}


def main() -> None:
    """Answer for every template named on the command line."""
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # Heat's chatter must not reach the JSON answer
    try:
        with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
            heat_runner._setup_heat()
            answer = {path: graph_of(path) for path in sys.argv[1:]}
    finally:
        sys.stdout = real_stdout
    json.dump(answer, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
