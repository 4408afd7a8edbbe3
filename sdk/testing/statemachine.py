"""Random lifecycles: a hypothesis state machine driving one plug-in through stack actions.

:func:`lifecycle_machine` builds a :class:`hypothesis.stateful.RuleBasedStateMachine`
for a plug-in class. Each run opens a fresh seeded world, then applies a
random sequence of create, update, suspend, resume, check, snapshot and
delete, each under a randomly chosen fault (none, a 500 on one call, a
conflict, a throttle). After every step, with the faults lifted, it checks:

* every resource moved along legal transitions only;
* a resource that is settled COMPLETE (and not deleted) resolves every attribute;
* the fake cloud holds no entity the stack does not know about, and every
  physical id the stack holds for a live resource exists in the cloud;
* with no fault, an update the engine kept in place kept its cloud object, a
  repeated update wrote nothing, and a suspend or resume changed the object
  (the oracles of :mod:`sdk.testing.oracles`);

and at teardown it deletes the stack and checks that nothing is left.

::

    TestServerLifecycle = lifecycle_machine(MyServer, {"image": "cirros"},
                                            updates=[{"name": "b"}]).TestCase
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from sdk.resource import Resource
from sdk.testing import oracles
from sdk.testing._world import PlugsimWorld

#: The faults a step may run under (``None``: no fault).
FAULTS: tuple[Any, ...] = (
    None,
    [{"name": "one-500", "nth": 1, "effect": {"type": "error", "status": 500}}],
    [{"name": "one-409", "nth": 1, "effect": {"type": "error", "status": 409}}],
    [{"name": "throttle", "nth": 1, "effect": {"type": "error", "status": 429, "retry_after": 2}}],
)


def lifecycle_machine(
    plugin: type[Resource],
    valid_properties: Mapping[str, Any],
    *,
    updates: Sequence[Mapping[str, Any]] = (),
    type_name: str | None = None,
    faults: Sequence[Any] = FAULTS,
) -> type[RuleBasedStateMachine]:
    """Return a state machine class driving *plugin* (see the module docstring)."""
    registered: str = type_name or f"Lifecycle::{plugin.__name__}"
    base = dict(valid_properties)
    changes = [dict(u) for u in updates]
    fault_choices = list(faults)

    def template(props: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "heat_template_version": "2018-08-31",
            "resources": {"r": {"type": registered, "properties": dict(props)}},
        }

    class LifecycleMachine(RuleBasedStateMachine):
        """Random stack actions on one resource of the plug-in, with invariants."""

        def __init__(self) -> None:
            super().__init__()
            self.world: PlugsimWorld | None = None
            self.live = False
            self.props = dict(base)
            #: the properties the last completed create or update applied (a failed update
            #: applied nothing: the same template again is then a real change, not a repeat)
            self.applied: dict[str, Any] | None = None

        def _world(self, seed: int) -> PlugsimWorld:
            if self.world is None:
                self.world = PlugsimWorld(seed=seed, types={registered: plugin}, wall_limit=10.0)
            return self.world

        def _act(self, fault: Any, factory: Any) -> None:
            world = self.world
            assert world is not None
            world.cloud.set_faults(fault)
            try:
                world.run_blocking(factory)
            finally:
                world.cloud.set_faults(None)

        def _stack(self) -> Any:
            assert self.world is not None
            return self.world.get_stack("s")

        def _settled(self) -> bool:
            return self.live and self._stack().status != "IN_PROGRESS"

        @precondition(lambda self: not self.live)
        @rule(seed=st.integers(0, 2**16), fault=st.sampled_from(fault_choices))
        def create(self, seed: int, fault: Any) -> None:
            world = self._world(seed)
            stored = world.store.get_stack("s")
            if stored is not None and not stored.deleted:
                return
            self.props = dict(base)
            self._act(fault, lambda: world.acreate_stack("s", template(self.props)))
            self.live = True
            self.applied = dict(self.props) if self._stack().state == "CREATE_COMPLETE" else None

        @precondition(lambda self: self._settled() and bool(changes))
        @rule(index=st.integers(0, 64), fault=st.sampled_from(fault_choices))
        def update(self, index: int, fault: Any) -> None:
            assert self.world is not None
            change = changes[index % len(changes)]
            new_props = {**self.props, **change}
            repeated = new_props == self.applied
            self.props = new_props
            world = self.world
            res = self._stack().resources.get("r")
            before = oracles.entity(world, getattr(res, "resource_id", None))
            mark = len(world.cloud.trace())
            self._act(fault, lambda: world.aupdate_stack("s", template(self.props)))
            stack = self._stack()
            self.applied = dict(self.props) if stack.state == "UPDATE_COMPLETE" else None
            if fault is None and stack.state == "UPDATE_COMPLETE" and stack.resources["r"] is res:
                # kept in place by the engine: the oracles' verdicts (sdk.testing.oracles)
                problems = oracles.in_place(world, plugin, change, before, res.resource_id)
                if repeated:
                    problems += oracles.repeated_update(plugin, world.cloud.trace()[mark:])
                assert problems == [], "\n".join(problems)

        @precondition(lambda self: self._settled())
        @rule(
            action=st.sampled_from(["suspend", "resume", "check", "snapshot"]),
            fault=st.sampled_from(fault_choices),
        )
        def other(self, action: str, fault: Any) -> None:
            world = self.world
            assert world is not None
            verb = getattr(world, f"a{action}_stack")
            res = self._stack().resources.get("r")
            was = getattr(res, "action", None)
            world.settle()
            before = oracles.entity(world, getattr(res, "resource_id", None))
            self._act(fault, lambda: verb("s"))
            # suspend from a running resource, resume from a suspended one: the cloud object changes
            changes_object = (action == "suspend" and was != "SUSPEND") or (
                action == "resume" and was == "SUSPEND"
            )
            if (
                fault is None
                and changes_object
                and self._stack().state == f"{action.upper()}_COMPLETE"
            ):
                world.settle()
                after = oracles.entity(world, res.resource_id)
                problems = oracles.action_changed(plugin, action.upper(), before, after)
                assert problems == [], "\n".join(problems)

        @precondition(lambda self: self._settled())
        @rule(fault=st.sampled_from(fault_choices))
        def delete(self, fault: Any) -> None:
            world = self.world
            assert world is not None
            self._act(fault, lambda: world.adelete_stack("s"))
            if world.get_stack("s", deleted_ok=True).record.deleted:
                self.live = False

        @invariant()
        def transitions_are_legal(self) -> None:
            if self.world is not None:
                assert self.world.transitions.violations == []

        @invariant()
        def attributes_resolve_when_complete(self) -> None:
            if not self.live:
                return
            for res in self._stack().resources.values():
                if res.status == "COMPLETE" and res.action not in ("INIT", "DELETE"):
                    for name in sorted(res.attributes_schema):
                        res.FnGetAtt(name)
                        assert name not in res.attribute_errors, res.attribute_errors[name]

        @invariant()
        def inventory_matches_the_stack(self) -> None:
            if self.world is None:
                return
            known = set()
            if self.live:
                for res in self._stack().all_resources():
                    if res.resource_id is not None:
                        known.add(str(res.resource_id))
                # what the stack's snapshots hold (e.g. image ids) is known too
                for snap in self.world.list_snapshots("s"):
                    for entry in snap.doc.get("resources", {}).values():
                        known.update(str(v) for v in (entry.get("resource_data") or {}).values())
            self.world.settle()
            stray = [i for i in self.world.cloud.leaks(self.world.baseline) if i.id not in known]
            assert stray == [], f"entities the stack does not know: {stray}"

        def teardown(self) -> None:
            world = self.world
            if world is None:
                return
            try:
                if self.live:
                    for snap in world.list_snapshots("s"):
                        world.run_blocking(partial(world.adelete_snapshot, "s", snap.id))
                    world.run_blocking(lambda: world.adelete_stack("s"))
                    assert world.get_stack("s", deleted_ok=True).state == "DELETE_COMPLETE"
                assert world.leaked() == []
            finally:
                world.close()

    LifecycleMachine.__name__ = f"{plugin.__name__}Lifecycle"
    LifecycleMachine.__qualname__ = LifecycleMachine.__name__
    return LifecycleMachine
