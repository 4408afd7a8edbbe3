"""What Heat's plug-ins read of Heat's keystone client plug-in, over the fake identity service.

Heat's ``keystone`` client plug-in finds identity objects by name or id
(``get_project_id``, ``get_domain_id``, ``get_user_id``, ``get_role_id``,
``get_group_id``: an id wins, a name must be unique), and ``self.keystone()``
is Heat's wrapper managing the *stack users* of signalled resources (wait
condition handles, deployed servers): one project per stack in the stack
user domain, a user per resource, a token for that user.
:class:`KeystoneClientPlugin` and :class:`StackUserKeystone` answer those
calls over the fake cloud's identity service (python-keystoneclient's v3
managers, :mod:`fake_clouds.clients.identity`), following Heat's rules,
read from its source and written anew. Differences, because the fake's
keystone is the default one of a fresh deployment:

* the stack user domain is the ``default`` domain (Heat's deployments
  configure a ``heat`` domain);
* a stack user gets the ``member`` role on its project (Heat's
  ``heat_stack_user`` role does not exist in the fake's keystone);
* the stack user project goes when its last stack user goes (Heat deletes
  it with the stack), so a deleted stack leaves nothing in identity.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, NamedTuple

from sdk import exception
from simulator.heat_compat import _vtime
from simulator.heat_compat import exceptions as heat_exc
from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.engine_api import HeatClientPlugin
from simulator.heat_compat.missing import MissingHeatName
from simulator.heat_compat.password_gen import generate_openstack_password

#: The domain stack users and their projects live in.
STACK_DOMAIN = "default"
#: The role a stack user holds on its project.
STACK_USER_ROLE = "member"
#: The identity endpoint a stack user authenticates against.
IDENTITY_URL = "https://identity.plugsim.invalid/v3"


def stack_project_name(project_id: str, stack_id: str) -> str:
    """The name Heat gives a stack's user project: the owner's project id and the stack id."""
    return f"{project_id}-{stack_id}"[:64]


def _find(manager: Any, ref: Any, what: str, **scope: Any) -> str:
    """The id of the entity *ref* (an id or a unique name) of *manager*."""
    if ref is None or ref == "":
        raise exception.EntityNotFound(entity=what, name=str(ref))
    with contextlib.suppress(exception.NotFound):  # not an id: look it up by name
        return str(manager.get(ref).id)
    found = manager.list(name=ref, **scope)
    if len(found) == 1:
        return str(found[0].id)
    if len(found) > 1:
        raise heat_exc.PhysicalResourceNameAmbiguity(name=ref)
    raise exception.EntityNotFound(entity=what, name=str(ref))


def _split_domain(ref: Any) -> tuple[Any, str | None]:
    """Heat's ``name{domain}`` notation: the entity and the domain, when given."""
    text = str(ref)
    if text.endswith("}") and "{" in text:
        name, _, domain = text[:-1].partition("{")
        return name, domain
    return ref, None


class AccessKey(NamedTuple):
    """An EC2 keypair: the credential's id, the access key and the secret (Heat's)."""

    id: str
    access: str
    secret: str


class KeystoneClientPlugin(HeatClientPlugin):
    """Heat's keystone client plug-in: finders, and ``client()`` the stack-user wrapper."""

    def __init__(self, plugin: Any, name: str = "keystone", project_id: str = "") -> None:
        super().__init__(plugin, name)
        self._project_id = project_id

    def client(self, *args: Any, **kwargs: Any) -> StackUserKeystone:
        """Heat's keystone wrapper (``self.keystone()``); its ``client`` is the raw client."""
        return StackUserKeystone(self._plugin.client(*args, **kwargs), self._project_id)

    def _raw(self) -> Any:
        return self._plugin.client()

    def _scoped(self, ref: Any, domain: Any, manager: str, what: str) -> str:
        ref, named = _split_domain(ref)
        domain = domain or named
        scope = {} if domain is None else {"domain": self.get_domain_id(domain)}
        return _find(getattr(self._raw(), manager), ref, what, **scope)

    def get_domain_id(self, domain: Any) -> str:
        """The id of domain *domain* (an id or a name)."""
        return _find(self._raw().domains, domain, "KeystoneDomain")

    def get_project_id(self, project: Any, domain: Any = None) -> str:
        """The id of project *project* (an id, a name, or ``name{domain}``)."""
        return self._scoped(project, domain, "projects", "KeystoneProject")

    def get_user_id(self, user: Any, domain: Any = None) -> str:
        """The id of user *user*."""
        return self._scoped(user, domain, "users", "KeystoneUser")

    def get_group_id(self, group: Any, domain: Any = None) -> str:
        """The id of group *group*."""
        return self._scoped(group, domain, "groups", "KeystoneGroup")

    def get_role_id(self, role: Any, domain: Any = None) -> str:
        """The id of role *role*."""
        return self._scoped(role, domain, "roles", "KeystoneRole")

    def get_region_id(self, region: Any) -> str:
        """The id of region *region*."""
        return _find(self._raw().regions, region, "KeystoneRegion")


