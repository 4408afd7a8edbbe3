"""The adversary's out-of-band operations on a fake-cloud entity, and what each one requires.

One drift changes one entity of a stack's resources (or, for ``rotate``, the cloud's credential) the
way another user or an operator would, without going through the engine:

========== ==================================================================== ===================
kind       what happens                                                         what must hold
========== ==================================================================== ===================
``delete`` the entity is deleted through its service's API (a fault of the      check fails; delete
           campaign's profile may hit the call: the drift is then not done)     converges
``error``  the entity drops into its service's error status (not while a        check fails; delete
           transition of it is under way)                                       converges
``quota``  the quota of the entity's kind shrinks to what is in use, so the     (the update may
           next create of that kind (an update that replaces) is refused        fail); delete
                                                                                converges
``stuck``  the entity is left in its kind's transitional status (a server's     check fails; delete
           ``BUILD``, a volume's ``creating``) with nothing pending             converges or times
           (:func:`fake_clouds.core.drift.stick`)                               out
``rename`` the entity's name changes, as another user editing it would          delete converges
``rotate`` the cloud's credential is rotated: clients made before are refused   check completes;
           (401) until the plug-in re-authenticates                             delete converges
           (:func:`fake_clouds.core.drift.rotate_credentials`)
========== ==================================================================== ===================

"check fails" applies to a plug-in that implements ``handle_check``; "times out" means the delete
ends ``DELETE_FAILED`` with the stack's timeout (the plug-in waited for an entity that never
settles and gave up), never with another error.
"""

from __future__ import annotations

from typing import Any

#: Every kind, in the order the adversary's stream picks from (new kinds go at the end).
KINDS = ("delete", "error", "quota", "stuck", "rename", "rotate")
#: The kinds the adversary may do while a resource's action runs (a quota is no race).
DURING = ("delete", "error", "stuck", "rotate")
#: The kinds ``stack check`` of a plug-in with ``handle_check`` must see.
CHECK_SEES = ("delete", "error", "stuck")
#: The kinds after which a delete that times out is a plug-in giving up, not a finding.
MAY_TIME_OUT = ("stuck",)


def drift_entity(world: Any, kind: str, item: Any) -> bool:
    """Do drift *kind* (:data:`KINDS`) to the fake-cloud entity *item* (an inventory item) of
    *world*; False when it could not be done (a fault hit the call, the kind has no quota, the
    entity has no transitional status or is in the middle of a transition)."""
    from fake_clouds.core import drift

    service = world.cloud.service(item.service)
    if kind == "delete":
        return _delete(service, item)
    if kind == "rotate":
        return drift.rotate_credentials(world.cloud) > 0
    if kind == "quota":
        return _shrink_quota(world, service, item)
    entity = next((e for e in service._live(item.kind) if e.id == item.id), None)
    if entity is None:
        return False
    if kind == "error":
        if entity.pending:
            # (an entity in the middle of a transition, a delete say, is left alone: cutting
            # the transition short would leave it stuck, another drift than an error)
            return False
        entity.status = service._error_status(item.kind)
        return True
    if kind == "stuck":
        return drift.stick(service, entity)
    if kind == "rename":
        return drift.rename(service, entity)
    raise ValueError(f"unknown drift {kind!r} (known: {', '.join(KINDS)})")


def _delete(service: Any, item: Any) -> bool:
    from sdk import exception

    for attr in sorted(dir(type(service))):
        meta = getattr(getattr(type(service), attr, None), "__fake_operation__", None)
        if meta is not None and meta[0].endswith(".delete") and meta[1] in (item.kind, None):
            try:
                getattr(service, attr)(item.id)
            except exception.ClientError:
                return False
            return True
    return False


def _shrink_quota(world: Any, service: Any, item: Any) -> bool:
    quota = next((q for q in (item.kind, f"{item.kind}s") if q in service.quotas), None)
    if quota is None:
        return False
    used = sum(
        1
        for other in world.cloud.inventory()
        if (other.service, other.kind) == (item.service, item.kind) and not other.preseeded
    )
    service.set_quotas({quota: used})
    return True
