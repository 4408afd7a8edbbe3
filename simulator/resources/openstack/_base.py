"""Helpers shared by the bundled OpenStack types: status polling and name lookups.

Plug-ins reach the cloud only through ``self.client(name)``; these helpers
take a client (or a resource) and never touch the fake cloud's internals.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sdk import constraints, exception, properties
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
