"""Group commit for ``plugsim serve``: a change is acknowledged only once it is committed.

:class:`GroupCommit` is the WSGI middleware every request of the served world
passes through (every service, present and future: it wraps the whole
:class:`fake_clouds.openstack.app.WireApp`, not a service). It works with the
application's world lock:

* inside the lock, after the request was handled, :meth:`GroupCommit.note`
  gives a request that may have changed the world (any method but ``GET``,
  ``HEAD`` and ``OPTIONS``, whatever its answer) a *ticket*, the number of such
  requests so far;
* the answer of a ticketed request is held back (its status line and headers
  are not passed on) until a commit covering its ticket has ended;
* one committer thread takes the lock, notes the newest ticket, commits the
  world (:meth:`simulator.world.World.commit`: one SQLite transaction) and
  releases the waiting answers. Requests that arrived while a commit was
  running are handled meanwhile and share the next commit: one transaction for
  the requests that arrived together, as databases group their commits.

Reads never wait for a commit to cover them (like every request, they queue
for the world lock, which a running commit holds for its few milliseconds):
they see the world as the requests before them left it.
A commit that fails (a full disk, an I/O error) rolls its transaction back
whole, so the world file stays the previous committed state, and every
request it covered is answered ``503`` instead of its own answer: it was not
acknowledged. Its change is still in the running world and is written by the
next commit that succeeds (like a timeout, a 503 leaves the outcome open).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

#: Methods that never change the world (RFC 9110's safe methods): their answers never wait.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Where :meth:`GroupCommit.note` leaves a request's ticket in its WSGI environ.
TICKET = "plugsim.commit_ticket"
#: Longest a commit waits for requests being handled to join it, in wall seconds.
GATHER_SECONDS = 0.005


class GroupCommit:
    """WSGI middleware: answers of changing requests wait for the commit that holds them."""

    def __init__(
        self,
        commit: Callable[[], None],
        lock: Any,
        app: Callable[..., Iterable[bytes]] | None = None,
    ) -> None:
        """Commit with *commit*, run under *lock* (the world's lock); wrap *app* (or set it later).

        The application is usually built after this middleware, since it takes
        :meth:`note` as its ``after_request`` hook: assign :attr:`app` then.
        """
        self.app = app
        self._commit = commit
        self._lock = lock
        self._state = threading.Condition(threading.Lock())
        self._issued = 0  # tickets given so far (under the world lock)
        self._settled = 0  # every ticket up to this one has its outcome
        self._failures: list[tuple[int, int, str]] = []  # (first, last, why) of failed commits
        self._stopping = False
        self._busy = 0  # requests being handled now (their tickets, if any, are yet to come)
        #: commits made (successful or not) and tickets they covered, for reports and tests
        self.commits = 0
        self.tickets = 0
        #: wall seconds spent committing (inside the world lock)
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="plugsim-commit", daemon=True)
        self._thread.start()

    # --- inside the world lock ----------------------------------------------------------

    def note(self, environ: dict[str, Any]) -> None:
        """Give the request of *environ* a ticket if it may have changed the world.

        Must run inside the world lock, after the request was handled (the
        :class:`WireApp`'s ``after_request`` hook), so that a commit that reads
        the newest ticket under the same lock holds that request's change.
        """
        if environ.get("REQUEST_METHOD", "GET").upper() in SAFE_METHODS:
            return
        with self._state:
            self._issued += 1
            environ[TICKET] = self._issued
            self._state.notify_all()

    # --- WSGI ---------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        """Answer one request; a changing one only after its change is committed."""
        held: list[Any] = []

        def hold(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            held[:] = [status, headers, exc_info]
            return _no_write

        assert self.app is not None, "GroupCommit.app is not set"
        with self._state:
            self._busy += 1
        try:
            body = self.app(environ, hold)
        finally:
            with self._state:
                self._busy -= 1
                self._state.notify_all()
        ticket = environ.get(TICKET)
        if ticket is not None:
            failure = self.wait(ticket)
            if failure is not None:
                close = getattr(body, "close", None)
                if close is not None:
                    close()
                return _unavailable(failure, start_response)
        start_response(*held)
        return body

    def wait(self, ticket: int) -> str | None:
        """Block until *ticket* is settled; return why its commit failed, or None when durable."""
        with self._state:
            while self._settled < ticket:
                self._state.wait()
            for first, last, why in self._failures:
                if first <= ticket <= last:
                    return why
        return None

    # --- the committer ------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._state:
                while self._settled == self._issued and not self._stopping:
                    self._state.wait()
                if self._settled == self._issued:
                    return
                # Requests being handled right now will want a commit too: let them
                # join this one (briefly; reads in a steady stream must not starve it).
                deadline = time.monotonic() + GATHER_SECONDS
                while self._busy and not self._stopping:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._state.wait(left)
            with self._lock:
                last = self._issued  # every ticket up to here has its change in the world
                why = None
                started = time.perf_counter()
                try:
                    self._commit()
                except Exception as ex:  # noqa: BLE001 - answered to the clients, never lost
                    why = f"{type(ex).__name__}: {ex}"
                self.seconds += time.perf_counter() - started
            with self._state:
                first = self._settled + 1
                if why is not None:
                    self._failures.append((first, last, why))
                    del self._failures[:-64]
                self.commits += 1
                self.tickets += last - self._settled
                self._settled = last
                self._state.notify_all()

    def close(self, timeout: float = 30.0) -> None:
        """Settle every ticket issued so far (a last commit) and stop the committer."""
        with self._state:
            self._stopping = True
            self._state.notify_all()
        self._thread.join(timeout)


def _no_write(data: bytes) -> None:
    raise RuntimeError("the WSGI write() callable is not supported behind GroupCommit")


def _unavailable(why: str, start_response: Any) -> list[bytes]:
    message = (
        f"The change was not acknowledged: the world could not be saved ({why}). "
        "It may still be saved by a later commit; check before retrying."
    )
    body = json.dumps({"error": {"code": 503, "message": message}}).encode()
    start_response(
        "503 Service Unavailable",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]
