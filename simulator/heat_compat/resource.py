"""The base class Heat plug-ins get as ``heat.engine.resource.Resource``.

:class:`HeatResource` is an :class:`sdk.resource.Resource` with the extra
surface Heat's in-tree plug-ins use: ``data_set(..., redact=)``,
``frozen_definition()``, ``translation_rules()`` / ``translate_properties()``,
``reparse()``, ``needs_replace_with_prop_diff()``, ``_needs_update()``, and a
``handle_update`` whose ``json_snippet`` offers Heat's
``.properties(schema, context)``. Every action runs with the resource
registered in :mod:`simulator.heat_compat._vtime`, so the plug-in's
``timeutils.utcnow()``, ``time.sleep()`` and password generation follow the
world's virtual clock and seeded randomness.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import sys
from collections.abc import Mapping
from typing import Any

from sdk import exception, rsrc_defn
from sdk import properties as properties_mod
from sdk._update import property_diff
from sdk.resource import Resource
from simulator.heat_compat import _vtime, heat_implicit
from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.engine_api import HeatClientPlugin, HeatStackView
from simulator.heat_compat.heat_definition import (
    _PENDING_RESOLVER,
    HeatDefinition,
    _takes_resolver,
    _wrap_handle_update,
    _wrap_init,
)
from simulator.heat_compat.heat_names import heat_lacks
from simulator.heat_compat.keystone_plugin import IDENTITY_URL, KeystoneClientPlugin
from simulator.heat_compat.lifecycle import HeatIdentifier, HeatRequestContext
from simulator.heat_compat.missing import HeatLacksName, MissingCloudService, MissingHeatName
from simulator.heat_compat.neutron_plugin import NeutronClientPlugin
from simulator.heat_compat.nova_plugin import GlanceClientPlugin
from simulator.heat_compat.openstacksdk_plugin import OpenStackSDKClientPlugin
from simulator.heat_compat.resource_signals import HeatSignalSurface
from simulator.heat_compat.rpc_client import HeatRpcClient
from simulator.heat_compat.swift_plugin import OrchestrationClientPlugin, SwiftClientPlugin
from simulator.heat_compat.translation import apply_rules
from simulator.heat_compat.volume_plugins import CinderClientPlugin, NovaClientPlugin


class UnavailableClientPlugin:
    """The client plug-in of a service the fake cloud does not run.

    Getting it succeeds, as in Heat; using it (any attribute) raises
    :class:`MissingCloudService` naming the plug-in's file and line.
    """

    def __init__(self, service: str, detail: str) -> None:
        self._service = service
        self._detail = detail

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingCloudService(self._service, self._detail, plugin_site(sys._getframe(1)))


class HeatClients:
    """Heat's ``clients`` object of a resource: ``client(name)`` and ``client_plugin(name)``."""

    def __init__(self, resource: Any) -> None:
        self._resource = resource

    def client(self, name: str) -> Any:
        """The service client *name*."""
        return self._resource.client(name)

    def client_plugin(self, name: str) -> Any:
        """The client plug-in *name*."""
        return self._resource.client_plugin(name)

    @property
    def project_id(self) -> str:
        """The project the stack runs in (Heat's request context's)."""
        return str(getattr(self._resource.context, "project_id", "") or "")


def heat_client_plugin(plugin: Any, name: str, clients: Any = None) -> HeatClientPlugin:
    """Heat's client plug-in *name* over plugsim's *plugin*, with the surface of Heat's own."""
    if name == "neutron":
        return NeutronClientPlugin(plugin, name)
    if name == "nova":
        return NovaClientPlugin(plugin, name, clients)
    if name == "cinder":
        return CinderClientPlugin(plugin, name)
    project_id = str(getattr(clients, "project_id", "") or "")
    if name in ("swift", "object_storage"):
        return SwiftClientPlugin(plugin, name, project_id)
    if name in ("keystone", "identity"):
        return KeystoneClientPlugin(plugin, name, project_id)
    return HeatClientPlugin(plugin, name)


