"""Private: the engine world the test harness drives, with its extra checks.

:class:`PlugsimWorld` is a :class:`simulator.world.World` (in-memory store)
that also knows resource classes registered by the test (no entry point or
plug-in directory needed), watches every resource transition for legality,
runs every blocking action in a watched worker thread (see
:mod:`sdk.testing.watchdog`) and can tell which fake-cloud entities a test
leaked.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from sdk import exception, transitions
from sdk.testing.watchdog import install_heartbeat, run_watched
from simulator.registry import TypeRegistry
from simulator.type_sources import world_registry
from simulator.world import World

if TYPE_CHECKING:
    from fake_clouds.core.world import FakeCloud

T = TypeVar("T")

#: Virtual seconds a leak check lets pass first, so entities already being deleted are gone.
SETTLE_SECONDS = 3600.0


class _Registry(TypeRegistry):
    """A type registry that also knows classes registered by a test."""

    def __init__(self, extra: Mapping[str, type], entry_points: bool) -> None:
        usual = world_registry((), entry_points=entry_points)
        super().__init__(usual.sources, template_classes=usual.template_classes)
        self.extra = dict(extra)

    def plugins(self, dirs: Iterable[str] = ()) -> dict[str, type]:
        """Return the usual mapping plus the test's own classes (which win)."""
        mapping = super().plugins(dirs)
        mapping.update(self.extra)
        return mapping


class TransitionLog:
    """Every resource transition seen in one world, checked as it happens.

    Legality is :func:`sdk.transitions.legal`, the table the resource's own
    guards read. A resource first seen is taken to be ``INIT_COMPLETE`` unless
    :meth:`seed` said otherwise (a resource loaded from the store).
    """

    def __init__(self) -> None:
        self.last: dict[int, tuple[str, str]] = {}
        self.labels: dict[int, str] = {}
        self.keep: dict[int, Any] = {}
        self.violations: list[str] = []
        self.count = 0

    def seed(self, res: Any, state: tuple[str, str]) -> None:
        """Note the state *res* is in before any transition is seen (one restored)."""
        key = id(res)
        self.keep[key] = res
        self.last.setdefault(key, (state[0], state[1]))

    def observe(self, res: Any, action: str, status: str) -> None:
        """Record one transition of *res*; remember it when it is illegal."""
        key = id(res)
        self.keep[key] = res  # keep the object alive so ids are never reused
        before = self.last.get(key, ("INIT", "COMPLETE"))
        after = (action, status)
        self.count += 1
        if not transitions.legal(before, after):
            self.violations.append(
                f"resource '{res.name}' ({res.type()}): illegal transition "
                f"{before[0]}_{before[1]} -> {action}_{status}"
            )
        self.last[key] = after


class PlugsimWorld(World):
    """A world for tests: in-memory, extra types, watched transitions and actions."""

    def __init__(
        self,
        *,
        seed: int,
        faults: Any = None,
        latency: Any = None,
        types: Mapping[str, type] | None = None,
        wall_limit: float | None = None,
        entry_points: bool = True,
        world_file: Any = None,
    ) -> None:
        # The lifecycle spec calls a plug-in that changes the stack a bug: under
        # the pytest plugin that is always an error.
        super().__init__(
            seed=seed,
            faults=faults,
            entry_points=entry_points,
            strict_lifecycle=True,
            world_file=world_file,
        )
        self.registry = _Registry(types or {}, entry_points)
        if latency is not None:
            from fake_clouds.core.latency import LatencyModel

            self.fake_cloud("a latency marker").latency = (
                latency if isinstance(latency, LatencyModel) else LatencyModel(latency)
            )
        self.transitions = TransitionLog()
        self.wall_limit = wall_limit
        self.broken: str | None = None
        self.closed = False
        self._lock = threading.Lock()
        self._heartbeat = install_heartbeat(self.loop)
        self.baseline = self.cloud.snapshot_inventory()

    def fake_cloud(self, needed_for: str) -> FakeCloud:
        """The world's backend as plugsim's :class:`FakeCloud`, which *needed_for* relies on.

        The test kit drives any :class:`~simulator.backend.CloudBackend`; a few of its tools reach
        into the fake cloud's services and say so clearly on another backend.
        """
        from fake_clouds.core.world import FakeCloud

        if not isinstance(self.cloud, FakeCloud):
            raise exception.ConfigurationError(
                f"{needed_for} needs plugsim's fake cloud; this world's backend is "
                f"{type(self.cloud).__name__}"
            )
        return self.cloud

    def add_type(self, name: str, cls: type) -> None:
        """Register *cls* under the resource type *name* for this world."""
        self.registry.extra[name] = cls  # type: ignore[attr-defined]

    def register(self, stack: Any) -> None:
        """Keep *stack* and watch its resources' transitions."""
        super().register(stack)
        ctx = stack.context
        if getattr(ctx, "_plugsim_watched", False):
            return
        inner = ctx.state_changed
        log = self.transitions
        for res in list(getattr(stack, "resources", {}).values()):
            log.seed(res, (res.action, res.status))

        def state_changed(resource: Any, action: str, status: str, reason: str) -> None:
            log.observe(resource, action, status)
            inner(resource, action, status, reason)

        ctx.state_changed = state_changed
        ctx._plugsim_watched = True

    def run_blocking(self, factory: Callable[[], Awaitable[T]], *, action: str = "RUN") -> T:
        """Run a coroutine on this world's virtual-time loop in a watched worker thread."""
        if self.broken:
            raise exception.PlugsimError(f"this world cannot run anything more: {self.broken}")
        with self._lock:
            try:
                return run_watched(
                    lambda: self.run(factory, action=action), self.wall_limit, self._heartbeat
                )
            except exception.PlugsimError as ex:
                from sdk.testing.watchdog import HandlerBlocked

                if isinstance(ex, HandlerBlocked):
                    self.broken = str(ex)
                raise

    def close(self) -> None:
        """Close the world (once) unless a blocked handler still holds its loop."""
        if self.broken or self.closed:
            return
        self.closed = True
        super().close()

    # -- leaks ---------------------------------------------------------------

    def settle(self, seconds: float = SETTLE_SECONDS) -> None:
        """Let *seconds* of virtual time pass (pending transitions complete)."""
        self.clock.advance(seconds)

    def leaked(self) -> list[Any]:
        """Entities alive now (after settling) that did not exist when the world began."""
        self.settle()
        return list(self.cloud.leaks(self.baseline))

    def entity(self, physical_id: Any) -> Any:
        """Return the inventory item whose id is *physical_id*, or None."""
        if physical_id is None:
            return None
        for item in self.cloud.inventory():
            if item.id == str(physical_id):
                return item
        return None

    def delete_entity(self, item: Any) -> None:
        """Delete a fake-cloud entity behind the plug-in's back (its service's delete call)."""
        service = self.fake_cloud("deleting an entity behind a plug-in's back").service(
            item.service
        )
        for attr in sorted(dir(type(service))):
            meta = getattr(getattr(type(service), attr, None), "__fake_operation__", None)
            if meta is None or not meta[0].endswith(".delete"):
                continue
            if meta[1] in (item.kind, None):
                getattr(service, attr)(item.id)
                self.settle()
                return
        raise exception.PlugsimError(
            f"fake cloud service {item.service} has no delete operation for {item.kind}"
        )
