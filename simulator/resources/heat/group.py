"""``OS::Heat::ResourceGroup``: *count* copies of one resource definition in a nested stack.

The members live in a nested stack of their own (same world, same clock, their
own events), named ``"0"``, ``"1"`` ... Every string in ``resource_def``
has ``%index%`` (or the ``index_var`` given) replaced by the member's name.
Scaling down removes the highest-numbered members; ``removal_policies`` name
members (by index or physical id) to remove first, and a removed name is never
used again, as in Heat.

``update_policy`` is honoured as Heat reads it. ``rolling_update``
(``min_in_service``, ``max_batch_size``, ``pause_time``) changes the members
to a new ``resource_def`` in batches, highest index first: each batch is one
update of the nested stack, at most ``max_batch_size`` members get the new
definition in it, and while fewer than ``min_in_service`` members would stay
untouched the group grows for a while by new members instead (the extra ones
go again in the last batch). ``batch_create`` (``max_batch_size``,
``pause_time``) creates the members in batches likewise, lowest index first.
Batches are ``pause_time`` virtual seconds apart. :func:`rolling_batches` and
:func:`rolling_members` compute the batches; ``OS::Heat::AutoScalingGroup``
uses them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from sdk import attributes, constraints, exception, properties, support
from simulator.resources.heat.group_base import (
    GroupStack,
    check_member_count,
    validate_members,
)

__all__ = [
    "BATCH_CREATE_SCHEMA",
    "ROLLING_UPDATE_SCHEMA",
    "ResourceGroup",
    "member_names",
    "rolling_batches",
    "rolling_members",
    "rolling_order",
    "substitute_index",
]

REMOVED = "removed_names"
MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = "min_in_service", "max_batch_size", "pause_time"
ROLLING_UPDATE, BATCH_CREATE = "rolling_update", "batch_create"
#: Heat's answer when the pauses alone outlast the stack's timeout.
TIMEOUT_MESSAGE = "The current update policy will result in stack update timeout."

#: ``min_in_service``, ``max_batch_size`` and ``pause_time`` with Heat's defaults.
ROLLING_UPDATE_SCHEMA: dict[str, properties.Schema] = {
    MIN_IN_SERVICE: properties.Schema(
        properties.Schema.INTEGER,
        "How many members stay in service (untouched) while a batch is updated.",
        default=0,
        constraints=[constraints.Range(min=0)],
    ),
    MAX_BATCH_SIZE: properties.Schema(
        properties.Schema.INTEGER,
        "The most members changed in one batch.",
        default=1,
        constraints=[constraints.Range(min=1)],
    ),
    PAUSE_TIME: properties.Schema(
        properties.Schema.NUMBER,
        "Virtual seconds to wait between two batches.",
        default=0,
        constraints=[constraints.Range(min=0)],
    ),
}

#: ``max_batch_size`` and ``pause_time`` of ``batch_create``, with Heat's defaults.
BATCH_CREATE_SCHEMA: dict[str, properties.Schema] = {
    MAX_BATCH_SIZE: properties.Schema(
        properties.Schema.INTEGER,
        "The most members created in one batch.",
        default=1,
        constraints=[constraints.Range(min=1)],
    ),
    PAUSE_TIME: properties.Schema(
        properties.Schema.NUMBER,
        "Virtual seconds to wait between two batches.",
        default=0,
        constraints=[constraints.Range(min=0)],
    ),
}


def substitute_index(value: Any, index_var: str, index: str) -> Any:
    """Return *value* with every *index_var* in every string replaced by *index*."""
    if isinstance(value, str):
        return value.replace(index_var, index) if index_var else value
    if isinstance(value, Mapping):
        return {
            substitute_index(k, index_var, index): substitute_index(v, index_var, index)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [substitute_index(v, index_var, index) for v in value]
    return value


def member_names(count: int, removed: list[str], current: list[str] | None = None) -> list[str]:
    """Return the names of *count* members: the lowest indices not in *removed*.

    Existing *current* names that are still wanted are kept; names are
    integer strings, in numeric order.
    """
    skip = set(removed)
    keep = sorted((n for n in (current or []) if n not in skip and n.isdigit()), key=int)[:count]
    names = list(keep)
    index = 0
    while len(names) < count:
        name = str(index)
        if name not in skip and name not in names:
            names.append(name)
        index += 1
    return sorted(names, key=int)


def rolling_batches(
    target: int, current: int, batch_size: int, min_in_service: int = 0
) -> list[tuple[int, int]]:
    """Return the batches that move a group of *current* members to *target* new ones.

    Each batch is ``(size, changed)``: the group's size after the batch and
    how many members hold the new definition thanks to it (members created in
    it included). At most *batch_size* members change per batch; when fewer
    than *min_in_service* (bounded by both sizes) would be left untouched,
    the group grows by new members instead, and a last batch of 0 changes
    shrinks it back to *target*.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    batches: list[tuple[int, int]] = []
    done = 0
    while not (done >= current == target):
        keep = min(min_in_service, target, current)
        changed = min(batch_size, max(target - done, 0))
        size = changed + max(min(current, target - changed), keep)
        batches.append((size, changed))
        # members created above the larger of the two sizes go again later
        done += changed - max(size - max(current, target), 0)
        current = size
    return batches


