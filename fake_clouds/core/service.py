"""The base of a fake cloud service: an entity store, lifecycles, quotas, operations.

A service subclass declares its entity ``kinds`` (kind -> ERROR status name),
its default quotas, and its operations as methods decorated with
:func:`operation`. Calling an operation routes it through the world's single
dispatch path (faults, latency, the operation, the trace), so the Python
clients and the REST dialects share one state and one behaviour.

Operations take plain arguments and return JSON-able dicts (or lists of
them) that the caller owns: fresh copies such as :meth:`Entity.view`'s, never
a stored container (the Python clients hand them on without copying again).
Helpers for subclasses start with an underscore.
"""

from __future__ import annotations

import copy
import functools
import inspect
import math
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar

from fake_clouds.core import scope
from fake_clouds.core.call import Call
from fake_clouds.core.entities import Entity, Transition
from fake_clouds.core.tracking import merge
from sdk import exception
from simulator.rng import SeededRNG

F = TypeVar("F", bound=Callable[..., Any])
#: the fields :meth:`Entity.view` puts over an entity's attributes
_VIEW_FIELDS = frozenset({"id", "name", "status", "created_at", "updated_at"})
T = TypeVar("T")


class CloudHost(Protocol):
    """What a service needs of the world it lives in (:class:`~fake_clouds.core.world.FakeCloud`)."""

    @property
    def rng(self) -> SeededRNG:
        """The world's seeded streams (``ids``, ``latency``, ``faults`` ...)."""

    @property
    def call(self) -> Call:
        """The operation in progress (an idle call outside any operation)."""

    def now(self) -> float:
        """Return the caller's virtual time."""

    def new_id(self) -> str:
        """Return a new UUID from the ``ids`` stream."""

    def service(self, name: str) -> Service:
        """Return another service of the world by name."""

    def service_names(self) -> list[str]:
        """Return the names of the world's services (sorted)."""

    def dispatch(
        self,
        service: Service,
        operation: str,
        kind: str | None,
        entity_id: str | None,
        perform: Callable[[], T],
    ) -> T:
        """Run one operation through faults, latency, the state change and the trace."""


def operation(name: str, *, kind: str | None = None, id_arg: str | None = None) -> Callable[[F], F]:
    """Mark a service method as the operation *name* (``servers.create`` ...).

    *kind* is the entity type the operation acts on (fault rules match it);
    *id_arg* names the argument holding the entity id (for the trace).
    """

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        params = list(signature.parameters.values())
        # Whether arguments bind depends only on how many are positional and which keywords
        # are named, never on their values: a call of a shape that bound once needs no
        # Signature.bind again (the common case: every call of a plug-in's polling loop).
        # Functions taking *args or **kwargs, or whose kind depends on the arguments, always bind.
        fast = kind is not None and all(
            p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params
        )
        id_at = next(
            (
                i - 1
                for i, p in enumerate(params)
                if p.name == id_arg and p.kind is p.POSITIONAL_OR_KEYWORD
            ),
            None,
        )
        shapes: set[tuple[Any, ...]] = set()

        @functools.wraps(fn)
        def wrapper(self: Service, *args: Any, **kwargs: Any) -> Any:
            if fast:
                shape = (len(args), *kwargs)
                if shape not in shapes:
                    try:
                        signature.bind(self, *args, **kwargs)
                    except TypeError as ex:
                        raise exception.BadRequest(
                            f"{self.name}.{name}: {ex}", body={"message": str(ex)}
                        ) from None
                    shapes.add(shape)
                entity_id = None
                if id_arg:
                    if id_arg in kwargs:
                        entity_id = kwargs[id_arg]
                    elif id_at is not None and id_at < len(args):
                        entity_id = args[id_at]
                return self.world.dispatch(
                    self, name, kind, entity_id, lambda: fn(self, *args, **kwargs)
                )
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError as ex:
                raise exception.BadRequest(
                    f"{self.name}.{name}: {ex}", body={"message": str(ex)}
                ) from None
            entity_id = bound.arguments.get(id_arg) if id_arg else None
            call_kind = kind if kind is not None else self._dispatch_kind(bound.arguments)
            return self.world.dispatch(
                self, name, call_kind, entity_id, lambda: fn(*bound.args, **bound.kwargs)
            )

        wrapper.__fake_operation__ = (name, kind)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


