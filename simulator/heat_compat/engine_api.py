"""What Heat plug-ins read of Heat's engine objects: the stack and the client plug-ins.

A Heat plug-in's ``self.stack`` is Heat's ``Stack``: a mapping of resource
names to resources with ``strict_validate``, ``resource_by_refid`` and
``timeout_secs()``. :class:`HeatStackView` offers that over plugsim's
:class:`sdk.context.StackInfo` and the resource's context. A Heat plug-in's
``self.client_plugin()`` is one of Heat's client plug-ins;
:class:`HeatClientPlugin` adds ``is_version_supported`` to plugsim's. Both
raise :class:`~simulator.heat_compat.MissingHeatName` for a name they lack,
naming the plug-in file and line that read it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from sdk.resource import Resource
from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.lifecycle import HeatRequestContext
from simulator.heat_compat.missing import MissingCloudEndpoint, MissingHeatName

#: Seconds Heat gives a stack action without a timeout (its ``stack_action_timeout``).
DEFAULT_STACK_TIMEOUT = 3600

#: The states in which Heat's ``resource_by_refid`` considers a resource.
_REFID_STATES = frozenset(
    {
        ("INIT", "COMPLETE"),
        ("CREATE", "IN_PROGRESS"),
        ("CREATE", "COMPLETE"),
        ("RESUME", "IN_PROGRESS"),
        ("RESUME", "COMPLETE"),
        ("UPDATE", "IN_PROGRESS"),
        ("UPDATE", "COMPLETE"),
        ("CHECK", "COMPLETE"),
    }
)

#: The newest API microversion each fake cloud service answers to.
MAX_MICROVERSIONS = {
    "nova": "2.96",
    "compute": "2.96",
    "cinder": "3.71",
    "block_storage": "3.71",
    "volume": "3.71",
}


def _members(context: Any) -> dict[str, Any]:
    """The stack's resources by name, through the context's public ``stack_members()``.

    A context without that method (one written before it existed) has no members to show.
    """
    members = getattr(context, "stack_members", None)
    return dict(members()) if callable(members) else {}


def _is_heat_resource(res: Any) -> bool:
    """False for a resource of plugsim's own library (an sdk resource without Heat's surface)."""
    if not isinstance(res, Resource):
        return True
    return any(cls.__name__ == "HeatResource" for cls in type(res).__mro__)


class PlugsimResourceView:
    """A resource of plugsim's own library as a Heat plug-in finds it in the stack.

    Reads pass through; a name of Heat's ``Resource`` it lacks (a group's
    ``adjust``, ``frozen_properties`` ...) is :class:`MissingHeatName` naming
    the plug-in's file and line and the type, never a bare ``AttributeError``.
    """

    def __init__(self, resource: Any) -> None:
        object.__setattr__(self, "_resource", resource)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self._resource, name)
        except AttributeError:
            kind = self._resource.type()
            raise MissingHeatName(
                f"heat.engine.resource.Resource.{name} (of plugsim's own {kind})",
                plugin_site(sys._getframe(1)),
            ) from None

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._resource, name, value)


class HeatStackView:
    """``self.stack`` of a Heat plug-in: Heat's ``Stack`` surface over plugsim's view.

    Iterating gives the resource names; ``stack[name]`` the resource;
    :meth:`resource_by_refid` finds a resource by reference id. Other names
    come from :class:`sdk.context.StackInfo` (``name``, ``id``,
    ``parameters``, ``timeout_mins``).
    """

    #: Heat validates property values against their schema (True outside template validation).
    strict_validate = True

    def __init__(self, info: Any, context: Any) -> None:
        self._info = info
        self._context = context

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self._info, name)
        except AttributeError:
            raise MissingHeatName(
                f"heat.engine.stack.Stack.{name}", plugin_site(sys._getframe(1))
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(_members(self._context))

    def __len__(self) -> int:
        return len(_members(self._context))

    def __contains__(self, name: object) -> bool:
        return name in _members(self._context)

    def __getitem__(self, name: str) -> Any:
        return _members(self._context)[name]

    def keys(self) -> list[str]:
        """The resource names."""
        return list(_members(self._context))

    def values(self) -> list[Any]:
        """The resources."""
        return list(_members(self._context).values())

    def items(self) -> list[tuple[str, Any]]:
        """``(name, resource)`` pairs."""
        return list(_members(self._context).items())

    def resource_by_refid(self, refid: str) -> Any:
        """The resource whose reference id is *refid*, or None (Heat's lookup).

        As in Heat, a resource being deleted, suspended or failed is not found.
        """
        for res in _members(self._context).values():
            if (res.action, res.status) not in _REFID_STATES:
                continue
            if refid in (res.get_reference_id(), res.name):
                return res if _is_heat_resource(res) else PlugsimResourceView(res)
        return None

    @property
    def context(self) -> Any:
        """Heat's request context of the stack (its project is the world's)."""
        return HeatRequestContext(self._context)

    def timeout_secs(self) -> int:
        """The stack's timeout in seconds (Heat's default when it has none)."""
        minutes = getattr(self._info, "timeout_mins", None)
        return int(minutes * 60) if minutes else DEFAULT_STACK_TIMEOUT

    def has_cache_data(self, name: str) -> bool:
        """Heat's convergence cache: plugsim keeps none."""
        return False