def rolling_members(
    old: Sequence[tuple[str, Any]],
    new_body: Callable[[str], Any],
    size: int,
    changed: int,
    fresh: Iterator[str],
) -> dict[str, Any]:
    """Return the member bodies of one batch: ``{name: body}`` of *size* members.

    *old* lists the existing members ``(name, body)`` in the order they are
    removed or changed (first = first to go). The first ones are dropped
    when the group shrinks; new members (named from *fresh*) get
    ``new_body(name)``, and existing members whose body differs from theirs
    get it too until *changed* members in all hold the new definition.
    """
    kept = list(old)[max(len(old) - size, 0) :]
    to_create = size - len(kept)
    to_change = changed - to_create
    out: dict[str, Any] = {}
    for name, body in kept:
        wanted = new_body(name)
        if to_change > 0 and body != wanted:
            to_change -= 1
            out[name] = wanted
        else:
            out[name] = body
    for _ in range(to_create):
        name = next(fresh)
        out[name] = new_body(name)
    return out


def check_pauses(batches: int, pause: float, timeout_mins: float | None) -> None:
    """Refuse a policy whose pauses between *batches* batches outlast the stack's timeout."""
    limit = 60.0 * (timeout_mins if timeout_mins else 60.0)
    if pause * max(batches - 1, 0) >= limit:
        raise exception.PlugsimError(TIMEOUT_MESSAGE)


def rolling_order(existing: Sequence[str], wanted: Sequence[str], target: int) -> list[str]:
    """Return *existing* member names in the order a resource group changes or drops them.

    Names not in *wanted* (the names of the group's size after the batch) go
    first, then the wanted ones below *target* from the highest index down;
    wanted names at or above *target* (members that exist only during the
    update) come last.
    """

    def priority(name: str) -> tuple[int, int]:
        if name not in wanted:
            return 0, int(name) if name.isdigit() else 0
        at = list(wanted).index(name)
        if at < target:
            return 1, target - at
        return 2, at

    return sorted(existing, key=priority)


