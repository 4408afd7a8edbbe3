"""The world: one fake cloud with its clock, seeded streams, services and faults.

Every operation of every service runs through :meth:`FakeCloud.dispatch`:

1. the fault engine picks the first matching rule (``faults`` stream);
2. the call latency is sampled (``latency`` stream) and *charged* with
   ``clock.charge(seconds)`` - inside an engine task it becomes the task's
   debt, outside any loop the clock advances;
3. the operation runs against the state (transition durations also come from
   the ``latency`` stream; ids from the ``ids`` stream);
4. a :class:`TraceEntry` records virtual time, service, operation, entity id
   and outcome. Two runs with one seed produce identical traces.

"Now" for the world is ``clock.now() + clock.debt()``: the local time of the
calling task, so a server created after 0.8 s of charged latency starts
booting at 0.8 s even before the task settles its debt.

The state round-trips whole through :meth:`FakeCloud.to_state` /
:meth:`FakeCloud.from_state`, and in pieces through :meth:`FakeCloud.state_delta`:
what changed since the previous delta (entities, services' own state, fault
bookkeeping, new trace entries, random streams), which is what a world's store
commits.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from fake_clouds.core import registry
from fake_clouds.core.call import Call, TraceEntry
from fake_clouds.core.faults import validate_against
from fake_clouds.core.history import CallRecorder, History, HistoryRecord
from fake_clouds.core.injector import FaultEngine, InjectedFault, Injection
from fake_clouds.core.inventory import (
    InventoryItem,
    InventoryMark,
    InventorySnapshot,
    ServerView,
    leaks,
)
from fake_clouds.core.latency import LatencyModel, parse_distribution
from fake_clouds.core.service import Service
from fake_clouds.core.tracking import (
    ChangeLog,
    ServiceStore,
    keys_of,
    service_store,
    without_entities,
)
from sdk import exception
from sdk.clients import ClientPlugin
from simulator.clock import VirtualClock
from simulator.rng import SeededRNG

if TYPE_CHECKING:
    import responses

    from fake_clouds.rest.server import RestServer

T = TypeVar("T")

STATE_FORMAT = 1


@dataclass
class CloudDelta:
    """What changed in a fake cloud since the previous delta (see :meth:`FakeCloud.state_delta`).

    ``entities`` holds ``(service, kind, id, doc, stamp)``: ``doc`` is the
    entity's :meth:`~fake_clouds.core.entities.Entity.to_dict` or None when it
    is gone; a non-zero ``stamp`` means the entity took a new place in its
    store's creation order (stamps order such entities among themselves).
    With ``full`` the delta holds everything, and entities it does not list
    no longer exist.
    """

    full: bool
    header: dict[str, Any] | None = None
    faults: dict[str, Any] | None = None
    faults_reset: bool = False
    services: dict[str, dict[str, Any]] = field(default_factory=dict)
    entities: list[tuple[str, str, str, dict[str, Any] | None, int]] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    injected: list[dict[str, Any]] = field(default_factory=list)
    rng: dict[str, tuple[Any, ...]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(
            self.full
            or self.header is not None
            or self.faults is not None
            or self.services
            or self.entities
            or self.trace
            or self.injected
            or self.rng
        )


def _own_state(svc: Service) -> dict[str, Any]:
    """A service's state without its entities, plus the kinds its store holds, in order."""
    with without_entities(svc._store):  # type: ignore[arg-type]
        own = svc.to_state()
    own.pop("entities", None)
    own["entity_kinds"] = list(svc._store)
    return own


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


