"""Private part of ``Resource``: update — what changed between two definitions, and update().

Nothing here is public API; :mod:`sdk.resource` documents the behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sdk import exception, rsrc_defn, transitions
from sdk import properties as props_mod
from sdk._core import ResourceCore

#: Snippet keys that never make a resource update (the engine handles them).
IGNORED_SNIPPET_KEYS = frozenset({rsrc_defn.CONDITION, rsrc_defn.DESCRIPTION})

_MISSING = object()
#: A property set on neither side of a template and without a default (Heat's None).
_UNSET = object()


def resolved_value(props: props_mod.Properties, key: str) -> Any:
    """Return the resolved, converted value of *key*, or a marker when unknowable.

    A value that cannot be resolved yet (or is invalid) compares unequal to
    everything, so it counts as changed.
    """
    try:
        return props[key]
    except Exception:
        return _MISSING


def _differs(before: Any, after: Any) -> bool:
    if before is _UNSET or after is _UNSET:
        return before is not after
    if before is _MISSING or after is _MISSING:
        return True
    try:
        return bool(before != after)
    except Exception:
        return True


def _resolved(props: props_mod.Properties, key: str, memo: dict[str, Any] | None) -> Any:
    if key not in props.schema:
        return _MISSING
    schema = props.schema[key]
    data = props.data if isinstance(props.data, Mapping) else {}
    if data.get(key) is None and getattr(schema, "default", None) is None:
        return _UNSET  # not the type's zero value: unset is a state of its own
    if memo is None:
        return resolved_value(props, key)
    if key not in memo:
        memo[key] = resolved_value(props, key)
    return memo[key]


def property_diff(
    before: props_mod.Properties,
    after: props_mod.Properties,
    *,
    after_memo: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return ``{name: new value}`` for every property whose resolved value changed.

    Only properties set on either side are compared (one set on neither side
    has its default on both). A property without a default that is set on one
    side only has changed, whatever its value, as in Heat (where unset reads
    None): an explicit ``False`` or ``""`` is not the same as "not given". A
    property present before and absent now maps to None, as the plug-in guide
    specifies. Keys are in sorted order.
    *after_memo* (optional) keeps the resolved new values for
    :func:`template_diff`, so each is resolved once.
    """
    before_data = before.data if isinstance(before.data, Mapping) else {}
    after_data = after.data if isinstance(after.data, Mapping) else {}
    diff: dict[str, Any] = {}
    for key in sorted(set(before_data) | set(after_data), key=str):
        if key in before.schema or key in after.schema:
            old = _resolved(before, key, None)
            new = _resolved(after, key, after_memo)
        else:
            old, new = before_data.get(key, _MISSING), after_data.get(key, _MISSING)
        if not _differs(old, new):
            continue
        if key not in after_data or after_data[key] is None:
            diff[key] = None
        elif new is _MISSING:
            diff[key] = after_data[key]
        else:
            diff[key] = new
    return diff


