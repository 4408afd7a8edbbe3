"""Plug-ins that do not return, and Ctrl-C, while the engine runs.

Virtual time makes every simulated wait free, but a plug-in method that never
returns (a busy loop, ``time.sleep(1e9)``, a socket read without timeout)
holds the engine's thread. :class:`Watchdog` guards one :meth:`World.run
<simulator.world.World.run>`:

* A daemon thread samples the engine thread's Python stack a few times per
  limit. It is one thread per process (:class:`_Sampler`), started by the first
  guarded run and parked between runs: a campaign runs thousands of worlds in
  one process, and starting and joining a thread around every action cost more
  than the action (worse on a busy machine, where every hand-over between the
  two threads waits for a time slice). When the same plug-in call (the innermost ``handle_*``,
  ``check_*_complete``, ``_resolve_attribute``, ``get_reference_id``,
  ``do_pre_op`` or ``do_post_op`` frame of a plug-in object) stays on the
  stack while the event loop does not move for longer than the limit
  (:data:`DEFAULT_WALL_LIMIT`, ``handler_wall_limit`` in ``plugsim.yaml`` or
  ``World(handler_wall_limit=...)``), the call is interrupted: a
  :class:`sdk._escapes.WallClockInterrupt` is raised *inside* it. On the main
  thread that is a signal (``SIGUSR2``) whose handler raises, which also
  wakes a blocking ``time.sleep``; the handler raises only while plug-in code
  (not the engine, the store or the fake cloud) is running, so an interrupt
  never tears a store write or a fake-cloud operation in half, and tries again
  on the next sample. Off the main thread the engine does not watch: an
  asynchronous exception could land anywhere, and the test kit, which runs
  worlds in worker threads, watches them itself (:mod:`sdk.testing.watchdog`).
* The interrupt derives from ``BaseException`` so ``except Exception`` in the
  plug-in cannot swallow it; the call boundary (:func:`sdk._actions.call`)
  turns it into :class:`sdk.exception.PluginAborted` and the action fails
  with "plug-in X did not return from handle_create within 60 s of wall
  time". Nothing is abandoned: the call unwinds (its ``finally`` blocks run)
  and the engine continues on the same thread, so the world stays consistent
  and deterministic. A plug-in that catches ``BaseException`` and keeps
  looping is interrupted again at every sample.
* **Ctrl-C** (SIGINT on the main thread) cancels the running top-level
  actions the way ``stack cancel`` does (an update rolls back, any other
  action fails "Operation cancelled"), interrupting the plug-in call in
  progress if there is one; the run then ends normally, is committed, and
  :class:`KeyboardInterrupt` is raised afterwards so the command stops. A
  third Ctrl-C raises :class:`KeyboardInterrupt` at once.

What cannot be caught: ``os._exit`` in a plug-in ends the process on the spot
(no Python code runs); the world keeps its last commit, and the next process
marks the stack FAILED ("engine restarted"). A plug-in stuck inside one C call
that holds the GIL cannot be interrupted either.

Wall time only decides *whether* to interrupt; the message quotes the
configured limit, never a measured time, so outputs stay deterministic.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

from sdk._escapes import WallClockInterrupt, owner_label

#: Default wall-clock limit (seconds) for one plug-in call.
DEFAULT_WALL_LIMIT = 60.0
#: The signal used to interrupt the main thread.
INTERRUPT_SIGNAL = getattr(signal, "SIGUSR2", None)

_HOOKS = ("_resolve_attribute", "get_reference_id", "do_pre_op", "do_post_op")
#: Modules whose code is the engine's, never interrupted mid-way.
_ENGINE = ("simulator.", "fake_clouds.", "sdk.", "sqlite3", "asyncio", "selectors", "threading")
_PLUGINS_INSIDE = ("simulator.resources.",)


def _is_hook(frame: FrameType) -> bool:
    name = frame.f_code.co_name
    if name.startswith("handle_") or (name.startswith("check_") and name.endswith("_complete")):
        return True
    return name in _HOOKS


def plugin_call(frame: FrameType | None) -> tuple[FrameType, str] | None:
    """Return the innermost plug-in call on a stack as ``(frame, label)``, or None.

    The label reads ``plug-in <type> (resource '<name>') ... from <method>``'s
    first part: ``"plug-in X"`` plus the method name after a ``|``.
    """
    from sdk.resource import Resource

    while frame is not None:
        if _is_hook(frame):
            owner = frame.f_locals.get("self")
            name = frame.f_code.co_name
            if isinstance(owner, Resource) or (owner is not None and name.startswith("do_")):
                return frame, f"{owner_label(owner)}|{name}"
        frame = frame.f_back
    return None


def _in_plugin_code(frame: FrameType | None) -> bool:
    if frame is None:
        return False
    module = str(frame.f_globals.get("__name__", ""))
    if module.startswith(_PLUGINS_INSIDE):
        return True
    return not module.startswith(_ENGINE)


class Watchdog:
    """Guards one run of a world's loop (a context manager); see the module docstring."""

    def __init__(self, loop: Any, limit: Any, on_interrupt: Any = None) -> None:
        #: seconds, or a callable returning them (read at every sample: a run may
        #: read the ``plugsim.yaml`` that sets it); 0 or None turns the watch off
        self._limit = limit
        self.on_interrupt = on_interrupt
        self.loop = loop
        self.interrupted = 0
        self._beats = _heartbeat(loop)
        self._watched = False
        self._seen: tuple[int, int] | None = None
        self._since = 0.0
        self._target = 0
        self._main = False
        self._flagged: tuple[FrameType, str] | None = None
        self._unsafe = 0
        self._saved: dict[int, Any] = {}
        #: (frame id, beat) already interrupted asynchronously (another thread: once per call)
        self._raised: tuple[int, int] | None = None

    # -- entering and leaving ------------------------------------------------

    def __enter__(self) -> Watchdog:
        self._target = threading.get_ident()
        self._main = threading.current_thread() is threading.main_thread()
        if not self._main:
            # Off the main thread there is no safe way to stop a stuck call (an asynchronous
            # exception lands wherever the thread is next, and left a spinning loop behind in
            # the test kit's own worker threads, which have their own watchdog:
            # sdk.testing.watchdog). The engine's watchdog guards the command line's runs.
            return self
        self._install(signal.SIGINT, self._on_sigint)
        if INTERRUPT_SIGNAL is not None:
            self._install(INTERRUPT_SIGNAL, self._on_interrupt_signal)
        self._since = time.monotonic()
        self._watched = True
        _SAMPLER.watch(self)
        return self

    @property
    def limit(self) -> float:
        """The wall seconds one plug-in call may take now (0: no limit)."""
        value = self._limit() if callable(self._limit) else self._limit
        return float(value) if value else 0.0

    @property
    def interval(self) -> float:
        """Wall seconds between two samples: a few per limit."""
        return max(0.01, min(self.limit / 4, 0.25))

    def __exit__(self, *exc: Any) -> None:
        if self._watched:
            _SAMPLER.unwatch(self)  # returns once no sample of this run is in progress
            self._watched = False
        for signum, handler in self._saved.items():
            signal.signal(signum, handler)
        self._saved.clear()
        if self._raised is not None:
            _clear_pending(self._target)  # never let a late interrupt reach the caller

    def _install(self, signum: int, handler: Any) -> None:
        try:
            self._saved[signum] = signal.signal(signum, handler)
        except (ValueError, OSError):  # not the main thread of the main interpreter
            pass

    # -- sampling (on the sampler's thread) ---------------------------------------

    def sample(self) -> None:
        """Look at the guarded thread once; interrupt a plug-in call stuck past the limit."""
        frame = sys._current_frames().get(self._target)
        found = plugin_call(frame)
        del frame
        key = None if found is None else (id(found[0]), self._beats[0])
        now = time.monotonic()
        if key is None or key != self._seen:
            self._seen, self._since, self._flagged = key, now, None
            return
        if self.limit and now - self._since > self.limit and found is not None:
            self._fire(found, key)

    def _message(self, label: str) -> str:
        who, method = label.rsplit("|", 1)
        return f"plug-in {who} did not return from {method} within {self.limit:g} s of wall time"

    def _fire(self, found: tuple[FrameType, str], key: tuple[int, int]) -> None:
        self._flagged = found
        if self._main and INTERRUPT_SIGNAL is not None and INTERRUPT_SIGNAL in self._saved:
            # the handler checks the call is still the flagged one: safe to repeat
            signal.pthread_kill(self._target, INTERRUPT_SIGNAL)
            return
        if self._raised != key:
            # an asynchronous exception lands wherever the thread is next: raise it once
            # per stuck call, so a second one cannot hit the engine handling the first
            self._raised = key
            _raise_in_thread(self._target, self._message(found[1]))

    # -- signal handlers (main thread) -------------------------------------------

    def _on_interrupt_signal(self, signum: int, frame: FrameType | None) -> None:
        flagged = self._flagged
        if flagged is None:
            return
        current = plugin_call(frame)
        if current is None or current[0] is not flagged[0]:
            return
        if not _in_plugin_code(frame) and self._unsafe < 8:
            self._unsafe += 1  # inside the engine or the fake cloud: try at the next sample
            return
        self._unsafe = 0
        self._flagged = None
        raise WallClockInterrupt(self._message(flagged[1]))

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        self.interrupted += 1
        if self.interrupted >= 3:
            raise KeyboardInterrupt
        if self.on_interrupt is not None:
            self.loop.call_soon_threadsafe(self.on_interrupt)
        current = plugin_call(frame)
        if current is not None and _in_plugin_code(frame):
            who, method = current[1].rsplit("|", 1)
            raise WallClockInterrupt(f"plug-in {who} was interrupted by Ctrl-C in {method}")


