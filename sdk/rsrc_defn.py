"""Resource definitions: one entry of a template's ``resources:`` section.

A :class:`ResourceDefinition` is the engine's parsed, template-independent
description of one resource: its name, type, property data and the
template-level options (metadata, dependencies, deletion and update policies,
condition, external id). It is a value object: two definitions with the same
content are equal, and changing one means making a new one with
:meth:`ResourceDefinition.freeze`.

Property values may contain intrinsic-function objects owned by the engine.
The definition treats them as opaque: it stores and compares them, and leaves
resolving them to :class:`sdk.properties.Properties` and its resolver.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from sdk import exception

__all__ = ["DELETE", "RETAIN", "SNAPSHOT", "DELETION_POLICIES", "ResourceDefinition"]

#: Deletion policy: delete the physical resource with the stack resource.
DELETE = "Delete"
#: Deletion policy: leave the physical resource in place.
RETAIN = "Retain"
#: Deletion policy: snapshot the physical resource, then delete it.
SNAPSHOT = "Snapshot"
#: Every valid deletion policy.
DELETION_POLICIES = (DELETE, RETAIN, SNAPSHOT)

_POLICY_BY_LOWER = {p.lower(): p for p in DELETION_POLICIES}

# The HOT keys of a resource snippet, in the order to_dict() emits them.
TYPE, PROPERTIES, METADATA, DEPENDS_ON, DELETION_POLICY, UPDATE_POLICY = (
    "type",
    "properties",
    "metadata",
    "depends_on",
    "deletion_policy",
    "update_policy",
)
CONDITION, EXTERNAL_ID, DESCRIPTION = "condition", "external_id", "description"


def _normalise_policy(policy: Any) -> Any:
    """Map ``delete``/``RETAIN``... onto the canonical spelling; keep anything else."""
    if isinstance(policy, str):
        return _POLICY_BY_LOWER.get(policy.lower(), policy)
    return policy


def _normalise_depends_on(name: str, depends_on: Any) -> tuple[str, ...]:
    if depends_on is None:
        return ()
    if isinstance(depends_on, str):
        return (depends_on,)
    if not isinstance(depends_on, Iterable) or isinstance(depends_on, Mapping):
        raise exception.StackValidationFailed(
            f"depends_on must be a resource name or a list of names, not "
            f"{type(depends_on).__name__}",
            path=["resources", name, DEPENDS_ON],
        )
    names = tuple(depends_on)
    for index, dep in enumerate(names):
        if not isinstance(dep, str) or not dep:
            raise exception.StackValidationFailed(
                f"depends_on entries must be resource names, not {dep!r}",
                path=["resources", name, DEPENDS_ON, index],
            )
    return names


class Metadata(dict[str, Any]):
    """A definition's metadata map, which may also be called for a copy of itself.

    Heat's definitions give their metadata through a method (``defn.metadata()``)
    and plug-ins written against Heat call it so; plugsim's is a property. This
    map serves both spellings, and dumps to JSON and (safe) YAML as a plain map.
    """

    def __call__(self) -> dict[str, Any]:
        return dict(self)


yaml.SafeDumper.add_representer(Metadata, yaml.representer.SafeRepresenter.represent_dict)


class ResourceDefinition:
    """The definition of one resource, independent of template format.

    :param name: the resource's name in the template (non-empty, no ``/``).
    :param resource_type: the type name, e.g. ``'OS::Nova::Server'``.
    :param properties: the raw property data (may hold intrinsic functions).
    :param metadata: the resource's metadata map, if any.
    :param depends_on: names of resources this one explicitly depends on.
    :param deletion_policy: ``'Delete'`` (default), ``'Retain'`` or
        ``'Snapshot'``; lower-case spellings are accepted and normalised. An
        unknown value is kept as given and reported by
        :meth:`sdk.resource.Resource.validate`.
    :param update_policy: the update policy map, if any.
    :param condition: the name (or expression) of the condition guarding the
        resource; the engine evaluates it.
    :param external_id: the id of an existing physical resource the stack
        should adopt instead of creating one.
    :param description: free text from the template.
    """

    DELETION_POLICIES = DELETION_POLICIES
    DELETE = DELETE
    RETAIN = RETAIN
    SNAPSHOT = SNAPSHOT

    __slots__ = (
        "_name",
        "_resource_type",
        "_properties",
        "_metadata",
        "_depends_on",
        "_deletion_policy",
        "_update_policy",
        "_condition",
        "_external_id",
        "_description",
    )

    def __init__(
        self,
        name: str,
        resource_type: str,
        properties: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        depends_on: Iterable[str] | str | None = (),
        deletion_policy: str | None = DELETE,
        update_policy: Mapping[str, Any] | None = None,
        condition: Any = None,
        external_id: str | None = None,
        description: str | None = "",
    ) -> None:
        if not isinstance(name, str) or not name:
            raise exception.StackValidationFailed(
                f"A resource name must be a non-empty string, not {name!r}", path=["resources"]
            )
        if "/" in name:
            raise exception.StackValidationFailed(
                'Resource name may not contain "/"', path=["resources", name]
            )
        if not isinstance(resource_type, str) or not resource_type:
            raise exception.StackValidationFailed(
                f"The resource type must be a non-empty string, not {resource_type!r}",
                path=["resources", name, TYPE],
            )
        for key, value in (
            (PROPERTIES, properties),
            (METADATA, metadata),
            (UPDATE_POLICY, update_policy),
        ):
            if value is not None and not isinstance(value, Mapping):
                raise exception.StackValidationFailed(
                    f"{key} must be a map, not {type(value).__name__}",
                    path=["resources", name, key],
                )
        self._name = name
        self._resource_type = resource_type
        self._properties = dict(properties) if properties is not None else {}
        self._metadata = dict(metadata) if metadata is not None else None
        self._depends_on = _normalise_depends_on(name, depends_on)
        self._deletion_policy = (
            DELETE if deletion_policy is None else _normalise_policy(deletion_policy)
        )
        self._update_policy = dict(update_policy) if update_policy is not None else None
        self._condition = condition
        self._external_id = external_id
        self._description = description or ""

    # --- read-only fields ------------------------------------------------

    @property
    def name(self) -> str:
        """The resource's name in the template."""
        return self._name

    @property
    def resource_type(self) -> str:
        """The resource type name."""
        return self._resource_type

    @property
    def properties(self) -> dict[str, Any]:
        """A copy of the raw property data (intrinsic functions unresolved)."""
        return dict(self._properties)

    @property
    def metadata(self) -> Metadata:
        """A copy of the metadata map (empty when the template gives none).

        Calling it (``defn.metadata()``, Heat's spelling) gives the same copy.
        """
        return Metadata(self._metadata if self._metadata is not None else {})

    @property
    def depends_on(self) -> tuple[str, ...]:
        """Names of the resources this one explicitly depends on."""
        return self._depends_on

    @property
    def deletion_policy(self) -> str:
        """The deletion policy (canonical spelling when it is a known one)."""
        return self._deletion_policy

    @property
    def update_policy(self) -> dict[str, Any] | None:
        """A copy of the update policy map, or None."""
        return dict(self._update_policy) if self._update_policy is not None else None

    @property
    def condition(self) -> Any:
        """The condition guarding this resource, or None."""
        return self._condition

    @property
    def external_id(self) -> str | None:
        """The id of an existing physical resource to adopt, or None."""
        return self._external_id

    @property
    def description(self) -> str:
        """The resource's description from the template."""
        return self._description

    # --- value semantics ---------------------------------------------------

    def _fields(self) -> dict[str, Any]:
        return {
            "name": self._name,
            "resource_type": self._resource_type,
            "properties": self._properties,
            "metadata": self._metadata,
            "depends_on": self._depends_on,
            "deletion_policy": self._deletion_policy,
            "update_policy": self._update_policy,
            "condition": self._condition,
            "external_id": self._external_id,
            "description": self._description,
        }

    def freeze(self, **changes: Any) -> ResourceDefinition:
        """Return a copy of this definition with the given fields replaced.

        Accepts the constructor's keyword names, e.g.
        ``defn.freeze(properties={'size': 2})``. An unknown name is a
        :class:`TypeError` naming it.
        """
        fields = self._fields()
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise TypeError(
                f"ResourceDefinition.freeze() got unknown field(s): {', '.join(unknown)}"
            )
        fields.update(changes)
        return ResourceDefinition(**fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceDefinition):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((self._name, self._resource_type))

    def __repr__(self) -> str:
        return f"ResourceDefinition({self._name!r}, {self._resource_type!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return the HOT snippet of this resource (the ``json_snippet``).

        ``type`` and ``properties`` are always present; ``metadata``,
        ``depends_on``, ``update_policy``, ``condition``, ``external_id`` and
        ``description`` only when set, and ``deletion_policy`` only when it is
        not the default ``'Delete'``. Containers are copies; property values
        are passed through unchanged (intrinsic functions stay opaque).
        """
        snippet: dict[str, Any] = {TYPE: self._resource_type, PROPERTIES: dict(self._properties)}
        if self._metadata is not None:
            snippet[METADATA] = dict(self._metadata)
        if self._depends_on:
            snippet[DEPENDS_ON] = list(self._depends_on)
        if self._deletion_policy != DELETE:
            snippet[DELETION_POLICY] = self._deletion_policy
        if self._update_policy is not None:
            snippet[UPDATE_POLICY] = dict(self._update_policy)
        if self._condition is not None:
            snippet[CONDITION] = self._condition
        if self._external_id is not None:
            snippet[EXTERNAL_ID] = self._external_id
        if self._description:
            snippet[DESCRIPTION] = self._description
        return snippet
