"""The resource state machine as one table: which ``(action, status)`` may follow which.

A resource is always in one :class:`ResourceState`: an action (``CREATE``,
``DELETE`` ...) and a status (``IN_PROGRESS``, ``COMPLETE``, ``FAILED``). It
moves in three ways:

* an action **starts** (``<ACTION>_IN_PROGRESS``) from a state :data:`STARTS`
  lists for it, or again while it is in progress (a retry notice);
* an action **ends** (``<ACTION>_COMPLETE`` or ``<ACTION>_FAILED``) only from
  its own ``IN_PROGRESS``;
* a few **direct** moves (:data:`DIRECT`) that the resource makes by itself:
  create's retry starting again after cleaning up, a create given up while
  waiting to retry, a check without a handler, a check before anything exists.

:class:`sdk.resource.Resource` asks :func:`may_start` before it runs an action
(and refuses with ``State <STATE> invalid for <verb>`` when the answer is no);
the test kit (:mod:`sdk.testing`) asks :func:`legal` of every transition it
sees. Both read this table, so a move the guard refuses is exactly a move the
test kit flags.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

INIT = "INIT"
CREATE = "CREATE"
DELETE = "DELETE"
UPDATE = "UPDATE"
ROLLBACK = "ROLLBACK"
SUSPEND = "SUSPEND"
RESUME = "RESUME"
ADOPT = "ADOPT"
SNAPSHOT = "SNAPSHOT"
CHECK = "CHECK"
#: Every action a resource records, in Heat's order.
ACTIONS: tuple[str, ...] = (
    INIT,
    CREATE,
    DELETE,
    UPDATE,
    ROLLBACK,
    SUSPEND,
    RESUME,
    ADOPT,
    SNAPSHOT,
    CHECK,
)

IN_PROGRESS = "IN_PROGRESS"
FAILED = "FAILED"
COMPLETE = "COMPLETE"
#: Every status an action may be in.
STATUSES: tuple[str, ...] = (IN_PROGRESS, FAILED, COMPLETE)


class _Pair(NamedTuple):
    action: str
    status: str


class ResourceState(_Pair):
    """A resource's state: ``(action, status)``.

    ``str()`` gives ``'CREATE_COMPLETE'``, and the state compares equal both
    to the tuple ``('CREATE', 'COMPLETE')`` and to the string
    ``'CREATE_COMPLETE'``. Its hash is the tuple's.
    """

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.action}_{self.status}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str(self) == other
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__


#: Every state, action by action.
STATES: tuple[ResourceState, ...] = tuple(
    ResourceState(action, status) for action in ACTIONS for status in STATUSES
)


def _where(test: Callable[[ResourceState], bool]) -> frozenset[ResourceState]:
    return frozenset(s for s in STATES if test(s))


def _settled(s: ResourceState) -> bool:
    return s.status != IN_PROGRESS


#: The states with nothing physical behind them: before create, after delete.
NOTHING_THERE = frozenset(
    {
        ResourceState(INIT, IN_PROGRESS),
        ResourceState(INIT, FAILED),
        ResourceState(INIT, COMPLETE),
        ResourceState(DELETE, COMPLETE),
    }
)

#: The states an update does not change in place but replaces (there is nothing to update).
REPLACED_ON_UPDATE = frozenset({ResourceState(INIT, COMPLETE), ResourceState(DELETE, COMPLETE)})

#: For each action, the states it may start from (``<ACTION>_IN_PROGRESS`` may follow them).
STARTS: Mapping[str, frozenset[ResourceState]] = {
    INIT: frozenset(),
    # Only a resource never created is created (create's retry is a direct move).
    CREATE: frozenset({ResourceState(INIT, COMPLETE)}),
    # Deleting what is not there does nothing and records nothing.
    DELETE: _where(lambda s: _settled(s) and s not in NOTHING_THERE),
    UPDATE: _where(lambda s: _settled(s) and s not in REPLACED_ON_UPDATE),
    ROLLBACK: _where(_settled),
    # As in Heat: never once deleting, and only from a complete state or a suspend
    # (a failed or interrupted suspend may be run again).
    SUSPEND: _where(lambda s: s.action != DELETE and (s.action == SUSPEND or s.status == COMPLETE)),
    RESUME: frozenset(
        {
            ResourceState(SUSPEND, COMPLETE),
            ResourceState(RESUME, FAILED),
            ResourceState(RESUME, COMPLETE),
        }
    ),
    ADOPT: _where(_settled),
    SNAPSHOT: _where(_settled),
    # A never-created resource is not checked: see DIRECT.
    CHECK: _where(lambda s: _settled(s) and s != (INIT, COMPLETE)),
}

#: Moves that neither start nor end an action through ``IN_PROGRESS``.
DIRECT: frozenset[tuple[ResourceState, ResourceState]] = frozenset(
    # create's retry: after deleting what failed, create again ...
    {(ResourceState(DELETE, COMPLETE), ResourceState(CREATE, IN_PROGRESS))}
    # ... or give up (cancelled) while waiting to retry
    | {
        (ResourceState(DELETE, status), ResourceState(CREATE, FAILED))
        for status in (COMPLETE, FAILED)
    }
    # a plug-in without handle_check: CHECK_COMPLETE at once, "not supported"
    | {(s, ResourceState(CHECK, COMPLETE)) for s in STARTS[CHECK]}
    # checking a resource that was never created fails at once
    | {(ResourceState(INIT, COMPLETE), ResourceState(CHECK, FAILED))}
    # a failed resource being replaced: Heat backs the old one up as UPDATE_COMPLETE
    | {(ResourceState(action, FAILED), ResourceState(UPDATE, COMPLETE)) for action in ACTIONS}
    # a failed resource an update neither changes nor replaces is COMPLETE again
    | {(ResourceState(action, FAILED), ResourceState(action, COMPLETE)) for action in ACTIONS}
    # marked unhealthy by the user (Heat's mark-unhealthy): CHECK_FAILED from any settled state
    | {(s, ResourceState(CHECK, FAILED)) for s in STARTS[CHECK]}
)


#: :data:`STARTS` as plain ``(action, status)`` tuples (a lookup compares them in C).
_STARTS_PLAIN: dict[str, frozenset[tuple[str, str]]] = {
    action: frozenset((s.action, s.status) for s in states) for action, states in STARTS.items()
}
_NONE: frozenset[tuple[str, str]] = frozenset()


def may_start(state: tuple[str, str], action: str) -> bool:
    """Whether *action* may start from *state* (what the resource's guards ask)."""
    first, second = state
    return (first, second) in _STARTS_PLAIN.get(action, _NONE)


def legal(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """Whether a resource may move from *before* to *after* (what the test kit asks)."""
    b, a = ResourceState(*before), ResourceState(*after)
    if (b, a) in DIRECT:
        return True
    if a.status == IN_PROGRESS:
        return b == a or may_start(b, a.action)
    return b == (a.action, IN_PROGRESS)