class _Sampler:
    """The process's one sampling thread: it samples the innermost guarded run, if any.

    Runs are guarded on the main thread only, so at most one is in progress (a run started
    inside another is watched until it ends, then the outer one again). The thread holds the
    lock while it samples, so :meth:`unwatch` returning means no sample of that run is under
    way and none will start: a late interrupt cannot reach the caller.
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._watched: list[Watchdog] = []
        self._thread: threading.Thread | None = None
        #: the thread waits for a run to watch (and only then needs waking)
        self._parked = False

    def watch(self, dog: Watchdog) -> None:
        """Sample *dog*'s thread until :meth:`unwatch`; start the thread the first time.

        The thread is woken only when it is parked: one that is still pausing between samples
        of the previous run (a campaign starts a run every few milliseconds) moves on to this
        one when the pause ends, as it would after being woken. Waking it at every run cost two
        thread hand-overs per stack action.
        """
        with self._lock:
            self._watched.append(dog)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="plugsim-watchdog", daemon=True
                )
                self._thread.start()
            if self._parked:
                self._lock.notify_all()

    def unwatch(self, dog: Watchdog) -> None:
        """Stop sampling *dog*'s run (waits for a sample in progress to finish).

        The thread is not woken: at the end of its pause it finds the run gone and samples
        nothing of it (it holds the lock while it samples, so none is in progress now).
        """
        with self._lock:
            if dog in self._watched:
                self._watched.remove(dog)

    def _run(self) -> None:
        with self._lock:
            while True:
                if not self._watched:
                    self._parked = True
                    self._lock.wait()  # parked: no guarded run
                    self._parked = False
                    continue
                dog = self._watched[-1]
                self._lock.wait(dog.interval)
                if self._watched and self._watched[-1] is dog:
                    dog.sample()

    def after_fork(self) -> None:
        """In a forked child: the parent's thread (and perhaps its lock) did not come along."""
        self.__init__()  # type: ignore[misc]


