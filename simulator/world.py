"""A simulated world: store + virtual clock + seeded RNG + fake cloud + stacks.

:class:`World` is what the CLI opens and what tests drive. Every stack action
is available as a coroutine (``acreate_stack`` ...) and as a blocking method
(``create_stack`` ...) that runs it on the world's
:class:`simulator.clock.VirtualTimeEventLoop`.

Commits. A world that may change (the default) holds its store's lease (one
writer per world, :mod:`simulator.store_lease`) and commits *all* of itself
atomically: the stack, resource and event rows, the fake cloud's changed
entities, the virtual clock, the random streams and the id counters go into
one SQLite transaction, so a world reopened after a crash at any instant
equals a committed state (resources and cloud agree, the clock and the
streams continue from there, no id is drawn twice). When to commit is the
*durability*:

* ``instant`` (the default): one commit per virtual instant -- when every
  task has done what it does at the current virtual time and the loop is about
  to move the clock on (a group commit), and at the end of every run;
* ``transition``: also one commit per resource or stack transition, for a
  process watching the world live.

A *transient* world (``World(transient=True)``, in memory only, what ``plugsim simulate``
and every campaign run use) can never be reopened, so its commits leave out what only a
reopened world reads: the fake cloud's state, the clock and the random streams. It
writes the stack, resource and event rows the engine reads back, exactly as any other
world does, and runs identically.

A world opened ``readonly`` never writes (it is what ``stack show`` and the
other readers use): a stack another process is working on stays as it is.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from sdk import exception
from sdk.clients import ClientPlugin
from sdk.secrets import MASK
from simulator import watchdog
from simulator.backend import DEFAULT_BACKEND, CloudBackend, load_backend, restore_backend
from simulator.clock import VirtualClock, VirtualTimeEventLoop
from simulator.events import STACK_TYPE, Event
from simulator.lifecycle import LifecycleRegistry, cancel_quietly
from simulator.limits import DEFAULTS, Limits
from simulator.nested_stacks import EngineNestedStacks
from simulator.plan import CLIENT_WATCH, load_source
from simulator.project_config import (
    HANDLER_WALL_LIMIT,
    check_wall_limit,
)
from simulator.rng import SeededRNG, derive_seed
from simulator.scheduler import fewer_full_collections, frozen_heap
from simulator.stack import Stack
from simulator.stack_api import StackAPI
from simulator.stack_source import StackSource
from simulator.store import LeaseHolder, Store, WorldBusy
from simulator.type_sources import world_registry
from simulator.world_disk import DiskFullRecovery, disk_full
from simulator.world_stacks import WorldStacks

T = TypeVar("T")

#: Where a world lives when neither ``--state`` nor ``PLUGSIM_STATE`` says otherwise.
DEFAULT_STATE = os.path.join(".plugsim", "world.db")


def default_state_path() -> str:
    """Return ``$PLUGSIM_STATE`` or ``./.plugsim/world.db``."""
    return os.environ.get("PLUGSIM_STATE") or DEFAULT_STATE


#: The commit granularities of a world (see the module docstring).
DURABILITIES = ("instant", "transition")


def _command_line() -> str:
    """This process's command, as the lease shows it (parameter values masked: they may be secret)."""
    words: list[str] = []
    for i, arg in enumerate(sys.argv[:8]):
        if i == 0:
            arg = os.path.basename(arg)
        elif words and words[-1] in ("--parameter", "-P") and "=" in arg:
            arg = arg.split("=", 1)[0] + "=" + MASK
        elif arg.startswith("--parameter=") and arg.count("=") > 1:
            arg = _mask_option(arg)
        words.append(arg)
    return " ".join(words)


def _mask_option(arg: str) -> str:
    """``--parameter=KEY=VALUE`` with the value masked."""
    option, _, pair = arg.partition("=")
    return f"{option}={pair.split('=', 1)[0]}={MASK}"