def template_diff(
    before: rsrc_defn.ResourceDefinition,
    after: rsrc_defn.ResourceDefinition,
    prop_diff: Mapping[str, Any],
    after_props: props_mod.Properties,
    *,
    after_memo: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the changed top-level HOT snippet keys with their new values.

    Keys are the lower-case HOT names (``properties``, ``metadata``,
    ``depends_on``, ``deletion_policy``, ``update_policy``, ``type``,
    ``external_id``); a removed key maps to None. ``properties`` is reported
    when *prop_diff* is not empty (compared on resolved values), with the
    resolved new property data. ``condition`` and ``description`` never count.
    """
    old, new = before.to_dict(), after.to_dict()
    diff: dict[str, Any] = {}
    for key in sorted(set(old) | set(new)):
        if key in IGNORED_SNIPPET_KEYS or key == rsrc_defn.PROPERTIES:
            continue
        if old.get(key) != new.get(key):
            diff[key] = new.get(key)
    if prop_diff:
        resolved = {}
        for key, raw in new[rsrc_defn.PROPERTIES].items():
            value = _resolved(after_props, key, after_memo)
            resolved[key] = raw if value is _MISSING or value is _UNSET else value
        diff[rsrc_defn.PROPERTIES] = resolved
    return dict(sorted(diff.items()))


class UpdateMixin(ResourceCore):
    """``update()``, the default ``handle_update`` and the replacement rules."""

    def needs_replace_failed(self) -> bool:
        """Return True if a resource in a FAILED state is replaced on update (default)."""
        return True

    def _settle_unchanged_failure(self) -> None:
        """A failed resource an update neither changes nor replaces is COMPLETE again (Heat's)."""
        if self.status == self.FAILED:
            self.state_set(
                self.action,
                self.COMPLETE,
                "Update status to COMPLETE for FAILED resource neither update nor replace.",
            )

    def _properties_for(self, definition: rsrc_defn.ResourceDefinition) -> props_mod.Properties:
        """The properties of *definition*: the current ones when built from it and not replaced."""
        built = getattr(self, "_properties_built", None)
        if built is not None and built[0] is definition and built[1] is self.properties:
            return self.properties
        return self._make_properties(definition)

    def _update_allowed_set(self) -> set[str]:
        return set(self.update_allowed_properties) | set(
            props_mod.update_allowed_properties(self.properties.schema)
        )

    async def update(
        self,
        after: rsrc_defn.ResourceDefinition,
        before: rsrc_defn.ResourceDefinition | None = None,
    ) -> None:
        """Update the resource to the definition *after*.

        *before* defaults to the current definition. Raises
        :class:`sdk.exception.UpdateReplace` when the engine must replace the
        resource instead; see the class docstring for the rules.
        """
        if not isinstance(after, rsrc_defn.ResourceDefinition):
            raise TypeError(f"Resource {self.name}: update() needs a ResourceDefinition")
        before = self.t if before is None else before
        if after.external_id != self.external_id:
            raise exception.ResourceFailure(
                exception.NotSupported(
                    f"Update to property external_id of {self.name} ({self.type()}) "
                    f"is not supported"
                ),
                self,
                self.UPDATE,
            )
        if after.external_id is not None:
            return
        if self.status == self.FAILED and (
            self.action == self.CHECK or self.needs_replace_failed()
        ):
            raise exception.UpdateReplace(self.name)
        if self.state in transitions.REPLACED_ON_UPDATE:
            raise exception.UpdateReplace(self.name)
        if not transitions.may_start(self.state, self.UPDATE):
            raise exception.ResourceFailure(
                f"Resource update already requested: {self.name} is {self.state}",
                self,
                self.UPDATE,
            )
        if after.resource_type != before.resource_type:
            raise exception.UpdateReplace(self.name)

        before_props = self._properties_for(before)
        after_props = self._make_properties(after)
        memo: dict[str, Any] = {}
        prop_diff = property_diff(before_props, after_props, after_memo=memo)
        tmpl_diff = template_diff(before, after, prop_diff, after_props, after_memo=memo)
        if not prop_diff and not tmpl_diff:
            self._settle_unchanged_failure()
            return

        immutable = sorted(
            k for k in prop_diff if k in props_mod.immutable_properties(after_props.schema)
        )
        # An invalid new definition fails the update; it is no reason to replace.
        invalid: exception.StackValidationFailed | None = None
        try:
            after_props.validate(with_value=True)
        except exception.StackValidationFailed as ex:
            invalid = ex
        allowed = self._update_allowed_set()
        if invalid is None and not immutable and not set(prop_diff) <= allowed:
            raise exception.UpdateReplace(self.name)

        self.prev_definition = before
        snippet = after.to_dict()

        def checks() -> None:
            if invalid is not None:
                raise invalid
            if immutable:
                raise exception.NotSupported(
                    f"Update to properties {', '.join(immutable)} of {self.name} "
                    f"({self.type()}) is not supported"
                )

        await self._run_action(
            self.UPDATE,
            self._handler("update", None, snippet, tmpl_diff, prop_diff),
            pre=checks,
            expected=(exception.UpdateReplace,),
        )
        self.t = after
        self.properties = after_props
        self._properties_built = (after, after_props)
        self.attributes.reset_resolved_values()

    def handle_update(
        self,
        json_snippet: Mapping[str, Any] | None = None,
        tmpl_diff: Mapping[str, Any] | None = None,
        prop_diff: Mapping[str, Any] | None = None,
    ) -> None:
        """Default update: replacement when any property changed, nothing otherwise."""
        if prop_diff:
            raise exception.UpdateReplace(self.name)