class ResourceGroup(GroupStack):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::ResourceGroup``: a nested stack of *count* identical members.

    Attributes: ``refs`` (each member's ``get_resource`` value, in index
    order), ``refs_map`` (index → reference), ``attributes`` with a path
    (``[group, attributes, name]``: index → that attribute of each member),
    ``removed_rsrc_list`` and, for member *N*, ``resource.N`` (its reference)
    or ``resource.N.attr`` (its attribute). Any other attribute name gives the
    list of that attribute of every member.
    """

    support_status = support.SupportStatus(version="0.1.0")

    properties_schema = {
        "count": properties.Schema(
            properties.Schema.INTEGER,
            "How many members the group has.",
            default=1,
            constraints=[constraints.Range(min=0)],
            update_allowed=True,
        ),
        "index_var": properties.Schema(  # plugsim: ignore[PS153] - seen by members only
            properties.Schema.STRING,
            "The text replaced by each member's index in resource_def (a change replaces "
            "the group, as in Heat).",
            default="%index%",
        ),
        "resource_def": properties.Schema(
            properties.Schema.MAP,
            "The definition of each member.",
            schema={
                "type": properties.Schema(
                    properties.Schema.STRING, "The members' resource type.", required=True
                ),
                "properties": properties.Schema(properties.Schema.MAP, "The members' properties."),
                "metadata": properties.Schema(properties.Schema.MAP, "The members' metadata."),
            },
            required=True,
            update_allowed=True,
        ),
        "removal_policies": properties.Schema(  # plugsim: ignore[PS153] - used when shrinking
            properties.Schema.LIST,
            "Members to remove first when scaling down: maps with a resource_list of "
            "member indices or physical ids.",
            schema=properties.Schema(
                properties.Schema.MAP,
                "One removal policy.",
                schema={
                    "resource_list": properties.Schema(
                        properties.Schema.LIST,
                        "Member indices or physical ids to remove.",
                        default=[],
                    )
                },
            ),
            default=[],
            update_allowed=True,
        ),
        "removal_policies_mode": properties.Schema(  # plugsim: ignore[PS153] - used when shrinking
            properties.Schema.STRING,
            "append: add to the names already removed; update: replace them.",
            default="append",
            constraints=[constraints.AllowedValues(["append", "update"])],
            update_allowed=True,
        ),
    }
    update_policy_schema: ClassVar[dict[str, properties.Schema]] = {
        ROLLING_UPDATE: properties.Schema(
            properties.Schema.MAP,
            "Change the members to a new resource_def in batches.",
            schema=ROLLING_UPDATE_SCHEMA,
        ),
        BATCH_CREATE: properties.Schema(
            properties.Schema.MAP,
            "Create the members in batches.",
            schema=BATCH_CREATE_SCHEMA,
        ),
    }
    lint_properties: ClassVar[dict[str, Any]] = {
        "count": 2,
        "resource_def": {"type": "OS::Heat::TestResource", "properties": {"value": "m-%index%"}},
    }
    attributes_schema = {
        "refs": attributes.Schema(
            "Each member's reference id, in index order.", type=attributes.Schema.LIST
        ),
        "refs_map": attributes.Schema("Member index → reference id.", type=attributes.Schema.MAP),
        "attributes": attributes.Schema(
            "With a path [name]: member index → that attribute of the member.",
            type=attributes.Schema.MAP,
        ),
        "removed_rsrc_list": attributes.Schema(
            "The member names removed by removal policies (never reused).",
            type=attributes.Schema.LIST,
        ),
    }

    # -- the nested template ------------------------------------------------------

    def _removed(self) -> list[str]:
        return list(self.data().get(REMOVED) or [])

    def _current_names(self) -> list[str]:
        child = self.nested()
        return list(child.resources) if child is not None else []

    def _policy_names(self, policies: Any, current: list[str]) -> list[str]:
        """Member names the removal policies ask for (by index or physical id)."""
        child = self.nested()
        by_id: dict[str, str] = {}
        if child is not None:
            for name, res in child.resources.items():
                if res.resource_id is not None:
                    by_id[str(res.resource_id)] = name
        out: list[str] = []
        for policy in policies or []:
            for item in (policy or {}).get("resource_list") or []:
                name = by_id.get(str(item), str(item))
                if name not in out:
                    out.append(name)
        return out

    @staticmethod
    def _member_body(props: Any, name: str) -> dict[str, Any]:
        """The nested template's entry for member *name* of *props*' resource_def."""
        rdef = dict(props["resource_def"] or {})
        index_var = props["index_var"] or ""
        body: dict[str, Any] = {"type": rdef["type"]}
        if rdef.get("properties"):
            body["properties"] = substitute_index(rdef["properties"], index_var, name)
        if rdef.get("metadata"):
            body["metadata"] = substitute_index(rdef["metadata"], index_var, name)
        return body

    @staticmethod
    def _template(members: Mapping[str, Any]) -> dict[str, Any]:
        resources = {n: members[n] for n in sorted(members, key=int)}
        return {"heat_template_version": "2015-04-30", "resources": resources}

    def _definition(self, props: Any, removed: list[str], current: list[str]) -> dict[str, Any]:
        names = member_names(int(props["count"]), removed, current)
        return self._template({name: self._member_body(props, name) for name in names})

    @classmethod
    def preview_template(cls, props: Mapping[str, Any]) -> dict[str, Any] | None:
        """The nested template a create with *props* (as a preview resolves them) would make,
        as Heat's preview shows a group: its members; None when the count is not known yet."""
        count = props.get("count")
        rdef = props.get("resource_def")
        if isinstance(count, bool) or not isinstance(count, int) or not isinstance(rdef, dict):
            return None
        if not rdef.get("type"):
            return None
        full = {"index_var": "%index%", **props}
        names = member_names(count, [], None)
        return cls._template({name: cls._member_body(full, name) for name in names})

    def validate(self) -> None:
        """Check the properties (count at least 0, a resource_def with a type) and update_policy."""
        super().validate()
        check_member_count(self, int(self.properties["count"]), "count")
        rdef = self.properties["resource_def"]
        if isinstance(rdef, Mapping):
            rtype = rdef.get("type")
            if not isinstance(rtype, str) or not rtype:
                raise exception.StackValidationFailed(
                    error_message="resource_def needs a resource type name in 'type'",
                    path=["resources", self.name, "properties", "resource_def", "type"],
                )
            validate_members(
                self, self._template({"0": self._member_body(self.properties, "0")}), "resource_def"
            )
        self.policy()

    async def _pause(self, index: int, batches: int, pause: float) -> None:
        if index < batches - 1 and pause > 0:
            await self.context.clock.sleep(pause)

    # -- actions ------------------------------------------------------------------

    async def handle_create(self) -> None:
        """Create the nested stack with *count* members (in batches with ``batch_create``)."""
        removed = self._policy_names(self.properties["removal_policies"], [])
        if removed:
            self.data_set(REMOVED, removed)
        full = self._definition(self.properties, removed, [])
        batch = self.policy().get(BATCH_CREATE)
        if batch is None or not full["resources"]:
            await self._nested_step(full, create=True)
            return
        names = list(full["resources"])
        batches = rolling_batches(len(names), 0, batch[MAX_BATCH_SIZE])
        check_pauses(len(batches), batch[PAUSE_TIME], self.context.stack.timeout_mins)
        for index, (size, _) in enumerate(batches):
            part = {n: full["resources"][n] for n in names[:size]}
            await self._nested_step(self._template(part), create=index == 0)
            await self._pause(index, len(batches), batch[PAUSE_TIME])

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update the nested stack: new members, removed members, changed definitions.

        A changed resource_def under a ``rolling_update`` policy (the new
        template's) reaches the members in batches; anything else is one update.
        """
        new_props: dict[str, Any] = {k: self.properties[k] for k in self.properties_schema}
        for key, value in (prop_diff or {}).items():
            new_props[key] = value if value is not None else self.properties_schema[key].default
        snippet = json_snippet if isinstance(json_snippet, Mapping) else {}
        rolling = self.policy(snippet.get("update_policy") or {}).get(ROLLING_UPDATE)
        current = self._current_names()
        asked = self._policy_names(new_props["removal_policies"], current)
        if new_props["removal_policies_mode"] == "update":
            removed = asked
        else:
            removed = self._removed() + [n for n in asked if n not in self._removed()]
        self.data_set(REMOVED, removed)
        target = self._definition(new_props, removed, current)
        if rolling is not None and "resource_def" in (prop_diff or {}):
            await self._roll(new_props, removed, rolling)
            child = self.nested()
            if child is not None and child.template == target:
                return
        await self._nested_step(target)

    def _members_now(self, removed: list[str]) -> dict[str, Any]:
        """The nested template's entries of the members not removed by a policy."""
        child = self.nested()
        if child is None:
            return {}
        entries = dict(child.template.get("resources") or {})
        return {n: entries[n] for n in sorted(entries, key=int) if n not in removed}

    async def _roll(self, props: Any, removed: list[str], policy: Mapping[str, Any]) -> None:
        """Move the members to *props*' resource_def in the batches *policy* asks for."""
        count = int(props["count"])
        members = self._members_now(removed)
        if len(members) == count and all(
            body == self._member_body(props, n) for n, body in members.items()
        ):
            return
        batches = rolling_batches(
            count, len(members), policy[MAX_BATCH_SIZE], policy[MIN_IN_SERVICE]
        )
        check_pauses(len(batches), policy[PAUSE_TIME], self.context.stack.timeout_mins)
        for index, (size, changed) in enumerate(batches):
            members = self._members_now(removed)
            names = member_names(size, removed, list(members))
            old = [(n, members[n]) for n in rolling_order(list(members), names, count)]
            fresh = iter([n for n in names if n not in members])
            batch = rolling_members(
                old, lambda n: self._member_body(props, n), size, changed, fresh
            )
            await self._nested_step(self._template(batch))
            await self._pause(index, len(batches), policy[PAUSE_TIME])

    # -- attributes ---------------------------------------------------------------

    def _members(self) -> list[tuple[str, Any]]:
        child = self.nested()
        if child is None:
            return []
        return sorted(child.resources.items(), key=lambda kv: int(kv[0]))

    def _show_resource(self) -> dict[str, Any] | None:
        """The group's size, its members (index → reference id) and the removed names."""
        if self.resource_id is None:
            return None
        members = {n: res.get_reference_id() for n, res in self._members()}
        return {
            "id": self.resource_id,
            "count": len(members),
            "members": members,
            "removed": self._removed(),
        }

    def _resolve_attribute(self, name: str) -> Any:
        if name == "refs":
            return [res.get_reference_id() for _, res in self._members()]
        if name == "refs_map":
            return {n: res.get_reference_id() for n, res in self._members()}
        if name == "removed_rsrc_list":
            return self._removed()
        if name == "attributes":
            return {}
        return None

    def get_attribute(self, key: str, *path: Any) -> Any:
        """Resolve ``resource.N[.attr]``, ``attributes`` paths and per-member lists too."""
        if key.startswith("resource."):
            parts = key.split(".", 2)
            index = parts[1]
            member = dict(self._members()).get(index)
            if member is None:
                raise exception.InvalidTemplateAttribute(resource=self.name, key=key)
            if len(parts) == 2:
                if path:  # [group, resource.N, attr, ...]
                    return member.get_attribute(str(path[0]), *path[1:])
                return member.get_reference_id()
            return member.get_attribute(parts[2], *path)
        if key == "attributes" and path:
            attr = str(path[0])
            return {n: res.get_attribute(attr, *path[1:]) for n, res in self._members()}
        if key in self.attributes:
            return super().get_attribute(key, *path)
        return [res.get_attribute(key, *path) for _, res in self._members()]
