"""Each entity's history: which call made it, which calls changed it, when, and from where.

The world's dispatch path (:meth:`fake_clouds.core.world.FakeCloud.dispatch`)
opens a :class:`CallRecorder` around every operation. The change log
(:class:`fake_clouds.core.tracking.ChangeLog`) tells the recorder about every
entity the operation touches; changes the entity makes on its own as virtual
time passes (a server reaching ``ACTIVE``, a deleted volume going away) are
*settling*, not the call's doing, and are not recorded.

Only an operation that touched an entity pays for more: once it ends, the
call stack is walked (``sys._getframe``) for the plug-in code that made the
call, and one :class:`HistoryRecord` per touched entity is appended to the
world's :class:`History`. Reads never walk the stack.

What oracles and messages read::

    world.entity_history("server", server_id)   # [HistoryRecord, ...] oldest first
    record.call        # 1-based number of the call in world.trace()
    record.operation   # "compute.servers.create"
    record.op          # "create" | "update" | "delete"
    record.at          # virtual instant the call started
    record.handler     # "handle_create" (the plug-in function), or None
    record.site        # "my_plugin.py:42" (file:line in that function), or None
    record.status      # the entity's status right after the call (None once removed)
    record.outcome     # "ok" or the error class the call raised
    record.fault       # "error" ... the injected fault effect of the call, or None

The history lives in memory with the world: a world reopened from its store
starts with an empty history (what the store holds is the entities' state).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from types import FrameType
from typing import Any

EntityKey = tuple[str, str, str]

#: Top-level packages that are never the plug-in: plugsim itself, client libraries, the
#: engines and test runners around a plug-in. A frame of any other module is plug-in code.
_NOT_PLUGIN = frozenset(
    {
        "sdk",
        "simulator",
        "fake_clouds",
        "plugsim",
        "openstack",
        "keystoneauth1",
        "keystoneclient",
        "novaclient",
        "neutronclient",
        "cinderclient",
        "glanceclient",
        "swiftclient",
        "heatclient",
        "manilaclient",
        "troveclient",
        "designateclient",
        "octaviaclient",
        "osc_lib",
        "requests",
        "urllib3",
        "responses",
        "werkzeug",
        "libcloud",
        "docker",
        "oslo_utils",
        "oslo_log",
        "oslo_config",
        "oslo_serialization",
        "tenacity",
        "pytest",
        "_pytest",
        "pluggy",
        "hypothesis",
        "salt",
        "__main__",
    }
)
#: The modules of Heat's package that are resource plug-ins (the rest is Heat's engine).
_HEAT_PLUGINS = ("heat.engine.resources.", "heat.contrib.")
_STDLIB = frozenset(sys.stdlib_module_names)
#: How far out from the innermost plug-in frame a handler (``handle_*``, ``check_*``) is looked for.
_HANDLER_DEPTH = 12


@dataclass(frozen=True, init=False)
class HistoryRecord:
    """One call that created, changed or deleted one entity (see the module docstring)."""

    service: str
    kind: str
    id: str
    call: int
    operation: str
    op: str
    at: float
    handler: str | None
    site: str | None
    status: str | None
    outcome: str
    fault: str | None = None

    def __init__(
        self,
        service: str,
        kind: str,
        id: str,  # noqa: A002 - the field's name
        call: int,
        operation: str,
        op: str,
        at: float,
        handler: str | None,
        site: str | None,
        status: str | None,
        outcome: str,
        fault: str | None = None,
    ) -> None:
        # the fields at once, as TraceEntry (fake_clouds.core.world) does; frozen after
        self.__dict__.update(
            service=service,
            kind=kind,
            id=id,
            call=call,
            operation=operation,
            op=op,
            at=at,
            handler=handler,
            site=site,
            status=status,
            outcome=outcome,
            fault=fault,
        )

    def describe(self) -> str:
        """``call 3 compute.servers.create at t=1.2s by handle_create (plug.py:42)``."""
        where = ""
        if self.handler:
            where = f" by {self.handler}" + (f" ({self.site})" if self.site else "")
        fault = f" [injected {self.fault}]" if self.fault else ""
        failed = "" if self.outcome == "ok" else f" -> {self.outcome}"
        return f"call {self.call} {self.operation} at t={self.at:g}s{where}{fault}{failed}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return asdict(self)


def is_plugin_frame(frame: FrameType) -> bool:
    """True for a frame of plug-in code (not plugsim, a client library, the stdlib or a runner)."""
    return _plugin_module(frame)


#: module name -> whether it is plug-in code (a pure function of the name, found once per name)
_PLUGIN_NAMES: dict[str, bool] = {}


def _plugin_module(frame: FrameType) -> bool:
    name = frame.f_globals.get("__name__") or ""
    found = _PLUGIN_NAMES.get(name)
    if found is None:
        found = _PLUGIN_NAMES[name] = _plugin_name(name)
    return found


def _plugin_name(name: str) -> bool:
    top = name.partition(".")[0]
    if top in _NOT_PLUGIN or top in _STDLIB:
        return False
    if top == "heat":  # Heat's engine, client plug-ins and helpers are not the resource plug-in
        return name.startswith(_HEAT_PLUGINS)
    return True


def _is_handler(name: str) -> bool:
    return name.startswith(("handle_", "check_")) or name in (
        "create",
        "destroy",
        "delete",
        "update",
    )


def _site(frame: FrameType) -> str:
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def caller(start: FrameType | None) -> tuple[str | None, str | None]:
    """``(handler name, "file:line")`` of the plug-in code on the stack above *start*.

    The innermost frame of plug-in code is found first; if a function named
    like a handler (``handle_*``, ``check_*``, a driver's ``create``/``destroy``)
    encloses it a few frames out, that one is named (at the line where it is
    now), since a handler is what an author looks for. ``(None, None)`` when
    no plug-in code is on the stack (a test poking the cloud through plugsim).
    """
    frame = start
    while frame is not None and not _plugin_module(frame):
        frame = frame.f_back
    if frame is None:
        return None, None
    inner = frame
    depth = 0
    while frame is not None and depth < _HANDLER_DEPTH:
        if _plugin_module(frame) and _is_handler(frame.f_code.co_name):
            return frame.f_code.co_name, _site(frame)
        frame = frame.f_back
        depth += 1
    return inner.f_code.co_name, _site(inner)


class CallRecorder:
    """The entities one call touched (filled by the change log while the call runs)."""

    __slots__ = ("touched", "inserted", "settling")

    def __init__(self) -> None:
        self.touched: dict[EntityKey, None] = {}
        self.inserted: set[EntityKey] = set()
        #: > 0 while an entity applies its own due transitions (not the call's doing)
        self.settling = 0

    def note(self, key: EntityKey, inserted: bool) -> None:
        """Remember that the call touched *key* (inserted: it entered its store)."""
        if self.settling:
            return
        self.touched[key] = None
        if inserted:
            self.inserted.add(key)


class History:
    """Every entity's records, by ``(service, kind, id)``, oldest first."""

    def __init__(self) -> None:
        self._records: dict[EntityKey, list[HistoryRecord]] = {}
        self._by_id: dict[tuple[str, str], EntityKey] = {}

    def add(self, record: HistoryRecord) -> None:
        """Append *record* to its entity's history."""
        key = (record.service, record.kind, record.id)
        self._records.setdefault(key, []).append(record)
        self._by_id[(record.kind, record.id)] = key

    def record_call(
        self,
        recorder: CallRecorder,
        services: Mapping[str, Any],
        number: int,
        operation: str,
        outcome: str,
        start: float,
        fault: str | None,
        frame: FrameType | None,
    ) -> None:
        """Add one record per entity the call numbered *number* touched (the stack is walked once,
        from *frame*, for the plug-in handler that made the call)."""
        handler, site = caller(frame)
        for key in recorder.touched:
            service, kind, eid = key
            svc = services.get(service)
            ent = svc._store.get(kind, {}).get(eid) if svc is not None else None
            if key in recorder.inserted and key not in self._records:
                op = "create"
            elif ent is None or ent.deleted or any(t.status is None for t in ent.pending):
                op = "delete"
            else:
                op = "update"
            status = ent.status if ent is not None and not ent.deleted else None
            self.add(
                HistoryRecord(
                    service,
                    kind,
                    eid,
                    number,
                    operation,
                    op,
                    start,
                    handler,
                    site,
                    status,
                    outcome,
                    fault,
                )
            )

    def of(self, kind: str, entity_id: str, service: str | None = None) -> list[HistoryRecord]:
        """The records of one entity (``[]`` for one no recorded call touched)."""
        if service is not None:
            return list(self._records.get((service, kind, entity_id), ()))
        key = self._by_id.get((kind, entity_id))
        return list(self._records.get(key, ())) if key is not None else []

    def creator(
        self, kind: str, entity_id: str, service: str | None = None
    ) -> HistoryRecord | None:
        """The record of the call that created the entity (None: made outside any call)."""
        return next((r for r in self.of(kind, entity_id, service) if r.op == "create"), None)

    def all(self) -> list[HistoryRecord]:
        """Every record, in call order."""
        out = [r for records in self._records.values() for r in records]
        return sorted(out, key=lambda r: (r.call, r.service, r.kind, r.id))

    def __iter__(self) -> Iterable[HistoryRecord]:  # type: ignore[override]
        return iter(self.all())
