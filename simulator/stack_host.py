"""What the stack machinery needs of the world its stacks live in (:class:`StackHost`).

A stack is named ``Any`` here: this module is below :mod:`simulator.stack`, which imports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sdk.clients import ClientPlugin
    from sdk.context import NestedStacks
    from simulator.backend import CloudBackend
    from simulator.clock import VirtualClock
    from simulator.events import Event
    from simulator.registry import TypeRegistry
    from simulator.stack_source import StackSource
    from simulator.store import Store

__all__ = ["StackHost"]


class StackHost(Protocol):
    """What the stack machinery needs of the world its stacks live in.

    :class:`simulator.world.World` implements it; the stack modules (this
    one, :mod:`simulator.stack_loader`, :mod:`simulator.nested_stacks` and,
    through its extension :class:`simulator.stack_api.APIHost`,
    :mod:`simulator.stack_api`) reach the world only through it.
    """

    store: Store
    clock: VirtualClock
    registry: TypeRegistry
    project_id: str
    cloud: CloudBackend
    #: resources whose row waits for their next transition: id(resource) -> (stack, resource)
    unsaved: dict[int, tuple[Any, Any]]

    def client_plugin(self, name: str) -> ClientPlugin:
        """The fake cloud's client plug-in for service *name*."""

    def emit(self, event: Event) -> None:
        """Pass a recorded event to the listeners."""

    def check_cancel(self, stack: Any) -> None:
        """Honour a cancel request another process left for *stack*."""

    def nested_stacks(self, stack: Any) -> NestedStacks:
        """The ``nested_stacks()`` facet of the resources of *stack*."""

    def get_stack(self, name_or_id: str, *, deleted_ok: bool = False) -> Any:
        """A live stack by name or id."""

    def new_stack(
        self,
        name: str,
        source: StackSource,
        *,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        parent: Any = None,
        parent_resource: Any = None,
        tags: Iterable[str] = (),
    ) -> Any:
        """Build, validate and store a new stack."""
