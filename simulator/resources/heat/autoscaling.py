"""``OS::Heat::AutoScalingGroup`` and ``OS::Heat::ScalingPolicy``.

The group keeps its members in a nested stack, like a resource group. Its
size starts at ``desired_capacity`` (or ``min_size``) and changes when a
scaling policy is signalled (:meth:`simulator.world.World.signal_resource`,
``plugsim stack resource signal``), always within ``[min_size, max_size]``.
Members are named ``"0"``, ``"1"`` ... in creation order; a name is never
reused, and scaling down removes the oldest members first, as Heat does.

A new ``resource`` definition reaches the members in batches, oldest first,
as the ``rolling_updates`` property says (Heat's defaults: one member at a
time, no pause, none kept in service); see :mod:`simulator.resources.heat.group`
for how ``min_in_service`` and ``pause_time`` (virtual seconds) shape the
batches. ``show`` of a group gives its size and members; ``show`` of a policy
gives the adjustment a signal applies.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource
from sdk.signals import signal_endpoint
from simulator.resources.heat.group import (
    MAX_BATCH_SIZE,
    MIN_IN_SERVICE,
    PAUSE_TIME,
    ROLLING_UPDATE_SCHEMA,
    check_pauses,
    rolling_batches,
    rolling_members,
)
from simulator.resources.heat.group_base import GroupStack, check_member_count, validate_members

__all__ = ["AutoScalingGroup", "ScalingPolicy", "new_capacity"]

#: Heat's rolling_updates when the template gives none (or leaves keys out).
ROLLING_DEFAULTS = {MIN_IN_SERVICE: 0, MAX_BATCH_SIZE: 1, PAUSE_TIME: 0}

CHANGE, EXACT, PERCENT = (
    "change_in_capacity",
    "exact_capacity",
    "percent_change_in_capacity",
)


def new_capacity(
    current: int,
    adjustment: float,
    adjustment_type: str,
    lower: int,
    upper: int,
    min_adjustment_step: int | None = None,
) -> int:
    """Return the capacity after an adjustment, clamped to ``[lower, upper]``.

    A percentage change rounds away from zero and moves at least one member
    (at least *min_adjustment_step* when given).
    """
    if adjustment_type == EXACT:
        target = int(adjustment)
    elif adjustment_type == PERCENT:
        delta = current * adjustment / 100.0
        step = math.ceil(abs(delta)) if delta else 0
        if adjustment and step == 0:
            step = 1
        if min_adjustment_step and step < min_adjustment_step:
            step = min_adjustment_step
        target = current + (step if adjustment > 0 else -step)
    else:
        target = current + int(adjustment)
    return max(lower, min(upper, target))


class AutoScalingGroup(GroupStack):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::AutoScalingGroup``: members of ``resource`` scaled by policies.

    Attributes: ``current_size``, ``refs``, ``refs_map``, ``outputs`` (with a
    path ``[group, outputs, attr]``: member name → attribute) and
    ``outputs_list`` (``[group, outputs_list, attr]``: the attribute of every
    member, oldest first).
    """

    member_property: ClassVar[str] = "resource"

    support_status = support.SupportStatus(version="0.1.0")

    properties_schema = {
        "min_size": properties.Schema(
            properties.Schema.INTEGER,
            "The smallest size of the group.",
            required=True,
            constraints=[constraints.Range(min=0)],
            update_allowed=True,
        ),
        "max_size": properties.Schema(
            properties.Schema.INTEGER,
            "The largest size of the group.",
            required=True,
            constraints=[constraints.Range(min=0)],
            update_allowed=True,
        ),
        "desired_capacity": properties.Schema(
            properties.Schema.INTEGER,
            "The size to start with (default min_size); changing it resizes the group.",
            update_allowed=True,
        ),
        "cooldown": properties.Schema(
            properties.Schema.INTEGER,
            "Virtual seconds after a scaling during which policies are ignored.",
            update_allowed=True,
        ),
        "resource": properties.Schema(
            properties.Schema.MAP,
            "The definition of each member (type, properties, metadata).",
            required=True,
            update_allowed=True,
        ),
        "rolling_updates": properties.Schema(  # plugsim: ignore[PS153] - governs later updates
            properties.Schema.MAP,
            "How a new resource definition reaches the members: in batches of at most "
            "max_batch_size, pause_time virtual seconds apart, min_in_service kept untouched.",
            schema=ROLLING_UPDATE_SCHEMA,
            default={MIN_IN_SERVICE: 0, MAX_BATCH_SIZE: 1, PAUSE_TIME: 0},
            update_allowed=True,
        ),
    }
    lint_properties: ClassVar[dict[str, Any]] = {
        "min_size": 0,
        "max_size": 3,
        "resource": {"type": "OS::Heat::TestResource", "properties": {"value": "member"}},
    }
    attributes_schema = {
        "current_size": attributes.Schema(
            "How many members the group has.", type=attributes.Schema.INTEGER
        ),
        "refs": attributes.Schema(
            "Member reference ids, oldest first.", type=attributes.Schema.LIST
        ),
        "refs_map": attributes.Schema("Member name → reference id.", type=attributes.Schema.MAP),
        "outputs": attributes.Schema(
            "With a path [attr]: member name → that attribute.", type=attributes.Schema.MAP
        ),
        "outputs_list": attributes.Schema(
            "With a path [attr]: that attribute of every member.", type=attributes.Schema.LIST
        ),
    }

    # -- sizes --------------------------------------------------------------------

    def validate(self) -> None:
        """Check min_size <= desired_capacity <= max_size and a member type."""
        super().validate()
        low, high = self.properties["min_size"], self.properties["max_size"]
        desired = self._given("desired_capacity")
        where = ["resources", self.name, "properties"]
        if isinstance(low, int) and isinstance(high, int) and low > high:
            raise exception.StackValidationFailed(
                error_message="min_size can not be greater than max_size", path=[*where, "min_size"]
            )
        if isinstance(desired, int) and isinstance(low, int) and isinstance(high, int):
            if not low <= desired <= high:
                raise exception.StackValidationFailed(
                    error_message="desired_capacity must be between min_size and max_size",
                    path=[*where, "desired_capacity"],
                )
        if isinstance(desired, int):
            check_member_count(self, desired, "desired_capacity")
        elif isinstance(low, int):
            check_member_count(self, low, "min_size")
        rdef = self.properties["resource"]
        if isinstance(rdef, dict) and not isinstance(rdef.get("type"), str):
            raise exception.StackValidationFailed(
                error_message="resource needs a resource type name in 'type'",
                path=[*where, "resource", "type"],
            )
        if isinstance(rdef, dict):
            validate_members(self, self._template(rdef, ["0"]), "resource")

    def _given(self, key: str) -> Any:
        """The value of property *key*, or None when the template does not set it."""
        return self.properties[key] if key in self.properties.data else None

    def current_size(self) -> int:
        """Return the number of members."""
        return len(self._names())

    def _names(self) -> list[str]:
        child = self.nested()
        if child is None:
            return []
        return sorted(child.resources, key=lambda n: int(n) if n.isdigit() else -1)

    @staticmethod
    def _body(rdef: Mapping[str, Any]) -> dict[str, Any]:
        return {k: rdef[k] for k in ("type", "properties", "metadata") if rdef.get(k)}

    @staticmethod
    def _nested_template(members: Mapping[str, Any]) -> dict[str, Any]:
        resources = {n: members[n] for n in sorted(members, key=int)}
        return {"heat_template_version": "2015-04-30", "resources": resources}

    def _template(self, rdef: Mapping[str, Any], names: list[str]) -> dict[str, Any]:
        body = self._body(rdef)
        return self._nested_template({name: dict(body) for name in names})

    def _fresh_names(self) -> Iterator[str]:
        """New member names, never used before (the counter is kept in the data)."""
        while True:
            index = int(self.data().get("next_index") or 0)
            self.data_set("next_index", index + 1)
            yield str(index)

    def _sized(self, capacity: int) -> list[str]:
        names = self._names()
        if capacity <= len(names):
            return names[len(names) - capacity :]  # the oldest go first
        fresh = self._fresh_names()
        return names + [next(fresh) for _ in range(capacity - len(names))]

    async def resize(self, capacity: int, rdef: dict[str, Any] | None = None) -> None:
        """Change the group to *capacity* members (clamped by the caller)."""
        names = self._sized(capacity)
        await self._nested_step(self._template(rdef or dict(self.properties["resource"]), names))
        self.data_set("last_scaled", float(self.context.clock.now()))
        self.attributes.reset_resolved_values()

    async def roll(self, rdef: Mapping[str, Any], policy: Mapping[str, Any]) -> bool:
        """Give every member the definition *rdef* in the batches *policy* asks for.

        The oldest members change first. Returns False when every member
        already had it (nothing was done).
        """
        body = self._body(rdef)
        child = self.nested()
        if child is None:
            return False
        names = self._names()
        if all(child.template["resources"].get(n) == body for n in names):
            return False
        batches = rolling_batches(
            len(names), len(names), policy[MAX_BATCH_SIZE], policy[MIN_IN_SERVICE]
        )
        check_pauses(len(batches), policy[PAUSE_TIME], self.context.stack.timeout_mins)
        fresh = self._fresh_names()
        for index, (size, changed) in enumerate(batches):
            entries = child.template["resources"]
            old = [(n, entries[n]) for n in self._names()]
            members = rolling_members(old, lambda _n: dict(body), size, changed, fresh)
            await self._nested_step(self._nested_template(members))
            child = self.nested() or child
            if index < len(batches) - 1 and policy[PAUSE_TIME] > 0:
                await self.context.clock.sleep(policy[PAUSE_TIME])
        self.attributes.reset_resolved_values()
        return True

    def in_cooldown(self, cooldown: float | None) -> bool:
        """True while *cooldown* virtual seconds have not passed since the last scaling."""
        last = self.data().get("last_scaled")
        if not cooldown or last is None:
            return False
        return self.context.clock.now() - float(last) < float(cooldown)

    # -- actions ------------------------------------------------------------------

    async def handle_create(self) -> None:
        """Create the nested stack at the desired capacity."""
        desired = self._given("desired_capacity")
        capacity = desired if desired is not None else self.properties["min_size"]
        names = [str(i) for i in range(capacity)]
        self.data_set("next_index", capacity)
        template = self._template(dict(self.properties["resource"]), names)
        await self._nested_step(template, create=True)

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update members to a new definition (rolling), then resize to the new bounds."""
        props = {k: self.properties[k] for k in self.properties_schema}
        props.update(prop_diff or {})
        if props["rolling_updates"] is None:
            props["rolling_updates"] = self.properties_schema["rolling_updates"].default
        rolling = dict(ROLLING_DEFAULTS, **props["rolling_updates"])
        rolled = "resource" in (prop_diff or {}) and await self.roll(props["resource"], rolling)
        current = self.current_size()
        wanted = props["desired_capacity"] if "desired_capacity" in (prop_diff or {}) else None
        target = wanted if wanted is not None else current
        target = max(int(props["min_size"]), min(int(props["max_size"]), int(target)))
        if not rolled or target != current:
            await self.resize(target, dict(props["resource"]))

    # -- attributes ---------------------------------------------------------------

    def _members(self) -> list[tuple[str, Resource]]:
        child = self.nested()
        if child is None:
            return []
        return [(n, child.resources[n]) for n in self._names()]

    def _show_resource(self) -> dict[str, Any] | None:
        """The group as a scaling service describes it: bounds, cooldown, members."""
        if self.resource_id is None:
            return None
        shown: dict[str, Any] = {"id": self.resource_id}
        for key in ("min_size", "max_size", "desired_capacity", "cooldown", "rolling_updates"):
            shown[key] = self.properties[key]
        shown["current_size"] = self.current_size()
        shown["members"] = {n: r.get_reference_id() for n, r in self._members()}
        return shown

    def _resolve_attribute(self, name: str) -> Any:
        if name == "current_size":
            return self.current_size()
        if name == "refs":
            return [r.get_reference_id() for _, r in self._members()]
        if name == "refs_map":
            return {n: r.get_reference_id() for n, r in self._members()}
        if name == "outputs":
            return {}
        if name == "outputs_list":
            return []
        return None

    def get_attribute(self, key: str, *path: Any) -> Any:
        """``outputs`` / ``outputs_list`` with an attribute path read every member."""
        if key in ("outputs", "outputs_list") and path:
            attr, rest = str(path[0]), path[1:]
            if key == "outputs":
                return {n: r.get_attribute(attr, *rest) for n, r in self._members()}
            return [r.get_attribute(attr, *rest) for _, r in self._members()]
        return super().get_attribute(key, *path)


class ScalingPolicy(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::ScalingPolicy``: a signal to it scales its auto-scaling group.

    ``adjustment_type`` is ``change_in_capacity``, ``exact_capacity`` or
    ``percent_change_in_capacity``; ``cooldown`` (virtual seconds) ignores
    signals that come too soon after the last scaling. Attributes
    ``signal_url`` and ``alarm_url`` give the URL to signal.
    """

    support_status = support.SupportStatus(version="0.1.0")

    properties_schema = {
        "auto_scaling_group_id": properties.Schema(
            properties.Schema.STRING,
            "The group to scale (get_resource of an OS::Heat::AutoScalingGroup).",
            required=True,
        ),
        "adjustment_type": properties.Schema(
            properties.Schema.STRING,
            "How scaling_adjustment is read.",
            required=True,
            constraints=[constraints.AllowedValues([CHANGE, EXACT, PERCENT])],
            update_allowed=True,
        ),
        "scaling_adjustment": properties.Schema(
            properties.Schema.NUMBER,
            "The size of the adjustment.",
            required=True,
            update_allowed=True,
        ),
        "cooldown": properties.Schema(
            properties.Schema.INTEGER,
            "Virtual seconds after a scaling during which signals are ignored.",
            constraints=[constraints.Range(min=0)],
            update_allowed=True,
        ),
        "min_adjustment_step": properties.Schema(
            properties.Schema.INTEGER,
            "The least number of members a percentage change moves.",
            constraints=[constraints.Range(min=0)],
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "signal_url": attributes.Schema("The URL that signals this policy."),
        "alarm_url": attributes.Schema("The URL that signals this policy (for alarms)."),
    }

    def handle_create(self) -> None:
        """Give the policy its id (nothing physical)."""
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Accept new adjustment settings in place."""

    def _group(self) -> AutoScalingGroup:
        ref = str(self.properties["auto_scaling_group_id"])
        res = self.context.resource_by_reference(ref)
        if isinstance(res, AutoScalingGroup):
            return res
        raise exception.StackValidationFailed(
            error_message=f"{ref} is not an OS::Heat::AutoScalingGroup of this stack",
            path=["resources", self.name, "properties", "auto_scaling_group_id"],
        )

    async def handle_signal(self, details: Any = None) -> dict[str, Any]:
        """Scale the group; return what happened (``{'scaled', 'from', 'to', 'reason'}``)."""
        if self.action in ("INIT", "DELETE") or self.resource_id is None:
            raise exception.NotSupportedAction(
                f"Signal resource during {self.action} is not supported"
            )
        group = self._group()
        before = group.current_size()
        if "cooldown" in self.properties.data:
            cooldown = self.properties["cooldown"]
        else:
            cooldown = group._given("cooldown")
        if group.in_cooldown(cooldown):
            return {"scaled": False, "from": before, "to": before, "reason": "cooldown"}
        after = new_capacity(
            before,
            self.properties["scaling_adjustment"],
            self.properties["adjustment_type"],
            int(group.properties["min_size"]),
            int(group.properties["max_size"]),
            self.properties["min_adjustment_step"],
        )
        if after == before:
            return {"scaled": False, "from": before, "to": after, "reason": "at the size limit"}
        await group.resize(after)
        return {"scaled": True, "from": before, "to": after, "reason": "scaled"}

    def _show_resource(self) -> dict[str, Any] | None:
        """The adjustment a signal applies now (what ``handle_signal`` reads)."""
        if self.resource_id is None:
            return None
        shown = {"id": self.resource_id}
        for key in self.properties_schema:
            shown[key] = self.properties[key]
        return shown

    def _resolve_attribute(self, name: str) -> Any:
        if name in ("signal_url", "alarm_url") and self.resource_id is not None:
            return signal_endpoint(str(self.resource_id))
        return None
