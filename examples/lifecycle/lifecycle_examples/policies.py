"""Policy checks that are not about placement.

:class:`SecurityGroupPolicy` requires the compute resources of stacks tagged
``app=<name>`` to use the security groups configured for that application.
:class:`ServerCountWarning` records a warning event when a stack would have
more than 100 servers.
"""

from __future__ import annotations

from typing import Any

from sdk.lifecycle_plugin import LifecyclePlugin

SERVER = "OS::Nova::Server"
SECURITY_GROUP = "OS::Neutron::SecurityGroup"
CHECKED = ("CREATE", "UPDATE", "ADOPT", "RESTORE")


def _app(tags: list[str]) -> str | None:
    for tag in tags:
        key, _, value = tag.partition("=")
        if key == "app" and value:
            return value
    return None


class SecurityGroupPolicy(LifecyclePlugin):
    """Servers of a tagged application must use the application's security groups."""

    def __init__(self, required: dict[str, list[str]] | None = None) -> None:
        self.required = {k: sorted(v) for k, v in (required or {"web": ["web-default"]}).items()}

    def get_ordinal(self) -> int:
        """Policies run before placement: no rack is reserved for a refused stack."""
        return 50

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Refuse the action when a server lacks a required security group."""
        app = _app(stack.tags)
        if app is None or action not in CHECKED or app not in self.required:
            return
        target = current_stack if current_stack is not None else stack
        for server in target.resources_of_type(SERVER):
            used = {_group_name(target, g) for g in server.properties.get("security_groups") or []}
            missing = [g for g in self.required[app] if g not in used]
            if missing:
                raise RuntimeError(
                    f"Policy: server {server.name} of application {app} must use security "
                    f"group(s) {', '.join(missing)}"
                )


def _group_name(stack: Any, value: Any) -> str:
    """A group given by name, or by ``get_resource`` of a SecurityGroup in the stack."""
    if isinstance(value, dict) and set(value) == {"get_resource"}:
        res = stack.resources.get(value["get_resource"])
        if res is not None and res.type == SECURITY_GROUP:
            return str(res.properties.get("name") or res.name)
    return str(value)


class ServerCountWarning(LifecyclePlugin):
    """Warn (an event, not a failure) when a stack would have more than *limit* servers."""

    def __init__(self, limit: int = 100) -> None:
        self.limit = limit

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Record a WARNING event for a create or update past the limit."""
        if action not in CHECKED:
            return
        target = current_stack if current_stack is not None else stack
        count = len(target.resources_of_type(SERVER))
        if count > self.limit:
            context.warn(f"stack {stack.name} has {count} servers (more than {self.limit})")
