"""Stack handles and the single-resource harness that tests (and the conformance suite) drive.

:class:`PlugsimEnv` is what one test gets: a seed, fault and latency settings,
resource types registered by the test, and the worlds it opened (each one a
fresh in-memory :class:`~sdk.testing._world.PlugsimWorld` with its own fake
cloud). :meth:`PlugsimEnv.stack` returns a :class:`StackHandle`;
:meth:`PlugsimEnv.harness` a :class:`ResourceHarness` for one resource class.

**Threads and virtual time.** Every action runs the engine on the world's own
:class:`simulator.clock.VirtualTimeEventLoop` in a daemon worker thread while
the calling thread waits (and watches for a blocked handler, see
:mod:`sdk.testing.watchdog`). So the same blocking methods work in sync tests
and inside async tests, where a running loop forbids starting another in the
same thread; the ``a``-prefixed coroutines (``await stack.acreate()``) wait
for that worker without blocking the test's own loop. The test loop's clock is
never touched: all simulated time passes on the world's virtual clock.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import itertools
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Self

import yaml

from sdk import exception
from sdk.testing._world import PlugsimWorld
from sdk.testing.report import Coverage
from simulator.rng import derive_seed

HOT_VERSION = "2018-08-31"


def _template(value: Any) -> Any:
    """Accept a dict, a YAML string or a path; return a dict or a path for the engine."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, str):
        if "\n" not in value and Path(value).is_file():
            return value
        try:
            data = yaml.safe_load(value)
        except yaml.YAMLError as ex:
            raise exception.StackValidationFailed(f"template: invalid YAML: {ex}") from None
        if not isinstance(data, dict):
            raise exception.StackValidationFailed(
                f"template: expected a mapping (or a path to one), got {value!r:.60}"
            )
        return data
    raise exception.StackValidationFailed(
        f"template: expected a dict, YAML text or a path, got {type(value).__name__}"
    )


