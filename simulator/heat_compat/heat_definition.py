"""What a Heat plug-in's ``handle_update`` and ``__init__`` are handed under plugsim.

* :class:`HeatDefinition`: a resource definition as Heat plug-ins see it
  (``defn.properties(schema, ctx)``, ``metadata()``, ``freeze()``), over the
  resource that reads it;
* :class:`HeatTemplateDiff`: the ``tmpl_diff`` of ``handle_update``, answering
  Heat's ``properties_changed()`` and friends;
* the wrappers :class:`~simulator.heat_compat.resource.HeatResource` puts around
  a plug-in's own ``handle_update`` and a Heat-style ``__init__(name,
  json_snippet, stack)``, so the engine's calls fit them.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Mapping
from typing import Any

from sdk import properties as properties_mod
from sdk import rsrc_defn
from simulator.heat_compat.translation import apply_rules


class HeatDefinition:
    """A resource definition as Heat plug-ins see it (``defn.properties(schema, ctx)``)."""

    def __init__(self, resource: Any, snippet: Mapping[str, Any]) -> None:
        self._resource = resource
        self._snippet = dict(snippet)

    @property
    def resource_type(self) -> str:
        """The type name."""
        return str(self._snippet.get("type", self._resource.type()))

    def properties(self, schema: Mapping[str, Any], context: Any = None) -> Any:
        """Return :class:`sdk.properties.Properties` over this definition's properties."""
        props = properties_mod.Properties(
            schema,
            dict(self._snippet.get("properties") or {}),
            resolver=self._resource._resolver,
            context=self._resource.context,
            path=["resources", self._resource.name, "properties"],
        )
        rules = self._resource.translation_rules(props)
        if rules:
            apply_rules(props, rules)
        return props

    def metadata(self) -> dict[str, Any]:
        """The definition's metadata."""
        return dict(self._snippet.get("metadata") or {})

    def update_policy(self, schema: Mapping[str, Any], context: Any = None) -> Any:
        """Return :class:`sdk.properties.Properties` over this definition's update policy."""
        return properties_mod.Properties(
            schema,
            dict(self._snippet.get("update_policy") or {}),
            resolver=self._resource._resolver,
            context=self._resource.context,
            path=["resources", self._resource.name, "update_policy"],
        )

    def freeze(self, **changes: Any) -> HeatDefinition:
        """Return this definition with *changes* applied (Heat's ``freeze``)."""
        return HeatDefinition(self._resource, {**self._snippet, **changes})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeatDefinition) and self._snippet == other._snippet

    __hash__ = None  # type: ignore[assignment]


#: The resolver handed to a plug-in whose ``__init__`` override does not take one.
_PENDING_RESOLVER: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "plugsim_heat_pending_resolver", default=None
)


def _takes_resolver(init: Any) -> bool:
    try:
        params = inspect.signature(init).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "resolver" or p.kind is p.VAR_KEYWORD for p in params)


def _wrap_init(init: Any) -> Any:
    """Wrap a Heat-style ``__init__(name, json_snippet, stack)`` so the engine's call fits.

    Heat constructs a resource with three arguments; plugsim's engine also
    passes ``resolver=``. The resolver reaches :class:`HeatResource`'s own
    ``__init__`` (called by the override through ``super()``) on the side.
    """

    @functools.wraps(init)
    def __init__(self: Any, name: str, definition: Any, context: Any, resolver: Any = None) -> None:
        # a chain of Heat-style overrides (Server -> BaseServer) calls the next one with
        # Heat's three arguments: keep the resolver the outermost call was given
        token = _PENDING_RESOLVER.set(resolver if resolver is not None else _PENDING_RESOLVER.get())
        try:
            init(self, name, definition, context)
        finally:
            _PENDING_RESOLVER.reset(token)

    __init__._heat_compat_wrapped = True  # type: ignore[attr-defined]
    return __init__


class HeatTemplateDiff(dict):  # type: ignore[type-arg]
    """The ``tmpl_diff`` a Heat plug-in's ``handle_update`` gets: the changed sections.

    A dict of changed top-level keys (as plugsim's) that also answers Heat's
    questions ``properties_changed()``, ``metadata_changed()`` and
    ``update_policy_changed()``.
    """

    def properties_changed(self) -> bool:
        """True when the properties changed."""
        return rsrc_defn.PROPERTIES in self

    def metadata_changed(self) -> bool:
        """True when the metadata changed."""
        return rsrc_defn.METADATA in self

    def update_policy_changed(self) -> bool:
        """True when the update policy changed."""
        return rsrc_defn.UPDATE_POLICY in self


def _wrap_handle_update(func: Any) -> Any:
    @functools.wraps(func)
    def handle_update(self: Any, json_snippet: Any, tmpl_diff: Any, prop_diff: Any):
        if isinstance(json_snippet, Mapping):
            json_snippet = HeatDefinition(self, json_snippet)
        if isinstance(tmpl_diff, Mapping) and not isinstance(tmpl_diff, HeatTemplateDiff):
            tmpl_diff = HeatTemplateDiff(tmpl_diff)
        return func(self, json_snippet, tmpl_diff, prop_diff)

    handle_update._heat_compat_wrapped = True  # type: ignore[attr-defined]
    return handle_update
