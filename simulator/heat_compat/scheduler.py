"""``heat.engine.scheduler`` as Heat's group plug-ins use it: step-wise tasks.

Heat's group plug-ins return :class:`TaskRunner` objects from their
``handle_*`` methods and step them from ``check_*_complete``: each step
advances a generator task (updating the nested stack one batch at a time,
pausing between batches) until it is exhausted. plugsim's engine polls
``check_*_complete`` on the virtual clock, so stepping a runner never blocks;
the nested stacks a task starts run on the same event loop meanwhile.

Running a task to completion in one call (``runner()``) waits between
steps through :mod:`simulator.heat_compat.blocking`, which lets the engine
run meanwhile when the handler was started in turns with it (the scaling
groups' ``handle_update``); elsewhere a task that would wait fails naming
the plug-in line.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

from sdk import exception
from simulator.heat_compat import blocking
from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.missing import MissingHeatName

#: Steps a blocking ``runner()`` call may take before it is refused.
BLOCKING_STEP_LIMIT = 10_000


class Timeout(exception.PlugsimError):
    """``heat.engine.scheduler.Timeout``: a task ran out of time."""

    def __init__(self, task_runner: Any = None, timeout: Any = None) -> None:
        self.task_runner = task_runner
        super().__init__(f"{task_runner} Timed out")


class TaskRunner:
    """``heat.engine.scheduler.TaskRunner``: runs *task(\\*args, \\*\\*kwargs)* step by step.

    A generator task runs up to its next ``yield`` on each :meth:`step`; any
    other callable runs whole on :meth:`start`.
    """

    def __init__(self, task: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._task = task
        self._args = args
        self._kwargs = kwargs
        self._runner: Any = None
        self._started = False
        self._done = False

    def __str__(self) -> str:
        name = getattr(self._task, "__name__", type(self._task).__name__)
        return f"Task {name}"

    def started(self) -> bool:
        """True once :meth:`start` ran."""
        return self._started

    def done(self) -> bool:
        """True once the task finished."""
        return self._done

    def start(self, timeout: float | None = None) -> None:
        """Start the task: run it up to its first ``yield`` (or whole)."""
        if self._started:
            raise AssertionError(f"{self} already started")
        self._started = True
        result = self._task(*self._args, **self._kwargs)
        if inspect.isgenerator(result):
            self._runner = result
            self.step()
        else:
            self._done = True

    def step(self) -> bool:
        """Run the task to its next ``yield``; return True when it has finished."""
        if not self._started:
            self.start()
            return self._done
        if self._done:
            return True
        try:
            next(self._runner)
        except StopIteration:
            self._done = True
        return self._done

    def run_to_completion(self, wait_time: float = 1, timeout: float | None = None) -> None:
        """Step the task until it finishes, *wait_time* virtual seconds between steps.

        Inside a handler run by :func:`simulator.heat_compat.blocking.call_blocking`
        the engine runs meanwhile (the nested stacks progress); after *timeout*
        seconds :class:`Timeout` is thrown into the task, as Heat does. Elsewhere
        a task that does not finish at once is refused, naming the plug-in line.
        """
        if not self._started:
            self.start()
        waited = 0.0
        for _ in range(BLOCKING_STEP_LIMIT):
            if self._done:
                return
            if timeout is not None and waited >= timeout:
                self._throw(Timeout(self, timeout))
                return
            if not blocking.wait(wait_time):
                break
            waited += wait_time
            self.step()
        if self._done:
            return
        raise MissingHeatName(
            "heat.engine.scheduler.TaskRunner.__call__ (waiting for a task outside a handler "
            "plugsim runs in turns with its engine)",
            plugin_site(sys._getframe(1)),
        )

    def _throw(self, error: Timeout) -> None:
        if self._runner is None:
            raise error
        try:
            self._runner.throw(error)
        except StopIteration:
            self._done = True
            return
        self._runner.close()
        self._done = True
        raise error

    def __call__(self, wait_time: float = 1, timeout: float | None = None) -> None:
        """Run the task to completion now (see :meth:`run_to_completion`)."""
        self.run_to_completion(wait_time, timeout)

    def cancel(self, grace_period: float | None = None) -> None:
        """Stop the task: close its generator."""
        if self._runner is not None and not self._done:
            self._runner.close()
        self._done = True


def scheduler_names() -> dict[str, Any]:
    """The public names of the ``heat.engine.scheduler`` shim."""
    return {"TaskRunner": TaskRunner, "Timeout": Timeout}
