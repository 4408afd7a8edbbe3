"""The engine's side of the two seams a resource and a template see.

:class:`EngineContext` is the :class:`sdk.context.ResourceContext` the engine
gives every resource of a stack: the world's virtual clock, the fake cloud's
client plug-ins, persistence of every state change (written to SQLite and
recorded as an event before the call returns) and the facets: the stack's
signal mailboxes (:mod:`simulator.signals`), the nested stacks its resources
own (:mod:`simulator.nested_stacks`, reached through the world so this
module stays below the stack actions) and its resources by reference.

:class:`StackView` is the ``ResourceView`` a template resolver reads other
resources through (``get_resource``, ``get_attr``, ``resource_facade``). A
resource that has not been created yet raises
:class:`sdk.properties.ValueNotYetKnown`.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from sdk import exception
from sdk.clients import ClientPlugin
from sdk.context import Clock, NestedStacks, Reporting, StackInfo
from sdk.resource import Resource
from sdk.rsrc_defn import ResourceDefinition
from simulator.clock import VirtualClock
from simulator.signals import StackSignals
from simulator.store import Store


class ContextWorld(Protocol):
    """What a context needs of the world (:class:`simulator.stack.StackHost` has it)."""

    store: Store
    clock: VirtualClock

    @property
    def cloud(self) -> object:
        """The world's cloud backend."""

    def client_plugin(self, name: str) -> ClientPlugin:
        """The fake cloud's client plug-in for service *name*."""

    def nested_stacks(self, stack: Any) -> NestedStacks:
        """The ``nested_stacks()`` facet of the resources of *stack*."""


class ContextStack(Protocol):
    """What a context and a stack view need of their stack (:class:`simulator.stack.Stack`)."""

    resources: dict[str, Resource]
    parent_definition: ResourceDefinition | None

    @property
    def world(self) -> ContextWorld:
        """The world the stack lives in."""

    @property
    def id(self) -> str:
        """The stack id."""

    @property
    def name(self) -> str:
        """The stack name."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The resolved parameter values."""

    @property
    def timeout_mins(self) -> float | None:
        """The stack timeout in virtual minutes."""

    def resource_state_changed(self, res: Resource, action: str, status: str, reason: str) -> None:
        """Persist a transition and record its event."""

    def defer_persist(self, res: Resource) -> None:
        """Write the row with the next transition."""

    def persist_resource(self, res: Resource) -> None:
        """Write the row now."""


#: First delay between ``check_<action>_complete`` polls (virtual seconds).
POLL_INTERVAL = 1.0
#: Largest delay between polls (virtual seconds).
MAX_POLL_INTERVAL = 30.0


def _not_yet_known(message: str) -> Exception:
    from sdk.properties import ValueNotYetKnown

    return ValueNotYetKnown(message)


class EngineContext:
    """The :class:`sdk.context.ResourceContext` of every resource in one stack."""

    def __init__(self, stack: ContextStack) -> None:
        self._stack = stack
        self.clock: Clock = stack.world.clock
        self.poll_interval = POLL_INTERVAL
        self.max_poll_interval = MAX_POLL_INTERVAL

    @property
    def stack(self) -> StackInfo:
        """What the resource may know about its stack."""
        st = self._stack
        return StackInfo(
            name=st.name, id=st.id, parameters=dict(st.parameters), timeout_mins=st.timeout_mins
        )

    @property
    def project_id(self) -> str:
        """The world's project, whose user runs the stack ("" for a world that has none)."""
        return str(getattr(self._stack.world, "project_id", "") or "")

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the fake cloud's client plug-in for service *name*."""
        return self._stack.world.client_plugin(name)

    def state_changed(self, resource: Reporting, action: str, status: str, reason: str) -> None:
        """Persist the new state and record the event before returning."""
        # only the stack's own resources hold this context (no cast(): a call per transition)
        self._stack.resource_state_changed(resource, action, status, reason)  # type: ignore[arg-type]

    def signals(self) -> StackSignals:
        """Return the signal mailboxes of the stack's resources."""
        world = self._stack.world
        return StackSignals(world.store, self._stack.id, world.cloud)

    def nested_stacks(self) -> NestedStacks:
        """Return the nested stacks of the stack's resources."""
        return self._stack.world.nested_stacks(self._stack)

    def resource_by_reference(self, reference: str) -> Resource | None:
        """Return the stack's current resource whose reference id or name is *reference*."""
        for res in self._stack.resources.values():
            if reference in (res.get_reference_id(), res.name):
                return res
        return None

    def stack_members(self) -> dict[str, Resource]:
        """Return the stack's current resources by name (a new dict, in the stack's order)."""
        return dict(self._stack.resources)

    def data_changed(self, resource: Reporting) -> None:
        """Persist ``resource_id`` and the resource's data.

        During an action (the resource is ``IN_PROGRESS``) the row is written
        with the action's next transition, which carries the current data, or
        when the run ends without one (an interrupted run): the fake cloud's
        state is saved then too, so the two never disagree. Outside an action
        it is written now.
        """
        if resource.status == "IN_PROGRESS":
            self._stack.defer_persist(cast(Resource, resource))
        else:
            self._stack.persist_resource(cast(Resource, resource))


class StackView:
    """The ``ResourceView`` the template resolver reads other resources through."""

    def __init__(self, stack: ContextStack) -> None:
        self.stack = stack

    def _resource(self, name: str) -> Resource:
        res = self.stack.resources.get(name)
        if res is None:
            raise exception.InvalidTemplateReference(resource=name, key="resources")
        return res

    @staticmethod
    def _known(res: Resource) -> bool:
        if res.action == "INIT":
            return False
        if res.action in ("CREATE", "ADOPT") and res.status != "COMPLETE":
            return res.resource_id is not None
        return True

    def reference_id(self, name: str) -> Any:
        """Return what ``get_resource: name`` evaluates to."""
        res = self._resource(name)
        if not self._known(res):
            raise _not_yet_known(f"resource {name} has not been created yet")
        return res.get_reference_id()

    def attribute(self, name: str, attr: str | None, path: list[Any] | tuple[Any, ...] = ()) -> Any:
        """Return what ``get_attr: [name, attr, *path]`` evaluates to (attr None: all)."""
        res = self._resource(name)
        if not self._known(res):
            raise _not_yet_known(f"resource {name} has not been created yet")
        if attr is None:
            from simulator.template import select_path

            return select_path(res.FnGetAtts(), list(path))
        return res.FnGetAtt(attr, *path)

    def resource_facade(self, kind: str) -> Any:
        """Return the parent resource's metadata / deletion_policy / update_policy."""
        parent = self.stack.parent_definition
        if parent is None:
            raise exception.StackValidationFailed(
                f"resource_facade {kind} is only available in a nested stack",
                path=["resource_facade"],
            )
        if kind == "metadata":
            return parent.metadata
        if kind == "deletion_policy":
            return parent.deletion_policy
        if kind == "update_policy":
            return parent.update_policy or {}
        raise exception.StackValidationFailed(
            f"resource_facade: unknown kind {kind!r} (metadata, deletion_policy or update_policy)",
            path=["resource_facade"],
        )
