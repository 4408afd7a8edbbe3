"""Events: the single record of what happened in a simulated world.

Every resource state change and every stack state change becomes one
:class:`Event`. Events carry the virtual time, never the wall clock, so two
runs with the same inputs and seed produce a byte-identical event log
(:func:`event_log`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from simulator.masking import BOOK

#: The secret values themselves (a set: testing it costs no Python call per event).
_SECRETS = BOOK.secrets

#: The resource type recorded for stack-level events (as Heat does).
STACK_TYPE = "OS::Heat::Stack"


@dataclass(frozen=True)
class Event:
    """One state change of a stack or of a resource.

    For a stack event ``resource_name`` is the stack's name,
    ``physical_resource_id`` the stack id and ``resource_type``
    :data:`STACK_TYPE`.
    """

    id: int
    stack_id: str
    stack_name: str
    resource_name: str
    resource_type: str
    physical_resource_id: str | None
    action: str
    status: str
    reason: str
    time: float

    def __post_init__(self) -> None:
        """Mask the secrets this process knows in the reason (:mod:`simulator.masking`)."""
        if _SECRETS and isinstance(self.reason, str):
            object.__setattr__(self, "reason", BOOK.scrub(self.reason))

    @property
    def state(self) -> str:
        """Return ``ACTION_STATUS`` (e.g. ``CREATE_COMPLETE``)."""
        return f"{self.action}_{self.status}"

    @property
    def is_stack_event(self) -> bool:
        """Return True when this event records a change of the stack itself."""
        return self.resource_type == STACK_TYPE

    def with_id(self, event_id: int) -> Event:
        """Return a copy of this event carrying *event_id* (the store assigns ids)."""
        copy = object.__new__(Event)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields["id"] = event_id
        return copy

    def to_dict(self) -> dict[str, Any]:
        """Return the event as a plain, JSON-serialisable dictionary."""
        return asdict(self)

    def to_line(self) -> str:
        """Return the canonical one-line JSON form used by :func:`event_log`."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


def event_log(events: Iterable[Event]) -> str:
    """Render events as canonical JSON lines; identical inputs give identical bytes."""
    return "".join(ev.to_line() + "\n" for ev in events)


def format_time(seconds: float) -> str:
    """Render a virtual instant as ``HH:MM:SS.mmm`` from the world's epoch."""
    millis = int(round(seconds * 1000))
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.{millis:03d}"


def format_event(ev: Event) -> str:
    """Render one event as a human-readable timeline line."""
    pid = f" [{ev.physical_resource_id}]" if ev.physical_resource_id else ""
    reason = f": {ev.reason}" if ev.reason else ""
    return f"{format_time(ev.time)}  {ev.resource_name} {ev.state}{pid}{reason}"
