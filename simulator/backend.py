"""The cloud backend port: what the engine needs from a fake cloud, and how it finds one.

The engine never imports a concrete fake cloud. A :class:`simulator.world.World`
and the driver harness hold a :class:`CloudBackend`: the virtual clock it runs
on, client plug-ins by name, fault rules, its state as JSON-able data, the
inventory (for leak checks), the faults it injected, the trace of the calls it
answered, the servers the simulated deployment waits for and the REST dialects
it serves.

Backends are found through the entry-point group ``plugsim.fake_clouds``
(:data:`ENTRY_POINT_GROUP`); plugsim itself declares ``default``. An entry
point names a :class:`BackendFactory`: called with ``seed``, ``clock`` and
``faults`` it builds a new backend; its ``from_state(state, clock=...)``
rebuilds a saved one. A factory without ``from_state`` (a plain function)
restores through the class of the backend it builds. A factory may also return
an iterable of service classes; the ``default`` factory then builds a world of
those services (``services=``). The world stores the entry-point name next to
the state, so a world is always restored by the backend that saved it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sdk import exception
from sdk._entry_points import group_entry_points
from sdk.clients import ClientPlugin
from simulator.clock import VirtualClock

if TYPE_CHECKING:
    import responses

#: The entry-point group fake cloud backends are registered under.
ENTRY_POINT_GROUP = "plugsim.fake_clouds"
#: The backend a world uses when none is named.
DEFAULT_BACKEND = "default"

#: JSON-able data: a backend's state and what its records turn into.
JSONData = Mapping[str, object]


class InventoryEntry(Protocol):
    """One live entity of a backend's inventory."""

    @property
    def service(self) -> str:
        """The service holding it (``compute`` ...)."""

    @property
    def kind(self) -> str:
        """Its entity kind (``server`` ...)."""

    @property
    def name(self) -> str:
        """Its name."""

    @property
    def id(self) -> str:
        """Its id."""

    @property
    def status(self) -> str:
        """Its status now."""

    @property
    def preseeded(self) -> bool:
        """True for what the backend held before any call (never a leak)."""

    @property
    def key(self) -> tuple[str, str, str]:
        """``(service, kind, id)``: the entity's identity, as :class:`InventoryMark` keeps it."""

    def to_dict(self) -> JSONData:
        """Return the entry as JSON-able data."""


class InventoryMark(Protocol):
    """What was alive at one instant (:meth:`CloudBackend.snapshot_inventory`)."""

    @property
    def time(self) -> float:
        """The virtual instant of the snapshot."""

    @property
    def keys(self) -> frozenset[tuple[str, str, str]]:
        """``(service, kind, id)`` of every entity alive then."""


class FaultRecord(Protocol):
    """One fault the backend injected."""

    @property
    def rule_name(self) -> str | None:
        """The name of the rule that fired (None for an unnamed rule)."""

    @property
    def effect(self) -> str:
        """The kind of fault (``error``, ``timeout``, ``stuck`` ...), for coverage and reports."""

    def to_dict(self) -> JSONData:
        """Return the record as JSON-able data."""


class CallRecord(Protocol):
    """One call the backend answered, as its trace shows it."""

    @property
    def time(self) -> float:
        """The virtual instant the call started."""

    @property
    def service(self) -> str:
        """The service called."""

    @property
    def operation(self) -> str:
        """The operation (``servers.create`` ...)."""

    @property
    def entity_id(self) -> str | None:
        """The entity the call acted on, if known."""

    @property
    def outcome(self) -> str:
        """``ok`` or the name of the client error raised."""

    @property
    def latency(self) -> float:
        """The virtual seconds the call took."""

    def to_dict(self) -> JSONData:
        """Return the record as JSON-able data."""


class ServerRecord(Protocol):
    """A live server as the simulated deployment sees it."""

    @property
    def id(self) -> str:
        """The server's id."""

    @property
    def status(self) -> str:
        """Its status (``ACTIVE``, ``ERROR`` ...)."""

    @property
    def updated_at(self) -> float:
        """The virtual instant its status last changed."""

    @property
    def fault(self) -> str:
        """The fault message of a server in error ('' when there is none)."""


class RestReport(Protocol):
    """What the served REST dialects answered."""

    def format(self) -> str:
        """Return a plain-text summary."""


class RestService(Protocol):
    """The REST dialects of a backend, registered on a ``responses`` mock."""

    def report(self) -> RestReport:
        """Return the calls served, unserved endpoints and bugs of the fake."""


