"""One HTML page per failing plugsim test (``--plugsim-report DIR``).

Each world the test opened becomes a page: the seed, the replay line, the timeline, the events, the
injected faults and the fake-cloud entities still alive that the test created (its leaks). The page is
:func:`simulator.views.page.render_page`'s; this module only gathers what a test's worlds recorded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from simulator.views.page import RunPage, render_page


def page_name(nodeid: str, when: str, index: int) -> str:
    """A file name for a test id: safe characters only, unique per phase and world."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150]
    suffix = "" if when == "call" else f".{when}"
    world = "" if index == 0 else f".world{index}"
    return f"{stem}{suffix}{world}.html"


def write_failure_pages(
    directory: str, nodeid: str, when: str, env: Any, summary: str, verdict: Any = None
) -> list[str]:
    """Write a page for every world *env* opened; return the paths written.

    *verdict* (a :class:`sdk.testing.verdict.Verdict`) adds its fields to each page's summary.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    replay = next((line[8:] for line in summary.splitlines() if line.startswith("replay: ")), "")
    for index, world in enumerate(env.worlds):
        if world.closed:
            continue
        page = RunPage(
            title=f"{nodeid} (world {index})" if index else nodeid,
            ok=False,
            seed=world.seed,
            replay=replay,
            summary=[("Test phase", when), *_verdict_rows(verdict)],
            events=world.store.events(),
            faults=[f.to_dict() for f in world.cloud.injected_faults()],
            leaks=[item.to_dict() for item in world.cloud.leaks(world.baseline)],
        )
        path = out / page_name(nodeid, when, index)
        path.write_text(render_page(page), encoding="utf-8")
        written.append(str(path))
    return written


def _verdict_rows(verdict: Any) -> list[tuple[str, str]]:
    """The fields of a verdict as summary rows (none without one)."""
    if verdict is None:
        return []
    rows = [
        ("Verdict", f"{verdict.check}: {verdict.summary}"),
        ("Path", verdict.path + (f", action {verdict.action}" if verdict.action else "")),
        ("Handler", verdict.handler),
        ("Injected fault", verdict.fault or "none"),
        ("Virtual time", f"{verdict.time:g} s" if verdict.time is not None else ""),
        ("Resource status", verdict.resource_status),
        ("Cloud entity", verdict.entity_status),
        *(("Detail", line.strip()) for line in verdict.details),
        ("Hint", verdict.hint),
    ]
    return [(label, value) for label, value in rows if value]
