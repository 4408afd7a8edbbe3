"""Helpers shared by the bundled OpenStack types: status polling and name lookups.

Plug-ins reach the cloud only through ``self.client(name)``; these helpers
take a client (or a resource) and never touch the fake cloud's internals.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from sdk import constraints, exception, properties, rsrc_defn, support
from sdk.resource import Resource

SINCE = "0.1.0"


def status_done(
    what: str,
    status: str,
    ready: Iterable[str],
    *,
    errors: Iterable[str] = ("ERROR", "error"),
    pending: Iterable[str] = (),
    fault: Any = None,
) -> bool:
    """Return True when *status* is a ready one, False while it is pending.

    An error status raises :class:`sdk.exception.ResourceInError` (retryable
    on create); a status that is neither raises
    :class:`sdk.exception.ResourceUnknownStatus`. An empty *pending* means
    "anything that is not ready or an error is pending".
    """
    if status in tuple(ready):
        return True
    if status in tuple(errors):
        reason = "Unknown"
        if isinstance(fault, dict) and fault.get("message"):
            reason = str(fault["message"])
        raise exception.ResourceInError(status_reason=f"{what}: {reason}", resource_status=status)
    pending = tuple(pending)
    if pending and status not in pending:
        raise exception.ResourceUnknownStatus(
            result=f"{what} is not ready", resource_status=status, status_reason="unexpected"
        )
    return False


def gone(resource: Resource, client_name: str, getter: Any) -> bool:
    """Return True when calling *getter()* raises not-found (the entity is gone)."""
    try:
        getter()
    except Exception as ex:
        resource.client_plugin(client_name).ignore_not_found(ex)
        return True
    return False


def not_found(kind: str, ref: Any) -> exception.EntityNotFound:
    """Heat's wording for a missing named entity: ``The Image (x) could not be found.``"""
    return exception.EntityNotFound(entity=kind, name=ref)


def find_in(items: Iterable[Any], ref: Any, kind: str) -> Any:
    """Return the one item of *items* whose id or name is *ref*.

    Items are client objects or dicts. An id wins over names; several items
    with the name are a :class:`sdk.exception.Conflict` asking for an id.
    """
    listed = list(items)

    def field(item: Any, key: str) -> Any:
        return item.get(key) if isinstance(item, dict) else getattr(item, key, None)

    for item in listed:
        if field(item, "id") == ref:
            return item
    named = [item for item in listed if field(item, "name") == ref]
    if len(named) > 1:
        raise exception.Conflict(f"Multiple {kind} matches found for '{ref}', use an ID")
    if not named:
        raise not_found(kind, ref)
    return named[0]


def neutron_id(client: Any, kind: str, ref: Any, label: str | None = None) -> str:
    """Return the id of the neutron *kind* (``network``, ``subnet``...) named or identified *ref*."""
    plural = {"security_group": "security_groups"}.get(kind, f"{kind}s")
    items = getattr(client, f"list_{plural}")()[plural]
    return find_in(items, ref, label or kind.replace("_", " ").title())["id"]


def compute_id(client: Any, manager: str, ref: Any, label: str) -> str:
    """Return the id of the nova object (``flavors``, ``images``...) named or identified *ref*."""
    return find_in(getattr(client, manager).list(), ref, label).id


def prop_path(resource: Resource, *path: Any) -> list[Any]:
    """Return the template path of a property of *resource*."""
    return ["resources", resource.name, "properties", *path]


def reference(constraint: str, description: str, **kwargs: Any) -> properties.Schema:
    """A string property naming a cloud object, checked by the custom *constraint*."""
    return properties.Schema(
        properties.Schema.STRING,
        description,
        constraints=[constraints.CustomConstraint(constraint)],
        **kwargs,
    )


def hidden(schema: properties.Schema, replaced_by: str, since: str = "2014.2") -> properties.Schema:
    """*schema* as a hidden property Heat still accepts, translated to *replaced_by*."""
    return properties.Schema(
        schema.type,
        f"Hidden: use {replaced_by} (this property is translated to it).",
        update_allowed=schema.update_allowed,
        support_status=support.SupportStatus(
            status=support.HIDDEN,
            version="2016.2",
            message=f"Use property {replaced_by}.",
            previous_status=support.SupportStatus(status=support.DEPRECATED, version=since),
        ),
    )


class Translated(Resource):  # plugsim: ignore[PS301] - a base, not a type
    """A resource whose hidden (old) property names are translated to the current ones.

    ``translations`` maps an old name to the property that replaces it, as
    Heat's translation rules do before validation: a template that gives the
    old name works as if it gave the new one; giving both is an error.
    Old names without a successor (``ignored``) are accepted and dropped.
    """

    support_status = support.SupportStatus(version=SINCE)
    translations: ClassVar[dict[str, str]] = {}
    #: ``{list property: {old key: new key}}`` for the maps inside a list property
    item_translations: ClassVar[dict[str, dict[str, str]]] = {}
    ignored: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def renamed_properties(cls, given: dict[str, Any], path: list[Any]) -> dict[str, Any]:
        """*given* with every old name moved to its successor and the ignored ones dropped
        (both an old name and its successor given: :class:`StackValidationFailed` at *path*)."""
        renamed = _renamed(
            {k: v for k, v in given.items() if k not in cls.ignored}, cls.translations, path
        )
        for key, rules in cls.item_translations.items():
            items = renamed.get(key)
            if isinstance(items, list):
                renamed[key] = [
                    _renamed(item, rules, [*path, key, i]) if isinstance(item, dict) else item
                    for i, item in enumerate(items)
                ]
        return renamed

    def _make_properties(self, definition: rsrc_defn.ResourceDefinition) -> properties.Properties:
        given = definition.properties or {}
        keys = (*self.translations, *self.ignored, *self.item_translations)
        if isinstance(given, dict) and any(k in given for k in keys):
            path = ["resources", self.name, "properties"]
            definition = definition.freeze(properties=self.renamed_properties(given, path))
        return super()._make_properties(definition)


def _renamed(values: dict[str, Any], rules: dict[str, str], path: list[Any]) -> dict[str, Any]:
    """*values* with each old key of *rules* moved to its new key (both given: an error)."""
    out = dict(values)
    for old, new in rules.items():
        if old not in out:
            continue
        if out.get(new) is not None and out[old] is not None:
            raise exception.StackValidationFailed(
                error_message=f"Cannot define the following properties at the same time: {new}, {old}",
                path=path,
            )
        value = out.pop(old)
        if out.get(new) is None:
            out[new] = value
    return out
