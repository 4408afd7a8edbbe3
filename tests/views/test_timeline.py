"""Timelines read from event logs: rows by stack path, spans, faults on their rows, critical paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.events import STACK_TYPE, Event
from simulator.simulate import simulate
from simulator.views.timeline import build_timeline, stack_paths

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"


class Log:
    """Builds an event log by hand: ``start``/``end`` a resource action, ``stack`` events."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, stack, name, rtype, action, status, time, pid=None, reason="state changed"):
        self.events.append(
            Event(
                len(self.events) + 1, stack, stack, name, rtype, pid, action, status, reason, time
            )
        )

    def stack(self, stack, action, status, time):
        self.add(stack, stack, STACK_TYPE, action, status, time, pid=stack)

    def span(self, name, action, start, end, status="COMPLETE", stack="top", pid=None):
        self.add(stack, name, "T", action, "IN_PROGRESS", start, pid)
        self.add(stack, name, "T", action, status, end, pid)


@pytest.fixture(scope="module")
def three_tier():
    return simulate(str(EXAMPLE / "stack.yaml"), [str(EXAMPLE / "env.yaml")], seed=0)


def test_rows_put_a_nested_stack_under_the_resource_that_owns_it(three_tier):
    timeline = build_timeline(three_tier.events, three_tier.faults)
    rows = timeline.rows()
    assert rows.index("web1/server") == rows.index("web1") + 1
    assert {r for r in rows if r.startswith("web2/")} == {"web2/server", "web2/data"}
    assert set(rows) >= {"net", "db_volume", "db", "web1", "web2"}
    nested = next(s for s in timeline.spans if s.row == "web1/server")
    assert nested.depth == 1 and nested.resource == "server"


def test_each_action_is_one_span_from_in_progress_to_its_end(three_tier):
    timeline = build_timeline(three_tier.events)
    db = [s for s in timeline.spans if s.row == "db"]
    assert [s.action for s in db] == ["CREATE", "SUSPEND", "RESUME", "SNAPSHOT", "DELETE"]
    assert all(s.status == "COMPLETE" and s.end >= s.start for s in db)
    ends = {e.time for e in three_tier.events if e.resource_name == "db" and e.status == "COMPLETE"}
    assert {s.end for s in db} == ends


def test_the_readme_example_waits_on_the_volume_then_the_database(three_tier):
    timeline = build_timeline(three_tier.events, dependencies=three_tier.dependencies)
    create = dict(timeline.paths)["CREATE"]
    assert [s.row for s in create] == ["db_volume", "db"]
    assert create[0].end == create[1].start  # db started the instant its volume was ready
    assert create[-1].end == max(s.end for s in timeline.spans if s.action == "CREATE")
    # Read from the events alone, the answer is the same.
    alone = dict(build_timeline(three_tier.events).paths)["CREATE"]
    assert [s.row for s in alone] == ["db_volume", "db"]


def test_the_critical_path_goes_into_a_nested_stack():
    log = Log()
    log.stack("top", "CREATE", "IN_PROGRESS", 0)
    log.span("net", "CREATE", 0, 1, pid="n1")
    log.add("top", "tier", "T", "CREATE", "IN_PROGRESS", 1)
    log.stack("inner", "CREATE", "IN_PROGRESS", 1)
    log.span("disk", "CREATE", 1, 2, stack="inner")
    log.span("vm", "CREATE", 2, 9, stack="inner")
    log.span("port", "CREATE", 1, 3, stack="inner")
    log.stack("inner", "CREATE", "COMPLETE", 9)
    log.add("top", "tier", "T", "CREATE", "COMPLETE", 9, pid="inner")
    log.span("dns", "CREATE", 0, 4)
    log.stack("top", "CREATE", "COMPLETE", 9)
    timeline = build_timeline(log.events)
    assert stack_paths(log.events) == {"top": "", "inner": "tier/"}
    assert [s.row for s in dict(timeline.paths)["CREATE"]] == [
        "net",
        "tier",
        "tier/disk",
        "tier/vm",
    ]
    assert not timeline.is_critical(next(s for s in timeline.spans if s.row == "dns"))


def test_delete_follows_what_required_the_resource():
    log = Log()
    log.stack("top", "DELETE", "IN_PROGRESS", 0)
    log.span("server", "DELETE", 0, 5)
    log.span("other", "DELETE", 0, 5)
    log.span("net", "DELETE", 5, 6)
    log.stack("top", "DELETE", "COMPLETE", 6)
    deps = {"": {"server": ["net"], "other": [], "net": []}}
    path = dict(build_timeline(log.events, dependencies=deps).paths)["DELETE"]
    assert [s.row for s in path] == ["server", "net"]


def test_faults_sit_on_the_row_of_the_entity_they_hit_or_apart():
    log = Log()
    log.stack("top", "CREATE", "IN_PROGRESS", 0)
    log.span("vol", "CREATE", 0, 4, status="FAILED", pid="v-1")
    log.stack("top", "CREATE", "FAILED", 4)
    faults = [
        {
            "time": 3.5,
            "service": "block",
            "operation": "get",
            "effect": "timeout",
            "entity_id": "v-1",
        },
        {"time": 1.0, "service": "net", "operation": "list", "effect": "error", "entity_id": None},
    ]
    timeline = build_timeline(log.events, faults)
    assert [(f.time, f.row) for f in timeline.faults] == [(1.0, None), (3.5, "vol")]
    assert timeline.failed()[0].row == "vol"
    assert timeline.faults[1].label == "block.get: timeout"


def test_an_action_that_never_ended_runs_to_the_end_of_the_log():
    log = Log()
    log.stack("top", "CREATE", "IN_PROGRESS", 0)
    log.add("top", "stuck", "T", "CREATE", "IN_PROGRESS", 1)
    log.span("other", "CREATE", 0, 7)
    span = next(s for s in build_timeline(log.events).spans if s.row == "stuck")
    assert (span.status, span.start, span.end) == ("IN_PROGRESS", 1, 7)


@st.composite
def schedules(draw):
    """A random DAG run as the engine runs it: each resource starts when its last requirement ends."""
    n = draw(st.integers(1, 12))
    log = Log()
    log.stack("top", "CREATE", "IN_PROGRESS", 0.0)
    ends: list[float] = []
    requires: dict[str, list[str]] = {}
    for i in range(n):
        reqs = sorted(set(draw(st.lists(st.integers(0, max(i - 1, 0)), max_size=3)))) if i else []
        start = max((ends[r] for r in reqs), default=0.0)
        duration = draw(st.sampled_from([0.0, 0.5, 1.0, 2.5]))
        ends.append(start + duration)
        requires[f"r{i}"] = [f"r{r}" for r in reqs]
        # Emitted in a topological order: a requirement's events come before its dependants'.
        log.span(f"r{i}", "CREATE", start, start + duration)
    log.stack("top", "CREATE", "COMPLETE", max(ends))
    return log.events, requires


@settings(max_examples=150, deadline=None)
@given(schedules())
def test_a_critical_path_is_a_chain_of_waits_ending_last(case):
    events, requires = case
    for deps in (None, {"": requires}):
        timeline = build_timeline(events, dependencies=deps)
        (action, path), *_ = timeline.paths
        assert action == "CREATE" and path
        assert path[-1].end == max(s.end for s in timeline.spans)
        for before, after in zip(path, path[1:], strict=False):
            assert before.end <= after.start + 1e-9
            if deps:
                assert before.resource in requires[after.resource]
