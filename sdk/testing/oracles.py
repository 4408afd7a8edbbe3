"""Oracles: what a correct plug-in's run looks like in the fake cloud, judged in one place.

Each oracle reads what a test world recorded -- the fake cloud's entities
(identity, creation instant, fields), its call log and the resource's state
-- and returns the problems it sees as plain sentences naming the plug-in's
handler (qualified name and ``file:line``) and what it did. The conformance
suite (:mod:`sdk.testing.oracle_conformance`), the dynamic lint rules
(:mod:`sdk.lint.dynamic_rules`) and the campaign's invariants call the same
functions, so the three never disagree.

An oracle that cannot know (no fake-cloud entity behind the resource id, a
backend that is not plugsim's fake cloud, a plug-in without a cloud object)
returns no problem: it never guesses.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: The last part of the operation names that only read (``servers.get``, ``entities.list`` ...).
READ_OPERATIONS = frozenset(
    {"get", "list", "get_member", "list_access", "list_members", "logs", "status", "validate"}
)
#: Entity fields that say when or which object, never what the plug-in asked for.
IDENTITY_FIELDS = frozenset({"id", "created_at", "updated_at"})
#: Builtin exceptions that escaping a handler are a crash of the plug-in's code, not
#: an answer of the cloud (a cloud's refusal is an ``sdk.exception`` error).
#: Exceptions that are a bug of the code raising them, never a cloud's or a user's refusal
#: (a ``ValueError`` may be a plug-in's own way to refuse, as Heat's TestResource fails
#: when told to). The lint's dynamic rules use the same tuple.
PROGRAMMING_ERRORS: tuple[type[Exception], ...] = (
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    NameError,
    ZeroDivisionError,
)
#: Their names and their builtin subclasses' (``UnboundLocalError``), as status reasons say them.
CRASHES = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, PROGRAMMING_ERRORS)
)


# -- naming the plug-in's code ---------------------------------------------------------


def _shown(path: str) -> str:
    """*path* relative to the working directory when it is under it (what the user sees)."""
    import os

    here = os.getcwd()
    if os.path.abspath(path).startswith(here + os.sep):
        return os.path.relpath(path, here)
    marker = f"{os.sep}site-packages{os.sep}"
    if marker in path:  # an installed package: its import path says where
        return path.split(marker, 1)[1]
    return path


def handler(cls: type, method: str) -> str:
    """``Class.method (file:line)`` of the code *cls* runs as *method*.

    The class that really defines the method is named (a subclass inheriting
    ``handle_update`` is reported at its base's definition); without source the
    ``(file:line)`` part is left out.
    """
    fn = getattr(cls, method, None)
    fn = getattr(fn, "__func__", fn)
    if fn is None:
        return f"{cls.__qualname__}.{method}"
    inner = inspect.unwrap(fn)
    name = getattr(inner, "__qualname__", f"{cls.__qualname__}.{method}")
    try:
        path = inspect.getsourcefile(inner)
        line = inspect.getsourcelines(inner)[1]
    except (OSError, TypeError):
        return name
    return f"{name} ({_shown(path)}:{line})" if path else name


# -- the fake cloud's entities ---------------------------------------------------------


@dataclass(frozen=True)
class EntityFacts:
    """One fake-cloud entity as an oracle sees it: identity, creation instant and fields."""

    service: str
    kind: str
    id: str
    name: str
    status: str
    created_at: float
    view: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def key(self) -> tuple[str, str, str]:
        """``(service, kind, id)``."""
        return (self.service, self.kind, self.id)

    def label(self) -> str:
        """``service/kind id 'name' (created at t=...)`` for messages."""
        named = f" {self.name!r}" if self.name else ""
        return f"{self.service}/{self.kind} {self.id}{named} (created at t={self.created_at:g})"


def _cloud(world: Any) -> Any:
    """The world's fake cloud, or None on another backend (its oracles cannot know)."""
    cloud = getattr(world, "cloud", None)
    return cloud if callable(getattr(cloud, "service", None)) else None


def all_entities(world: Any) -> list[EntityFacts]:
    """Every live, non-preseeded entity of *world*'s fake cloud, in inventory order."""
    cloud = _cloud(world)
    if cloud is None:
        return []
    out = []
    for item in cloud.inventory():
        if item.preseeded:
            continue
        found = entity(world, item.id, service=item.service, kind=item.kind)
        if found is not None:
            out.append(found)
    return out


def entity(
    world: Any, physical_id: Any, *, service: str | None = None, kind: str | None = None
) -> EntityFacts | None:
    """The live entity whose id is *physical_id* (None when there is none, or no fake cloud)."""
    cloud = _cloud(world)
    if cloud is None or physical_id is None:
        return None
    wanted = str(physical_id)
    for item in cloud.inventory():
        if item.id != wanted or (service and item.service != service):
            continue
        if kind and item.kind != kind:
            continue
        svc = cloud.service(item.service)
        for ent in svc._live(item.kind):
            if ent.id == wanted:
                view = ent.view()
                return EntityFacts(
                    item.service, item.kind, ent.id, ent.name, ent.status, ent.created_at, view
                )
    return None


def new_entities(world: Any, before: Iterable[EntityFacts]) -> list[EntityFacts]:
    """Entities alive now that were not in *before* (by identity and creation instant)."""
    known = {(e.key, e.created_at) for e in before}
    return [e for e in all_entities(world) if (e.key, e.created_at) not in known]


def writes(trace: Sequence[Any]) -> list[str]:
    """``service.operation`` of each call in *trace* that changes something (not a read)."""
    return [
        f"{t.service}.{t.operation}"
        for t in trace
        if t.operation.rsplit(".", 1)[-1] not in READ_OPERATIONS
    ]


def fields(view: Mapping[str, Any] | None, ignore: Iterable[str] = ()) -> dict[str, Any]:
    """The fields of an entity view an oracle compares (identity fields and *ignore* left out)."""
    skip = IDENTITY_FIELDS | set(ignore)
    return {k: v for k, v in (view or {}).items() if k not in skip}


def varying(*views: Mapping[str, Any] | None) -> set[str]:
    """Fields whose values differ between *views* (a field missing from one differs too)."""
    keys = {k for v in views for k in (v or {})}
    return {k for k in keys if len({repr((v or {}).get(k, _MISSING)) for v in views}) > 1}


_MISSING = object()


# -- the oracles -------------------------------------------------------------------------


def in_place(
    world: Any, cls: type, change: Iterable[str], before: EntityFacts | None, after_id: Any
) -> list[str]:
    """*In place means in place*: an in-place update keeps the same cloud object.

    *before* is the entity behind the resource before the update, *after_id*
    the resource id after it. The object must still be there under the same
    identity with the same creation instant; a delete-and-recreate is seen even
    when the new object has the old name (or the old id).
    """
    if before is None or _cloud(world) is None:
        return []
    who = handler(cls, "handle_update")
    props = ", ".join(sorted(change))
    old_now = entity(world, before.id, service=before.service, kind=before.kind)
    new_now = entity(world, after_id)
    if old_now is not None and old_now.created_at != before.created_at:
        return [
            f"{who} deleted and re-created the cloud object {before.label()} during an "
            f"in-place update of {props}: it is now an object created at "
            f"t={old_now.created_at:g}"
        ]
    if str(after_id) == before.id:
        if old_now is None:
            return [
                f"{who} deleted the cloud object {before.label()} during an in-place update "
                f"of {props}, and the resource id still names it"
            ]
        return []
    if new_now is not None and new_now.created_at > before.created_at:
        gone = "deleted" if old_now is None else "left"
        same = " with the same name" if new_now.name and new_now.name == before.name else ""
        return [
            f"{who} replaced the cloud object during an in-place update of {props}: it "
            f"{gone} {before.label()}, made {new_now.label()}{same} and switched "
            f"resource_id to it"
        ]
    if old_now is None:
        return [
            f"{who} deleted the cloud object {before.label()} during an in-place update of "
            f"{props} and set resource_id to {after_id!r}, which names no cloud object"
        ]
    return []


def reaches_cloud(
    cls: type,
    after: EntityFacts | None,
    from_old: Mapping[str, Any] | None,
    from_new: Mapping[str, Any] | None,
    noise: Iterable[str] = (),
) -> list[str]:
    """*The update reaches the cloud*: after v1 -> v2 the object looks created from v2.

    *from_old* and *from_new* are the views of objects created from v1 and v2
    in worlds of one seed; the fields they differ on are the ones the plug-in
    set from the changed properties (less *noise*: fields that differ between
    two creates of v1 alone, such as generated ids). A field the updated
    object *after* still holds at its v1 value is a change that never reached
    the cloud.
    """
    if after is None or from_old is None or from_new is None:
        return []
    old, new, now = fields(from_old, noise), fields(from_new, noise), fields(after.view, noise)
    stale = sorted(
        k for k in varying(old, new) if k in now and repr(now[k]) == repr(old.get(k, _MISSING))
    )
    if not stale:
        return []
    who = handler(cls, "handle_update")
    detail = "; ".join(f"{k} is {now[k]!r}, created from v2 it is {new.get(k)!r}" for k in stale)
    return [f"{who}: the update did not reach the cloud object: {detail} ({after.label()})"]


def repeated_update(cls: type, trace: Sequence[Any]) -> list[str]:
    """*A repeated update is a no-op*: the same template again makes no write call."""
    made = writes(trace)
    if not made:
        return []
    return [
        f"{handler(cls, 'handle_update')}: updating to the template the resource already has "
        f"made write calls: {', '.join(made)}"
    ]


def _maker(world: Any, ent: EntityFacts) -> Any:
    """The history record of the call that made *ent* (None: unknown)."""
    cloud = _cloud(world)
    history = getattr(cloud, "history", None) if cloud is not None else None
    return history.creator(ent.kind, ent.id, ent.service) if history is not None else None


def doubled(
    cls: type,
    clean: Sequence[EntityFacts],
    retried: Sequence[EntityFacts],
    world: Any = None,
    handlers: HandlerRecord | None = None,
) -> list[str]:
    """*Retries do not double*: a create retried after a transient fault makes no more objects.

    The message names the handler whose call made the extra object (the latest made of its
    kind: a ``check_create_complete`` creating again, a ``handle_create`` run twice), read from
    the fake cloud's history of *world*; ``handle_create`` when the history does not say. With
    the *handlers* record of a :func:`recording` subclass it also names the handler the injected fault
    surfaced in (where the create stopped before the first object was known to the engine).
    """
    out = []
    for kind in sorted({(e.service, e.kind) for e in retried}):
        want = sum((e.service, e.kind) == kind for e in clean)
        got = [e for e in retried if (e.service, e.kind) == kind]
        if len(got) <= want:
            continue
        made = [(e, _maker(world, e)) for e in got]
        extra = max(made, key=lambda pair: (pair[0].created_at, pair[1].call if pair[1] else 0))
        record = extra[1]
        if record is not None and record.handler and hasattr(cls, record.handler):
            who = handler(cls, record.handler)
        elif record is not None and record.handler:
            who = f"{record.handler} ({record.site})"
        else:
            who = handler(cls, "handle_create")
        labels = [
            e.label() + (f" made by {r.describe()}" if r is not None else "") for e, r in made
        ]
        struck = ""
        if handlers is not None and handlers.raised:
            method, ex, _ = handlers.raised[0]
            where = _in_handler_file(cls, method, ex)
            at = f" at {where}" if where else ""
            struck = (
                f"; the injected fault surfaced in {handler(cls, method)}{at} "
                f"({type(ex).__name__}), before the engine knew the first object"
            )
        out.append(
            f"{who}: a create retried after a transient fault left {len(got)} "
            f"{kind[0]}/{kind[1]} objects where a clean create leaves {want}: "
            + "; ".join(labels)
            + struck
        )
    return out


def action_changed(
    cls: type, action: str, before: EntityFacts | None, after: EntityFacts | None
) -> list[str]:
    """*Suspend and resume change the cloud object*: its status or fields differ afterwards."""
    method = f"handle_{action.lower()}"
    from sdk.resource import Resource

    if getattr(cls, method, None) is getattr(Resource, method, None):
        return []  # the plug-in does not implement the action: nothing promised a change
    if before is None or after is None:
        return []
    if fields(before.view) != fields(after.view):
        return []
    return [
        f"{handler(cls, method)}: {action} completed but the cloud object {after.label()} "
        f"did not change (status {after.status!r})"
    ]


def mirrored_attributes(resource: Any, ent: EntityFacts | None) -> list[str]:
    """Attributes whose value equals the entity's field of the same name (they mirror the cloud)."""
    if ent is None:
        return []
    out = []
    for name in sorted(getattr(resource, "attributes_schema", {}) or {}):
        if name == "show" or name not in ent.view or ent.view[name] in (None, "", [], {}):
            continue
        try:
            value = resource.FnGetAtt(name)
        except Exception:  # noqa: BLE001 - an attribute that does not resolve mirrors nothing
            continue
        if value == ent.view[name]:
            out.append(name)
    return out


def stale_attributes(
    cls: type, resource: Any, ent: EntityFacts | None, names: Iterable[str], after: str
) -> list[str]:
    """*Attributes reflect the cloud*: each mirrored attribute still equals the entity's field."""
    if ent is None:
        return []
    out = []
    for name in names:
        if name not in ent.view:
            continue
        try:
            value = resource.FnGetAtt(name)
        except Exception as ex:  # noqa: BLE001 - reported: it resolved before
            value = f"<raised {type(ex).__name__}>"
        if value != ent.view[name]:
            out.append(
                f"{handler(cls, '_resolve_attribute')}: after {after}, attribute {name} reads "
                f"{value!r} but the cloud object {ent.label()} has {ent.view[name]!r} "
                f"(a cached value?)"
            )
    return out


def restored(
    cls: type,
    at_snapshot: EntityFacts | None,
    before_restore: EntityFacts | None,
    after_restore: EntityFacts | None,
    noise: Iterable[str] = (),
) -> list[str]:
    """*Restore brings back what the snapshot held*: fields changed since go back."""
    if at_snapshot is None or before_restore is None or after_restore is None:
        return []
    snap = fields(at_snapshot.view, noise)
    later = fields(before_restore.view, noise)
    now = fields(after_restore.view, noise)
    kept = sorted(
        k
        for k in varying(snap, later)
        if k in now and k in later and repr(now[k]) == repr(later[k])
    )
    if not kept:
        return []
    detail = "; ".join(f"{k} is {now[k]!r}, the snapshot held {snap.get(k)!r}" for k in kept)
    who = handler(cls, "handle_restore") if hasattr(cls, "handle_restore") else cls.__qualname__
    return [
        f"{who}: restore did not bring back what the snapshot held: {detail} "
        f"({after_restore.label()})"
    ]


def crash(reason: str | None) -> str | None:
    """The builtin exception class a status reason starts with (a plug-in crash), else None."""
    head = (reason or "").split(":", 1)[0].strip()
    return head if head in CRASHES else None


# -- recording which handler ran ----------------------------------------------------------


@dataclass
class HandlerRecord:
    """What a :func:`recording` subclass saw: handlers run, and the first one that raised."""

    calls: list[str] = field(default_factory=list)
    raised: list[tuple[str, BaseException, str]] = field(default_factory=list)


def _where(exc: BaseException, skip: str) -> str:
    """``file:line`` of the deepest frame of *exc*'s traceback outside plugsim's own SDK."""
    found = ""
    tb = exc.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if skip not in path:
            found = f"{_shown(path)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def _in_handler_file(cls: type, method: str, exc: BaseException) -> str:
    """``file:line`` of the deepest frame of *exc* in the file defining *cls*'s *method*."""
    fn = inspect.unwrap(getattr(getattr(cls, method, None), "__func__", getattr(cls, method)))
    path = getattr(getattr(fn, "__code__", None), "co_filename", None)
    found = ""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            found = f"{_shown(path)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def recording(cls: type, record: HandlerRecord) -> type:
    """A subclass of *cls* whose ``handle_*`` / ``check_*_complete`` methods report to *record*."""
    import os

    sdk_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    wrapped: dict[str, Any] = {}
    for name in dir(cls):
        if not (
            name.startswith("handle_") or (name.startswith("check_") and name.endswith("_complete"))
        ):
            continue
        original = getattr(cls, name, None)
        if not callable(original) or isinstance(
            inspect.getattr_static(cls, name), staticmethod | classmethod
        ):
            continue

        def make(method: str, fn: Any) -> Any:
            def run(self: Any, *args: Any, **kwargs: Any) -> Any:
                record.calls.append(method)
                try:
                    return fn(self, *args, **kwargs)
                except Exception as ex:
                    record.raised.append((method, ex, _where(ex, sdk_dir)))
                    raise

            async def run_async(self: Any, *args: Any, **kwargs: Any) -> Any:
                record.calls.append(method)
                try:
                    return await fn(self, *args, **kwargs)
                except Exception as ex:
                    record.raised.append((method, ex, _where(ex, sdk_dir)))
                    raise

            # a coroutine handler (the compat layer runs a Heat group's blocking handle_update
            # as one) stays one, with its markers, so a class hook does not wrap it again
            if inspect.iscoroutinefunction(fn):
                run = run_async
                run.__dict__.update(getattr(fn, "__dict__", {}))
            run.__wrapped__ = fn  # type: ignore[attr-defined]
            run.__name__ = method
            run.__qualname__ = getattr(fn, "__qualname__", method)
            run.__module__ = getattr(fn, "__module__", cls.__module__)
            return run

        wrapped[name] = make(name, original)
    return type(
        cls.__name__,
        (cls,),
        {**wrapped, "__module__": cls.__module__, "__qualname__": cls.__qualname__},
    )


def crashed(cls: type, record: HandlerRecord, reason: str | None, what: str) -> list[str]:
    """A handler that crashed (a builtin exception such as ``KeyError``) while doing *what*."""
    name = crash(reason)
    if name is None:
        return []
    for method, ex, where in record.raised:
        if type(ex).__name__ == name:
            at = f" at {where}" if where else ""
            return [
                f"{handler(cls, method)} crashed with {type(ex).__name__}: {ex}{at} while {what}"
            ]
    return [f"{cls.__qualname__} crashed while {what}: {reason}"]
