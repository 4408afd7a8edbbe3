"""The adversary: another user or an operator changing the cloud behind the engine's back.

``plugsim campaign TEMPLATE --adversary`` runs each seed as create → (drift) → check → update (with
``--update-template``) → (drift) → delete, and may drift during the update and the delete too (when the
chosen resource's action starts: its ``IN_PROGRESS`` event, before its handler runs). A drift is one
out-of-band operation (:mod:`sdk.testing.campaign.drifts` lists the kinds and what each requires) on
a fake-cloud entity that belongs to one of the stack's resources, chosen by the seed's own
``adversary`` stream; or, when the run is given a *drift schedule* (what shrinking makes, and
``--drifts FILE`` replays), exactly the drifts the schedule lists, at the points it names.

Every drift is recorded as an event (resource :data:`EVENT_RESOURCE`, type :data:`EVENT_TYPE`,
action ``DRIFT``, status ``COMPLETE`` or ``SKIPPED`` when it could not be done, the physical id the
entity's, the reason naming the drifted resource and what was done), so it is in the event log and
the digest; :func:`drift_marks` turns the drifts into marks for the run's timeline. (The event is not
the drifted resource's own: an event of that resource would end the span of the action it is in.) What must hold: after a drift the
check must see (``delete``, ``error``, ``stuck``), the check of a plug-in that checks must fail; after a
``rotate`` the check must complete (the plug-in re-authenticates); the update may fail; the stack's
delete must complete and leave nothing behind (converge), or, after a ``stuck`` drift, may time out.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sdk.testing.campaign import drifts as kinds
from sdk.testing.campaign.drifts import drift_entity
from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.signature import Signature, of_run

#: The chance that a drift point drifts anything.
RATE = 0.75
STACK = "drifted"
#: The resource name and type of the events that record drifts.
EVENT_RESOURCE = "(adversary)"
EVENT_TYPE = "Plugsim::Adversary::Drift"
#: What a schedule entry names (a drift record has more: time, type, entity, done).
SCHEDULE_KEYS = ("after", "drift", "resource")

__all__ = ["Adversary", "drift_entity", "drift_marks", "drifted_run", "run_drifted", "schedule_of"]


def schedule_of(done: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The drift schedule that repeats the drifts *done* (records of a run): point, kind, resource."""
    return [{key: d[key] for key in SCHEDULE_KEYS} for d in done]


class Adversary:
    """Out-of-band operations drawn from a seed's own stream (the same seed, the same drifts), or
    exactly those of a *schedule* (a list of ``{after, drift, resource}``)."""

    def __init__(self, seed: int, schedule: Sequence[Mapping[str, Any]] | None = None) -> None:
        from simulator.rng import derive_seed

        self.random = random.Random(derive_seed(seed, "adversary"))
        self.schedule = None if schedule is None else [dict(s) for s in schedule]
        self.done: list[dict[str, Any]] = []

    def act(self, world: Any, stack: Any, after: str) -> list[dict[str, Any]]:
        """Drift entities of *stack*'s resources at point *after*; return what was done."""
        targets = _targets(world, stack)
        if self.schedule is not None:
            chosen = [(s["drift"], s["resource"]) for s in self.schedule if s["after"] == after]
        elif targets and self.random.random() < RATE:
            resource = targets[self.random.randrange(len(targets))][0].name
            chosen = [(kinds.KINDS[self.random.randrange(len(kinds.KINDS))], resource)]
        else:
            chosen = []
        out = []
        for kind, name in chosen:
            found = [t for t in targets if t[0].name == name]
            if found:
                out.append(self._drift(world, stack, after, kind, *found[0]))
        return out

    def arm(self, world: Any, stack: Any, action: str) -> None:
        """Maybe drift one resource's entity when that resource's *action* starts (a listener)."""
        point = f"{action.lower()} started"
        targets = _targets(world, stack)
        if self.schedule is not None:
            chosen = [(s["drift"], s["resource"]) for s in self.schedule if s["after"] == point]
        elif targets and self.random.random() < RATE:
            name = targets[self.random.randrange(len(targets))][0].name
            chosen = [(kinds.DURING[self.random.randrange(len(kinds.DURING))], name)]
        else:
            chosen = []
        for kind, name in chosen:
            world.listeners.append(self._listener(world, action, point, kind, name))

    def _listener(self, world: Any, action: str, point: str, kind: str, name: str) -> Any:
        def listener(event: Any) -> None:
            if (
                event.is_stack_event
                or event.stack_name != STACK
                or (event.resource_name, event.action, event.status)
                != (name, action, "IN_PROGRESS")
                or listener not in world.listeners
            ):
                return
            world.listeners.remove(listener)  # once
            live = world.get_stack(STACK, deleted_ok=True)
            found = [t for t in _targets(world, live) if t[0].name == name]
            if found:
                self._drift(world, live, point, kind, *found[0])

        return listener

    def _drift(
        self, world: Any, stack: Any, after: str, kind: str, resource: Any, item: Any
    ) -> dict[str, Any]:
        drift = {
            "after": after,
            "drift": kind,
            "resource": resource.name,
            "type": resource.type(),
            "entity": f"{item.service}/{item.kind}",
            "entity_id": item.id,
            "time": world.clock.now(),
            "done": drift_entity(world, kind, item),
        }
        self.done.append(drift)
        _record(world, stack, drift)
        return drift