class World(WorldStacks, DiskFullRecovery, StackAPI):
    """One simulated world and the stacks in it."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        seed: int | None = None,
        faults: object = None,
        backend: str | None = None,
        world_file: object = None,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        entry_points: bool = True,
        lifecycle_plugins: Iterable[Any] = (),
        strict_lifecycle: bool = False,
        readonly: bool = False,
        wait: bool = False,
        durability: str = "instant",
        command: str | None = None,
        on_wait: Callable[[str], None] | None = None,
        limits: Limits | None = None,
        handler_wall_limit: float | None = None,
        transient: bool = False,
    ) -> None:
        """Open (or start) the world kept in *store* (default: a new in-memory one).

        *readonly*: never write (no lease; a world whose writer died is still
        recovered when nobody else holds the lease). Otherwise the lease is
        taken for *command* (default: this process's command line); a world
        busy with another live process is :class:`~simulator.store.WorldBusy`,
        unless *wait* (then ``on_wait(text)`` is called and this blocks until
        the lease is free). *durability*: ``instant`` or ``transition``.
        *transient*: an in-memory world that is never reopened (module docstring).
        """
        if durability not in DURABILITIES:
            raise exception.ConfigurationError(
                f"durability must be one of {', '.join(DURABILITIES)}, not {durability!r}"
            )
        #: the :class:`simulator.limits.Limits` of this engine (a project's plugsim.yaml
        #: may change them for its stacks)
        self.limits = limits or DEFAULTS
        #: wall seconds a plug-in call may take before it is stopped (:mod:`simulator.watchdog`)
        self.handler_wall_limit = (
            None
            if handler_wall_limit is None
            else check_wall_limit(handler_wall_limit, "World(handler_wall_limit=...)")
        )
        self.store = store if store is not None else Store()
        if transient and self.store.path != ":memory:":
            raise exception.ConfigurationError(
                f"{self.store.path}: only an in-memory world can be transient (it is never reopened)"
            )
        #: an in-memory world never reopened: commits leave out the cloud, clock and streams
        self.transient = transient
        self._configured_limit = self.store.get_meta(HANDLER_WALL_LIMIT)
        self.readonly = readonly
        self.durability = durability
        self.recovered: list[Event] = []
        #: the dead holder whose lease this world took over (None: it was free)
        self.took_over: LeaseHolder | None = None
        command = command or _command_line()
        lease_for_recovery = False
        if readonly:
            if self.store.needs_recovery():
                lease_for_recovery, self.took_over = self.store.try_lease(command)
        else:
            self.took_over = self.store.acquire_lease(command, wait=wait, on_wait=on_wait)
            self.store.deferred = True
        stored_seed = self.store.get_meta("seed")
        if stored_seed is not None and seed is not None and int(seed) != int(stored_seed):
            self.store.release_lease()
            self.store.close()
            raise exception.ConfigurationError(
                f"{self.store.path}: this world was created with seed {stored_seed}; "
                f"use a new --state to run with seed {seed}"
            )
        self.seed = int(stored_seed if stored_seed is not None else (seed or 0))
        self.clock = VirtualClock(float(self.store.get_meta("virtual_time", 0.0)))
        self.loop = VirtualTimeEventLoop(self.clock)
        self.rng = SeededRNG(self.seed)
        streams = self.store.load_streams("world")
        self.rng.setstate(streams if streams is not None else self.store.get_meta("rng", {}))
        self._saved_streams = self.rng.draws()
        self._saved_time = self.clock.now() if stored_seed is not None else None
        self._legacy = streams is None and self.store.get_meta("rng") is not None
        self.project_id = str(self.store.get_meta("project_id") or self.rng.uuid("project"))
        stored_backend = self.store.get_meta("backend")
        if stored_seed is not None and backend and backend != (stored_backend or DEFAULT_BACKEND):
            raise exception.ConfigurationError(
                f"{self.store.path}: this world was created with the fake cloud backend "
                f"{stored_backend or DEFAULT_BACKEND!r}; use a new --state to run on {backend!r}"
            )
        #: the ``plugsim.fake_clouds`` entry point the cloud is built (and restored) by
        self.backend: str = backend or stored_backend or DEFAULT_BACKEND
        if isinstance(world_file, os.PathLike):
            world_file = os.fspath(world_file)
        stored_world = self.store.get_meta("world_file")
        if stored_seed is not None and world_file is not None and world_file != stored_world:
            raise exception.ConfigurationError(
                f"{self.store.path}: this world was created from world "
                f"{stored_world or 'default'!r}; use a new --state to start from {world_file!r}"
            )
        #: the world file (path, preset or data) the cloud was first built from, or None
        self.world_file: object = stored_world if stored_seed is not None else world_file
        self.cloud: CloudBackend = self._open_cloud(faults)
        if self.store.path != ":memory:" and hasattr(self.cloud, "attach_blobs"):
            # large object bodies live beside the world file; only the writer tidies them
            self.cloud.attach_blobs(self.store.path + "-blobs", collect=not readonly)
        self.registry = world_registry(plugin_dirs, entry_points=entry_points)
        #: this engine's stack lifecycle plug-ins (``module:Class`` strings, classes or objects)
        self.lifecycle = LifecycleRegistry(
            lifecycle_plugins, entry_points=entry_points, strict=strict_lifecycle
        )
        self.listeners: list[Callable[[Event], None]] = []
        #: Resources whose data changed mid-action and whose row is not yet
        #: written (see :meth:`simulator.context.EngineContext.data_changed`).
        self.unsaved: dict[int, tuple[Any, Any]] = {}
        self._stacks: dict[str, Stack] = {}
        self._plugins: dict[str, ClientPlugin] = {}
        self._cancel_checked = -1.0
        #: stacks whose cancel request was read since the last message (:meth:`check_cancel`)
        self._cancels_read: set[str] = set()
        #: the reason of the FAILED states a full disk kept from being written (:meth:`run`)
        self._unwritten_failure: str | None = None
        #: the FAILED events of those states, when only the states could be written
        self._owed_events: list[Event] = []
        if readonly:
            if lease_for_recovery:
                self._recover(command)
                self.store.release_lease()
            self.store.write_gate = self._refuse_write
            return
        if stored_seed is None:
            self.store.set_meta("seed", self.seed)
            self.store.set_meta("project_id", self.project_id)
            self.store.set_meta("backend", self.backend)
            self.store.set_meta("world_file", self.world_file)
        self._recover(command)
        self._seal_old_secrets(new=stored_seed is None)
        self.commit()
        if self.store.path != ":memory:":
            self.clock.before_jump = self._instant_done
            if durability == "transition":
                self.store.on_transition = self.commit

    def _recover(self, command: str) -> None:
        """Fail what a dead engine left in progress, saying whose lease was taken over."""
        now = self.clock.now()
        dead = self.took_over
        if dead is not None:
            reason = (
                f"world lease of {dead.describe()} taken over by `{command}` "
                f"(pid {os.getpid()}): that process is no longer running"
            )
            stacks = self.store.in_progress_stacks(top_level=True) or [("", "", "")]
            for sid, name, _action in stacks:
                ev = Event(
                    0, sid, name, name, STACK_TYPE, sid or None, "LEASE", "COMPLETE", reason, now
                )
                self.recovered.append(self.store.add_event(ev))
        if self.store.needs_recovery():
            self.recovered.extend(self.store.recover(now))

    def _seal_old_secrets(self, *, new: bool) -> None:
        """Seal the plain-text secrets of a world written before sealing (:mod:`simulator.store_seal`).

        The hidden values of every stored stack are made known by building its
        definition (as loading it would), then every row holding one is sealed
        in this writer's next commit. A new world only records that it needs no check.
        """
        store = self.store
        if store.path == ":memory:" or store.seal_checked():
            return
        if not new:
            for rec in store.list_stacks(include_deleted=True, nested=True):
                try:
                    Stack(self, rec, StackSource.from_doc(rec.doc["source"])).definition  # noqa: B018
                except Exception:  # noqa: BLE001 - a stack that no longer builds has no values to learn
                    continue
        store.seal_existing(scan=not new)

    def _refuse_write(self) -> None:
        holder = self.store.lease_holder()
        if holder is not None:
            raise WorldBusy(
                f"world {self.store.path} is busy: {holder.describe()}; "
                "use `plugsim --wait-lock ...` to queue"
            )
        raise exception.PlugsimError(
            f"world {self.store.path} was opened read-only; this command cannot change it"
        )

    @classmethod
    def open(cls, state: str | os.PathLike[str] | None = None, **kwargs: Any) -> World:
        """Open (or create) the world stored at *state* (default: :func:`default_state_path`).

        Keyword arguments go to :class:`World` (``readonly``, ``wait``,
        ``durability`` ...); a failure to open closes the store again.
        """
        path = str(state) if state is not None else default_state_path()
        store = Store(path)
        try:
            return cls(store, **kwargs)
        except BaseException:
            try:
                store.release_lease()
            finally:
                store.close()
            raise

    def _open_cloud(self, faults: object) -> CloudBackend:
        """Restore the cloud through the backend that saved it, or build a new one.

        A backend that tracks its changes (``state_delta``) is stored in pieces
        (:mod:`simulator.store_cloud`); any other backend as one state document
        rewritten at every commit, as a world written before schema 2 was.
        """
        seed = derive_seed(self.seed, "cloud")
        state = self.store.load_cloud(self.clock.now())
        stored = state is not None
        if state is None:
            state = self.store.get_meta("cloud")
        if state is not None:
            cloud = restore_backend(self.backend, state, seed=seed, clock=self.clock)
            if stored and hasattr(cloud, "mark_saved"):
                cloud.mark_saved()
            elif not stored and hasattr(cloud, "state_delta"):
                self._legacy = True  # the first commit stores it in pieces
            if faults is not None:
                cloud.set_faults(faults)
            return cloud
        return load_backend(
            self.backend, seed=seed, clock=self.clock, faults=faults, world=self.world_file
        )

    # -- housekeeping ---------------------------------------------------------

    def commit(self) -> None:
        """Commit everything that changed in this world since the last commit, atomically.

        The rows written so far, the resource rows still waiting for their next
        transition, the fake cloud's changes, the virtual clock and the random
        streams go into one transaction. A read-only world commits nothing; a
        commit is put off while a write block is open.
        """
        store = self.store
        if self.readonly or store.in_block:
            return
        if self._unwritten_failure is not None:
            self._write_failure()
        if self.transient:
            # nobody will reopen this world: only the rows the engine reads back are written
            while self.unsaved:
                _, (stack, res) = self.unsaved.popitem()
                stack.persist_resource(res)
            store.commit()
            return
        try:
            now = self.clock.now()
            saved = self._saved_streams
            moved = {
                name: self.rng.stream(name).getstate()
                for name, draws in self.rng.draws().items()
                if saved.get(name) != draws
            }
            cloud: Any = self.cloud
            incremental = hasattr(cloud, "state_delta")
            # a backend without deltas is written whole at every commit
            delta = (cloud.state_delta() if cloud.changed() else None) if incremental else True
            if not (self.unsaved or moved or delta or self._legacy or now != self._saved_time):
                # nothing of the world's own: commit the rows written so far, if any
                if store.in_transaction:
                    store.commit()
                return
            with store.transaction():
                while self.unsaved:
                    _, (stack, res) = self.unsaved.popitem()
                    stack.persist_resource(res)
                if now != self._saved_time:
                    store.set_meta("virtual_time", now)
                store.save_streams("world", moved)
                if delta is True:
                    store.set_meta("cloud", cloud.to_state())
                elif delta:
                    store.save_cloud(delta)
                if self._legacy:
                    if incremental:
                        store.delete_meta("cloud")
                    store.delete_meta("rng")
            store.commit()
            self._saved_time = now
            self._saved_streams = self.rng.draws()
            self._legacy = False
            blobs = getattr(cloud, "blobs", None)
            if blobs is not None:
                with contextlib.suppress(OSError):  # tidying up never fails a done commit
                    blobs.committed()
        except BaseException:
            if hasattr(self.cloud, "resync"):
                self.cloud.resync()
            self._saved_streams.clear()
            self._saved_time = None
            raise

    def save(self) -> None:
        """Commit the world now (see :meth:`commit`)."""
        self.commit()

    def _instant_done(self) -> None:
        """The loop is about to move the clock on: commit this virtual instant."""
        self.commit()

    def close(self) -> None:
        """Commit, give the lease back and close the store and the event loop (once)."""
        if self.loop.is_closed():
            return
        try:
            self.commit()
        finally:
            self.clock.before_jump = None
            self.store.on_transition = None
            self.loop.close()
            try:
                self.store.release_lease()
            finally:
                self.store.close()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return (and cache) the fake cloud's client plug-in for *name*."""
        watch = CLIENT_WATCH.get()
        if watch is not None:  # a validation that asks the cloud is not shared (simulator.plan)
            watch.append(name)
        plugin = self._plugins.get(name)
        if plugin is None:
            plugin = self.cloud.client_plugin(name)
            self._plugins[name] = plugin
        return plugin

    def nested_stacks(self, stack: Stack) -> EngineNestedStacks:
        """The ``nested_stacks()`` facet of the resources of *stack*."""
        return EngineNestedStacks(stack)

    def emit(self, event: Event) -> None:
        """Pass a recorded event to every listener (progress display)."""
        for listener in self.listeners:
            listener(event)

    def check_cancel(self, stack: Stack) -> None:
        """Honour a cancel request another process left in the store for *stack*."""
        now = self.clock.now()
        if now == self._cancel_checked:
            return
        self._cancel_checked = now
        if self.store.new_messages():
            self._cancels_read.clear()
        elif stack.id in self._cancels_read:
            return  # no message since this stack's cancel key was last read
        self._cancels_read.add(stack.id)
        key = f"cancel:{stack.id}"
        asked = self.store.get_meta(key)
        if asked:
            self.store.set_meta(key, False)
            # ``"no-rollback"``: a cancel without rollback (Heat's cancel_without_rollback)
            self.loop.call_soon(cancel_quietly, stack, asked != "no-rollback")

    def run(
        self,
        coro_factory: Callable[[], Awaitable[T]],
        *,
        stack_id: str | None = None,
        action: str = "RUN",
    ) -> T:
        """Run a coroutine on the world's virtual-time loop, recording the run and its seed.

        The whole run, its last commit included, is one block of rare full collections
        with the heap alive on entry frozen (:func:`simulator.scheduler.fewer_full_collections`,
        :func:`simulator.scheduler.frozen_heap`).
        """
        with fewer_full_collections(), frozen_heap():
            return self._run(coro_factory, stack_id, action)

    def _run(
        self, coro_factory: Callable[[], Awaitable[T]], stack_id: str | None, action: str
    ) -> T:
        run_id = self.store.start_run(stack_id, action, self.seed, self.clock.now())
        outcome = "error"
        guard = watchdog.Watchdog(
            self.loop, self.plugin_wall_limit, lambda: watchdog.cancel_running(self)
        )
        try:
            with guard, self.http_wire():
                result = self.loop.run_until_complete(coro_factory())
            outcome = "done"
            return result
        except BaseException as ex:
            full = disk_full(ex)
            if full is None:
                raise
            outcome = "disk full"
            self._after_disk_full(full)
            raise
        finally:
            if outcome != "disk full":
                try:
                    self.store.finish_run(run_id, self.clock.now(), outcome)
                    self.commit()
                except BaseException as ex:
                    full = disk_full(ex)
                    if full is not None:
                        self._after_disk_full(full)
                    raise
            if guard.interrupted and outcome == "done":
                raise KeyboardInterrupt  # Ctrl-C: the cancelled action is committed; stop

    def http_wire(self) -> contextlib.AbstractContextManager[Any]:
        """The backend's HTTP APIs served to plug-in code (optional in the port).

        Entered around every run and every reading of a stack's outputs: plug-in
        code that calls HTTP itself (``docker.APIClient``) reaches the fake cloud.
        """
        wire = getattr(self.cloud, "http_wire", None)
        return wire() if callable(wire) else contextlib.nullcontext()

    def plugin_wall_limit(self) -> float:
        """The wall seconds one plug-in call may take: the option, ``plugsim.yaml`` or 60."""
        if self.handler_wall_limit is not None:
            return self.handler_wall_limit
        if self._configured_limit is not None:
            return float(self._configured_limit)
        return watchdog.DEFAULT_WALL_LIMIT

    def source(
        self,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        files: Mapping[str, str] | None = None,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        *,
        project_plugins: bool = True,
    ) -> StackSource:
        """Build a :class:`StackSource` from a template path or dict and env paths/dicts.

        *project_plugins* false leaves out the plug-in directories of the
        template's ``plugsim.yaml`` (see :mod:`simulator.project_trust`).
        """
        source = load_source(
            template,
            environment,
            parameters,
            files=files,
            plugin_dirs=[*self.registry.plugin_dirs, *(os.fspath(d) for d in plugin_dirs)],
            limits=self.limits,
            project_plugins=project_plugins,
        )
        if source.base_dir:
            from simulator.project_config import read_config as read_project_config

            limit = read_project_config(Path(source.base_dir)).get(HANDLER_WALL_LIMIT)
            if limit is not None:
                self.store.set_meta(HANDLER_WALL_LIMIT, limit)
                self._configured_limit = limit
        return source
