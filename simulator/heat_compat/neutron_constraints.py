"""``heat.engine.clients.os.neutron.neutron_constraints``: the bases of neutron constraints.

Third-party plug-ins (networking-bgpvpn's) derive their constraints from
Heat's :class:`NeutronConstraint`, naming only the neutron resource kind
(``resource_name = 'bgpvpn'``). These bases look the value up by id or
unique name through the imitated neutron client plug-in
(:mod:`simulator.heat_compat.neutron_plugin`), as Heat's look it up through
Heat's; an ``extension`` the fake network does not list refuses every value.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.constraints import BaseCustomConstraint
from simulator.heat_compat import exceptions as heat_exc
from simulator.heat_compat.neutron_plugin import NeutronClientPlugin


class NeutronConstraint(BaseCustomConstraint):
    """A neutron object of kind :attr:`resource_name`, by id or unique name."""

    expected_exceptions = (
        exception.EntityNotFound,
        exception.NotFound,
        heat_exc.PhysicalResourceNameAmbiguity,
    )
    #: the neutron resource kind (``network``, ``bgpvpn`` ...)
    resource_name: str | None = None
    #: the API extension the kind needs, if any
    extension: str | None = None

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the object up through the context's network client."""
        plugin = NeutronClientPlugin(client.client_plugin("neutron"), "neutron")
        if self.extension and not plugin.has_extension(self.extension):
            raise exception.EntityNotFound(entity="neutron extension", name=self.extension)
        plugin.find_resourceid_by_name_or_id(str(self.resource_name), value)


class NeutronExtConstraint(NeutronConstraint):
    """A neutron extension's object (Heat resolves these the same way here)."""