class StackHandle:
    """One stack of a test world, driven action by action.

    Every action returns when the stack has settled (``COMPLETE`` or
    ``FAILED``; a failing action is a state, not an exception). ``.state``,
    ``.outputs``, ``.events`` and ``.resources`` read the engine's view.
    """

    def __init__(
        self,
        env: PlugsimEnv,
        world: PlugsimWorld,
        name: str,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
    ) -> None:
        self.env = env
        self.world = world
        self.name = name
        self.template = _template(template)
        self.environment = [e if isinstance(e, Mapping) else os.fspath(e) for e in environment]
        self.parameters = dict(parameters or {})
        self.timeout_mins = timeout_mins
        self.disable_rollback = disable_rollback
        self.abandoned: dict[str, Any] | None = None

    # -- running ---------------------------------------------------------------

    def _run(self, action: str, factory: Callable[[], Any]) -> Any:
        mark = self.world.store.last_event_id()
        faults = len(self.world.cloud.injected_faults())
        try:
            return self.world.run_blocking(factory, action=action)
        finally:
            if not self.world.broken:
                self.env.observe(self.world, mark, faults)

    @property
    def stack(self) -> Any:
        """The engine's :class:`simulator.stack.Stack` (deleted stacks included)."""
        return self.world.get_stack(self.name, deleted_ok=True)

    def create(self) -> Self:
        """Create the stack; return self."""
        self._run(
            "CREATE",
            lambda: self.world.acreate_stack(
                self.name,
                self.template,
                self.environment,
                self.parameters,
                timeout_mins=self.timeout_mins,
                disable_rollback=self.disable_rollback,
            ),
        )
        return self

    def update(
        self,
        new_template: Any = None,
        environment: Iterable[Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        disable_rollback: bool | None = None,
        timeout_mins: float | None = None,
    ) -> Self:
        """Update to *new_template* (None keeps the current one); return self."""
        tmpl = None if new_template is None else _template(new_template)
        if tmpl is not None:
            self.template = tmpl
        self._run(
            "UPDATE",
            lambda: self.world.aupdate_stack(
                self.name,
                tmpl,
                environment,
                parameters,
                disable_rollback=disable_rollback,
                timeout_mins=timeout_mins,
            ),
        )
        return self

    def suspend(self) -> Self:
        """Suspend every resource; return self."""
        self._run("SUSPEND", lambda: self.world.asuspend_stack(self.name))
        return self

    def resume(self) -> Self:
        """Resume every resource; return self."""
        self._run("RESUME", lambda: self.world.aresume_stack(self.name))
        return self

    def check(self) -> Self:
        """Check every resource; return self."""
        self._run("CHECK", lambda: self.world.acheck_stack(self.name))
        return self

    def delete(self) -> Self:
        """Delete the stack; return self."""
        self._run("DELETE", lambda: self.world.adelete_stack(self.name))
        return self

    def snapshot(self, name: str | None = None) -> Any:
        """Snapshot the stack; return the :class:`simulator.store.SnapshotRecord`."""
        return self._run("SNAPSHOT", lambda: self.world.asnapshot_stack(self.name, name))

    def restore(self, snap: Any) -> Self:
        """Restore from a snapshot (its record, id or name); return self."""
        ref = getattr(snap, "id", snap)
        self._run("RESTORE", lambda: self.world.arestore_stack(self.name, ref))
        return self

    def abandon(self) -> dict[str, Any]:
        """Forget the stack, leaving its physical resources; return the abandon data."""
        self.abandoned = self.world.abandon_stack(self.name)
        return self.abandoned

    def adopt(self, data: Mapping[str, Any], name: str | None = None) -> StackHandle:
        """Adopt the resources in *data* into a new stack (named *name*); return its handle."""
        new_name = name or self.env.next_name("adopted")
        handle = StackHandle(
            self.env,
            self.world,
            new_name,
            dict(data.get("template") or {}),
            disable_rollback=self.disable_rollback,
        )
        handle._run("ADOPT", lambda: self.world.aadopt_stack(new_name, data))
        return handle

    # -- async forms ---------------------------------------------------------------

    async def _in_worker(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, functools.partial(method, *args, **kwargs))

    async def acreate(self) -> Self:
        """Awaitable :meth:`create` (the engine runs in a worker, in virtual time)."""
        return await self._in_worker(self.create)

    async def aupdate(self, new_template: Any = None, **kwargs: Any) -> Self:
        """Awaitable :meth:`update`."""
        return await self._in_worker(self.update, new_template, **kwargs)

    async def asuspend(self) -> Self:
        """Awaitable :meth:`suspend`."""
        return await self._in_worker(self.suspend)

    async def aresume(self) -> Self:
        """Awaitable :meth:`resume`."""
        return await self._in_worker(self.resume)

    async def acheck(self) -> Self:
        """Awaitable :meth:`check`."""
        return await self._in_worker(self.check)

    async def adelete(self) -> Self:
        """Awaitable :meth:`delete`."""
        return await self._in_worker(self.delete)

    async def asnapshot(self, name: str | None = None) -> Any:
        """Awaitable :meth:`snapshot`."""
        return await self._in_worker(self.snapshot, name)

    async def arestore(self, snap: Any) -> Self:
        """Awaitable :meth:`restore`."""
        return await self._in_worker(self.restore, snap)

    async def aadopt(self, data: Mapping[str, Any], name: str | None = None) -> StackHandle:
        """Awaitable :meth:`adopt`."""
        return await self._in_worker(self.adopt, data, name)

    # -- reading -----------------------------------------------------------------

    @property
    def state(self) -> str:
        """The stack's ``ACTION_STATUS`` (e.g. ``CREATE_COMPLETE``)."""
        return self.stack.state

    @property
    def status_reason(self) -> str:
        """Why the stack is in its state."""
        return self.stack.status_reason

    @property
    def outputs(self) -> dict[str, Any]:
        """``{output key: value}``; an output that failed to resolve maps to its error."""
        out = {}
        for item in self.stack.outputs():
            out[item["output_key"]] = item.get("output_value", item.get("output_error"))
        return out

    @property
    def events(self) -> list[Any]:
        """Every event of the stack (and its nested stacks), in order."""
        return self.world.stack_events(self.name)

    @property
    def resources(self) -> dict[str, Any]:
        """The current resources by name (the plug-in objects)."""
        return dict(self.stack.resources)

    def resource_states(self) -> dict[str, str]:
        """``{resource name: 'ACTION_STATUS'}``."""
        return {name: str(res.state) for name, res in self.resources.items()}


class ResourceHarness(StackHandle):
    """Drives one resource class through its actions without a template file.

    The class is registered under *type_name* in the world and wrapped in a
    one-resource stack; ``.resource`` is the plug-in object, ``.physical_id``
    its id and :meth:`cloud_entity` the fake-cloud entity behind it.
    """

    def __init__(
        self,
        env: PlugsimEnv,
        world: PlugsimWorld,
        resource_class: type,
        properties: Mapping[str, Any] | None = None,
        *,
        type_name: str | None = None,
        name: str = "resource",
        deletion_policy: str | None = None,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        stack_name: str | None = None,
        companions: Mapping[str, Any] | None = None,
    ) -> None:
        self.type_name = type_name or f"Plugsim::Harness::{resource_class.__name__}"
        self.resource_name = name
        self.deletion_policy = deletion_policy
        self.companions = {str(k): v for k, v in (companions or {}).items()}
        if name in self.companions:
            raise exception.ConfigurationError(
                f"a companion resource may not be called {name!r}: that is the resource under test"
            )
        self.properties_now = dict(properties or {})
        #: ``(property, value)`` pairs a conformance class made up (see ``made_up`` there)
        self.made_up: tuple[tuple[str, Any], ...] = ()
        world.add_type(self.type_name, resource_class)
        super().__init__(
            env,
            world,
            stack_name or env.next_name("harness"),
            self.template_for(self.properties_now),
            timeout_mins=timeout_mins,
            disable_rollback=disable_rollback,
        )

    def template_for(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """Return the template for *properties*: the resource and its companions.

        Companions are resources the one under test needs (a server for an
        attachment, say); its properties may refer to them with
        ``get_resource`` / ``get_attr``.
        """
        body: dict[str, Any] = {"type": self.type_name, "properties": dict(properties)}
        if self.deletion_policy:
            body["deletion_policy"] = self.deletion_policy
        resources = {**copy.deepcopy(self.companions), self.resource_name: body}
        return {"heat_template_version": HOT_VERSION, "resources": resources}

    def update(self, new_template: Any = None, *args: Any, **kwargs: Any) -> ResourceHarness:
        """Update with new *properties* (a mapping of properties, not a template)."""
        if new_template is not None and "heat_template_version" not in new_template:
            self.properties_now = dict(new_template)
            new_template = self.template_for(self.properties_now)
        super().update(new_template, *args, **kwargs)
        return self

    @property
    def resource(self) -> Any:
        """The plug-in object (the current one after a replacement)."""
        return self.stack.resources[self.resource_name]

    @property
    def physical_id(self) -> Any:
        """The resource's physical id."""
        return self.resource.resource_id

    def cloud_entity(self) -> Any:
        """The fake-cloud inventory item behind the resource, or None."""
        return self.world.entity(self.physical_id)


class PlugsimEnv:
    """Everything one test drives: seed, faults, latency, types and the worlds it opened."""

    def __init__(
        self,
        seed: int,
        *,
        faults: Any = None,
        latency: Any = None,
        wall_limit: float | None = None,
        coverage: Coverage | None = None,
        types: Mapping[str, type] | None = None,
        world: Any = None,
    ) -> None:
        self.seed = int(seed)
        #: the world file or preset every world of this test starts from (None: default)
        self.world_file = world
        self.faults = faults
        self.latency = latency
        self.wall_limit = wall_limit
        self.coverage = coverage if coverage is not None else Coverage()
        self.types = dict(types or {})
        self.worlds: list[PlugsimWorld] = []
        self._world: PlugsimWorld | None = None
        self._names = itertools.count(1)
        #: the command that runs this test again (set by the pytest plugin), for verdicts
        self.replay = ""
        #: every resource harness this test made, oldest first (a failure's verdict reads the last)
        self.harnesses: list[ResourceHarness] = []

    def next_name(self, prefix: str) -> str:
        """Return a fresh stack name (``prefix-1``, ``prefix-2`` ...)."""
        return f"{prefix}-{next(self._names)}"

    def new_world(
        self, *, faults: Any = "default", latency: Any = "default", seed: int | None = None
    ) -> PlugsimWorld:
        """Open a fresh world (its own store, clock and fake cloud) seeded from this test.

        The first world gets the test's seed, later ones seeds derived from it
        (or *seed*); *faults*/*latency* default to the test's settings.
        """
        index = len(self.worlds)
        if seed is None:
            seed = self.seed if index == 0 else derive_seed(self.seed, f"world-{index}") % 2**31
        world = PlugsimWorld(
            seed=seed,
            faults=self.faults if faults == "default" else faults,
            latency=self.latency if latency == "default" else latency,
            types=self.types,
            wall_limit=self.wall_limit,
            world_file=self.world_file,
        )
        self.worlds.append(world)
        return world

    @property
    def world(self) -> PlugsimWorld:
        """The test's default world (opened on first use)."""
        if self._world is None:
            self._world = self.new_world()
        return self._world

    def observe(self, world: PlugsimWorld, mark: int, faults_before: int) -> None:
        """Add the events and injected faults since *mark* to the coverage matrix."""
        events = [ev for ev in world.store.events() if ev.id > mark]
        self.coverage.record_events(events)
        injected = world.cloud.injected_faults()[faults_before:]
        if injected:
            types = sorted({ev.resource_type for ev in events if not ev.is_stack_event})
            for fault in injected:
                for type_name in types:
                    self.coverage.add_fault(type_name, fault.effect)

    def stack(
        self,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        *,
        name: str | None = None,
        world: PlugsimWorld | None = None,
        **kwargs: Any,
    ) -> StackHandle:
        """Return a handle for a new stack of *template* (not created yet: call ``create()``)."""
        return StackHandle(
            self,
            world or self.world,
            name or self.next_name("stack"),
            template,
            environment,
            parameters,
            **kwargs,
        )

    def harness(
        self,
        resource_class: type,
        properties: Mapping[str, Any] | None = None,
        *,
        world: PlugsimWorld | None = None,
        **kwargs: Any,
    ) -> ResourceHarness:
        """Return a :class:`ResourceHarness` for *resource_class* (not created yet)."""
        made = ResourceHarness(self, world or self.world, resource_class, properties, **kwargs)
        self.harnesses.append(made)
        return made

    def violations(self) -> list[str]:
        """Illegal transitions seen in any world of this test."""
        return [v for w in self.worlds for v in w.transitions.violations]

    def close(self) -> None:
        """Close every world this test opened."""
        for world in self.worlds:
            world.close()
