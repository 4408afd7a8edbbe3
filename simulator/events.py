"""Events: the single record of what happened in a simulated world.

Every resource state change and every stack state change becomes one
:class:`Event`. Events carry the virtual time, never the wall clock, so two
runs with the same inputs and seed produce a byte-identical event log
(:func:`event_log`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields
from json.encoder import encode_basestring_ascii
from typing import Any

from simulator.masking import BOOK

#: The secret values themselves (a set: testing it costs no Python call per event).
_SECRETS = BOOK.secrets

#: The resource type recorded for stack-level events (as Heat does).
STACK_TYPE = "OS::Heat::Stack"


@dataclass(frozen=True, init=False)
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

    def __init__(
        self,
        id: int,
        stack_id: str,
        stack_name: str,
        resource_name: str,
        resource_type: str,
        physical_resource_id: str | None,
        action: str,
        status: str,
        reason: str,
        time: float,
    ) -> None:
        """Set every field (the frozen dataclass's own ``__init__`` goes through
        ``object.__setattr__`` once per field, and a lifecycle makes hundreds of events), masking
        the secrets this process knows in the reason (:mod:`simulator.masking`)."""
        if _SECRETS and isinstance(reason, str):
            reason = BOOK.scrub(reason)
        fields = self.__dict__
        fields["id"] = id
        fields["stack_id"] = stack_id
        fields["stack_name"] = stack_name
        fields["resource_name"] = resource_name
        fields["resource_type"] = resource_type
        fields["physical_resource_id"] = physical_resource_id
        fields["action"] = action
        fields["status"] = status
        fields["reason"] = reason
        fields["time"] = time

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
        """Return the event as a plain, JSON-serialisable dictionary (fields in declaration order).

        Every field is a string, a number or None, so a flat copy is what ``dataclasses.asdict``
        gave, without its recursive deep copy (an event log renders thousands of events).
        """
        values = self.__dict__
        return {name: values[name] for name in _FIELDS}

    def to_line(self) -> str:
        """Return the canonical one-line JSON form used by :func:`event_log`.

        The text of ``json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))``,
        written field by field (a campaign renders every run's log for its digest).
        """
        values = self.__dict__
        return "{" + ",".join([_KEYS[name] + _json(values[name]) for name in _SORTED]) + "}"


#: The event's field names, in declaration order.
_FIELDS = tuple(f.name for f in fields(Event))
#: ... in the canonical line's (sorted) order, and each one's ``"name":`` prefix.
_SORTED = tuple(sorted(_FIELDS))
_KEYS = {name: json.dumps(name) + ":" for name in _FIELDS}
_STRING = encode_basestring_ascii


def _json(value: Any) -> str:
    """``json.dumps(value)`` of one field, the common types without the encoder's set-up."""
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and value - value == 0.0:  # finite (json spells inf and nan its own way)
        return float.__repr__(value)
    if value is None:
        return "null"
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


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


#: Virtual instant 0 as a calendar time, for ISO-8601 timestamps in machine-readable output.
VIRTUAL_EPOCH = "1970-01-01T00:00:00Z"


def format_iso(seconds: float) -> str:
    """Render a virtual instant as an ISO-8601 timestamp counted from :data:`VIRTUAL_EPOCH`.

    ``38.036`` gives ``1970-01-01T00:00:38.036Z``; millisecond precision, like :func:`format_time`.
    """
    import datetime

    millis = int(round(seconds * 1000))
    instant = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
        milliseconds=millis
    )
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}Z"


def format_event(ev: Event, paths: StackPaths | None = None) -> str:
    """Render one event as a human-readable timeline line.

    With *paths* (fed every event in order), resources of nested stacks are named by their stack path
    (``web1/server``) and a nested stack's own events by its owner (``web1 (nested stack)``).
    """
    pid = f" [{ev.physical_resource_id}]" if ev.physical_resource_id else ""
    reason = f": {ev.reason}" if ev.reason else ""
    name = paths.label(ev) if paths is not None else ev.resource_name
    return f"{format_time(ev.time)}  {name} {ev.state}{pid}{reason}"


class StackPaths:
    """Names events by stack path while they stream, for logs a person reads.

    A nested stack belongs to the resource whose physical id is the nested stack's id; while that
    resource has no id yet (its nested stack is being created), the engine's naming of nested stacks
    (``<parent stack>-<resource>``) tells the owner, checked against the resources seen in the parent.
    """

    def __init__(self) -> None:
        self._owner: dict[str, tuple[str, str]] = {}
        self._names: dict[str, str] = {}
        self._resources: dict[str, set[str]] = {}
        self._paths: dict[str, str] = {}

    def prefix(self, stack_id: str) -> str:
        """The path of stack *stack_id*: '' at the top level, ``web1/`` for the stack web1 owns."""
        if stack_id in self._paths:
            return self._paths[stack_id]
        owner = self._owner.get(stack_id)
        if owner is None or owner[0] == stack_id:
            return ""
        prefix = self.prefix(owner[0]) + owner[1] + "/"
        self._paths[stack_id] = prefix
        return prefix

    def feed(self, ev: Event) -> None:
        """Learn what *ev* tells about stacks and their owners."""
        if ev.is_stack_event:
            if ev.stack_id not in self._names:
                self._names[ev.stack_id] = ev.stack_name
                for sid, name in self._names.items():
                    owner = ev.stack_name[len(name) + 1 :]
                    if ev.stack_name.startswith(name + "-") and owner in self._resources.get(
                        sid, ()
                    ):
                        self._owner.setdefault(ev.stack_id, (sid, owner))
                        break
            return
        self._resources.setdefault(ev.stack_id, set()).add(ev.resource_name)
        pid = ev.physical_resource_id
        if pid and pid != ev.stack_id and pid not in self._owner:
            self._owner[pid] = (ev.stack_id, ev.resource_name)
            self._paths.pop(pid, None)

    def label(self, ev: Event) -> str:
        """*ev*'s subject: ``web1/server``, ``web1 (nested stack)`` or the plain name (after feeding it)."""
        self.feed(ev)
        prefix = self.prefix(ev.stack_id)
        if ev.is_stack_event:
            return f"{prefix.rstrip('/')} (nested stack)" if prefix else ev.resource_name
        return prefix + ev.resource_name