class FakeCloud:
    """A stateful fake cloud running in virtual time, deterministic from one seed."""

    #: where large object bodies live (:mod:`fake_clouds.core.blobs`); None keeps them inline
    blobs: Any = None
    #: the call without a fault, its streams and latency model (see :meth:`_idle_call`)
    _idle: Call | None = None

    def __init__(
        self,
        seed: int | str = 0,
        clock: VirtualClock | None = None,
        faults: Any = None,
        latency: LatencyModel | Mapping[str, Any] | None = None,
        *,
        services: Iterable[str | type[Service]] | None = None,
        quotas: Mapping[str, Mapping[str, int]] | None = None,
        preseed: bool = True,
    ) -> None:
        """Create a world.

        *faults*: a preset name, fault-profile path, YAML text, list of rules or
        :class:`FaultProfile`. *latency*: a :class:`LatencyModel` or its spec.
        *services*: names or classes (default: every built-in service).
        *quotas*: ``{service: {quota: limit}}`` overriding defaults.
        *preseed*: add the default world (each service's :meth:`Service.seed_defaults`,
        see :mod:`fake_clouds.default_world`).
        """
        self.seed = seed
        self.clock = clock if clock is not None else VirtualClock()
        self.rng = SeededRNG(seed)
        self.latency = latency if isinstance(latency, LatencyModel) else LatencyModel(latency)
        self._log = ChangeLog()
        self._saved: _SavedMarks | None = None
        self._services: dict[str, Service] = {}
        for item in services if services is not None else registry.builtin_service_names():
            self.add_service(item)
        for name in sorted(quotas or {}):
            if name not in self._services:
                raise exception.ConfigurationError(f"quotas.{name}: unknown service")
            self._services[name].set_quotas(dict(quotas[name]))  # type: ignore[index]
        self.faults = FaultEngine()
        self.set_faults(faults)
        self._trace: list[TraceEntry] = []
        self._call: Call | None = None
        self._in_call = False
        self._call_now = 0.0  # the time of the operation in progress (see :meth:`now`)
        #: each entity's history: the calls that made and changed it (see :meth:`entity_history`)
        self.history = History()
        if preseed:
            for svc in self._services.values():
                svc.seed_defaults()

    # --- services and clients -------------------------------------------------

    def add_service(self, service: str | type[Service]) -> Service:
        """Add a service by registered name or class; return the instance."""
        cls = registry.service_class(service) if isinstance(service, str) else service
        if cls.name in self._services:
            raise exception.ConfigurationError(f"service '{cls.name}' is already in this world")
        instance = cls(self)
        self._services[cls.name] = instance
        self._track(instance)
        return instance

    def _track(self, svc: Service) -> None:
        """Attach *svc*'s entity store to this cloud's change log."""
        store = svc._store
        if type(store) is not ServiceStore or store._log is not self._log:
            svc._store = service_store(self._log, svc.name, store)
            self._log.services.add(svc.name)

    def service(self, name: str) -> Service:
        """Return the service called *name* (Heat-style client names accepted)."""
        real = registry.CLIENT_ALIASES.get(name, name)
        if real not in self._services and registry.optional_service(real):
            # identity is added on first use (Heat's keystone plug-in asks for it), as the
            # OpenStack wire adds it: its bootstrap draws nothing and leaves no leak
            self.add_service(real)
            self._saved = None  # the next delta is whole, so the store holds the new service
        try:
            return self._services[real]
        except KeyError:
            known = ", ".join(sorted(self._services)) or "none"
            raise exception.ConfigurationError(
                f"No fake cloud service '{name}' (known: {known})"
            ) from None

    def service_names(self) -> list[str]:
        """Return the names of this world's services (sorted)."""
        return sorted(self._services)

    def catalog(self) -> dict[str, dict[str, list[str]]]:
        """Return ``{service: {'operations': [...], 'kinds': [...]}}``."""
        return {
            name: {"operations": svc.operations(), "kinds": svc.catalog_kinds()}
            for name, svc in sorted(self._services.items())
        }

    def client(self, name: str) -> Any:
        """Return the Python client of a service (``'nova'``, ``'compute'`` ...)."""
        return self.service(name).client()

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return a :class:`sdk.clients.ClientPlugin` wrapping :meth:`client`."""
        self.service(name)
        return ClientPlugin(name, factory=lambda: self.client(name))

    def client_plugins(self) -> dict[str, ClientPlugin]:
        """Return client plug-ins under every service name and Heat-style alias."""
        names = set(self._services)
        names.update(a for a, s in registry.CLIENT_ALIASES.items() if s in self._services)
        return {name: self.client_plugin(name) for name in sorted(names)}

    def set_faults(self, faults: Any) -> None:
        """Replace the fault rules (bookkeeping restarts); validated against services."""
        engine = FaultEngine(faults)
        for rule in engine.profile.rules:  # a rule may name a service added on first use
            if rule.service and rule.service not in self._services:
                if registry.optional_service(rule.service):
                    self.service(rule.service)
        if engine.profile.rules:  # no rule, nothing to check (the catalogue is not free)
            validate_against(engine.profile, self.catalog())
        self.faults = engine

    # --- time, ids and the dispatch path --------------------------------------

    def now(self) -> float:
        """Return the caller's virtual time (clock time plus the task's unpaid debt)."""
        if self._in_call:  # nothing charges the clock while an operation runs
            return self._call_now
        return self.clock.now() + self.clock.debt()

    def new_id(self) -> str:
        """Return a new UUID from the ``ids`` stream."""
        return self.rng.uuid("ids")

    def dispatch(
        self,
        service: Service,
        operation: str,
        kind: str | None,
        entity_id: str | None,
        perform: Callable[[], T],
    ) -> T:
        """Run one operation through faults, latency, the state change and the trace."""
        if self._in_call:
            return perform()
        log = self._log
        # A call may change any service's own state (a server create plugs ports
        # in the network service), so every service is compared at the next delta.
        log.services.add("*")
        clock = self.clock
        rng = self.rng
        start = clock.now() + clock.debt()  # self.now() outside a call
        faults = self.faults
        rnd = rng.stream("faults")  # made at the first call, rules or not (its state is kept)
        injection = (
            faults.evaluate(service.name, operation, kind, start, rnd)
            if faults.profile.rules
            else None
        )
        latency = self.latency.call(service.name, operation, rng.stream("latency"))
        effect = None
        if injection is not None:
            effect = injection.effect_type
            if effect == "delay":
                params = injection.rule.effect.params
                extra = parse_distribution(params["seconds"]).sample(rnd)
                latency = latency * params["factor"] + extra
            elif effect == "timeout":
                latency = injection.rule.effect.params["after"]
        clock.charge(latency)
        self._call_now = clock.now() + clock.debt()
        self._in_call = True
        if injection is None:  # most calls: the idle call, made once
            self._call = self._idle_call()
        else:
            factor = injection.rule.effect.params["factor"] if effect == "delay" else 1.0
            self._call = Call(rng, self.latency, injection, factor)
        recorder = log.recorder = CallRecorder()
        result: Any = None
        try:
            if effect is not None:
                if effect in ("error", "over_limit", "throttle"):
                    raise injection.rule.effect.make_error(  # type: ignore[union-attr]
                        f"{service.name}.{operation}",
                        injection.retry_after,  # type: ignore[union-attr]
                    )
                if effect == "timeout":
                    if injection.rule.effect.params["applied"]:  # type: ignore[union-attr]
                        result = perform()
                    msg = f"{service.name}.{operation} timed out after {latency:g} s"
                    raise exception.ClientTimeout(msg, body={"message": msg})
            result = perform()
        except exception.ClientError as ex:
            log.recorder = None
            name = type(ex).__name__
            self._finish(service, operation, entity_id, result, name, start, latency, injection)
            if recorder.touched:  # a read leaves no history: no stack walk
                self._remember(recorder, service, operation, name, start, injection)
            raise
        finally:
            log.recorder = None
            self._in_call = False
            self._call = None
        self._finish(service, operation, entity_id, result, "ok", start, latency, injection)
        if recorder.touched:
            self._remember(recorder, service, operation, "ok", start, injection)
        return result

    def _remember(
        self,
        recorder: CallRecorder,
        service: Service,
        operation: str,
        outcome: str,
        start: float,
        injection: Injection | None,
    ) -> None:
        """Append a history record for each entity the call just traced touched."""
        fault = f"{injection.effect_type} ({injection.rule.name})" if injection else None
        self.history.record_call(
            recorder,
            self._services,
            len(self._trace),
            f"{service.name}.{operation}",
            outcome,
            start,
            fault,
            sys._getframe(1),
        )

    def entity_history(
        self, kind: str, entity_id: str, service: str | None = None
    ) -> list[HistoryRecord]:
        """The calls that created, changed and deleted one entity, oldest first (each a
        :class:`~fake_clouds.core.history.HistoryRecord`: call, op, at, handler, site ...)."""
        return self.history.of(kind, entity_id, service)

    def _finish(
        self,
        service: Service,
        operation: str,
        entity_id: str | None,
        result: Any,
        outcome: str,
        start: float,
        latency: float,
        injection: Injection | None,
    ) -> None:
        if entity_id is None and isinstance(result, dict) and isinstance(result.get("id"), str):
            entity_id = result["id"]
        if not isinstance(entity_id, str):
            entity_id = None
        self._trace.append(TraceEntry(start, service.name, operation, entity_id, outcome, latency))
        if injection is not None:
            self.faults.record(
                InjectedFault(
                    start,
                    service.name,
                    operation,
                    injection.index,
                    injection.rule.name,
                    injection.effect_type,
                    entity_id,
                )
            )

    @property
    def call(self) -> Call:
        """The operation in progress: its fault effect and time factor (idle between calls)."""
        return self._call if self._call is not None else self._idle_call()

    def _idle_call(self) -> Call:
        """A call without a fault (a :class:`Call` is immutable: one serves every such call)."""
        idle = self._idle
        if idle is None or idle.rng is not self.rng or idle.latency is not self.latency:
            idle = self._idle = Call(self.rng, self.latency)
        return idle

    # --- records ---------------------------------------------------------------

    def trace(self) -> list[TraceEntry]:
        """Return every call so far, in order."""
        return list(self._trace)

    def injected_faults(self) -> list[InjectedFault]:
        """Return every injected fault so far, in order."""
        return list(self.faults.injected)

    # --- inventory and leaks -----------------------------------------------------

    def inventory(self) -> list[InventoryItem]:
        """Return every live entity (pre-seeded ones flagged), sorted."""
        items = []
        for name, svc in self._services.items():
            for kind in svc.entity_kinds():
                if not svc._store.get(kind):  # nothing to advance or list (most kinds)
                    continue
                for ent in svc._live(kind):
                    # on its way out (a delete is due): not shown as the status it leaves
                    going = bool(ent.pending) and ent.pending[-1].status is None
                    status = "DELETING" if going else ent.status
                    items.append(InventoryItem(name, kind, ent.name, ent.id, status, ent.preseeded))
        return sorted(items)

    def snapshot_inventory(self) -> InventorySnapshot:
        """Remember which entities are alive now (compare later with :meth:`leaks`)."""
        return InventorySnapshot(self.now(), frozenset(i.key for i in self.inventory()))

    def leaks(
        self, since: InventoryMark | Iterable[InventoryItem] | None = None
    ) -> list[InventoryItem]:
        """Return entities alive now that were not alive at *since* (pre-seeded excluded)."""
        before = since if since is not None else InventorySnapshot(0.0, frozenset())
        return leaks(before, self.inventory())

    # --- what the engine's port asks (see simulator.backend) --------------------------

    def find_server(self, address: str) -> ServerView | None:
        """Return the live server of the compute service that has *address*, if any."""
        if "compute" not in self._services:
            return None
        return self._services["compute"].find_server(address)  # type: ignore[attr-defined,no-any-return]

    def serve_rest(
        self,
        mock: responses.RequestsMock,
        *,
        tokens: Mapping[str, str] | None = None,
        base_urls: Mapping[str, str] | None = None,
    ) -> RestServer:
        """Register this world's REST dialects on the ``responses`` mock *mock*."""
        # Loaded on first use: requests and responses are only needed when REST is served.
        from fake_clouds.rest.server import RestServer

        return RestServer(self, tokens=tokens, base_urls=base_urls, mock=mock)

    def http_wire(self) -> AbstractContextManager[Any]:
        """Serve this world's HTTP APIs to ``requests`` while the engine runs.

        The Docker Engine API and the BIG-IPs' iControl REST API: plug-in code
        that calls HTTP itself (``docker.APIClient``, f5-sdk's ``ManagementRoot``)
        reaches the fake while the ``with`` block lasts, as do the services with a
        ``serve_http(mock)`` (a third-party backend's vendor API); a request to any
        other host fails naming it (:mod:`fake_clouds.http_refusal`), loopback
        excepted. Entering it only installs a hook (:mod:`fake_clouds.http_wire`):
        each API is built when a request first reaches its host, and a ``requests``
        first imported during the run is hooked as it loads, so a plug-in imported
        meanwhile cannot reach the real network either.
        """
        from fake_clouds.http_wire import HttpWire

        return HttpWire(self)

    # --- persistence -------------------------------------------------------------

    def attach_blobs(self, directory: str, *, collect: bool) -> None:
        """Keep large object bodies as files in *directory* (:func:`fake_clouds.core.blobs.attach`)."""
        from fake_clouds.core.blobs import attach

        attach(self, directory, collect=collect)

    def to_state(self) -> dict[str, Any]:
        """Return the whole world as JSON-able data (see :meth:`from_state`)."""
        return {
            "format": STATE_FORMAT,
            "seed": self.seed,
            "time": self.clock.now(),
            "rng": self.rng.getstate(),
            "latency": self.latency.to_spec(),
            "faults": self.faults.to_state(),
            "services": {n: s.to_state() for n, s in sorted(self._services.items())},
            "trace": [t.to_dict() for t in self._trace],
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any], clock: VirtualClock | None = None) -> FakeCloud:
        """Rebuild a world saved by :meth:`to_state`; it continues exactly where it was."""
        if not isinstance(state, Mapping) or state.get("format") != STATE_FORMAT:
            raise exception.ConfigurationError(
                f"fake cloud state: unsupported or missing format (expected {STATE_FORMAT})"
            )
        state = copy.deepcopy(dict(state))
        if clock is None:
            clock = VirtualClock(state["time"])
        else:
            clock.advance_to(state["time"])
        world = cls(
            state["seed"],
            clock,
            latency=state["latency"],
            services=list(state["services"]),
            preseed=False,
        )
        for name, svc_state in state["services"].items():
            svc = world._services[name]
            svc.load_state(svc_state)
            world._track(svc)
        world.faults = FaultEngine.from_state(state["faults"])
        world.rng.setstate(state["rng"])
        world._trace = [TraceEntry(**t) for t in state["trace"]]
        return world

    # --- incremental persistence -------------------------------------------------

    def state_delta(self, *, full: bool = False) -> CloudDelta:
        """Return what changed since the previous delta, and forget it.

        The first delta of a cloud (and any with *full*) holds the whole state.
        Call :meth:`resync` when a delta could not be stored, so the next one is
        full again.
        """
        for svc in self._services.values():  # a service that replaced its store
            self._track(svc)
        saved = self._saved
        full = full or saved is None
        changed, services = self._log.drain()
        if "*" in services:
            services = set(self._services)
        if full:
            saved = self._saved = _SavedMarks()
            services = set(self._services)
            changed = {}
            stamp = 0
            for name in sorted(self._services):
                for key in keys_of(self._services[name]._store):  # type: ignore[arg-type]
                    stamp += 1
                    changed[key] = stamp
        assert saved is not None
        delta = CloudDelta(full=full)
        if full or saved.latency is not self.latency:
            saved.latency = self.latency
            delta.header = {
                "format": STATE_FORMAT,
                "seed": self.seed,
                "latency": self.latency.to_spec(),
            }
        for key, stamp in changed.items():
            service, kind, eid = key
            svc = self._services.get(service)
            ent = None
            if svc is not None:
                ent = dict.get(svc._store, kind, {}).get(eid)
            delta.entities.append(
                (service, kind, eid, None if ent is None else ent.to_dict(), stamp)
            )
        for name in sorted(services):
            svc = self._services.get(name)
            if svc is None:
                continue
            own = _own_state(svc)
            text = _text(own)
            if saved.services.get(name) != text:
                saved.services[name] = text
                delta.services[name] = own
        if saved.faults_engine is not self.faults:
            saved.faults_engine = self.faults
            delta.faults_reset = True
            saved.injected = 0
        if services or delta.faults_reset:  # the fault engine only changes in a call
            faults = self.faults.to_state()
            injected = faults.pop("injected")
            text = _text(faults)
            if delta.faults_reset or saved.faults != text:
                saved.faults = text
                delta.faults = faults
            delta.injected = injected[saved.injected :]
            saved.injected = len(injected)
        if len(self._trace) != saved.trace:
            delta.trace = [t.to_dict() for t in self._trace[saved.trace :]]
            saved.trace = len(self._trace)
        for name, draws in self.rng.draws().items():
            if full or saved.draws.get(name) != draws:
                saved.draws[name] = draws
                delta.rng[name] = self.rng.stream(name).getstate()
        return delta

    def mark_saved(self) -> None:
        """Take the current state as stored (a cloud just rebuilt from its store)."""
        for svc in self._services.values():
            self._track(svc)
        self._log.drain()
        saved = self._saved = _SavedMarks(latency=self.latency, faults_engine=self.faults)
        faults = self.faults.to_state()
        saved.injected = len(faults.pop("injected"))
        saved.faults = _text(faults)
        saved.trace = len(self._trace)
        for name, svc in self._services.items():
            saved.services[name] = _text(_own_state(svc))
        saved.draws = self.rng.draws()

    def changed(self) -> bool:
        """True when :meth:`state_delta` would hold something (a cheap check)."""
        saved = self._saved
        log = self._log
        return (
            saved is None
            or bool(log.entities or log.services)
            or len(self._trace) != saved.trace
            or saved.faults_engine is not self.faults
            or saved.latency is not self.latency
            or saved.draws != self.rng.draws()
            or any(type(svc._store) is not ServiceStore for svc in self._services.values())
        )

    def resync(self) -> None:
        """Make the next :meth:`state_delta` a full one (the last one was not stored)."""
        self._saved = None


@dataclass
class _SavedMarks:
    """What the last delta of a cloud held, to tell what changed since."""

    latency: Any = None
    faults_engine: Any = None
    faults: str = ""
    injected: int = 0
    trace: int = 0
    services: dict[str, str] = field(default_factory=dict)
    draws: dict[str, int] = field(default_factory=dict)