def _record(world: Any, stack: Any, drift: Mapping[str, Any]) -> None:
    """Put *drift* in the world's event log."""
    from simulator.events import Event

    what = (
        f"out-of-band {drift['drift']} of {drift['resource']}'s {drift['entity']} "
        f"{drift['entity_id']} ({drift['after']})"
    )
    event = Event(
        0,
        stack.id,
        stack.name,
        EVENT_RESOURCE,
        EVENT_TYPE,
        str(drift["entity_id"]),
        "DRIFT",
        "COMPLETE" if drift["done"] else "SKIPPED",
        what if drift["done"] else f"could not do the {what}",
        world.clock.now(),
    )
    world.emit(world.store.add_event(event))


def _targets(world: Any, stack: Any) -> list[tuple[Any, Any]]:
    """``(resource, inventory item)`` of every top-level resource whose physical id is an entity."""
    items = {item.id: item for item in world.cloud.inventory() if not item.preseeded}
    out = []
    for name in sorted(stack.resources):
        resource = stack.resources[name]
        item = items.get(str(resource.resource_id)) if resource.resource_id else None
        if item is not None:
            out.append((resource, item))
    return out


def drift_marks(drifts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The drifts done, as the injected-fault records a timeline draws (effect ``drift:KIND``)."""
    return [
        {
            "time": d["time"],
            "service": str(d["entity"]).split("/")[0],
            "operation": f"drift {d['after']}",
            "effect": f"drift:{d['drift']}",
            "rule_name": "adversary",
            "entity_id": d.get("entity_id"),
        }
        for d in drifts
        if d["done"]
    ]


def run_drifted(
    spec: Any, seed: int, faults: Any = None, drifts: Sequence[Mapping[str, Any]] | None = None
) -> RunResult:
    """One seed of *spec* (a :class:`~sdk.testing.campaign.runs.RunSpec`) with the adversary:
    its stream's drifts, or exactly *drifts* (a schedule) when given."""
    return drifted_run(spec, seed, faults, drifts)[0]


def drifted_run(
    spec: Any, seed: int, faults: Any = None, drifts: Sequence[Mapping[str, Any]] | None = None
) -> tuple[RunResult, list[Any]]:
    """:func:`run_drifted`, and the run's events (for a timeline)."""
    from simulator.events import event_log
    from simulator.simulate import Phase
    from simulator.world import World

    started = time.perf_counter()
    world = World.open(
        ":memory:",
        seed=seed,
        faults=spec.faults if faults is None else faults,
        plugin_dirs=list(spec.plugin_dirs),
        **({"world_file": spec.world} if spec.world else {}),
    )
    adversary = Adversary(seed, drifts if drifts is not None else spec.drift_schedule())
    phases: list[Phase] = []
    envs, params = list(spec.environment), dict(spec.parameters)

    def phase(name: str, call: Any) -> Phase:
        t0, w0 = world.clock.now(), time.perf_counter()
        call()
        stack = world.get_stack(STACK, deleted_ok=True)
        done = Phase(
            name, stack.state, stack.status_reason, t0, world.clock.now(), time.perf_counter() - w0
        )
        phases.append(done)
        return done

    try:
        first = world.store.last_event_id()
        before = world.cloud.snapshot_inventory()
        missed: Signature | None = None
        if phase("create", lambda: world.create_stack(STACK, spec.template, envs, params)).ok:
            drifted = adversary.act(world, world.get_stack(STACK), "create")
            check = phase("check", lambda: world.check_stack(STACK))
            missed = _missed(world, drifted, check)
            if missed is None and not check.ok and any(d["drift"] == "rotate" for d in drifted):
                events = list(world.store.events(after=first))
                missed = of_run([check.to_dict()], events, [])  # it did not re-authenticate
            if spec.update_template is not None:
                adversary.arm(world, world.get_stack(STACK), "UPDATE")
                phase(
                    "update", lambda: world.update_stack(STACK, spec.update_template, envs, params)
                )
                world.listeners.clear()
                adversary.act(world, world.get_stack(STACK, deleted_ok=True), "update")
            adversary.arm(world, world.get_stack(STACK, deleted_ok=True), "DELETE")
        phase("delete", lambda: world.delete_stack(STACK))
        world.listeners.clear()
        events = list(world.store.events(after=first))
        leaks = [item.to_dict() for item in world.cloud.leaks(before)]
        injected = [f.to_dict() for f in world.cloud.injected_faults()]
    finally:
        world.close()
    judged = [p.to_dict() for p in phases if p.name in ("create", "delete")]
    if _gave_up(phases[-1], adversary.done):
        judged, leaks = judged[:1], []
    sig = of_run(judged[:1], events, []) or missed or of_run(judged[1:], events, leaks)
    log = event_log(events) + "".join(f"{sorted(d.items())}\n" for d in adversary.done)
    coverage = {(p.name, "none") for p in phases}
    coverage |= {(d["after"], f"drift:{d['drift']}") for d in adversary.done}
    result = RunResult(
        seed=seed,
        ok=sig is None,
        signature=sig.to_list() if sig is not None else None,
        phases=[p.state for p in phases],
        virtual_seconds=world.clock.now(),
        wall_seconds=time.perf_counter() - started,
        digest=hashlib.sha256(log.encode()).hexdigest(),
        faults=[dict(f) for f in injected],
        coverage=[list(p) for p in sorted(coverage)],
        drifts=adversary.done,
    )
    return result, events


def _gave_up(delete: Any, done: Sequence[Mapping[str, Any]]) -> bool:
    """True when the delete timed out after a drift that allows it (a plug-in waiting for an entity
    that never settles and giving up is what it must do)."""
    allowed = any(d["done"] and d["drift"] in kinds.MAY_TIME_OUT for d in done)
    return allowed and delete.name == "delete" and "timed out" in delete.reason


def _missed(world: Any, drifted: Sequence[Mapping[str, Any]], check: Any) -> Signature | None:
    """The finding of a ``stack check`` that did not see a drift it should have seen."""
    from sdk.testing._conformance_support import declared

    if not check.ok:
        return None
    for drift in drifted:
        if not drift["done"] or drift["drift"] not in kinds.CHECK_SEES:
            continue
        resource = world.get_stack(STACK).resources[drift["resource"]]
        if not declared(type(resource), "handle_check"):
            continue  # a plug-in without a check cannot be asked to see anything
        return Signature(
            "check",
            drift["type"],
            "CHECK",
            "",
            f"stack check completed after an out-of-band {drift['drift']} of its {drift['entity']}",
        )
    return None
