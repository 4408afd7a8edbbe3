"""``OS::Heat::SoftwareDeploymentGroup`` and its structured and deprecated names.

One deployment per entry of ``servers`` (a map of names to server ids), each the same config
with the same input values, in a nested stack whose resources are named by the map's keys, as
Heat 27 builds it. The group's ``deploy_stdouts``, ``deploy_stderrs`` and
``deploy_status_codes`` map each name to that deployment's ``deploy_stdout`` ...; any other
attribute a deployment has (a config's declared output, say) gives the map of it.

``update_policy``: ``batch_create`` creates the deployments ``max_batch_size`` at a time;
``rolling_update`` hands a changed config or input to ``max_batch_size`` deployments per
nested update. Batches are ``pause_time`` virtual seconds apart. ``OS::Heat::SoftwareDeployments``
and ``OS::Heat::StructuredDeployments`` are the names Heat keeps for older templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from sdk import attributes, exception, properties, support
from simulator.resources.heat.group import (
    BATCH_CREATE,
    BATCH_CREATE_SCHEMA,
    MAX_BATCH_SIZE,
    PAUSE_TIME,
    ROLLING_UPDATE,
    ROLLING_UPDATE_SCHEMA,
    check_pauses,
)
from simulator.resources.heat.group_base import GroupStack, check_member_count, validate_members
from simulator.resources.heat.software_deployment import SoftwareDeployment, StructuredDeployment

__all__ = [
    "SoftwareDeploymentGroup",
    "StructuredDeploymentGroup",
]

#: The group's attribute -> the deployment's.
MEMBER_ATTRIBUTE = {
    "deploy_stdouts": "deploy_stdout",
    "deploy_stderrs": "deploy_stderr",
    "deploy_status_codes": "deploy_status_code",
}


def _group_schema(member: type) -> dict[str, properties.Schema]:
    """A deployment's properties without ``server``, plus the ``servers`` map."""
    own = {k: v for k, v in member.properties_schema.items() if k != "server"}
    return {
        "servers": properties.Schema(
            properties.Schema.MAP,
            "Names (the deployments' resource names) to the ids of the servers to deploy to.",
            required=True,
            update_allowed=True,
        ),
        **own,
    }