class ResourceStackView(HeatStackView):
    """A resource's ``self.stack``: Heat's stack with ``clients`` and the stack user project."""

    def __init__(self, resource: HeatResource) -> None:
        super().__init__(resource.context.stack, resource.context)
        #: Heat's ``stack.clients``: the client plug-ins as the resource gets them
        self.clients = HeatClients(resource)

    @property
    def stack_user_project_id(self) -> str | None:
        """The stack's user project in the identity service, or None before one is made.

        Heat keeps the id in its stack table; the compat layer finds the
        project by the name Heat gives it (the owner's project and the stack
        id), so nothing outside the fake cloud holds it.
        """
        keystone = self.clients.client_plugin("keystone").client()
        return keystone.stack_project_id(self._info.id)  # type: ignore[no-any-return]

    def set_stack_user_project_id(self, project_id: str) -> None:
        """Heat stores the id in its stack table; here the project is found by name (above)."""

    def identifier(self) -> HeatIdentifier:
        """Heat's identifier of the stack."""
        return HeatIdentifier(
            tenant=self.clients.project_id,
            stack_name=self._info.name,
            stack_id=self._info.id,
            path="",
        )

    def register_access_allowed_handler(self, credential_id: str, handler: Any) -> None:
        """Heat's CFN API asks these which resource a credential may reach; plugsim has no
        CFN API, so nothing asks (signals come through ``signal_resource``)."""