def _version(text: Any) -> tuple[int, ...]:
    parts = str(text).strip().split(".")
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        return (0,)


class ExceptionFilter:
    """Heat's exception filters: a context that swallows matching errors, or a call.

    ``with f: ...`` swallows an error *predicate* accepts; ``f(ex)`` re-raises
    *ex* unless *predicate* accepts it.
    """

    def __init__(self, predicate: Any) -> None:
        self._predicate = predicate

    def __call__(self, ex: BaseException) -> None:
        if not self._predicate(ex):
            raise ex

    def __enter__(self) -> ExceptionFilter:
        return self

    def __exit__(self, kind: Any, ex: BaseException | None, tb: Any) -> bool:
        return ex is not None and isinstance(ex, Exception) and bool(self._predicate(ex))


class HeatClientPlugin:
    """One of plugsim's client plug-ins with the extra surface of Heat's."""

    def __init__(self, plugin: Any, name: str | None = None) -> None:
        self._plugin = plugin
        self._name = name or getattr(plugin, "name", "")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self._plugin, name)
        except AttributeError:
            raise MissingHeatName(
                f"heat.engine.clients.client_plugin.ClientPlugin.{name}",
                plugin_site(sys._getframe(1)),
            ) from None

    def client(self, *args: Any, **kwargs: Any) -> Any:
        """The service client, whose missing endpoints are named (:class:`HeatClient`)."""
        return HeatClient(self._plugin.client(*args, **kwargs), self._name)

    @property
    def ignore_not_found(self) -> ExceptionFilter:
        """Swallow a not-found error: ``with plugin.ignore_not_found:`` or ``(ex)``."""
        return ExceptionFilter(self._plugin.is_not_found)

    @property
    def ignore_conflict_and_not_found(self) -> ExceptionFilter:
        """Swallow a not-found or conflict error, as a context or called with one."""
        plugin = self._plugin
        return ExceptionFilter(lambda ex: plugin.is_not_found(ex) or plugin.is_conflict(ex))

    def get_max_microversion(self) -> str | None:
        """The newest microversion the fake service answers to (None: unversioned)."""
        own = getattr(self._plugin, "max_microversion", None)
        return str(own) if own else MAX_MICROVERSIONS.get(self._name)

    def is_version_supported(self, version: Any) -> bool:
        """True when the fake service supports API microversion *version* (Heat's check)."""
        newest = self.get_max_microversion()
        if newest is None:
            return False
        return _version(newest) >= _version(version)


class HeatClient:
    """A fake cloud's service client handed to a Heat plug-in.

    Reads pass through; an endpoint the client lacks is a
    :class:`~simulator.heat_compat.missing.MissingCloudEndpoint` naming the
    service, the endpoint and the plug-in's file and line. A manager of the
    client (``nova().flavors``) is wrapped too, so a method it lacks is named
    the same way (``flavors.create``).
    """

    def __init__(self, client: Any, service: str, prefix: str = "") -> None:
        object.__setattr__(self, "_client", client)
        object.__setattr__(self, "_service", service)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            value = getattr(self._client, name)
        except MissingCloudEndpoint:
            raise
        except AttributeError:
            raise MissingCloudEndpoint(
                self._service, self._client, self._prefix + name, plugin_site(sys._getframe(1))
            ) from None
        if type(value).__name__.endswith("Manager"):
            return HeatClient(value, self._service, f"{self._prefix}{name}.")
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._client, name, value)

    def __repr__(self) -> str:
        return f"<{self._service} client {self._client!r}>"
