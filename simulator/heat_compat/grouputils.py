"""``heat.common.grouputils``: what Heat's group plug-ins read of their members.

Heat's helpers fetch a group's nested stack over RPC; here they read it
through the group's ``nested()`` (:class:`~simulator.heat_compat.stack_resource.HeatNestedStack`,
over the resource context's ``nested_stacks()`` facet). Members are ordered
as Heat orders them: failed ones first, then by creation, then by name. A
plugsim resource has no creation timestamp; its position in the nested stack
(the order the group's template gave) stands for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from simulator.heat_compat import exceptions as heat_exc
from simulator.heat_compat.nested_template import HeatTemplate

FAILED = "FAILED"


def _ordered(resources: list[Any]) -> list[Any]:
    """*resources* (in nested-stack order) in Heat's member order."""
    ranked = [(r.status != FAILED, index, r.name, r) for index, r in enumerate(resources)]
    return [entry[-1] for entry in sorted(ranked, key=lambda e: e[:3])]


class GroupInspector:
    """``GroupInspector``: the members and template of a group's nested stack.

    Made by :meth:`from_parent_resource`. Heat caches its RPC answers per
    inspector, and its resource objects (and their cached inspectors) live for
    one request; plugsim's live across actions, so this one reads the nested
    stack on every question and never answers from an earlier action.
    """

    def __init__(
        self, context: Any, rpc_client: Any = None, group_identity: Any = None, owner: Any = None
    ) -> None:
        self._context = context
        self._identity = group_identity
        self._owner = owner

    @classmethod
    def from_parent_resource(cls, parent_resource: Any) -> GroupInspector:
        """The inspector of *parent_resource*'s nested stack."""
        return cls(
            parent_resource.context,
            None,
            parent_resource.nested_identifier(),
            owner=parent_resource,
        )

    def _nested(self) -> Any:
        if self._owner is None or self._identity is None:
            return None
        return self._owner.nested()

    def _all(self) -> list[Any]:
        nested = self._nested()
        return _ordered(nested.values()) if nested is not None else []

    def _members(self, include_failed: bool) -> Iterator[Any]:
        return (r for r in self._all() if include_failed or r.status != FAILED)

    def size(self, include_failed: bool) -> int:
        """How many members the group has (failed ones only with *include_failed*)."""
        return sum(1 for _ in self._members(include_failed))

    def member_names(self, include_failed: bool) -> Iterator[str]:
        """The members' names in Heat's member order."""
        return (r.name for r in self._members(include_failed))

    def template(self) -> HeatTemplate | None:
        """The nested stack's current template (None without a nested stack)."""
        nested = self._nested()
        return nested.t if nested is not None else None


def get_size(group: Any, include_failed: bool = False) -> int:
    """The number of *group*'s members (failed ones only with *include_failed*)."""
    return GroupInspector.from_parent_resource(group).size(include_failed)


def get_members(group: Any, include_failed: bool = False) -> list[Any]:
    """*group*'s member resources in Heat's member order."""
    nested = group.nested()
    if not nested:
        return []
    return [r for r in _ordered(nested.values()) if include_failed or r.status != FAILED]


def get_member_refids(group: Any) -> list[str]:
    """The reference ids of *group*'s members that have not failed."""
    return [r.FnGetRefId() for r in get_members(group)]


def get_member_names(group: Any) -> list[str]:
    """The names of *group*'s members that have not failed."""
    return list(GroupInspector.from_parent_resource(group).member_names(include_failed=False))


def get_resource(group: Any, resource_name: Any, use_indices: bool, key: Any = None) -> Any:
    """The member named *resource_name* (or at that index with *use_indices*), None without one.

    A member that does not exist is Heat's ``NotFound`` naming it and the group.
    """
    nested = group.nested()
    if not nested:
        return None
    try:
        if use_indices:
            return get_members(group)[int(resource_name)]
        return nested[resource_name]
    except (IndexError, KeyError, ValueError):
        raise heat_exc.NotFound(
            f"Member '{resource_name}' not found in group resource '{group.name}'."
        ) from None


def get_rsrc_attr(group: Any, key: Any, use_indices: bool, resource_name: Any, *attr_path: Any):
    """The attribute *attr_path* of one member."""
    member = get_resource(group, resource_name, use_indices)
    return member.FnGetAtt(*attr_path) if member else None


def get_rsrc_id(group: Any, key: Any, use_indices: bool, resource_name: Any) -> Any:
    """The reference id of one member."""
    member = get_resource(group, resource_name, use_indices)
    return member.FnGetRefId() if member else None


def get_nested_attrs(group: Any, key: str, use_indices: bool, *path: Any) -> Any:
    """``resource.<name>[.<attr>...]``: a member's id, or its attribute when one is named."""
    parts = key.split(".", 2)[1:] + list(path)
    if len(parts) > 1:
        return get_rsrc_attr(group, key, use_indices, *parts)
    return get_rsrc_id(group, key, use_indices, *parts)


def get_member_definitions(group: Any, include_failed: bool = False) -> list[tuple[str, Any]]:
    """``(name, definition)`` of *group*'s members, in member order."""
    inspector = GroupInspector.from_parent_resource(group)
    template = inspector.template()
    if template is None:
        return []
    definitions = template.resource_definitions(None)
    return [
        (name, definitions[name])
        for name in inspector.member_names(include_failed=include_failed)
        if name in definitions
    ]


def get_child_template_files(
    context: Any, stack: Any, is_rolling_update: bool, old_template_id: Any
) -> dict[str, Any]:
    """The files the child template may use: the parent's (plugsim passes them to the child)."""
    return dict(getattr(getattr(stack, "t", None), "files", None) or {})


def grouputils_names() -> dict[str, Any]:
    """The public names of the ``heat.common.grouputils`` shim."""
    return {
        name: value
        for name, value in globals().items()
        if not name.startswith("_")
        and (name == "GroupInspector" or name.startswith("get_"))
        and callable(value)
    }
