"""Heat's keystone custom constraints over the fake identity service.

``keystone.project``, ``keystone.domain``, ``keystone.user``,
``keystone.group``, ``keystone.role`` and ``keystone.region`` accept an
object's id or its unique name (a project, user, group or role may be
written ``name{domain}``), found through the imitated keystone client
plug-in (:mod:`simulator.heat_compat.keystone_plugin`), as Heat's
constraints find them through Heat's.
"""

from __future__ import annotations

from typing import Any

from sdk import exception
from sdk.constraints import BaseCustomConstraint
from simulator.heat_compat import exceptions as heat_exc
from simulator.heat_compat.keystone_plugin import KeystoneClientPlugin


class _KeystoneObject(BaseCustomConstraint):
    """An identity object found by the keystone plug-in's finder :attr:`finder`."""

    expected_exceptions = (
        exception.EntityNotFound,
        exception.NotFound,
        heat_exc.PhysicalResourceNameAmbiguity,
    )
    finder = ""

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Look the object up through the context's identity client."""
        plugin = KeystoneClientPlugin(client.client_plugin("keystone"), "keystone")
        getattr(plugin, self.finder)(value)


class KeystoneProjectConstraint(_KeystoneObject):
    """``keystone.project``: a project of the fake identity service."""

    finder = "get_project_id"


class KeystoneDomainConstraint(_KeystoneObject):
    """``keystone.domain``: a domain."""

    finder = "get_domain_id"


class KeystoneUserConstraint(_KeystoneObject):
    """``keystone.user``: a user."""

    finder = "get_user_id"


class KeystoneGroupConstraint(_KeystoneObject):
    """``keystone.group``: a group."""

    finder = "get_group_id"


class KeystoneRoleConstraint(_KeystoneObject):
    """``keystone.role``: a role."""

    finder = "get_role_id"


class KeystoneRegionConstraint(_KeystoneObject):
    """``keystone.region``: a region."""

    finder = "get_region_id"


#: The constraints of this module by Heat's names.
CONSTRAINTS: dict[str, type[BaseCustomConstraint]] = {
    "keystone.domain": KeystoneDomainConstraint,
    "keystone.group": KeystoneGroupConstraint,
    "keystone.project": KeystoneProjectConstraint,
    "keystone.region": KeystoneRegionConstraint,
    "keystone.role": KeystoneRoleConstraint,
    "keystone.user": KeystoneUserConstraint,
}
