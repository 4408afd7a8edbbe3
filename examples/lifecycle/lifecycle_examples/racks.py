"""Holistic placement of servers and volumes on racks, before anything is created.

:class:`RackAffinity` keeps every server and the volumes attached to it on one
rack; a group that fits on no rack fails the create as unsatisfiable.
:class:`RackSpread` spreads a stack's servers over ``spread=N`` racks (a stack
tag). Both keep their decisions per stack and un-make them when the action
fails (including when a later plug-in vetoes it) or the stack is deleted.
"""

from __future__ import annotations

from typing import Any

from sdk.lifecycle_plugin import LifecyclePlugin

SERVER = "OS::Nova::Server"
VOLUME = "OS::Cinder::Volume"
ATTACHMENT = "OS::Cinder::VolumeAttachment"
PLACING = ("CREATE", "UPDATE", "ADOPT", "RESTORE")


def _refs(value: Any) -> list[str]:
    """Resource names referenced with ``get_resource`` in an unresolved value."""
    if isinstance(value, dict):
        if set(value) == {"get_resource"} and isinstance(value["get_resource"], str):
            return [value["get_resource"]]
        return [name for v in value.values() for name in _refs(v)]
    if isinstance(value, list):
        return [name for v in value for name in _refs(v)]
    return []


def affinity_groups(stack: Any) -> list[list[str]]:
    """Servers with the volumes attached to (or booted from by) them, sorted groups."""
    parent = {r.name: r.name for r in stack.resources_of_type(SERVER, VOLUME)}

    def find(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    def join(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for res in stack.resources.values():
        if res.type in (ATTACHMENT, SERVER):
            linked = [n for n in _refs(res.properties) if n in parent]
            if res.type == SERVER:
                linked.append(res.name)
            for other in linked[1:]:
                join(linked[0], other)
    groups: dict[str, list[str]] = {}
    for name in sorted(parent):
        groups.setdefault(find(name), []).append(name)
    return sorted(groups.values(), key=lambda g: (-len(g), g))


class _RackPlanner(LifecyclePlugin):
    """Rack capacity (slots) shared by every stack of the engine."""

    def __init__(self, racks: dict[str, int] | None = None) -> None:
        self.racks = dict(sorted((racks or {"rack-1": 8, "rack-2": 8}).items()))
        #: stack id → {resource name: rack}
        self.placements: dict[str, dict[str, str]] = {}

    def free(self, exclude: str | None = None) -> dict[str, int]:
        """Free slots per rack, not counting stack *exclude*'s own placements."""
        free = dict(self.racks)
        for stack_id, placed in self.placements.items():
            if stack_id != exclude:
                for rack in placed.values():
                    free[rack] -= 1
        return free

    def do_post_op(
        self,
        context: Any,
        stack: Any,
        current_stack: Any = None,
        action: str | None = None,
        is_stack_failure: bool = False,
    ) -> None:
        """Un-make this action's decisions when it failed; forget a deleted stack."""
        if (is_stack_failure and action in PLACING) or (
            action in ("DELETE", "ABANDON") and not is_stack_failure
        ):
            self.placements.pop(stack.id, None)


class RackAffinity(_RackPlanner):
    """Each server and its volumes on one rack, or the action fails as unsatisfiable."""

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Place every affinity group on the rack with most free slots that fits it."""
        if action not in PLACING:
            return
        target = current_stack if current_stack is not None else stack
        free = self.free(exclude=stack.id)
        placed: dict[str, str] = {}
        for group in affinity_groups(target):
            fits = [r for r, n in free.items() if n >= len(group)]
            if not fits:
                best = max(free.values(), default=0)
                raise RuntimeError(
                    f"Rack affinity unsatisfiable: {', '.join(group)} need {len(group)} "
                    f"slots on one rack; the freest rack has {best}"
                )
            rack = max(fits, key=lambda r: (free[r], -list(free).index(r)))
            free[rack] -= len(group)
            placed.update(dict.fromkeys(group, rack))
        self.placements[stack.id] = placed


class RackSpread(_RackPlanner):
    """Spread a stack's servers over the number of racks its ``spread=N`` tag asks for."""

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Deal servers round-robin over the N freest racks; fail when N racks are not free."""
        if action not in PLACING:
            return
        target = current_stack if current_stack is not None else stack
        wanted = _spread_tag(stack.tags)
        if wanted is None:
            return
        servers = [r.name for r in target.resources_of_type(SERVER)]
        free = self.free(exclude=stack.id)
        usable = sorted((r for r, n in free.items() if n > 0), key=lambda r: (-free[r], r))
        if len(usable) < wanted:
            raise RuntimeError(
                f"Cannot spread over {wanted} racks: only {len(usable)} have free slots"
            )
        chosen = usable[:wanted]
        placed: dict[str, str] = {}
        for i, name in enumerate(servers):
            rack = chosen[i % wanted]
            if free[rack] <= 0:
                raise RuntimeError(f"Cannot spread over {wanted} racks: {rack} is full")
            free[rack] -= 1
            placed[name] = rack
        self.placements[stack.id] = placed


def _spread_tag(tags: list[str]) -> int | None:
    for tag in tags:
        key, _, value = tag.partition("=")
        if key == "spread":
            if not value.isdigit() or int(value) < 1:
                raise RuntimeError(f"Invalid tag {tag!r}: spread=N needs a positive number")
            return int(value)
    return None
