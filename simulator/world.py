"""A simulated world: store + virtual clock + seeded RNG + fake cloud + stacks.

:class:`World` is what the CLI opens and what tests drive. Every stack action
is available as a coroutine (``acreate_stack`` ...) and as a blocking method
(``create_stack`` ...) that runs it on the world's
:class:`simulator.clock.VirtualTimeEventLoop`; between actions the virtual
time, the RNG streams and the fake cloud's state are saved in the store, so the
next process continues the same world.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from sdk import exception
from sdk.clients import ClientPlugin
from simulator import watchdog
from simulator.clock import VirtualClock, VirtualTimeEventLoop
from simulator.events import Event
from simulator.lifecycle import CONFIG_KEY, LifecycleRegistry, read_config
from simulator.registry import TypeRegistry
from simulator.rng import SeededRNG, derive_seed
from simulator.stack import Stack
from simulator.stack_api import StackAPI
from simulator.stack_loader import load_stack
from simulator.stack_source import StackSource
from simulator.store import StackRecord, Store

T = TypeVar("T")

#: Where a world lives when neither ``--state`` nor ``PLUGSIM_STATE`` says otherwise.
DEFAULT_STATE = os.path.join(".plugsim", "world.db")


def default_state_path() -> str:
    """Return ``$PLUGSIM_STATE`` or ``./.plugsim/world.db``."""
    return os.environ.get("PLUGSIM_STATE") or DEFAULT_STATE


def _pid_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class World(StackAPI):
    """One simulated world and the stacks in it."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        seed: int | None = None,
        faults: Any = None,
        backend: str | None = None,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        entry_points: bool = True,
        lifecycle_plugins: Iterable[Any] = (),
        strict_lifecycle: bool = False,
        handler_wall_limit: float | None = None,
    ) -> None:
        #: wall seconds a plug-in call may take before it is stopped (:mod:`simulator.watchdog`)
        self.handler_wall_limit = (
            None
            if handler_wall_limit is None
            else watchdog.check_limit(handler_wall_limit, "World(handler_wall_limit=...)")
        )
        self.store = store if store is not None else Store()
        self._configured_limit = self.store.get_meta(watchdog.CONFIG_KEY)
        stored_seed = self.store.get_meta("seed")
        if stored_seed is not None and seed is not None and int(seed) != int(stored_seed):
            raise exception.ConfigurationError(
                f"{self.store.path}: this world was created with seed {stored_seed}; "
                f"use a new --state to run with seed {seed}"
            )
        self.seed = int(stored_seed if stored_seed is not None else (seed or 0))
        self.clock = VirtualClock(float(self.store.get_meta("virtual_time", 0.0)))
        self.loop = VirtualTimeEventLoop(self.clock)
        self.rng = SeededRNG(self.seed)
        self.rng.setstate(self.store.get_meta("rng", {}))
        self.project_id = str(self.store.get_meta("project_id") or self.rng.uuid("project"))
        self.backend = backend or self.store.get_meta("backend") or "default"
        self.cloud = self._open_cloud(faults)
        self.registry = TypeRegistry(plugin_dirs, entry_points=entry_points)
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
        self.recovered: list[Event] = []
        self._cancel_checked = -1.0
        if stored_seed is None:
            self.store.set_meta("seed", self.seed)
            self.store.set_meta("project_id", self.project_id)
            self.store.set_meta("backend", self.backend)
        if not _pid_alive(self.store.get_meta("engine_pid")):
            self.recovered = self.store.recover(self.clock.now())
        self.save()

    @classmethod
    def open(cls, state: str | os.PathLike[str] | None = None, **kwargs: Any) -> World:
        """Open (or create) the world stored at *state* (default: :func:`default_state_path`)."""
        path = str(state) if state is not None else default_state_path()
        return cls(Store(path), **kwargs)

    def _open_cloud(self, faults: Any) -> Any:
        from fake_clouds.core.registry import load_backend
        from fake_clouds.core.world import FakeCloud

        state = self.store.get_meta("cloud")
        if state is not None:
            cloud = FakeCloud.from_state(state, clock=self.clock)
            if faults is not None:
                cloud.set_faults(faults)
            return cloud
        return load_backend(
            self.backend, seed=derive_seed(self.seed, "cloud"), clock=self.clock, faults=faults
        )

    # -- housekeeping ---------------------------------------------------------

    def save(self) -> None:
        """Persist virtual time, RNG streams and the fake cloud's state."""
        with self.store.transaction():
            while self.unsaved:
                _, (stack, res) = self.unsaved.popitem()
                stack.persist_resource(res)
            self.store.set_meta("virtual_time", self.clock.now())
            self.store.set_meta("rng", self.rng.getstate())
            self.store.set_meta("cloud", self.cloud.to_state())

    def close(self) -> None:
        """Save and close the store and the event loop."""
        try:
            self.save()
        finally:
            self.loop.close()
            self.store.close()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return (and cache) the fake cloud's client plug-in for *name*."""
        plugin = self._plugins.get(name)
        if plugin is None:
            plugin = self.cloud.client_plugin(name)
            self._plugins[name] = plugin
        return plugin

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
        key = f"cancel:{stack.id}"
        if self.store.get_meta(key):
            self.store.set_meta(key, False)
            self.loop.call_soon(stack.cancel_quietly)

    def run(
        self,
        coro_factory: Callable[[], Awaitable[T]],
        *,
        stack_id: str | None = None,
        action: str = "RUN",
    ) -> T:
        """Run a coroutine on the world's virtual-time loop, recording the run and its seed."""
        run_id = self.store.start_run(stack_id, action, self.seed, self.clock.now())
        self.store.set_meta("engine_pid", os.getpid())
        outcome = "error"
        guard = watchdog.Watchdog(self.loop, self.wall_limit, lambda: watchdog.cancel_running(self))
        try:
            with guard:
                result = self.loop.run_until_complete(coro_factory())
            outcome = "done"
            return result
        finally:
            self.store.set_meta("engine_pid", None)
            self.store.finish_run(run_id, self.clock.now(), outcome)
            self.save()
            if guard.interrupted and outcome == "done":
                raise KeyboardInterrupt  # Ctrl-C: the cancelled action is committed; stop

    def wall_limit(self) -> float:
        """The wall seconds one plug-in call may take: the option, ``plugsim.yaml`` or 60."""
        if self.handler_wall_limit is not None:
            return self.handler_wall_limit
        if self._configured_limit is not None:
            return float(self._configured_limit)
        return watchdog.DEFAULT_WALL_LIMIT

    # -- stacks ---------------------------------------------------------------

    def new_stack_id(self) -> str:
        """Return a new stack id from the seeded ``stack-ids`` stream."""
        return self.rng.uuid("stack-ids")

    def stack_records(self, *, include_deleted: bool = False) -> list[StackRecord]:
        """Return the top-level stacks' rows, oldest first."""
        return self.store.list_stacks(include_deleted=include_deleted)

    def get_stack(self, name_or_id: str, *, deleted_ok: bool = False) -> Stack:
        """Return a live stack by name or id; unknown ones are :class:`EntityNotFound`."""
        rec = self.store.get_stack(name_or_id)
        if rec is None or (rec.deleted and not deleted_ok):
            raise exception.EntityNotFound(entity="Stack", name=name_or_id)
        stack = self._stacks.get(rec.id)
        if stack is None:
            stack = load_stack(self, rec)
            self._stacks[rec.id] = stack
        return stack

    def register(self, stack: Stack) -> None:
        """Keep a stack built in this process (so later lookups reuse it)."""
        self._stacks[stack.id] = stack

    def new_stack(
        self,
        name: str,
        source: StackSource,
        *,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        parent: Stack | None = None,
        parent_resource: Any = None,
        tags: Iterable[str] = (),
    ) -> Stack:
        """Build, validate and store a new stack (no resource touched yet).

        The lifecycle plug-ins listed in a ``plugsim.yaml`` next to the
        template (or the parent's, for a nested stack) are stored with it.
        """
        if parent is None:
            _check_name(name)
            existing = self.store.get_stack(name)
            if existing is not None and not existing.deleted:
                raise exception.PlugsimError(f"The Stack ({name}) already exists.")
        if timeout_mins is not None and (
            not isinstance(timeout_mins, int | float) or timeout_mins <= 0
        ):
            raise exception.StackValidationFailed(
                f"timeout must be a positive number of minutes, not {timeout_mins!r}"
            )
        rec = StackRecord(
            id=self.new_stack_id(),
            name=name,
            action="INIT",
            status="COMPLETE",
            reason="",
            created=self.clock.now(),
            parent_id=parent.id if parent is not None else None,
            doc={"timeout_mins": timeout_mins, "disable_rollback": bool(disable_rollback)},
        )
        tag_list = _check_tags(tags)
        if tag_list:
            rec.doc["tags"] = tag_list
        if parent is not None:
            specs = list(parent.record.doc.get(CONFIG_KEY) or [])
        else:
            specs = read_config(source.base_dir) if source.base_dir else []
        if specs:
            rec.doc[CONFIG_KEY] = specs
        stack = Stack(self, rec, source, parent_resource=parent_resource)
        self.lifecycle.for_stack(stack)  # a bad plug-in name fails before anything is stored
        stack.validate()
        stack.save()
        self.register(stack)
        return stack

    def source(
        self,
        template: Any,
        environment: Iterable[Any] = (),
        parameters: Mapping[str, Any] | None = None,
        files: Mapping[str, str] | None = None,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    ) -> StackSource:
        """Build a :class:`StackSource` from a template path or dict and env paths/dicts."""
        source = StackSource.load(
            template,
            environment,
            parameters,
            files=files,
            plugin_dirs=[*self.registry.plugin_dirs, *plugin_dirs],
        )
        if source.base_dir:
            from simulator.stack_source import read_config as read_project_config

            limit = read_project_config(Path(source.base_dir)).get(watchdog.CONFIG_KEY)
            if limit is not None:
                self.store.set_meta(watchdog.CONFIG_KEY, limit)
                self._configured_limit = limit
        return source


def _check_tags(tags: Iterable[str]) -> list[str]:
    if isinstance(tags, str):
        tags = tags.split(",")
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or "," in tag:
            raise exception.StackValidationFailed(
                f"Invalid stack tag {tag!r}: tags are non-empty strings without commas"
            )
        out.append(tag.strip())
    return out


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,254}", name):
        raise exception.StackValidationFailed(
            f"Invalid stack name {name!r}: it must start with a letter and contain only "
            "letters, digits, '_', '-' and '.'"
        )
