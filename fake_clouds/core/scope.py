"""Project scoping of entities: who is calling, which project owns an entity, who may see it.

The wire (``fake_clouds.openstack``) serves several projects from one world. While it
answers a request it sets the :data:`CALLER` (project, user, admin or not) for the
duration of the call; outside a request (the engine, the Python clients, tests) there
is no caller and nothing is filtered.

With a caller set, a service's :meth:`~fake_clouds.core.service.Service._create` stamps
the entity's :attr:`~fake_clouds.core.entities.Entity.owner` (the project the entity
belongs to) for the *scoped* kinds, and ``_get``/``_list`` hide the entities the caller
may not see. An entity nobody owns (a world file's or the engine's) is everyone's. An
admin sees everything, as the real services' default policies let a token with the
``admin`` role on any project do. Kinds that are shared by nature (a neutron network
marked ``shared`` or external, a public glance image) have a sharing rule: visible to
all, owned (changeable) by one.

Because a hidden entity fails the same lookup a missing one fails, another project's
server, volume, network or image is the service's own "could not be found" 404, as
nova, cinder, neutron and glance answer it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Caller:
    """Who makes the current wire request."""

    project_id: str
    user_id: str
    roles: frozenset[str]
    #: False: lists show only the caller's project's entities, even to an admin
    #: (nova's and cinder's lists without ``all_tenants``).
    lists_all: bool = True

    @property
    def is_admin(self) -> bool:
        """Whether the caller holds the ``admin`` role (cloud admin under the default policies)."""
        return "admin" in self.roles


#: The caller of the request being answered, or None (no scoping).
CALLER: ContextVar[Caller | None] = ContextVar("plugsim_caller", default=None)

#: service name -> the kinds whose entities belong to a project.
SCOPED: dict[str, frozenset[str]] = {
    "compute": frozenset({"server", "image"}),
    "block_storage": frozenset({"volume", "snapshot", "backup"}),
    "network": frozenset(
        {
            "network",
            "subnet",
            "port",
            "router",
            "floatingip",
            "security_group",
            "security_group_rule",
            "trunk",
        }
    ),
    "object_storage": frozenset({"container", "object"}),
}

#: (service, kind) -> may a caller who does not own the entity still see it?
Sharing = Callable[[Any, Any, Caller], bool]
_SHARING: dict[tuple[str, str], Sharing] = {}


def sharing(service: str, kind: str) -> Callable[[Sharing], Sharing]:
    """Register the rule that shows an entity of *kind* to callers who do not own it."""

    def register(fn: Sharing) -> Sharing:
        _SHARING[(service, kind)] = fn
        return fn

    return register


@sharing("network", "network")
def _shared_network(service: Any, ent: Any, caller: Caller) -> bool:
    return bool(ent.attrs.get("shared") or ent.attrs.get("router:external"))


@sharing("network", "subnet")
def _subnet_of_shared_network(service: Any, ent: Any, caller: Caller) -> bool:
    net = service._store["network"].get(ent.attrs.get("network_id"))
    return net is not None and visible(service, net, caller)


@sharing("compute", "image")
def _public_image(service: Any, ent: Any, caller: Caller) -> bool:
    visibility = ent.attrs.get("visibility", "public")
    if visibility in ("public", "community"):
        return True
    members = ent.attrs.get("members") or {}
    return visibility == "shared" and caller.project_id in members


def current() -> Caller | None:
    """Return the caller of the request being answered (None outside a wire request)."""
    return CALLER.get()


@contextmanager
def acting_as(caller: Caller | None) -> Iterator[None]:
    """Scope every lookup inside the block to *caller*."""
    token = CALLER.set(caller)
    try:
        yield
    finally:
        CALLER.reset(token)


def is_scoped(service: str, kind: str) -> bool:
    """Whether entities of *kind* in *service* belong to a project."""
    return kind in SCOPED.get(service, ())


def owns(ent: Any, caller: Caller) -> bool:
    """Whether *caller*'s project owns *ent* (an entity nobody owns is everyone's)."""
    return ent.owner is None or ent.owner == caller.project_id


def visible(service: Any, ent: Any, caller: Caller | None) -> bool:
    """Whether *caller* may see *ent* of *service* (always, without a caller)."""
    if caller is None or caller.is_admin or not is_scoped(service.name, ent.kind):
        return True
    if owns(ent, caller):
        return True
    rule = _SHARING.get((service.name, ent.kind))
    return rule is not None and rule(service, ent, caller)


def listed(service: Any, ent: Any, caller: Caller | None) -> bool:
    """Whether a list made by *caller* shows *ent* (:func:`visible`, narrowed for lists)."""
    if not visible(service, ent, caller):
        return False
    if caller is None or caller.lists_all or not is_scoped(service.name, ent.kind):
        return True
    return owns(ent, caller)


def owner_of(service: Any, kind: str, entity_id: Any) -> str | None:
    """The project owning entity *entity_id* of *kind* (None: unknown or everyone's)."""
    ent = service._store.get(kind, {}).get(entity_id) if isinstance(entity_id, str) else None
    return None if ent is None else ent.owner


def owner_for(service: str, kind: str, attrs: dict[str, Any]) -> str | None:
    """Return the project a new entity belongs to (None outside a request or unscoped)."""
    caller = CALLER.get()
    if caller is None or not is_scoped(service, kind):
        return None
    named = attrs.get("project_id") or attrs.get("tenant_id")
    if caller.is_admin and isinstance(named, str) and named:
        return named
    return caller.project_id