#: Each service class's operation names (a class's methods do not change once it is built).
_OPERATIONS: dict[type, tuple[str, ...]] = {}


class Service:
    """Base class of a fake cloud service (``compute``, ``network`` ...)."""

    #: The service name used by the world, fault rules and the latency model.
    name: ClassVar[str] = ""
    #: Entity kinds of this service mapped to the status an entity shows in error.
    kinds: ClassVar[dict[str, str]] = {}
    #: Default quotas: resource name -> limit (documented per service).
    default_quotas: ClassVar[dict[str, int]] = {}
    #: The Python client class (``client_class(service)``); None for no client.
    client_class: ClassVar[type | None] = None
    #: Kinds mapped to the transitional status an entity shows while it is being made (where an
    #: entity stuck out of band stays: :func:`fake_clouds.core.drift.stick`).
    transitional: ClassVar[dict[str, str]] = {}

    def __init__(self, world: CloudHost) -> None:
        self.world = world
        self.quotas: dict[str, int] = dict(self.default_quotas)
        self.counters: dict[str, Any] = {}
        self._store: dict[str, dict[str, Entity]] = {kind: {} for kind in self.kinds}
        self._client: Any = None

    # --- catalogue -----------------------------------------------------------

    @classmethod
    def operations(cls) -> list[str]:
        """Return the sorted names of this service's operations (found once per class)."""
        names = _OPERATIONS.get(cls)
        if names is None:
            found = []
            for attr in dir(cls):
                meta = getattr(getattr(cls, attr, None), "__fake_operation__", None)
                if meta is not None:
                    found.append(meta[0])
            names = _OPERATIONS[cls] = tuple(sorted(found))
        return list(names)

    def _dispatch_kind(self, arguments: dict[str, Any]) -> str | None:
        """Return the entity kind of a call whose operation declares none."""
        return None

    def _error_status(self, kind: str) -> str:
        """Return the status an entity of *kind* shows in error."""
        return self.kinds[kind]

    def _stuck_status(self, kind: str) -> str | None:
        """Return the transitional status an entity of *kind* shows while being made, or None."""
        return self.transitional.get(kind)

    def entity_kinds(self) -> list[str]:
        """Return the entity kinds this service holds (sorted)."""
        return sorted(self._store)

    def catalog_kinds(self) -> list[str]:
        """Return the kinds fault rules may name (``*`` when any kind is allowed)."""
        return self.entity_kinds()

    def client(self) -> Any:
        """Return this service's Python client (created once)."""
        if self._client is None:
            if self.client_class is None:
                raise exception.ConfigurationError(f"Service '{self.name}' has no Python client")
            self._client = self.client_class(self)
        return self._client

    def seed_defaults(self, world: Any = None) -> None:
        """Add what a fresh world holds before any call (see :mod:`fake_clouds.default_world`).

        *world* is a world file's data (:mod:`fake_clouds.worldfile`); None means the
        default world.

        The base service holds nothing; a service with a default catalogue
        (flavors, images, a public network ...) adds it here with
        :meth:`_create` and ``preseeded=True``.
        """

    def set_quotas(self, quotas: dict[str, int]) -> None:
        """Override quotas; unknown names or bad values are a ConfigurationError."""
        for key in sorted(quotas):
            value = quotas[key]
            if key not in self.default_quotas:
                known = ", ".join(sorted(self.default_quotas)) or "none"
                raise exception.ConfigurationError(
                    f"quotas.{self.name}.{key}: unknown quota (known: {known})"
                )
            if isinstance(value, bool) or not isinstance(value, int) or value < -1:
                raise exception.ConfigurationError(
                    f"quotas.{self.name}.{key}: expected an integer >= -1 (-1 = unlimited), "
                    f"got {value!r}"
                )
            self.quotas[key] = value

    # --- entity store --------------------------------------------------------

    def _now(self) -> float:
        return self.world.now()

    def _create(
        self,
        kind: str,
        name: str,
        status: str,
        attrs: dict[str, Any] | None = None,
        *,
        entity_id: str | None = None,
        preseeded: bool = False,
    ) -> Entity:
        """Add a new entity (visible later under an eventual-consistency fault)."""
        now = self._now()
        ent = Entity(
            service=self.name,
            kind=kind,
            id=entity_id if entity_id is not None else self.world.new_id(),
            name=name,
            status=status,
            attrs=attrs or {},  # the entity keeps a copy (what plain() gives), made once
            created_at=now,
            updated_at=now,
            preseeded=preseeded,
            owner=scope.owner_for(self.name, kind, attrs or {}),
        )
        if ent.id in self._store[kind]:
            raise exception.Conflict(f"{kind} {ent.id} already exists")
        lag = self.world.call.consistency_lag("lag")
        if lag is not None:
            ent.visible_at = now + lag
        self._store[kind][ent.id] = ent
        return ent

    def _refresh(self, kind: str) -> None:
        """Apply what came due by now to the entities of *kind* (see :meth:`Entity.advance`).

        A store attached to the world's change log keeps a next-due index
        (:attr:`~fake_clouds.core.tracking.KindStore.due`): before that instant nothing in it
        changes on its own and the walk is skipped; a walk sets it again.
        """
        now = self._now()
        store = self._store[kind]
        due = getattr(store, "due", None)
        if due is None:  # a store not (yet) attached to a change log: walked every time
            gone = [e for e, ent in store.items() if not ent.advance(now)]
        elif now < due:
            return
        else:
            gone = []
            nearest = math.inf
            for eid, ent in store.items():
                if not ent.advance(now):
                    gone.append(eid)
                    continue
                at = ent.next_change()
                if at < nearest:
                    nearest = at
            store.due = nearest  # after the walk: what the walk itself changed is counted
        if not gone:
            return
        # an entity whose deletion came due goes: settling, not the current call's doing
        recorder = getattr(getattr(store, "_log", None), "recorder", None)
        if recorder is not None:
            recorder.settling += 1
        try:
            for eid in gone:
                del store[eid]
        finally:
            if recorder is not None:
                recorder.settling -= 1

    def _get(self, kind: str, entity_id: Any, *, label: str | None = None) -> Entity:
        """Return the live, visible entity or raise NotFound."""
        self._refresh(kind)
        ent = self._store[kind].get(entity_id) if isinstance(entity_id, str) else None
        if (
            ent is None
            or ent.deleted
            or ent.visible_at > self._now()
            or not scope.visible(self, ent, scope.current())
        ):
            what = label or kind.replace("_", " ").capitalize()
            msg = f"{what} {entity_id} could not be found."
            raise exception.NotFound(msg, body={"itemNotFound": {"code": 404, "message": msg}})
        return ent

    def _list(self, kind: str, **filters: Any) -> list[Entity]:
        """Return visible entities (lingering deleted ones included) in creation order."""
        self._refresh(kind)
        now = self._now()
        out = []
        caller = scope.current()
        wanted = [(k, v) for k, v in filters.items() if v is not None]
        for ent in self._store[kind].values():
            if ent.visible_at > now or not scope.listed(self, ent, caller):
                continue
            # compared as in the entity's view, without copying it
            if all(
                (getattr(ent, k) if k in _VIEW_FIELDS else ent.attrs.get(k)) == v for k, v in wanted
            ):
                out.append(ent)
        return out

    def _live(self, kind: str) -> list[Entity]:
        """Return every live entity of *kind* (visible or not, not deleted)."""
        self._refresh(kind)
        return [e for e in self._store[kind].values() if not e.deleted]

    def _count(self, kind: str, predicate: Callable[[Entity], bool] | None = None) -> int:
        return sum(
            1 for e in self._live(kind) if not e.preseeded and (predicate is None or predicate(e))
        )

    def _check_quota(self, resource: str, used: float, requested: float = 1) -> None:
        """Raise OverLimit when *used* + *requested* exceeds the quota on *resource*."""
        limit = self.quotas.get(resource, -1)
        if limit >= 0 and used + requested > limit:
            msg = (
                f"Quota exceeded for {resource}: requested {requested:g}, "
                f"already used {used:g} of {limit}"
            )
            raise exception.OverLimit(msg, body={"overLimit": {"code": 413, "message": msg}})

    # --- lifecycles ----------------------------------------------------------

    def _start(
        self,
        ent: Entity,
        phase: str,
        transitional: str | None,
        final: str | None,
        *,
        final_attrs: dict[str, Any] | None = None,
    ) -> None:
        """Move *ent* into *transitional* now and to *final* after a sampled duration.

        ``transitional=None`` applies *final* at once; ``final=None`` removes the
        entity. Active fault effects apply here: ``stuck`` leaves the entity in
        *transitional*, ``error_state`` replaces *final* with the ERROR status,
        ``delay`` stretches the duration, ``eventual_consistency`` makes a
        deleted entity linger in lists.
        """
        now = self._now()
        call = self.world.call
        duration = 0.0
        if transitional is not None:
            duration = call.transition_time(self.name, ent.kind, phase)
        effect = call.effect
        attrs = dict(final_attrs or {})
        if effect == "error_state":
            final = self._error_status(ent.kind)
            attrs = {"fault": {"message": call.reason, "code": 500}}
        elif effect == "stuck" and transitional is not None:
            ent.status = transitional
            ent.updated_at = now
            ent.pending.clear()
            return
        ent.pending.clear()
        ent.updated_at = now
        if final is None:
            linger = call.consistency_lag("linger")
            if linger is not None:
                ent.linger_until = now + duration + linger
        if transitional is None:
            ent.pending.append(Transition(now, final, attrs))
            if not ent.advance(now):
                self._store[ent.kind].pop(ent.id, None)
            return
        ent.status = transitional
        ent.pending.append(Transition(now + duration, final, attrs))

    def _set(self, ent: Entity, **attrs: Any) -> None:
        """Update attributes of *ent* now."""
        merge(ent.attrs, attrs)  # ent.attrs.update(plain(attrs)), copying once
        ent.updated_at = self._now()

    def _require_status(self, ent: Entity, allowed: tuple[str, ...], action: str) -> None:
        """Raise Conflict unless *ent* is in one of *allowed* statuses and not transitioning."""
        if ent.status not in allowed or ent.pending:
            msg = f"Cannot '{action}' {ent.kind} {ent.id} while it is in status {ent.status}" + (
                " (a transition is in progress)" if ent.pending and ent.status in allowed else ""
            )
            raise exception.Conflict(
                msg, body={"conflictingRequest": {"code": 409, "message": msg}}
            )

    # --- state ---------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """Return this service's JSON-able state."""
        return {
            "quotas": dict(sorted(self.quotas.items())),
            "counters": copy.deepcopy(self.counters),
            "entities": {
                kind: [e.to_dict() for e in store.values()] for kind, store in self._store.items()
            },
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace this service's state with *state* from :meth:`to_state`."""
        self.quotas = dict(state["quotas"])
        self.counters = copy.deepcopy(state["counters"])
        self._store = {}
        for kind, items in state["entities"].items():
            self._store[kind] = {}
            for item in items:
                ent = Entity.from_dict(item)
                self._store[kind][ent.id] = ent
        for kind in self.kinds:
            self._store.setdefault(kind, {})
