"""Private part of :class:`sdk.resource.Resource`: validation.

Nothing here is public API on its own; :class:`sdk.resource.Resource`
inherits it and documents the behaviour.
"""

from __future__ import annotations

from sdk import exception, rsrc_defn
from sdk._core import ResourceCore


class ValidationMixin(ResourceCore):
    """``validate()`` and its parts: deletion policy and external resources."""

    def validate(self) -> None:
        """Validate the resource: properties, deletion policy, external resource.

        Plug-ins may override it to add checks; they call ``super().validate()``.
        Raises :class:`sdk.exception.StackValidationFailed` naming the path.
        """
        self.validate_deletion_policy(self.t.deletion_policy, self.name)
        self.properties.validate(with_value=True)
        self.validate_external()

    @classmethod
    def validate_deletion_policy(cls, policy: str, resource_name: str | None = None) -> None:
        """Reject an unknown deletion policy, and ``Snapshot`` without ``handle_snapshot_delete``."""
        path = ["resources", resource_name, rsrc_defn.DELETION_POLICY] if resource_name else None
        who = f"resource {resource_name} ({cls.__name__})" if resource_name else cls.__name__
        if policy not in rsrc_defn.DELETION_POLICIES:
            allowed = ", ".join(rsrc_defn.DELETION_POLICIES)
            raise exception.StackValidationFailed(
                f'Invalid deletion policy "{policy}" for {who}; use one of {allowed}', path=path
            )
        if policy == rsrc_defn.SNAPSHOT and not callable(
            getattr(cls, "handle_snapshot_delete", None)
        ):
            raise exception.StackValidationFailed(
                f'"Snapshot" deletion policy not supported by {who}: '
                f"the plug-in does not implement handle_snapshot_delete",
                path=path,
            )

    def validate_external(self) -> None:
        """Check that the resource an ``external_id`` names exists (when it can tell)."""
        if self.external_id is None or not (self.entity and self.default_client_name):
            return
        saved = self.resource_id
        self.resource_id = self.external_id
        try:
            self._show_resource()
        except Exception as ex:
            if self._default_client_plugin().is_not_found(ex):
                raise exception.StackValidationFailed(
                    f"Invalid external resource: Resource {self.external_id} ({self.type()}) "
                    f"can not be found.",
                    path=["resources", self.name, rsrc_defn.EXTERNAL_ID],
                ) from ex
            raise
        finally:
            self.resource_id = saved
