"""Heat's ``Resource`` surface for signalled resources and their stored properties.

A mixin of :class:`simulator.heat_compat.resource.HeatResource`: what Heat's
signal responders (wait condition handles, scaling policies, deployed
servers) and their users read of their own resource: ``identifier()`` (the
URL and ARN paths of signal URLs), ``signal()`` (a handle polling its
transport signals itself), ``frozen_properties()`` (a group adjusted by a
scaling policy) and ``_stored_properties_data`` (an update reading the
stored values), following Heat's behaviour, written anew.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

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