class HeatResource(HeatSignalSurface, Resource):
    """``heat.engine.resource.Resource`` under plugsim (see the module docstring)."""

    #: Heat plug-ins may set this to replace a CHECK_FAILED resource on update.
    always_replace_on_check_failed = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("handle_update")
        if callable(own) and not getattr(own, "_heat_compat_wrapped", False):
            cls.handle_update = _wrap_handle_update(own)
        init = cls.__dict__.get("__init__")
        if callable(init) and not getattr(init, "_heat_compat_wrapped", False):
            if not _takes_resolver(init):
                cls.__init__ = _wrap_init(init)  # type: ignore[method-assign]
        if "add_dependencies" in cls.__dict__ and "implicit_requirements" not in cls.__dict__:
            # the engine asks implicit_requirements; only a class with edges of its own pays
            cls.implicit_requirements = classmethod(heat_implicit.implicit_requirements)  # type: ignore[assignment]

    def add_dependencies(self, deps: Any) -> None:
        """Heat's hook for edges no property states (none by default).

        A plug-in that overrides it is asked while the engine builds a stack's
        graph, on stand-ins of the stack's resources
        (:mod:`simulator.heat_compat.heat_implicit`).
        """

    def __init__(self, name: str, definition: Any, context: Any, resolver: Any = None) -> None:
        self.__dict__["_constructed"] = False
        try:
            super().__init__(name, definition, context, resolver or _PENDING_RESOLVER.get())
        finally:
            self.__dict__["_constructed"] = True
        if not isinstance(self.context, HeatRequestContext):
            # Heat's self.context is the request context: its names over the engine's facets
            self.context = HeatRequestContext(self.context)
            self.context.auth_url = IDENTITY_URL

    def __getattr__(self, name: str) -> Any:
        """A name this layer lacks: :class:`MissingHeatName`, or :class:`HeatLacksName`
        when the installed Heat's ``Resource`` lacks it too."""
        if name.startswith("__"):
            raise AttributeError(name)
        site = plugin_site(sys._getframe(1))
        if heat_lacks(type(self), name, HeatResource):
            raise HeatLacksName("heat.engine.resource.Resource", name, site)
        raise MissingHeatName(f"heat.engine.resource.Resource.{name}", site)

    # -- Heat's engine objects ----------------------------------------------------

    @property
    def stack(self) -> Any:  # type: ignore[override]
        """Heat's stack as the plug-in reads it (:class:`HeatStackView`)."""
        return ResourceStackView(self)

    def client(self, name: str | None = None) -> Any:
        """The service client *name*, whose missing endpoints are named clearly."""
        return self.client_plugin(name).client()

    def client_plugin(self, name: str | None = None) -> Any:
        """The client plug-in *name*, with Heat's extra surface (:class:`HeatClientPlugin`)."""
        if (name or self.default_client_name) == "heat":
            return OrchestrationClientPlugin(HeatClients(self).project_id, self._has_service)
        if (name or self.default_client_name) == "openstack" and self._has_service("network"):
            # openstacksdk's connection, over the fake network (what its plug-ins call)
            return OpenStackSDKClientPlugin(super().client_plugin("network"), "openstack")
        try:
            if name == "glance" and not self._has_service("glance"):
                # the fake compute serves the images: glance's surface over its client
                return GlanceClientPlugin(super().client_plugin("compute"), "glance")
            plugin = super().client_plugin(name)
        except exception.ConfigurationError as ex:
            # Heat builds client plug-ins lazily: asking for one is not using it
            # (Server's translation rules name glance's even when no image is given)
            return UnavailableClientPlugin(str(name or self.default_client_name), str(ex))
        if isinstance(plugin, HeatClientPlugin):
            return plugin
        return heat_client_plugin(plugin, name or self.default_client_name, HeatClients(self))

    def _has_service(self, name: str) -> bool:
        try:
            super().client_plugin(name)
        except exception.ConfigurationError:
            return False
        return True

    def metadata_get(self, refresh: bool = False) -> dict[str, Any]:
        """The resource's metadata; *refresh* (Heat's re-read from its database) changes nothing.

        plugsim keeps one copy of the metadata in memory and writes it through,
        so there is nothing stale to re-read.
        """
        return super().metadata_get()

    def metadata_set(self, metadata: Any, merge_metadata: Any = None) -> None:
        """Replace the metadata; *merge_metadata(new, latest)*, when given, merges it first (Heat's)."""
        if merge_metadata is not None:
            metadata = merge_metadata(metadata, self.metadata_get())
        super().metadata_set(metadata)

    @property
    def id(self) -> int:
        """Heat's database id of the resource: here a number stable for a stack and name.

        Heat's plug-ins use it as an opaque key (``FloatingIPAssociation``
        makes it its resource id); plugsim has no resource table ids, so the
        number is derived from the stack id and the resource name.
        """
        stack_id = str(getattr(self.context.stack, "id", "") or "")
        digest = hashlib.sha256(f"{stack_id}/{self.name}".encode()).hexdigest()
        return int(digest[:12], 16)

    def rpc_client(self) -> HeatRpcClient:
        """The engine calls Heat's config plug-ins make (software configs, in the fake cloud)."""
        return HeatRpcClient(self)

    # -- Heat's client shortcuts (``self.nova()`` is ``self.client("nova")``) ------

    def keystone(self) -> Any:
        """The identity client."""
        return self.client("keystone")

    def nova(self) -> Any:
        """The compute client."""
        return self.client("nova")

    def swift(self) -> Any:
        """The object-storage client."""
        return self.client("swift")

    def neutron(self) -> Any:
        """The network client."""
        return self.client("neutron")

    def cinder(self) -> Any:
        """The block-storage client."""
        return self.client("cinder")

    def trove(self) -> Any:
        """The database client."""
        return self.client("trove")

    def heat(self) -> Any:
        """The orchestration client."""
        return self.client("heat")

    def glance(self) -> Any:
        """The image client."""
        return self.client("glance")

    # -- Heat's extra surface ---------------------------------------------------

    def data_set(self, key: str, value: Any, redact: bool = False) -> None:
        """Store resource data (*redact* is accepted for Heat compatibility)."""
        super().data_set(key, value)

    def translation_rules(self, props: Any) -> list[Any] | None:
        """Return the plug-in's translation rules for *props* (none by default)."""
        return None

    def translate_properties(
        self, properties: Any, client_resolve: bool = True, ignore_resolve_error: bool = False
    ) -> None:
        """Apply :meth:`translation_rules` to *properties* in place.

        Without *client_resolve* the rules that look names up in the cloud wait.
        """
        rules = self.translation_rules(properties)
        if rules:
            apply_rules(properties, rules, client_resolve=client_resolve)

    def _make_properties(self, definition: rsrc_defn.ResourceDefinition) -> Any:
        props = super()._make_properties(definition)
        if type(self).translation_rules is not HeatResource.translation_rules:
            # as Heat, a resource being constructed is parsed without cloud lookups
            # (one failing then would escape every action): create's reparse does them
            constructing = not self.__dict__.get("_constructed", True)
            self.translate_properties(props, client_resolve=not constructing)
        return props

    def _verify_check_conditions(self, checks: list[Mapping[str, Any]]) -> None:
        """Fail a check naming every ``{attr, expected, current}`` that does not hold.

        ``expected`` may be one value or a list of acceptable ones, as in Heat.
        """
        from simulator.heat_compat.exceptions import Error

        def holds(check: Mapping[str, Any]) -> bool:
            expected = check["expected"]
            if isinstance(expected, list):
                return check["current"] in expected
            return bool(check["current"] == expected)

        broken = [
            f"'{c['attr']}': expected '{c['expected']}', got '{c['current']}'"
            for c in checks
            if not holds(c)
        ]
        if broken:
            raise Error("; ".join(broken))

    def frozen_definition(self) -> HeatDefinition:
        """The current definition, Heat style."""
        return HeatDefinition(self, self.t.to_dict())

    def reparse(self, client_resolve: bool = True) -> None:
        """Rebuild :attr:`properties` from the current definition."""
        self.properties = self._make_properties(self.t)

    def needs_replace_with_prop_diff(
        self, changed_properties_set: set[str], after_props: Any, before_props: Any
    ) -> bool:
        """Return True when these changed properties force replacement (never by default)."""
        return False

    def _needs_update(
        self,
        after: Any,
        before: Any,
        after_props: Any,
        before_props: Any,
        prev_resource: Any,
        check_init_complete: bool = True,
    ) -> bool:
        """Return False to skip an update altogether (Heat's hook; True by default)."""
        return True

    # -- actions run with the resource registered for virtual time ---------------

    async def create(self) -> None:
        """Create (Heat plug-in code runs on the virtual clock)."""
        with _vtime.running(self):
            try:
                # translation rules may ask the cloud (a name to an id); Heat runs
                # them and the plug-in's validate() inside the create action
                self.reparse()
                if self.state == (self.INIT, self.COMPLETE) and self.external_id is None:
                    self.validate()
            except Exception as ex:  # noqa: BLE001 - any of them fails the create, as in Heat
                invalid = ex

                async def fail() -> None:
                    raise invalid

                await self._run_action(self.CREATE, fail)
            await super().create()

    async def update(
        self,
        after: rsrc_defn.ResourceDefinition,
        before: rsrc_defn.ResourceDefinition | None = None,
    ) -> None:
        """Update, honouring ``_needs_update`` and ``needs_replace_with_prop_diff``.

        A replacement is recorded on this (old) resource as Heat records it:
        ``UPDATE_IN_PROGRESS`` then ``UPDATE_COMPLETE`` when the property
        change asks for it, a bare ``UPDATE_COMPLETE`` when the resource had
        failed before.
        """
        with _vtime.running(self):
            base = self.t if before is None else before
            if not isinstance(after, rsrc_defn.ResourceDefinition) or (
                after.resource_type != base.resource_type
                or after.external_id is not None
                or self.external_id is not None
            ):
                await super().update(after, before)
                return
            if self.status == self.FAILED and self.needs_replace_failed():
                self.state_set(self.UPDATE, self.COMPLETE, f"{self.name} replaced: it had failed")
                raise exception.UpdateReplace(self.name)
            if self.state in ((self.INIT, self.COMPLETE), (self.DELETE, self.COMPLETE)):
                await super().update(after, before)
                return
            after_props = self._make_properties(after)
            before_props = self._make_properties(base)
            if not self._needs_update(
                HeatDefinition(self, after.to_dict()),
                HeatDefinition(self, base.to_dict()),
                after_props,
                before_props,
                None,
            ):
                self._settle_unchanged_failure()
                return
            changed = set(_safe_diff(before_props, after_props))
            immutable = set(properties_mod.immutable_properties(after_props.schema))
            if (
                changed
                and not changed & immutable
                and self._replaces(changed, after_props, before_props)
            ):

                async def replace() -> None:
                    raise exception.UpdateReplace(self.name)

                self.prev_definition = base
                await self._run_action(self.UPDATE, replace, expected=(exception.UpdateReplace,))
            await super().update(after, before)

    def _replaces(self, changed: set[str], after_props: Any, before_props: Any) -> bool:
        if self.needs_replace_with_prop_diff(changed, after_props, before_props):
            return True
        try:
            after_props.validate(with_value=True)
        except exception.StackValidationFailed:
            return False  # an invalid definition fails the update; sdk reports it
        return not changed <= self._update_allowed_set()

    async def delete(self) -> None:
        """Delete on the virtual clock (the last stack user also takes the stack's user project)."""
        with _vtime.running(self):
            await super().delete()
            if (self.action, self.status) == (self.DELETE, self.COMPLETE):
                self._release_stack_user_project()

    async def suspend(self) -> None:
        """Suspend on the virtual clock."""
        with _vtime.running(self):
            await super().suspend()

    async def resume(self) -> None:
        """Resume on the virtual clock."""
        with _vtime.running(self):
            await super().resume()

    async def check(self) -> None:
        """Check on the virtual clock."""
        with _vtime.running(self):
            await super().check()

    async def snapshot(self) -> dict[str, Any]:
        """Snapshot on the virtual clock."""
        with _vtime.running(self):
            return await super().snapshot()

    async def adopt(self, resource_data: Mapping[str, Any]) -> None:
        """Adopt on the virtual clock.

        An adopted resource never ran create's reparse, so its names were never
        looked up (a NetworkGateway's ``connections[].network``). Heat's delete and
        update translate the stored properties again with lookups, ignoring a
        lookup that fails (``Resource.delete``: ``ignore_resolve_error``); the
        adopted resource does it once, here, the same way.
        """
        with _vtime.running(self):
            await super().adopt(resource_data)
            if (self.action, self.status) == (self.ADOPT, self.COMPLETE):
                # as Heat's ignore_resolve_error: a name that cannot be looked up stays
                with contextlib.suppress(exception.PlugsimError):
                    self.translate_properties(self.properties)

    def validate(self) -> None:
        """Validate as Heat's base does: deletion policy, properties, external resource.

        Plug-in code sees the virtual clock. A plug-in may override
        ``validate_deletion_policy(cls, policy)`` with Heat's one argument
        (``BaseVolume`` does); the resource's name is passed only to a method
        that takes it.
        """
        with _vtime.running(self):
            policy = self.t.deletion_policy
            if _takes_resource_name(type(self).validate_deletion_policy):
                self.validate_deletion_policy(policy, self.name)
            else:
                self.validate_deletion_policy(policy)
            self.properties.validate(with_value=True)
            self.validate_external()

    def _resolve_any_attribute(self, name: str) -> Any:
        with _vtime.running(self):
            return super()._resolve_any_attribute(name)


def _takes_resource_name(method: Any) -> bool:
    """True when a bound ``validate_deletion_policy`` accepts a second argument (sdk's)."""
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in positional for p in params) >= 2


def _safe_diff(before: Any, after: Any) -> dict[str, Any]:
    try:
        return property_diff(before, after)
    except (exception.PlugsimError, ValueError, TypeError, KeyError):
        return {}
