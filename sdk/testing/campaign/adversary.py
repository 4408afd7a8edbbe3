"""The adversary: another user or an operator changing the cloud behind the engine's back.

``plugsim campaign TEMPLATE --adversary`` runs each seed as create → (drift) → check → update (with
``--update-template``) → (drift) → delete, and may drift during the update and the delete too (when the
chosen resource's action starts: its ``IN_PROGRESS`` event, before its handler runs). A drift is one
out-of-band operation on a fake-cloud entity that belongs to one of the stack's resources, chosen by the
seed's own ``adversary`` stream:

* ``delete`` - the entity is deleted through its service's API, as another user would (a fault of the
  campaign's profile may hit that call too; the drift is then recorded as failed);
* ``error`` - the entity drops into its service's error status, as a failing host would leave it (not
  while a transition of it is under way);
* ``quota`` - the quota of the entity's kind shrinks to what is in use, so the next create of that kind
  (an update that replaces) is refused.

What must hold: after a ``delete`` or ``error`` drift, ``stack check`` of a resource whose plug-in
implements ``handle_check`` must fail (detect the drift); the update may fail; the stack's delete must
complete and leave nothing behind (converge). The drifts are part of the run's result and of its digest;
shrinking works on the injected faults, the drifts of a seed stay as they are.
"""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.signature import Signature, of_run

#: The out-of-band operations, in the order the stream picks from.
DRIFTS = ("delete", "error", "quota")
#: The chance that a drift point drifts anything.
RATE = 0.75
STACK = "drifted"


class Adversary:
    """Out-of-band operations drawn from a seed's own stream (the same seed, the same drifts)."""

    def __init__(self, seed: int) -> None:
        from simulator.rng import derive_seed

        self.random = random.Random(derive_seed(seed, "adversary"))
        self.done: list[dict[str, Any]] = []

    def act(self, world: Any, stack: Any, after: str) -> dict[str, Any] | None:
        """Maybe drift one entity of *stack*'s resources; return what was done (None: nothing)."""
        targets = _targets(world, stack)
        if not targets or self.random.random() >= RATE:
            return None
        resource, item = targets[self.random.randrange(len(targets))]
        kind = DRIFTS[self.random.randrange(len(DRIFTS))]
        drift = {
            "after": after,
            "drift": kind,
            "resource": resource.name,
            "type": resource.type(),
            "entity": f"{item.service}/{item.kind}",
            "time": world.clock.now(),
            "done": drift_entity(world, kind, item),
        }
        self.done.append(drift)
        return drift

    def arm(self, world: Any, stack: Any, action: str) -> None:
        """Maybe drift one resource's entity when that resource's *action* starts (a listener)."""
        targets = _targets(world, stack)
        if not targets or self.random.random() >= RATE:
            return
        name = targets[self.random.randrange(len(targets))][0].name
        kind = DRIFTS[self.random.randrange(2)]  # delete or error: a quota is no race

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
                resource, item = found[0]
                self.done.append(
                    {
                        "after": f"{action.lower()} started",
                        "drift": kind,
                        "resource": name,
                        "type": resource.type(),
                        "entity": f"{item.service}/{item.kind}",
                        "time": world.clock.now(),
                        "done": drift_entity(world, kind, item),
                    }
                )

        world.listeners.append(listener)


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


def drift_entity(world: Any, kind: str, item: Any) -> bool:
    """Do drift *kind* (:data:`DRIFTS`) to the fake-cloud entity *item* (an inventory item) of
    *world*; False when it could not be done (a fault hit the call, the kind has no quota)."""
    from sdk import exception

    service = world.cloud.service(item.service)
    if kind == "delete":
        for attr in sorted(dir(type(service))):
            meta = getattr(getattr(type(service), attr, None), "__fake_operation__", None)
            if meta is not None and meta[0].endswith(".delete") and meta[1] in (item.kind, None):
                try:
                    getattr(service, attr)(item.id)
                except exception.ClientError:
                    return False
                return True
        return False
    if kind == "error":
        for entity in service._live(item.kind):
            if entity.id == item.id and not entity.pending:
                # (an entity in the middle of a transition, a delete say, is left alone: cutting
                # the transition short would leave it stuck, another drift than an error)
                entity.status = service._error_status(item.kind)
                return True
        return False
    quota = next((q for q in (item.kind, f"{item.kind}s") if q in service.quotas), None)
    if quota is None:
        return False
    used = sum(
        1
        for other in world.cloud.inventory()
        if (other.service, other.kind) == (item.service, item.kind) and not other.preseeded
    )
    service.set_quotas({quota: used})
    return True


def run_drifted(spec: Any, seed: int, faults: Any = None) -> RunResult:
    """One seed of *spec* (a :class:`~sdk.testing.campaign.runs.RunSpec`) with the adversary."""
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
    adversary = Adversary(seed)
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
            drift = adversary.act(world, world.get_stack(STACK), "create")
            check = phase("check", lambda: world.check_stack(STACK))
            missed = _missed(world, drift, check)
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
    sig = of_run(judged[:1], events, []) or missed or of_run(judged[1:], events, leaks)
    log = event_log(events) + "".join(f"{sorted(d.items())}\n" for d in adversary.done)
    coverage = {(p.name, "none") for p in phases}
    coverage |= {(d["after"], f"drift:{d['drift']}") for d in adversary.done}
    return RunResult(
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


def _missed(world: Any, drift: dict[str, Any] | None, check: Any) -> Signature | None:
    """The finding of a ``stack check`` that did not see a drift it should have seen."""
    from sdk.testing._conformance_support import declared

    if drift is None or not drift["done"] or drift["drift"] == "quota" or not check.ok:
        return None
    resource = world.get_stack(STACK).resources[drift["resource"]]
    if not declared(type(resource), "handle_check"):
        return None  # a plug-in without a check cannot be asked to see anything
    return Signature(
        "check",
        drift["type"],
        "CHECK",
        "",
        f"stack check completed after an out-of-band {drift['drift']} of its {drift['entity']}",
    )