# PS153: the deployments' actions take effect at later actions (see SoftwareDeployment)
class SoftwareDeploymentGroup(GroupStack):  # plugsim: ignore[PS301, PS153] - see the package
    """``OS::Heat::SoftwareDeploymentGroup``: one software deployment per server of a map."""

    #: The type of each member.
    member_type: ClassVar[str] = "OS::Heat::SoftwareDeployment"
    member_property: ClassVar[str] = "servers"

    support_status = support.SupportStatus(version="5.0.0")
    properties_schema = _group_schema(SoftwareDeployment)
    attributes_schema = {
        "deploy_stdouts": attributes.Schema(
            "Each deployment's name to what its config wrote to stdout.",
            type=attributes.Schema.MAP,
        ),
        "deploy_stderrs": attributes.Schema(
            "Each deployment's name to what its config wrote to stderr.",
            type=attributes.Schema.MAP,
        ),
        "deploy_status_codes": attributes.Schema(
            "Each deployment's name to its config's exit code.", type=attributes.Schema.MAP
        ),
    }
    update_policy_schema: ClassVar[dict[str, properties.Schema]] = {
        ROLLING_UPDATE: properties.Schema(
            properties.Schema.MAP,
            "Hand a changed config to the deployments in batches.",
            schema={k: ROLLING_UPDATE_SCHEMA[k] for k in (MAX_BATCH_SIZE, PAUSE_TIME)},
        ),
        BATCH_CREATE: properties.Schema(
            properties.Schema.MAP,
            "Create the deployments in batches.",
            schema=BATCH_CREATE_SCHEMA,
        ),
    }
    lint_properties: ClassVar[dict[str, Any]] = {
        "config": {"get_resource": "config"},
        "servers": {"a": {"get_resource": "server"}},
    }
    lint_companions: ClassVar[dict[str, Any]] = SoftwareDeployment.lint_companions

    # -- the nested template ---------------------------------------------------------

    def _member_body(self, props: Mapping[str, Any], server: Any) -> dict[str, Any]:
        body = {k: props[k] for k in self.properties_schema if k != "servers"}
        body = {k: v for k, v in body.items() if v is not None}
        return {"type": self.member_type, "properties": {**body, "server": server}}

    def _template(self, members: Mapping[str, Any]) -> dict[str, Any]:
        return {"heat_template_version": "2015-04-30", "resources": dict(members)}

    def _members_for(self, props: Mapping[str, Any]) -> dict[str, Any]:
        servers = props.get("servers") or {}
        return {str(name): self._member_body(props, server) for name, server in servers.items()}

    def validate(self) -> None:
        """Check the update policy, the properties and the first deployment as a member.

        The policy first: the servers are usually resources not made yet, which ends the
        checks that need property values.
        """
        self.policy()
        super().validate()
        servers = self.properties["servers"] or {}
        check_member_count(self, len(servers), "servers")
        for key, server in servers.items():
            if server is None or server == "":
                raise exception.StackValidationFailed(
                    error_message=f"deployment {key} has no server (give a server id)",
                    path=["resources", self.name, "properties", "servers", key],
                )
        members = self._members_for(self.properties)
        if members:
            first = next(iter(members))
            validate_members(self, self._template({first: members[first]}), "servers")

    async def _in_batches(self, steps: list[dict[str, Any]], policy: Mapping[str, Any]) -> None:
        """Apply the nested templates *steps* in turn, ``pause_time`` apart."""
        pause = float(policy[PAUSE_TIME])
        check_pauses(len(steps), pause, self.context.stack.timeout_mins)
        for index, template in enumerate(steps):
            await self._nested_step(template, create=index == 0 and self.nested() is None)
            if index < len(steps) - 1 and pause > 0:
                await self.context.clock.sleep(pause)

    # -- actions ---------------------------------------------------------------------

    async def handle_create(self) -> None:
        """Create the nested stack of deployments (in batches with ``batch_create``)."""
        members = self._members_for(self.properties)
        batch = self.policy().get(BATCH_CREATE)
        if batch is None or not members:
            await self._nested_step(self._template(members), create=True)
            return
        names, size = list(members), int(batch[MAX_BATCH_SIZE])
        steps = [
            self._template({n: members[n] for n in names[: i + size]})
            for i in range(0, len(names), size)
        ]
        await self._in_batches(steps, batch)

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update the deployments: new servers, gone servers, a changed config or input.

        Under a ``rolling_update`` policy (the new template's) the changed deployments get
        their new definition ``max_batch_size`` per nested update; the others in one.
        """
        diff = dict(prop_diff or {})
        new_props = {k: self.properties[k] for k in self.properties_schema if k not in diff}
        for key, value in diff.items():  # an old value may name a resource the update removed
            new_props[key] = value if value is not None else self.properties_schema[key].default
        target = self._members_for(new_props)
        snippet = json_snippet if isinstance(json_snippet, Mapping) else {}
        rolling = self.policy(snippet.get("update_policy") or {}).get(ROLLING_UPDATE)
        child = self.nested()
        old = dict((child.template.get("resources") or {}) if child is not None else {})
        changed = [n for n in target if n in old and old[n] != target[n]]
        if rolling is None or len(changed) <= 1:
            await self._nested_step(self._template(target))
            return
        size = int(rolling[MAX_BATCH_SIZE])
        steps = []
        for end in range(size, len(changed) + size, size):
            done = set(changed[:end])
            steps.append(
                self._template(
                    {n: target[n] if n in done or n not in old else old[n] for n in target}
                )
            )
        await self._in_batches(steps, rolling)

    # -- attributes ------------------------------------------------------------------

    def _members(self) -> list[tuple[str, Any]]:
        child = self.nested()
        if child is None:
            return []
        order = list(child.template.get("resources") or {})
        return [(n, child.resources[n]) for n in order if n in child.resources]

    def _resolve_attribute(self, name: str) -> Any:
        member = MEMBER_ATTRIBUTE.get(name)
        if member is None:
            return None
        return {n: res.get_attribute(member) for n, res in self._members()}

    def get_attribute(self, key: str, *path: Any) -> Any:
        """The group's attributes, or the map of any attribute every deployment has."""
        if key in self.attributes_schema or key == "show":
            return super().get_attribute(key, *path)
        values = {n: res.get_attribute(key) for n, res in self._members()}
        return attributes.select_path(values, path)


# PS153: the deployments' actions take effect at later actions (see SoftwareDeployment)
class StructuredDeploymentGroup(SoftwareDeploymentGroup):  # plugsim: ignore[PS301, PS153]
    """``OS::Heat::StructuredDeploymentGroup``: one structured deployment per server of a map."""

    member_type: ClassVar[str] = "OS::Heat::StructuredDeployment"
    properties_schema = _group_schema(StructuredDeployment)
    lint_companions: ClassVar[dict[str, Any]] = StructuredDeployment.lint_companions


# PS153: the deployments' actions take effect at later actions (see SoftwareDeployment)
class SoftwareDeployments(SoftwareDeploymentGroup):  # plugsim: ignore[PS301, PS153]
    """``OS::Heat::SoftwareDeployments``: the deprecated name of SoftwareDeploymentGroup."""

    support_status = support.SupportStatus(
        status=support.HIDDEN,
        version="7.0.0",
        message="Use OS::Heat::SoftwareDeploymentGroup instead.",
    )


# PS153: the deployments' actions take effect at later actions (see SoftwareDeployment)
class StructuredDeployments(StructuredDeploymentGroup):  # plugsim: ignore[PS301, PS153]
    """``OS::Heat::StructuredDeployments``: the deprecated name of StructuredDeploymentGroup."""

    support_status = support.SupportStatus(
        status=support.HIDDEN,
        version="7.0.0",
        message="Use OS::Heat::StructuredDeploymentGroup instead.",
    )
