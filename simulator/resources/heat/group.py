"""``OS::Heat::ResourceGroup``: *count* copies of one resource definition in a nested stack.

The members live in a nested stack of their own (same world, same clock, their
own events), named ``"0"``, ``"1"`` ... Every string in ``resource_def``
has ``%index%`` (or the ``index_var`` given) replaced by the member's name.
Scaling down removes the highest-numbered members; ``removal_policies`` name
members (by index or physical id) to remove first, and a removed name is never
used again, as in Heat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sdk import attributes, constraints, exception, properties, support
from simulator.nested import NestedStackResource

__all__ = ["ResourceGroup", "member_names", "substitute_index"]

REMOVED = "removed_names"


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


class ResourceGroup(NestedStackResource):  # plugsim: ignore[PS301] - see the package
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
        "index_var": properties.Schema(
            properties.Schema.STRING,
            "The text replaced by each member's index in resource_def.",
            default="%index%",
            update_allowed=True,
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
        "removal_policies": properties.Schema(
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
        "removal_policies_mode": properties.Schema(
            properties.Schema.STRING,
            "append: add to the names already removed; update: replace them.",
            default="append",
            constraints=[constraints.AllowedValues(["append", "update"])],
            update_allowed=True,
        ),
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

    def _definition(self, props: Any, removed: list[str], current: list[str]) -> dict[str, Any]:
        rdef = dict(props["resource_def"] or {})
        index_var = props["index_var"] or ""
        names = member_names(int(props["count"]), removed, current)
        resources: dict[str, Any] = {}
        for name in names:
            body: dict[str, Any] = {"type": rdef["type"]}
            if rdef.get("properties"):
                body["properties"] = substitute_index(rdef["properties"], index_var, name)
            if rdef.get("metadata"):
                body["metadata"] = substitute_index(rdef["metadata"], index_var, name)
            resources[name] = body
        return {"heat_template_version": "2015-04-30", "resources": resources}

    def validate(self) -> None:
        """Check the properties (count at least 0, a resource_def with a type)."""
        super().validate()
        rdef = self.properties["resource_def"]
        if isinstance(rdef, Mapping):
            rtype = rdef.get("type")
            if not isinstance(rtype, str) or not rtype:
                raise exception.StackValidationFailed(
                    error_message="resource_def needs a resource type name in 'type'",
                    path=["resources", self.name, "properties", "resource_def", "type"],
                )

    # -- actions ------------------------------------------------------------------

    async def handle_create(self) -> None:
        """Create the nested stack with *count* members."""
        removed = self._policy_names(self.properties["removal_policies"], [])
        if removed:
            self.data_set(REMOVED, removed)
        await self.create_nested(self._definition(self.properties, removed, []))

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update the nested stack: new members, removed members, changed definitions."""
        new_props: dict[str, Any] = {k: self.properties[k] for k in self.properties_schema}
        for key, value in (prop_diff or {}).items():
            new_props[key] = value if value is not None else self.properties_schema[key].default
        current = self._current_names()
        asked = self._policy_names(new_props["removal_policies"], current)
        if new_props["removal_policies_mode"] == "update":
            removed = asked
        else:
            removed = self._removed() + [n for n in asked if n not in self._removed()]
        self.data_set(REMOVED, removed)
        await self.update_nested(self._definition(new_props, removed, current))

    # -- attributes ---------------------------------------------------------------

    def _members(self) -> list[tuple[str, Any]]:
        child = self.nested()
        if child is None:
            return []
        return sorted(child.resources.items(), key=lambda kv: int(kv[0]))

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