_SAMPLER = _Sampler()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_SAMPLER.after_fork)


def _heartbeat(loop: Any) -> list[int]:
    """Count *loop*'s iterations (installed once per loop); return the counter."""
    beats = getattr(loop, "_plugsim_beats", None)
    if beats is not None:
        return beats
    beats = [0]
    inner = loop._run_once

    def run_once() -> None:
        beats[0] += 1
        inner()

    loop._run_once = run_once
    loop._plugsim_beats = beats
    return beats


def _raise_in_thread(ident: int, message: str) -> None:
    """Raise a :class:`WallClockInterrupt` carrying *message* in thread *ident*."""
    import ctypes

    cls = type("WallClockInterrupt", (WallClockInterrupt,), {"reason": message})
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(cls))


def _clear_pending(ident: int) -> None:
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)


def cancel_running(world: Any) -> None:
    """Cancel every top-level action running in *world*, as ``stack cancel`` does.

    An update is cancelled (and rolls back); any other action fails with
    "Operation cancelled".
    """
    for stack in list(getattr(world, "_stacks", {}).values()):
        if stack.parent_id is not None or not stack.busy:
            continue
        if stack.state == "UPDATE_IN_PROGRESS":
            from simulator.lifecycle import cancel_quietly

            cancel_quietly(stack)
        if stack.busy:
            stack._interrupt("user", f"{stack.action.title()} cancelled")
