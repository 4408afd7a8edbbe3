"""Oracles that look at the cloud object itself: ready when the create says so, a status the
cloud changed read afresh, a restore that uses what its snapshot made.

They build on :mod:`sdk.testing.oracles` (which does not import this module: callers import
both) and keep its rules -- the messages name the plug-in's handler and what it did, and an
oracle that cannot know returns no problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sdk.testing.oracles import EntityFacts, _cloud, all_entities, entity, handler


def _live_entity(world: Any, physical_id: Any) -> tuple[Any, Any]:
    """``(service, entity)`` of the live fake-cloud entity *physical_id* names, or ``(None, None)``."""
    cloud = _cloud(world)
    if cloud is None or physical_id is None:
        return None, None
    wanted = str(physical_id)
    for item in cloud.inventory():
        if item.id != wanted or item.preseeded:
            continue
        svc = cloud.service(item.service)
        for ent in svc._live(item.kind):
            if ent.id == wanted:
                return svc, ent
    return None, None


def completed_early(cls: type, world: Any, physical_id: Any) -> list[str]:
    """*Completion is not reported early*: a create the plug-in's ``check_create_complete`` calls
    done leaves its cloud object out of the status it shows while it is being made.

    Judged only when the plug-in declares ``check_create_complete`` (it promised to wait) and the
    entity's kind has such a status (nova's ``BUILD``, cinder's ``creating``): an object still in
    it, with its transition to the final status pending, was not ready when the check said so.
    """
    from sdk.resource import Resource

    if getattr(cls, "check_create_complete", None) is getattr(
        Resource, "check_create_complete", None
    ):
        return []
    svc, ent = _live_entity(world, physical_id)
    if ent is None:
        return []
    making = svc._stuck_status(ent.kind)
    ahead = [t for t in ent.pending if t.status is not None]
    if making is None or ent.status != making or not ahead:
        return []
    clock = getattr(world, "clock", None)
    now = f" at t={float(clock.now()):g}" if clock is not None else ""
    facts = EntityFacts(svc.name, ent.kind, ent.id, ent.name, ent.status, ent.created_at)
    return [
        f"{handler(cls, 'check_create_complete')}: said the create was complete{now} while the "
        f"cloud object {facts.label()} was still {ent.status!r} (it becomes "
        f"{ahead[0].status!r} at t={ahead[0].at:g}): completion reported before the cloud "
        f"object was ready"
    ]


def _fresh_read(resource: Any, name: str) -> Any:
    """Attribute *name* read afresh, as a new engine request reads it (its cache emptied first)."""
    reset = getattr(getattr(resource, "attributes", None), "reset_resolved_values", None)
    if callable(reset):
        reset()
    try:
        return resource.FnGetAtt(name)
    except Exception as ex:  # noqa: BLE001 - reported as what the read gave
        return f"<raised {type(ex).__name__}: {ex}>"


def status_followed(cls: type, world: Any, resource: Any, physical_id: Any) -> list[str]:
    """*Attributes reflect the cloud*: a ``status`` attribute mirroring the cloud object's status
    reads the status the cloud shows now, not one kept from an earlier read.

    The cloud changes an object's status on its own (an operator, a failure), so the oracle
    does: it reads ``status`` (priming any cache the plug-in keeps), moves the entity to its
    kind's error status out of band, reads again afresh, then puts the status back. An
    attribute that did not equal the entity's status at first is no mirror and is not judged.
    """
    svc, ent = _live_entity(world, physical_id)
    if ent is None or ent.pending:
        return []
    try:
        first = resource.FnGetAtt("status")
    except Exception:  # noqa: BLE001 - an attribute that does not resolve mirrors nothing
        return []
    if first != ent.status:
        return []
    original = ent.status
    drifted = svc._error_status(ent.kind)
    if drifted == original:
        drifted = f"{original}-changed"
    ent.status = drifted
    try:
        now = _fresh_read(resource, "status")
    finally:
        ent.status = original
        _fresh_read(resource, "status")
    if now == drifted:
        return []
    facts = EntityFacts(svc.name, ent.kind, ent.id, ent.name, drifted, ent.created_at)
    return [
        f"{handler(cls, '_resolve_attribute')}: attribute status reads {now!r} after the cloud "
        f"object {facts.label()} went from {original!r} to {drifted!r} (read afresh, as a new "
        f"engine request reads it): served from a value kept earlier, not from the cloud"
    ]


def made_since(world: Any, mark: int) -> list[EntityFacts]:
    """Live entities made by calls numbered above *mark* (``mark = len(trace)`` taken before)."""
    cloud = _cloud(world)
    history = getattr(cloud, "history", None) if cloud is not None else None
    if history is None:
        return []
    out = []
    for ent in all_entities(world):
        record = history.creator(ent.kind, ent.id, ent.service)
        if record is not None and record.call > mark:
            out.append(ent)
    return out


def _mentions(value: Any, wanted: set[str]) -> bool:
    if isinstance(value, Mapping):
        return any(_mentions(v, wanted) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_mentions(v, wanted) for v in value)
    return isinstance(value, str) and value in wanted


def restore_used(
    cls: type, world: Any, made: Sequence[EntityFacts], mark: int, physical_id: Any
) -> list[str]:
    """*Restore brings back what the snapshot held*: the restore uses the cloud objects the
    snapshot made (a backup, an image).

    *made* are the objects the snapshot's calls made, *mark* the number of calls before the
    restore began. The restore used them when one of its calls changed or named one of them,
    or when the resource's cloud object refers to one afterwards (a server rebuilt from the
    snapshot's image). A restore that did none of these brought back nothing of the snapshot.
    """
    cloud = _cloud(world)
    if cloud is None or not made:
        return []
    ids = {e.id for e in made}
    if any(t.entity_id in ids for t in cloud.trace()[mark:]):
        return []
    history = getattr(cloud, "history", None)
    if history is not None and any(r.call > mark and r.id in ids for r in history.all()):
        return []
    now = entity(world, physical_id)
    if now is not None and _mentions(now.view, ids):
        return []
    what = ", ".join(e.label() for e in made)
    target = f" {now.label()}" if now is not None else ""
    who = handler(cls, "handle_restore") if hasattr(cls, "handle_restore") else cls.__qualname__
    return [
        f"{who}: the restore did not use what the snapshot made ({what}): no call of the "
        f"restore touched it and the cloud object{target} does not refer to it"
    ]
