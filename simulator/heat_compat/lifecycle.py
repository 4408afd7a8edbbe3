"""Stack lifecycle plug-ins written against Heat, run unmodified.

``heat.engine.lifecycle_plugin.LifecyclePlugin`` is served by the compat
layer as :class:`LifecyclePlugin`. A subclass's ``do_pre_op`` and
``do_post_op`` receive what Heat's engine passes instead of plugsim's
views: the request context (:class:`HeatRequestContext`: ``tenant_id``,
``user_id``, ``roles``, ``to_dict()``) and the stack (:class:`HeatStack`:
``t``, ``env``, ``context``, ``tenant_id``, ``outputs``, ``identifier()``,
``resources`` whose ``type()`` is callable). A name they lack raises
:class:`~simulator.heat_compat.MissingHeatName` naming the plug-in's file
and line. :mod:`simulator.heat_compat.lifecycle_import` imports such
plug-ins through the shims.
"""

from __future__ import annotations

import functools
import sys
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.missing import MissingHeatName

#: Heat's default ordinal.
DEFAULT_ORDINAL = 100
#: The roles the stack owner's request carries.
ROLES = ("member", "reader")


def _missing(owner: str, name: str) -> MissingHeatName:
    return MissingHeatName(f"{owner}.{name}", plugin_site(sys._getframe(2)))


class HeatRequestContext:
    """Heat's ``RequestContext`` as a lifecycle plug-in reads it, over plugsim's context."""

    def __init__(self, context: Any) -> None:
        self._context = context
        project = str(getattr(context, "project_id", "") or "")
        self.tenant_id = self.project_id = self.tenant = project
        self.user_id = self.user = uuid.uuid5(uuid.NAMESPACE_URL, f"plugsim-user:{project}").hex
        self.roles = list(ROLES)
        self.is_admin = False
        self.username = "plugsim"
        self.project_name = "plugsim"
        self.region_name = "RegionOne"
        self.auth_url = None
        self.trust_id = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self._context, name)
        except AttributeError:
            raise _missing("heat.common.context.RequestContext", name) from None

    def to_dict(self) -> dict[str, Any]:
        """The context as a plain map, with Heat's keys."""
        return {
            "user_id": self.user_id,
            "user": self.user,
            "project_id": self.project_id,
            "tenant": self.tenant,
            "tenant_id": self.tenant_id,
            "roles": list(self.roles),
            "is_admin": self.is_admin,
            "username": self.username,
            "project_name": self.project_name,
            "region_name": self.region_name,
            "auth_url": self.auth_url,
            "trust_id": self.trust_id,
        }


class _TypeName(str):
    """A resource type name that is also callable, as Heat's ``res.type()``."""

    def __call__(self) -> str:
        return str(self)


class HeatLifecycleResource:
    """One resource of :class:`HeatStack`: plugsim's resource view with Heat's names."""

    def __init__(self, info: Any) -> None:
        self._info = info

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "type":
            return _TypeName(self._info.type)
        if name == "resource_id":
            return self._info.physical_id
        if name == "t":
            return {
                "type": self._info.type,
                "properties": self._info.properties,
                "metadata": self._info.metadata,
            }
        try:
            return getattr(self._info, name)
        except AttributeError:
            raise _missing("heat.engine.resource.Resource", name) from None


class HeatIdentifier(dict):
    """Heat's stack identifier: ``tenant``, ``stack_name``, ``stack_id``, ``path``."""

    def arn(self) -> str:
        """The identifier as an ARN."""
        return (
            f"arn:openstack:heat::{self['tenant']}:stacks/{self['stack_name']}/{self['stack_id']}"
        )

    def url_path(self) -> str:
        """The identifier as a URL path (a resource's ends with ``/resources/<name>``)."""
        path = self.get("path") or ""
        return f"{self['tenant']}/stacks/{self['stack_name']}/{self['stack_id']}{path}"

    def stack_path(self) -> str:
        """``<stack name>/<stack id>``."""
        return f"{self['stack_name']}/{self['stack_id']}"

    def arn_url_path(self) -> str:
        """The ARN as a URL path (what Heat's CFN signal URLs carry)."""
        return (
            "/"
            + self.arn().replace(":", "%3A").replace("/", "%2F")
            + ((self.get("path") or "").replace("/", "%2F"))
        )


class HeatEnvironment:
    """What lifecycle plug-ins read of Heat's environment: the parameter values.

    Heat's ``env.params`` holds the values the user gave; plugsim's view
    holds every resolved value, so defaults appear here too (pseudo
    parameters such as ``OS::stack_name`` do not).
    """

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = {k: v for k, v in params.items() if "::" not in k}
        self.parameter_defaults: dict[str, Any] = {}


class HeatStack:
    """Heat's ``Stack`` as a lifecycle plug-in reads it, over plugsim's stack view.

    ``status`` and ``status_reason`` written here reach the view (plugsim's
    strict mode allows only those).
    """

    def __init__(self, view: Any, context: HeatRequestContext) -> None:
        object.__setattr__(self, "_view", view)
        object.__setattr__(self, "context", context)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        view = self._view
        if name == "t":
            return view.template
        if name == "env":
            return HeatEnvironment(view.parameters)
        if name == "tenant_id":
            return self.context.tenant_id
        if name == "outputs":
            return dict((view.template or {}).get("outputs") or {})
        if name == "resources":
            return {n: HeatLifecycleResource(r) for n, r in view.resources.items()}
        try:
            return getattr(view, name)
        except AttributeError:
            raise _missing("heat.engine.stack.Stack", name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._view, name, value)

    def identifier(self) -> HeatIdentifier:
        """The stack's identifier (Heat's ``HeatIdentifier``)."""
        return HeatIdentifier(
            tenant=self.context.tenant_id,
            stack_name=self._view.name,
            stack_id=self._view.id,
            path="",
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._view.resources)

    def __len__(self) -> int:
        return len(self._view.resources)

    def __contains__(self, name: object) -> bool:
        return name in self._view.resources

    def __getitem__(self, name: str) -> HeatLifecycleResource:
        return HeatLifecycleResource(self._view.resources[name])


def _heat_call(method: Any) -> Any:
    """Give *method* Heat's objects for plugsim's ``(context, stack, current_stack)``."""

    @functools.wraps(method)
    def call(self: Any, cnxt: Any, stack: Any, current_stack: Any = None, *args: Any, **kw: Any):
        if isinstance(cnxt, HeatRequestContext):
            return method(self, cnxt, stack, current_stack, *args, **kw)
        context = HeatRequestContext(cnxt)
        heat_stack = HeatStack(stack, context) if stack is not None else None
        heat_current = HeatStack(current_stack, context) if current_stack is not None else None
        return method(self, context, heat_stack, heat_current, *args, **kw)

    call._heat_compat_wrapped = True  # type: ignore[attr-defined]
    return call


class LifecyclePlugin:
    """``heat.engine.lifecycle_plugin.LifecyclePlugin``: pre/post operation hooks."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("do_pre_op", "do_post_op"):
            own = cls.__dict__.get(name)
            if callable(own) and not getattr(own, "_heat_compat_wrapped", False):
                setattr(cls, name, _heat_call(own))

    def do_pre_op(
        self, cnxt: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Run before a stack operation (nothing by default)."""

    def do_post_op(
        self,
        cnxt: Any,
        stack: Any,
        current_stack: Any = None,
        action: str | None = None,
        is_stack_failure: bool = False,
    ) -> None:
        """Run after a stack operation, failed or not (nothing by default)."""

    def get_ordinal(self) -> int:
        """The calling order (Heat's default)."""
        return DEFAULT_ORDINAL
