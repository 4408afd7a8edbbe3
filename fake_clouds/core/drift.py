"""Out-of-band changes to a fake cloud, as another user or an operator would make them.

The campaign's adversary (``plugsim campaign --adversary``) and the conformance kit's drift path
change the cloud behind a plug-in's back through these hooks. Each works on the state directly (no
call is dispatched, so no fault and no latency applies) and is deterministic:

* :func:`stick` leaves an entity stuck in a transitional status: the status its service shows
  while such an entity is being made (a server's ``BUILD``, a volume's ``creating``, an entity
  kind's create status), with no transition pending, so it stays there until someone acts on it.
  What the service accepts next is what it accepts of any entity in that status (nova deletes a
  server in ``BUILD``; cinder refuses to delete a volume that is ``creating``).
* :func:`rename` changes an entity's name, as another user editing it would.
* :func:`rotate_credentials` rotates the cloud's credential. The in-process Python clients are
  sessions authenticated when :meth:`~fake_clouds.core.service.Service.client` made them; after a
  rotation every call through a client made before is refused with ``Unauthorized`` (401, a call
  the trace records), and the tokens the identity service issued are revoked. A client plug-in
  (:class:`sdk.clients.ClientPlugin`) re-authenticates: it sees its client's
  ``credentials_revoked`` and makes a new one, as a keystoneauth session does when its token is no
  longer accepted. A plug-in that keeps a client object of its own across actions keeps the
  revoked one.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.entities import Entity
from fake_clouds.core.service import Service
from sdk import exception

#: What a call through a revoked client is told.
REVOKED = "The request you have made requires authentication (the credential was rotated)."


def stuck_status(service: Service, kind: str) -> str | None:
    """The transitional status an entity of *kind* stays in when stuck (None: it has none)."""
    return service._stuck_status(kind)


def stick(service: Service, entity: Entity) -> bool:
    """Leave *entity* stuck in its kind's transitional status; False when the kind has none or
    the entity is already in the middle of a transition (a stuck delete is the same drift)."""
    status = stuck_status(service, entity.kind)
    if status is None or entity.pending or entity.status == status:
        return False
    entity.status = status
    entity.updated_at = service._now()
    return True


def rename(service: Service, entity: Entity, suffix: str = "-renamed") -> bool:
    """Give *entity* another name (its old name with *suffix*)."""
    entity.name = f"{entity.name}{suffix}"
    entity.updated_at = service._now()
    return True


class RevokedService:
    """What a revoked client reaches instead of its service: every call is refused with 401.

    An operation of the service is refused through the cloud's dispatch path (the call takes its
    latency and shows in the trace as ``Unauthorized``); any other method is refused at once.
    Plain attributes (the service's name ...) still read through.
    """

    def __init__(self, service: Service) -> None:
        self._service = service

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._service, name)
        if not callable(value):
            return value
        meta = getattr(getattr(type(self._service), name, None), "__fake_operation__", None)
        service = self._service

        def refused(*args: Any, **kwargs: Any) -> Any:
            def deny() -> Any:
                raise exception.Unauthorized(REVOKED, body={"error": {"code": 401}})

            if meta is None:
                return deny()
            return service.world.dispatch(service, meta[0], meta[1], None, deny)

        return refused


def _revoke(client: Any, service: Service) -> None:
    """Point every reference *client* (and the managers it holds) has to *service* at a
    :class:`RevokedService`, and mark it ``credentials_revoked``."""
    revoked = RevokedService(service)
    seen: set[int] = set()
    todo = [client]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not hasattr(obj, "__dict__"):
            continue
        seen.add(id(obj))
        for key, value in list(vars(obj).items()):
            if value is service:
                setattr(obj, key, revoked)
            elif type(value).__module__.startswith("fake_clouds.") and not isinstance(
                value, Service | RevokedService
            ):
                todo.append(value)
    try:
        client.credentials_revoked = True
    except AttributeError:  # a client class with slots: the references above are enough
        pass


def rotate_credentials(cloud: Any) -> int:
    """Rotate *cloud*'s credential (see the module docstring); return how many clients and
    identity tokens it revoked."""
    count = 0
    for name in cloud.service_names():
        service = cloud.service(name)
        if service._client is not None:
            _revoke(service._client, service)
            service._client = None
            count += 1
        tokens = service.counters.get("tokens") if name == "identity" else None
        for token in (tokens or {}).values():
            if not token.get("revoked"):
                token["revoked"] = True
                count += 1
    return count
