"""A service's next-due index: a read skips walking a kind's entities only when nothing is due.

``Service._refresh`` walks every entity of a kind to apply what came due; the store's
``due`` (the earliest instant any of its entities changes on its own) lets a read at an
earlier instant skip the walk. The index must never change what a read sees: the
differential test runs the same steps in two worlds, one of which forgets the index
before every read (the walk every time, as before the index existed).
"""

from __future__ import annotations

import math
import random

from fake_clouds import FakeCloud, Service
from fake_clouds.core.entities import Entity, Transition
from fake_clouds.core.tracking import UNKNOWN
from sdk import exception


class _Things(Service):
    """Entities whose schedule the test sets by hand, read at instants the test picks."""

    name = "things"
    kinds = {"thing": "BROKEN"}

    def __init__(self, world):
        super().__init__(world)
        self.t = 0.0

    def _now(self):
        return self.t


def _world():
    return FakeCloud(seed=5, services=[_Things]).service("things")


def test_the_index_is_the_earliest_instant_an_entity_changes_and_a_change_forgets_it():
    svc = _world()
    a = svc._create("thing", "a", "BUILD")
    a.pending.append(Transition(30.0, "ACTIVE"))
    b = svc._create("thing", "b", "BUILD")
    b.pending.append(Transition(12.0, "ACTIVE"))
    store = svc._store["thing"]
    assert store.due == UNKNOWN
    svc._get("thing", a.id)
    assert store.due == 12.0
    svc.t = 11.9
    assert svc._get("thing", b.id).status == "BUILD"
    assert store.due == 12.0
    b.pending.clear()  # a schedule changed in place: the index is unknown again
    assert store.due == UNKNOWN
    b.pending.append(Transition(5.0, "SHUTOFF"))
    assert svc._get("thing", b.id).status == "SHUTOFF"  # due in the past: applied at once
    assert store.due == 30.0
    a.linger_until = 40.0  # any attribute given to an entity counts as a change
    assert store.due == UNKNOWN
    svc.t = 30.0
    assert svc._get("thing", a.id).status == "ACTIVE"
    assert store.due == math.inf  # nothing pending: no walk until something changes


def test_a_new_entity_due_earlier_than_the_index_is_applied_on_time():
    svc = _world()
    a = svc._create("thing", "a", "BUILD")
    a.pending.append(Transition(50.0, "ACTIVE"))
    svc._list("thing")
    assert svc._store["thing"].due == 50.0
    b = svc._create("thing", "b", "BUILD", {"size": 1})
    b.pending.append(Transition(2.0, "ACTIVE", {"size": 2}))
    svc.t = 2.0
    view = svc._get("thing", b.id).view()
    assert (view["status"], view["size"]) == ("ACTIVE", 2)
    assert svc._get("thing", a.id).status == "BUILD"
    # an entity put in the store with its schedule already set (a store being loaded)
    c = Entity("things", "thing", "c", "c", "BUILD", pending=[Transition(3.0, "ACTIVE")])
    svc._store["thing"]["c"] = c
    svc.t = 3.0
    assert svc._get("thing", "c").status == "ACTIVE"


def test_a_lingering_deleted_entity_leaves_lists_when_its_linger_ends():
    svc = _world()
    a = svc._create("thing", "a", "ACTIVE")
    a.linger_until = 8.0
    a.pending.append(Transition(3.0, None))
    svc.t = 3.0
    listed = svc._list("thing")
    assert [e.id for e in listed] == [a.id] and listed[0].deleted
    assert svc._store["thing"].due == 8.0
    svc.t = 7.9
    assert len(svc._list("thing")) == 1
    svc.t = 8.0
    assert svc._list("thing") == []
    assert a.id not in svc._store["thing"]


def _steps(rnd):
    """A random walk of creations, schedule changes, deletions, time moves and reads."""
    steps = [("create", rnd.uniform(0, 20)) for _ in range(rnd.randint(1, 4))] + [("list",)]
    for _ in range(rnd.randint(0, 30)):
        what = rnd.choice(_KINDS)
        if what == "create":
            steps.append(("create", rnd.uniform(0, 20)))
        elif what in ("reschedule", "replace"):
            steps.append((what, rnd.randrange(8), rnd.uniform(-5, 20)))
        elif what == "delete":
            steps.append(("delete", rnd.randrange(8), rnd.uniform(0, 10), rnd.uniform(0, 10)))
        elif what == "time":
            steps.append(("time", rnd.uniform(-6, 15)))
        elif what == "list":
            steps.append(("list",))
        else:
            steps.append((what, rnd.randrange(8)))
    return steps


_KINDS = ("create", "reschedule", "reschedule", "replace", "delete", "set", "time", "time")
_KINDS += ("get", "get", "get", "list")


def _run(steps, forget_index):
    svc = _world()
    made = []
    seen = []
    for step in steps:
        op = step[0]
        if op == "create":
            ent = svc._create("thing", f"t{len(made)}", "BUILD", {"n": len(made)})
            ent.pending.append(Transition(svc.t + step[1], "ACTIVE", {"ready": True}))
            made.append(ent.id)
            continue
        if op == "time":
            svc.t = max(0.0, svc.t + step[1])  # may go back: a task with less debt reads
            continue
        if op == "list":
            if forget_index:
                svc._store["thing"].due = UNKNOWN
            seen.append([e.view() for e in svc._list("thing")])
            continue
        if not made:
            continue
        eid = made[step[1] % len(made)]
        ent = svc._store["thing"].get(eid)
        if op == "get":
            if forget_index:
                svc._store["thing"].due = UNKNOWN
            try:
                seen.append(svc._get("thing", eid).view())
            except exception.NotFound:
                seen.append("missing")
        elif ent is None or ent.deleted:
            continue
        elif op == "reschedule":
            ent.pending.clear()
            ent.pending.append(Transition(svc.t + step[2], "RESIZED", {"again": step[2]}))
        elif op == "replace":
            ent.pending = [Transition(svc.t + step[2], "REBUILT")]
        elif op == "delete":
            ent.pending.clear()
            ent.linger_until = svc.t + step[2] + step[3]
            ent.pending.append(Transition(svc.t + step[2], None))
        elif op == "set":
            svc._set(ent, touched=svc.t)
    return seen, [e.to_dict() for e in svc._store["thing"].values()]


def test_reads_with_the_index_see_what_a_walk_every_time_sees():
    for seed in range(300):
        steps = _steps(random.Random(seed))
        assert _run(steps, forget_index=False) == _run(steps, forget_index=True), steps
