"""``OS::Heat::TestResource``: a resource whose behaviour the template dictates.

It is the workhorse of orchestration tests: it waits (in virtual time), fails
on demand, asks to be replaced on update and can poll a real entity of the
fake cloud while it waits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sdk import attributes, constraints, exception, properties, support
from sdk.resource import Resource

__all__ = ["TestResource"]

_ACTIONS = ("create", "update", "delete", "suspend", "resume", "snapshot")


class TestResource(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::TestResource``: waits, fails or asks for replacement as told.

    * ``value`` is what the ``output`` attribute gives;
    * ``wait_secs`` is how long every action takes, in virtual seconds;
      ``action_wait_secs`` overrides it per action (``create``, ``update``,
      ``delete``, ``suspend``, ``resume``, ``snapshot``);
    * ``fail: true`` makes create, update, suspend, resume and snapshot fail
      after the wait (delete never fails, so a stack can always be cleaned up);
    * ``update_replace: true`` makes any update a replacement;
      changing ``update_replace_value`` always replaces;
    * ``attr_wait_secs`` is charged to the clock each time ``output`` is read;
    * with ``client_name`` and ``entity_name`` every completion check reads
      ``client.<entity_name>.get(value)``, so the action fails when the entity
      named by ``value`` does not exist.
    """

    __test__ = False  # not a pytest test class, despite its name

    support_status = support.SupportStatus(version="0.1.0")

    properties_schema = {
        "value": properties.Schema(
            properties.Schema.STRING,
            "The value the output attribute gives.",
            default="test_string",
            update_allowed=True,
        ),
        "fail": properties.Schema(  # plugsim: ignore[PS150] - fails by design
            properties.Schema.BOOLEAN,
            "Fail every action but delete (after the wait).",
            default=False,
            update_allowed=True,
        ),
        "update_replace": properties.Schema(
            properties.Schema.BOOLEAN,
            "Replace the resource on any update instead of changing it in place.",
            default=False,
            update_allowed=True,
        ),
        "update_replace_value": properties.Schema(
            properties.Schema.STRING,
            "Changing this value always replaces the resource.",
        ),
        "wait_secs": properties.Schema(  # plugsim: ignore[PS153] - virtual time only
            properties.Schema.NUMBER,
            "Virtual seconds every action takes.",
            default=0,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "action_wait_secs": properties.Schema(
            properties.Schema.MAP,
            "Virtual seconds per action (keys: " + ", ".join(_ACTIONS) + "), overriding wait_secs.",
            update_allowed=True,
        ),
        "attr_wait_secs": properties.Schema(  # plugsim: ignore[PS153] - virtual time only
            properties.Schema.NUMBER,
            "Virtual seconds charged each time the output attribute is read.",
            default=0,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "client_name": properties.Schema(  # plugsim: ignore[PS153] - needs entity_name
            properties.Schema.STRING,
            "A client (e.g. nova) whose entity_name manager is polled while waiting.",
            default="",
            update_allowed=True,
        ),
        "entity_name": properties.Schema(  # plugsim: ignore[PS153] - needs client_name
            properties.Schema.STRING,
            "The manager of client_name polled with get(value) (e.g. servers).",
            default="",
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "output": attributes.Schema("The value property.", type=attributes.Schema.STRING),
    }

    def _props(self, changes: Mapping[str, Any] | None = None) -> dict[str, Any]:
        props = {key: self.properties[key] for key in self.properties_schema}
        for key, value in (changes or {}).items():
            if key in props:
                props[key] = value if value is not None else self.properties_schema[key].default
        return props

    def _per_action(self, per_action: Mapping[str, Any] | None) -> dict[str, float]:
        path = ["resources", self.name, "properties", "action_wait_secs"]
        out: dict[str, float] = {}
        for key, value in sorted((per_action or {}).items()):
            if key not in _ACTIONS:
                raise exception.StackValidationFailed(
                    error_message=f"Unknown action {key!r}; use one of {', '.join(_ACTIONS)}",
                    path=path,
                )
            try:
                seconds = float(value)
            except (TypeError, ValueError):
                seconds = -1.0
            if isinstance(value, bool) or seconds < 0:
                raise exception.StackValidationFailed(
                    error_message=f"{value!r} is not a number of seconds >= 0", path=[*path, key]
                )
            out[key] = seconds
        return out

    def validate(self) -> None:
        """Check the properties: action_wait_secs, and that client_name/entity_name exist.

        As in Heat, ``client_name`` is used only with ``entity_name``: alone it
        is any text (python-heatclient's own test templates pass a made-up one).
        """
        super().validate()
        self._per_action(self.properties["action_wait_secs"])
        client_name = self.properties["client_name"]
        if not client_name or not self.properties["entity_name"]:
            return
        path = ["resources", self.name, "properties"]
        try:
            client = self.client(client_name)
        except exception.ConfigurationError as ex:
            raise exception.StackValidationFailed(
                error_message=str(ex), path=[*path, "client_name"]
            ) from None
        entity_name = self.properties["entity_name"]
        if entity_name and getattr(client, entity_name, None) is None:
            raise exception.StackValidationFailed(
                error_message=f"client {client_name} has no manager {entity_name!r}",
                path=[*path, "entity_name"],
            )

    def wait_secs(self, action: str, changes: Mapping[str, Any] | None = None) -> float:
        """Return the virtual seconds *action* (lower-case) takes."""
        props = self._props(changes)
        per_action = self._per_action(props["action_wait_secs"])
        if action in per_action:
            return per_action[action]
        return float(props["wait_secs"] or 0)

    async def _simulate(
        self, action: str, changes: Mapping[str, Any] | None = None, may_fail: bool = True
    ) -> None:
        props = self._props(changes)
        seconds = self.wait_secs(action, changes)
        step = float(self.context.poll_interval) or 1.0
        remaining = seconds
        self._poll_entity(props)
        while remaining > 0:
            chunk = min(step, remaining)
            await self.context.clock.sleep(chunk)
            remaining -= chunk
            self._poll_entity(props)
        if may_fail and props["fail"]:
            raise ValueError(f"Test Resource {self.name} failed its {action} as told (fail: true)")

    def _poll_entity(self, props: Mapping[str, Any]) -> None:
        client_name, entity_name = props["client_name"], props["entity_name"]
        if not (client_name and entity_name):
            return
        manager = getattr(self.client(client_name), entity_name, None)
        if manager is None:
            raise exception.StackValidationFailed(
                error_message=f"client {client_name} has no manager {entity_name!r}",
                path=["resources", self.name, "properties", "entity_name"],
            )
        manager.get(props["value"])

    async def handle_create(self) -> None:
        """Take an id, wait, then fail if told to."""
        self.resource_id_set(self.physical_resource_name())
        await self._simulate("create")

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Replace when told to; otherwise wait with the new properties, then fail if told to."""
        changes = dict(prop_diff or {})
        if self._props(changes)["update_replace"]:
            raise exception.UpdateReplace(self.name)
        await self._simulate("update", changes)

    async def handle_delete(self) -> None:
        """Wait; delete never fails."""
        await self._simulate("delete", may_fail=False)

    async def handle_suspend(self) -> None:
        """Wait, then fail if told to."""
        await self._simulate("suspend")

    async def handle_resume(self) -> None:
        """Wait, then fail if told to."""
        await self._simulate("resume")

    async def handle_snapshot(self) -> None:
        """Wait, then fail if told to."""
        await self._simulate("snapshot")

    def handle_snapshot_delete(self, state: Any = None) -> None:
        """Deletion policy Snapshot: nothing physical to keep."""
        self.data_set("snapshot_deleted_from", str(state))

    def _resolve_attribute(self, name: str) -> Any:
        if name != "output":
            return None
        wait = float(self.properties["attr_wait_secs"] or 0)
        charge = getattr(self.context.clock, "charge", None)
        if wait > 0 and callable(charge):
            charge(wait)
        return self.properties["value"]
