"""The clients' quota calls over a service's per-project quota sets.

Three shapes, one store (:mod:`fake_clouds.project_quotas`):

* novaclient's ``client.quotas``: ``get(tenant_id)``, ``defaults(tenant_id)``,
  ``update(tenant_id, **limits)`` (``None`` limits are left out), ``delete(tenant_id)``;
* cinderclient's ``client.quotas``: the same calls, ``update(tenant_id, **updates)``
  returning the whole set;
* python-neutronclient's dict calls: ``list_quotas()``, ``show_quota(project_id)``,
  ``show_quota_default(project_id)``, ``update_quota(project_id, {"quota": {...}})``,
  ``delete_quota(project_id)``.

A deleted set falls back to the service's quotas, as on the wire.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.client_base import ClientObject, Manager
from sdk import exception


class QuotaSet(ClientObject):
    """One project's quota set: a field per limit, ``id`` the project's."""

    def update(self, **limits: Any) -> QuotaSet:
        """Set some of this project's limits; return the whole set."""
        return self.manager.update(self.id, **limits)  # type: ignore[no-any-return]


def _project_of(tenant: Any) -> Any:
    """A project id from an id or a quota set (cinderclient takes either)."""
    return getattr(tenant, "tenant_id", getattr(tenant, "id", tenant))


class ComputeQuotaSetManager(Manager):
    """novaclient's ``client.quotas`` (``os-quota-sets``), per project only."""

    resource_class = QuotaSet

    def _set(self, project: str, quotas: dict[str, int]) -> QuotaSet:
        return self._wrap({"id": project, **quotas})  # type: ignore[return-value]

    @staticmethod
    def _no_user(user_id: Any) -> None:
        if user_id:
            raise exception.BadRequest(
                f"Per-user quota sets (user_id={user_id!r}) are not kept by the fake compute "
                "service; set the project's"
            )

    def get(self, tenant_id: Any, user_id: str | None = None) -> QuotaSet:
        """The project's limits: its own over the service's."""
        self._no_user(user_id)
        project = _project_of(tenant_id)
        return self._set(project, self.service.project_quota(project))

    def defaults(self, tenant_id: Any) -> QuotaSet:
        """The service-wide limits a project without a set of its own has."""
        return self._set(_project_of(tenant_id), dict(sorted(self.service.quotas.items())))

    def update(self, tenant_id: Any, **limits: Any) -> QuotaSet:
        """Set the given limits (``None`` ones are left out); return them all."""
        self._no_user(limits.pop("user_id", None))
        limits.pop("force", None)  # nova's "even below the usage": the fake never checks usage
        project = _project_of(tenant_id)
        changes = {k: v for k, v in limits.items() if v is not None}
        return self._set(project, self.service.set_project_quota(project, changes))

    def delete(self, tenant_id: Any, user_id: str | None = None) -> None:
        """Forget the project's own limits (back to the service's)."""
        self._no_user(user_id)
        self.service.revert_project_quota(_project_of(tenant_id))


class BlockStorageQuotaSetManager(Manager):
    """cinderclient's ``client.quotas`` (``os-quota-sets``)."""

    resource_class = QuotaSet

    def _set(self, project: str, quotas: dict[str, int]) -> QuotaSet:
        return self._wrap({"id": project, "tenant_id": project, **quotas})  # type: ignore[return-value]

    def get(self, tenant_id: Any) -> QuotaSet:
        """The project's limits: its own over the service's."""
        project = _project_of(tenant_id)
        return self._set(project, self.service.project_quota(project))

    def defaults(self, tenant_id: Any) -> QuotaSet:
        """The service-wide limits."""
        return self._set(_project_of(tenant_id), dict(sorted(self.service.quotas.items())))

    def update(self, tenant_id: Any, **updates: Any) -> QuotaSet:
        """Set the given limits; return the whole set."""
        updates.pop("skip_validation", None)  # the fake never checks the usage
        project = _project_of(tenant_id)
        return self._set(project, self.service.set_project_quota(project, updates))

    def delete(self, tenant_id: Any) -> None:
        """Forget the project's own limits (back to the service's)."""
        self.service.revert_project_quota(_project_of(tenant_id))


class NetworkQuotaCalls:
    """python-neutronclient's quota calls of :class:`~fake_clouds.clients.network.NetworkClient`."""

    service: Any

    def list_quotas(self, **_params: Any) -> dict[str, Any]:
        """``{"quotas": [...]}``: the projects that have limits of their own."""
        items = [
            {**self.service.project_quota(p), "project_id": p, "tenant_id": p}
            for p in sorted(self.service.project_quotas)
        ]
        return {"quotas": items}

    def show_quota(self, project_id: str, **_params: Any) -> dict[str, Any]:
        """``{"quota": {...}}``: the project's limits, its own over the service's."""
        return {"quota": self.service.project_quota(project_id)}

    def show_quota_default(self, project_id: str, **_params: Any) -> dict[str, Any]:
        """``{"quota": {...}}``: the service-wide limits."""
        return {"quota": dict(sorted(self.service.quotas.items()))}

    def update_quota(self, project_id: str, body: Any = None) -> dict[str, Any]:
        """Set limits from ``{"quota": {name: limit}}``; return them all."""
        if not isinstance(body, dict) or not isinstance(body.get("quota"), dict):
            msg = "Request body must be {'quota': {name: limit}}"
            raise exception.BadRequest(
                msg, body={"NeutronError": {"type": "HTTPBadRequest", "message": msg, "detail": ""}}
            )
        return {"quota": self.service.set_project_quota(project_id, dict(body["quota"]))}

    def delete_quota(self, project_id: str) -> None:
        """Forget the project's own limits (back to the service's)."""
        self.service.revert_project_quota(project_id)