class StackUserKeystone:
    """``self.keystone()`` of a Heat plug-in: Heat's stack-user calls over the fake identity."""

    def __init__(self, client: Any, project_id: str) -> None:
        #: the raw identity client (python-keystoneclient v3's managers)
        self.client = client
        self._project_id = project_id

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingHeatName(
            f"heat.engine.clients.os.keystone.heat_keystoneclient.KsClientWrapper.{name}",
            plugin_site(sys._getframe(1)),
        )

    @property
    def stack_domain_id(self) -> str:
        """The domain stack users live in."""
        return STACK_DOMAIN

    @property
    def v3_endpoint(self) -> str:
        """The identity endpoint (v3)."""
        return IDENTITY_URL

    def server_keystone_endpoint_url(self, fallback_endpoint: str) -> str:
        """The identity endpoint servers use (no separate endpoint type: the fallback)."""
        return fallback_endpoint

    def stack_project_id(self, stack_id: str) -> str | None:
        """The id of *stack_id*'s user project, or None before one is made."""
        name = stack_project_name(self._project_id, stack_id)
        found = self.client.projects.list(name=name, domain=STACK_DOMAIN)
        return str(found[0].id) if found else None

    def create_stack_domain_project(self, stack_id: str) -> str:
        """Create the stack's user project; return its id."""
        project = self.client.projects.create(
            name=stack_project_name(self._project_id, stack_id),
            domain=STACK_DOMAIN,
            description="Heat stack user project",
        )
        return str(project.id)

    def delete_stack_domain_project(self, project_id: str) -> None:
        """Delete a stack user project (nothing when it is gone or not a stack's)."""
        try:
            project = self.client.projects.get(project_id)
        except exception.NotFound:
            return
        if project.domain_id == STACK_DOMAIN and str(project.name).startswith(
            f"{self._project_id}-"
        ):
            self.client.projects.delete(project_id)

    def create_stack_domain_user(
        self, username: str, project_id: str, password: str | None = None
    ) -> str:
        """Create a stack user in *project_id* holding the stack user role; return its id."""
        roles = self.client.roles.list(name=STACK_USER_ROLE)
        if len(roles) != 1:
            raise heat_exc.Error(f"Can't find role {STACK_USER_ROLE}")
        user = self.client.users.create(
            name=username[-255:],
            password=password,
            default_project=project_id,
            domain=STACK_DOMAIN,
        )
        try:
            self.client.roles.grant(roles[0], user=user.id, project=project_id)
        except Exception:
            # Heat would leave the user behind (its id is not stored yet): take it back
            with contextlib.suppress(exception.ClientError):
                self.client.users.delete(user.id)
            raise
        return str(user.id)

    def _check_user(self, user_id: str, project_id: str, action: str) -> None:
        user = self.client.users.get(user_id)
        if user.domain_id != STACK_DOMAIN:
            raise ValueError(f"User {action} in invalid domain")
        if user.default_project_id != project_id:
            raise ValueError(f"User {action} in invalid project")

    def delete_stack_domain_user(self, user_id: str, project_id: str) -> None:
        """Delete a stack user (gone already: nothing); its project goes with its last user.

        A user of another project (a resource adopted from an abandoned stack)
        is a ``ValueError``, as in Heat, whose plug-ins then take the legacy
        :meth:`delete_stack_user`.
        """
        with contextlib.suppress(exception.NotFound):  # gone already
            self._check_user(user_id, project_id, "delete")
            self.client.users.delete(user_id)
        self._drop_project_if_empty(project_id)

    def delete_stack_user(self, user_id: str) -> None:
        """Heat's legacy path: delete a user whatever its project (its project may go too)."""
        try:
            project_id = self.client.users.get(user_id).default_project_id
        except exception.NotFound:
            return
        self.client.users.delete(user_id)
        self._drop_project_if_empty(project_id)

    def _drop_project_if_empty(self, project_id: str | None) -> None:
        if project_id and not self.client.users.list(default_project=project_id):
            self.delete_stack_domain_project(project_id)

    def disable_stack_user(self, user_id: str) -> None:
        """Heat's legacy path: disable a user."""
        self.client.users.update(user_id, enabled=False)

    def enable_stack_user(self, user_id: str) -> None:
        """Heat's legacy path: enable a user."""
        self.client.users.update(user_id, enabled=True)

    def delete_ec2_keypair(
        self, credential_id: str | None = None, access: str | None = None, user_id: Any = None
    ) -> None:
        """Heat's legacy path: delete an EC2 credential by id or by its access key."""
        if credential_id is None and access is None:
            raise ValueError("Must specify either credential_id or access")
        for credential in self.client.credentials.list():
            blob = json.loads(credential.blob or "{}")
            if credential.id == credential_id or (access and blob.get("access") == access):
                self.client.credentials.delete(credential.id)
                return

    def stack_domain_user_token(self, user_id: str, project_id: str, password: str) -> str:
        """A token of the stack user, scoped to its project."""
        return str(self.client.tokens.issue(user_id, project_id)["id"])

    def create_stack_domain_user_keypair(self, user_id: str, project_id: str) -> AccessKey:
        """An EC2 keypair of the stack user (a keystone ``ec2`` credential) for CFN signals.

        The access key and secret are drawn from the running resource's seeded stream.
        """
        rng = _vtime.rng()
        access = f"{rng.getrandbits(128):032x}"
        secret = generate_openstack_password()
        blob = json.dumps({"access": access, "secret": secret})
        credential = self.client.credentials.create(
            user=user_id, type="ec2", blob=blob, project=project_id
        )
        return AccessKey(str(credential.id), access, secret)

    def delete_stack_domain_user_keypair(
        self, user_id: str, project_id: str, credential_id: str
    ) -> None:
        """Delete a stack user's EC2 keypair (gone already: nothing)."""
        self._check_user(user_id, project_id, "delete_keypair")
        with contextlib.suppress(exception.NotFound):  # gone already
            self.client.credentials.delete(credential_id)

    def disable_stack_domain_user(self, user_id: str, project_id: str) -> None:
        """Disable a stack user (a suspended resource)."""
        self._check_user(user_id, project_id, "disable")
        self.client.users.update(user_id, enabled=False)

    def enable_stack_domain_user(self, user_id: str, project_id: str) -> None:
        """Enable a stack user again (a resumed resource)."""
        self._check_user(user_id, project_id, "enable")
        self.client.users.update(user_id, enabled=True)