@runtime_checkable
class CloudBackend(Protocol):
    """A fake cloud as the engine and the driver harness use it."""

    @property
    def clock(self) -> VirtualClock:
        """The virtual clock the backend runs on (the world's clock)."""

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the client plug-in of service *name* (``nova``, ``compute`` ...)."""

    def set_faults(self, faults: object) -> None:
        """Replace the fault rules (a preset name, a profile path, YAML text, rules or None)."""

    def to_state(self) -> JSONData:
        """Return the whole backend as JSON-able data (its factory's ``from_state`` reads it)."""

    def inventory(self) -> Sequence[InventoryEntry]:
        """Return every live entity, sorted."""

    def snapshot_inventory(self) -> InventoryMark:
        """Remember what is alive now (compare later with :meth:`leaks`)."""

    def leaks(self, since: InventoryMark) -> Sequence[InventoryEntry]:
        """Return what is alive now and was not at *since* (pre-seeded entities excluded)."""

    def injected_faults(self) -> Sequence[FaultRecord]:
        """Return every fault injected so far, in order."""

    def trace(self) -> Sequence[CallRecord]:
        """Return every call answered so far, in order (same seed, same trace)."""

    def find_server(self, address: str) -> ServerRecord | None:
        """Return the live server that has *address* (an IP or a name), if any."""

    def serve_rest(
        self,
        mock: responses.RequestsMock,
        *,
        tokens: Mapping[str, str] | None = None,
        base_urls: Mapping[str, str] | None = None,
    ) -> RestService | None:
        """Register the backend's REST dialects on *mock*; None when it serves none."""


class BackendFactory(Protocol):
    """What a ``plugsim.fake_clouds`` entry point names (a class fits it as it is)."""

    def __call__(
        self, *, seed: int, clock: VirtualClock, faults: object = None
    ) -> CloudBackend | Iterable[type]:
        """Build a new backend (or return the service classes of one)."""

    def from_state(self, state: JSONData, clock: VirtualClock | None = None) -> CloudBackend:
        """Rebuild the backend that :meth:`CloudBackend.to_state` returned *state* from."""


def _entry_points() -> list[metadata.EntryPoint]:
    return list(group_entry_points(ENTRY_POINT_GROUP))


def available_backends() -> list[str]:
    """Return the names of the installed backends, sorted."""
    return sorted({ep.name for ep in _entry_points()})


def _factory(name: str) -> Callable[..., object]:
    matches = [ep for ep in _entry_points() if ep.name == name]
    if not matches:
        known = ", ".join(available_backends()) or "none"
        raise exception.ConfigurationError(
            f"No fake cloud backend '{name}' in entry-point group {ENTRY_POINT_GROUP} "
            f"(known: {known})"
        )
    ep = matches[0]
    try:
        loaded = ep.load()
    except Exception as ex:  # a broken third-party package must not crash the engine
        raise exception.PluginLoadError(
            f"fake cloud backend '{name}' ({ep.value}) failed to load: {type(ex).__name__}: {ex}"
        ) from ex
    if not callable(loaded):
        raise exception.PluginLoadError(
            f"fake cloud backend '{name}' ({ep.value}) is a {type(loaded).__name__}, not a factory"
        )
    return loaded


def _checked(name: str, result: object) -> CloudBackend:
    if isinstance(result, CloudBackend):
        return result
    raise exception.PluginLoadError(
        f"fake cloud backend '{name}' returned {type(result).__name__}, which is not a "
        "CloudBackend (see simulator.backend)"
    )


def load_backend(
    name: str = DEFAULT_BACKEND,
    *,
    seed: int,
    clock: VirtualClock,
    faults: object = None,
    world: object = None,
) -> CloudBackend:
    """Build a new backend from the entry point *name* on *clock*.

    *world* (a world file's path, a preset name or world data) says what the
    backend holds before its first call; it is passed to the factory as
    ``world=`` only when given, so factories that know no world files keep working
    until one is asked of them.
    """
    extra: dict[str, object] = {} if world is None else {"world": world}
    factory = _factory(name)
    try:
        result = factory(seed=seed, clock=clock, faults=faults, **extra)
    except TypeError as ex:
        if extra and "world" in str(ex):
            raise exception.ConfigurationError(
                f"fake cloud backend '{name}' does not accept world files (--world)"
            ) from ex
        raise
    if isinstance(result, Iterable) and not isinstance(result, str | bytes | Mapping):
        services = list(result)
        result = _factory(DEFAULT_BACKEND)(
            seed=seed, clock=clock, faults=faults, services=services, **extra
        )
    return _checked(name, result)


def restore_backend(name: str, state: JSONData, *, seed: int, clock: VirtualClock) -> CloudBackend:
    """Rebuild the backend saved as *state* by the entry point *name* (on *clock*).

    The entry point's ``from_state`` restores it; a factory without one
    restores through the class of a backend it builds from *seed*.
    """
    factory = _factory(name)
    from_state = getattr(factory, "from_state", None)
    if not callable(from_state):
        fresh = load_backend(name, seed=seed, clock=VirtualClock(clock.now()))
        from_state = getattr(type(fresh), "from_state", None)
        if not callable(from_state):
            raise exception.PluginLoadError(
                f"fake cloud backend '{name}' cannot restore a saved world: neither its factory "
                f"nor {type(fresh).__name__} has from_state(state, clock=...)"
            )
    return _checked(name, from_state(state, clock=clock))
