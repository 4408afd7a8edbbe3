"""What the group types share: their nested stack step and their members' validation.

``OS::Heat::ResourceGroup``, ``AutoScalingGroup`` and the software deployment groups each make
their members from one property; a member's validation error is reported as the group's own,
at that property.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from sdk import exception, properties
from sdk.stack_resource import StackResource

__all__ = ["GroupStack", "check_member_count", "member_failure", "validate_members"]


def member_failure(
    ex: exception.StackValidationFailed, group: str, prop: str
) -> exception.StackValidationFailed:
    """Return *ex*, a member's validation error in the nested stack, as the group's own.

    ``resources.<member>.properties.x`` becomes ``properties.<prop>.properties.x``:
    the path is relative to the group *group*, which the engine names when it
    reports the group's failure (``resources.<group>: properties.<prop>...``).
    """
    path = list(ex.path)
    where = ["properties", prop]
    if len(path) >= 2 and path[0] == "resources":
        return exception.StackValidationFailed(
            error_message=ex.error_message or str(ex), path=[*where, *path[2:]]
        )
    return exception.StackValidationFailed(error_message=f"{group}: {ex}", path=where)


def validate_members(res: Any, template: Mapping[str, Any], prop: str) -> None:
    """Validate a group's member *template* while its stack is validated.

    Only a validation context offers ``validate_nested`` (the engine checks
    the nested stack itself when the group creates or updates it); a member
    error is reported at ``resources.<group>.properties.<prop>...``.
    """
    check = getattr(res.context, "validate_nested", None)
    if check is None:
        return
    try:
        check(template, res.name)
    except exception.StackValidationFailed as ex:
        relative = member_failure(ex, res.name, prop)
        raise exception.StackValidationFailed(
            error_message=relative.error_message, path=["resources", res.name, *relative.path]
        ) from None


def check_member_count(res: Any, count: int, prop: str) -> None:
    """Refuse a group of *count* members above ``max_resources_per_stack`` while validating.

    The members make one nested stack, which the engine would refuse for the
    same limit only once it is created; the validation context carries the
    limits (:class:`simulator.property_validation.ValidationContext`).
    """
    limit = getattr(getattr(res.context, "limits", None), "max_resources_per_stack", None)
    if not isinstance(limit, int) or limit == -1 or count <= limit:
        return
    raise exception.StackValidationFailed(
        error_message=f"{prop} {count} would make a nested stack of {count} resources, more "
        f"than max_resources_per_stack {limit} (set limits: {{max_resources_per_stack: N}} "
        "in plugsim.yaml to change it)",
        path=["resources", res.name, "properties", prop],
    )


class GroupStack(StackResource):  # plugsim: ignore[PS103, PS301] - a base class, not a type
    """A nested stack of members made from one of the group's properties (:attr:`member_property`).

    The groups' shared step: create or update the nested stack, and report a member's
    validation error as the group's own, at ``properties.<member_property>``.
    """

    #: The property the members are made from (named by a member's validation error).
    member_property: ClassVar[str] = "resource_def"
    #: The ``update_policy`` keys the group takes (read by :meth:`policy`).
    update_policy_schema: ClassVar[dict[str, properties.Schema]] = {}

    async def _nested_step(self, template: dict[str, Any], *, create: bool = False) -> None:
        """Create or update the nested stack; a member's validation error names the group."""
        try:
            if create:
                await self.create_nested(template)
            else:
                await self.update_nested(template)
        except exception.StackValidationFailed as ex:
            raise member_failure(ex, self.name, self.member_property) from None

    def policy(self, raw: Any = None) -> dict[str, dict[str, Any]]:
        """Return the validated ``update_policy`` (*raw*, default the template's).

        Only the policies given are in the result, each with Heat's defaults
        filled in. A bad policy raises :class:`sdk.exception.StackValidationFailed`
        naming ``resources.<name>.update_policy`` and the key.
        """
        data = self.t.update_policy if raw is None else raw
        path = ["resources", self.name, "update_policy"]
        if data is None:
            return {}
        if not isinstance(data, Mapping):
            raise exception.StackValidationFailed(
                error_message=f"{data!r} is not a valid Map (got a {type(data).__name__})",
                path=path,
            )
        props = properties.Properties(
            self.update_policy_schema,
            data,
            resolver=self._resolver,
            context=self.context,
            path=path,
        )
        props.validate(with_value=True)
        return {
            key: dict(props[key]) for key in self.update_policy_schema if data.get(key) is not None
        }
