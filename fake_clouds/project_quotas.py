"""Per-project quota sets of a fake cloud service (a mixin of the compute, network and
block storage services).

Operators set a project's quotas (``quotas.update``), read them back merged
over the service's quotas (``quotas.get``) and revert them (``quotas.delete``),
as nova's ``os-quota-sets``, cinder's and neutron's ``quotas`` APIs do. The
sets are part of the service's state. The fake's services do not record which
project owns an entity, so they keep enforcing the service-wide quotas
(``Service.quotas``); a project's set is what the APIs report for it.
"""

from __future__ import annotations

import copy
from typing import Any

from fake_clouds.core.service import operation
from sdk import exception


class ProjectQuotas:
    """Quota sets per project, over the service-wide defaults."""

    name: str
    quotas: dict[str, int]
    default_quotas: dict[str, int]
    project_quotas: dict[str, dict[str, int]]

    def __init__(self, world: Any) -> None:
        super().__init__(world)  # type: ignore[call-arg]
        self.project_quotas = {}

    def to_state(self) -> dict[str, Any]:
        """Return the service's state with the per-project quota sets."""
        state = super().to_state()  # type: ignore[misc]
        state["project_quotas"] = copy.deepcopy(dict(sorted(self.project_quotas.items())))
        return state  # type: ignore[no-any-return]

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the service's state (per-project quota sets included) with *state*."""
        super().load_state(state)  # type: ignore[misc]
        self.project_quotas = copy.deepcopy(state.get("project_quotas") or {})

    @staticmethod
    def _project(project_id: Any) -> str:
        if not isinstance(project_id, str) or not project_id:
            raise exception.BadRequest("A project id is required for a quota set")
        return project_id

    @operation("quotas.get", kind=None)
    def project_quota(self, project_id: str) -> dict[str, int]:
        """Return the quotas of *project_id*: its own set over the service's quotas."""
        own = self.project_quotas.get(self._project(project_id), {})
        return {**dict(sorted(self.quotas.items())), **own}

    @operation("quotas.update", kind=None)
    def set_project_quota(self, project_id: str, changes: dict[str, Any]) -> dict[str, int]:
        """Set some quotas of *project_id* (integers >= -1, -1 unlimited); return them all."""
        project = self._project(project_id)
        if not isinstance(changes, dict):
            raise exception.BadRequest("Quota changes must be a mapping")
        for key in sorted(changes):
            value = changes[key]
            if key not in self.default_quotas:
                known = ", ".join(sorted(self.default_quotas))
                raise exception.BadRequest(f"Bad key {key!r} in the quota set (known: {known})")
            if isinstance(value, bool) or not isinstance(value, int) or value < -1:
                raise exception.BadRequest(
                    f"Quota limit {value!r} for {key} must be an integer >= -1"
                )
        own = {**self.project_quotas.get(project, {}), **changes}
        self.project_quotas[project] = dict(sorted(own.items()))
        return self.project_quota(project)

    @operation("quotas.delete", kind=None)
    def revert_project_quota(self, project_id: str) -> None:
        """Forget *project_id*'s own quotas (back to the service's)."""
        self.project_quotas.pop(self._project(project_id), None)
