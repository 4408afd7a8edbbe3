"""Heat's ``Resource`` surface for signalled resources and their stored properties.

A mixin of :class:`simulator.heat_compat.resource.HeatResource`: what Heat's
signal responders (wait condition handles, scaling policies, deployed
servers) and their users read of their own resource: ``identifier()`` (the
URL and ARN paths of signal URLs), ``required_by()`` and
``physical_resource_name_or_FnGetRefId()`` (an AWS launch configuration and
the group that names it), ``signal()`` (a handle polling its
transport signals itself), ``frozen_properties()`` (a group adjusted by a
scaling policy) and ``_stored_properties_data`` (an update reading the
stored values), following Heat's behaviour, written anew.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sdk import exception
from simulator.heat_compat.engine_api import _members
from simulator.heat_compat.exceptions import ResourceActionNotSupported
from simulator.heat_compat.lifecycle import HeatIdentifier


class HeatSignalSurface:
    """Heat's resource identifier, ``signal()`` and stored-property views (a mixin)."""

    # provided by the resource class it is mixed into (sdk's Resource)
    name: str
    context: Any
    properties: Any
    t: Any
    _make_properties: Any

    def identifier(self) -> HeatIdentifier:
        """Heat's identifier of the resource (its stack's, with ``/resources/<name>``)."""
        info = self.context.stack
        return HeatIdentifier(
            tenant=str(getattr(self.context, "project_id", "") or ""),
            stack_name=info.name,
            stack_id=info.id,
            path=f"/resources/{self.name}",
        )

    def physical_resource_name_or_FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        """The reference of a resource known by its physical name (an AWS launch
        configuration, a scaling policy): that name once the resource is stored, the
        plain reference id before."""
        if self.action == self.INIT:  # type: ignore[attr-defined]
            return str(self.get_reference_id())  # type: ignore[attr-defined]
        return str(self.physical_resource_name())  # type: ignore[attr-defined]

    def required_by(self) -> list[str]:
        """Names of the stack's resources that depend on this one directly (``get_resource``,
        ``get_attr`` or ``depends_on``), in the stack's order."""
        from simulator.template.functions import dependencies

        found = []
        for name, member in self.context.stack_members().items():
            definition = getattr(member, "t", None)
            if name == self.name or definition is None:
                continue
            needs = set(dependencies(definition.properties)) | set(definition.depends_on)
            if self.name in needs:
                found.append(name)
        return found

    def signal(self, details: Any = None, need_check: bool = True) -> bool:
        """Heat's ``signal``: hand *details* to ``handle_signal``; True (metadata may change).

        A handle polling its transport (``NO_SIGNAL``, ``TEMP_URL_SIGNAL``)
        signals itself this way. Heat also records a ``SIGNAL`` event; the
        resource context offers no event of its own, so plugsim records one
        only for signals sent through the engine (``signal_resource``).
        """
        handler = getattr(self, "handle_signal", None)
        if not callable(handler):
            raise ResourceActionNotSupported(action="signal")
        handler(details)
        return True

    def _release_stack_user_project(self) -> None:
        """Delete the stack's user project when the last stack-user resource is gone.

        Heat deletes the project with the stack (not when abandoned); the
        compat layer has no stack-delete hook, so the last resource of the
        stack that makes stack users (Heat's ``StackUser``) deletes it when it
        is deleted, retained or not, its users made or not.
        """
        if getattr(type(self), "_create_user", None) is None:
            return
        for other in _members(self.context).values():
            if other is self or getattr(type(other), "_create_user", None) is None:
                continue
            if (other.action, other.status) not in (("DELETE", "COMPLETE"), ("INIT", "COMPLETE")):
                return  # another stack user of the stack still needs the project
        keystone = self.client_plugin("keystone").client()  # type: ignore[attr-defined]
        project_id = keystone.stack_project_id(self.context.stack.id)
        if project_id:
            with contextlib.suppress(exception.NotFound):  # gone already
                keystone.delete_stack_domain_project(project_id)

    @property
    def _stored_properties_data(self) -> dict[str, Any]:
        """Heat's stored property values: those of the definition the resource stands on."""
        props = self._make_properties(self.t)
        return {name: props[name] for name in props.schema}

    @contextlib.contextmanager
    def frozen_properties(self) -> Iterator[Any]:
        """Heat's context: the properties of the stored definition while the block runs.

        plugsim keeps no separate stored copy, so they are rebuilt from the
        current definition; the live properties come back afterwards.
        """
        live = self.properties
        self.properties = self._make_properties(self.t)
        try:
            yield self.properties
        finally:
            self.properties = live
