"""plugsim's own tiny resource types, for examples, benchmarks and engine tests.

* ``Plugsim::Test::Trivial`` — does nothing physical; its ``value`` and
  ``delay`` change in place, ``size`` forces replacement, ``key`` is
  immutable. ``delay`` is how many virtual seconds create/update take.
* ``Plugsim::Test::Fail`` — fails the action named by ``fail_on``.
* ``Plugsim::Test::Hang`` — never finishes creating; on cancel it records
  that ``handle_create_cancel`` ran (resource data ``cancelled``).
* ``Plugsim::Test::Garbage`` — a misbehaving plug-in: an unserialisable
  resource id, data that is not JSON, and a completion check whose answer
  cannot be used as a truth value.
* ``OS::Heat::None`` — accepts any properties and does nothing.

The bundled library of Heat and OpenStack types lives in the subpackages
:mod:`simulator.resources.heat` and :mod:`simulator.resources.openstack`,
registered through the ``plugsim.resources`` entry points like any plug-in.
Everything under this package imports only :mod:`sdk`: a resource reaches the
engine through its context's facets.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from sdk import attributes, constraints, properties, support
from sdk.resource import Resource

#: The test types are plugsim's own, as old as the engine.
_TEST_TYPE = support.SupportStatus(version="0.1.0", message="A test type of plugsim's own.")

ACTIONS = ("create", "update", "delete", "suspend", "resume", "snapshot", "check")


class Trivial(Resource):
    """A resource with nothing behind it; cheap enough for 10,000-resource stacks."""

    support_status = _TEST_TYPE

    properties_schema = {
        "value": properties.Schema(
            properties.Schema.STRING, "A value changed in place.", default="", update_allowed=True
        ),
        "delay": properties.Schema(  # plugsim: ignore[PS153] - virtual time only
            properties.Schema.NUMBER,
            "Virtual seconds create and update take.",
            default=0,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "size": properties.Schema(
            properties.Schema.INTEGER, "Changing it replaces the resource.", default=1
        ),
        "key": properties.Schema(
            properties.Schema.STRING, "Cannot change after create.", immutable=True
        ),
        "depends": properties.Schema(
            properties.Schema.ANY, "Any value (lets a template wire dependencies)."
        ),
    }
    attributes_schema = {
        "value": attributes.Schema("The current value."),
        "size": attributes.Schema("The current size."),
    }

    def handle_create(self) -> float:
        self.resource_id_set(f"{self.stack.id[:8]}-{self.name}")
        return float(self.properties["delay"] or 0)

    async def check_create_complete(self, delay: float) -> bool:
        if delay:
            await self.context.clock.sleep(delay)
        return True

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> float:
        return float((prop_diff or {}).get("delay") or self.properties["delay"] or 0)

    async def check_update_complete(self, delay: float) -> bool:
        return await self.check_create_complete(delay)

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties[name]


class Fail(Resource):  # plugsim: ignore[PS150] - fails on purpose
    """Fails the action named by ``fail_on`` with ``message``."""

    support_status = _TEST_TYPE

    properties_schema = {
        "fail_on": properties.Schema(
            properties.Schema.STRING,
            "The action that fails.",
            default="create",
            update_allowed=True,
            constraints=[constraints.AllowedValues(list(ACTIONS))],
        ),
        "message": properties.Schema(
            properties.Schema.STRING,
            "The error message.",
            default="simulated failure",
            update_allowed=True,
        ),
        "value": properties.Schema(
            properties.Schema.STRING, "Changes in place.", default="", update_allowed=True
        ),
    }

    def _maybe_fail(self, action: str) -> None:
        if self.properties["fail_on"] == action:
            raise ValueError(self.properties["message"])

    def handle_create(self) -> None:
        self.resource_id_set(f"fail-{self.name}")
        self._maybe_fail("create")

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        self._maybe_fail("update")

    def handle_delete(self) -> None:
        self._maybe_fail("delete")

    def handle_suspend(self) -> None:
        self._maybe_fail("suspend")

    def handle_resume(self) -> None:
        self._maybe_fail("resume")

    def handle_snapshot(self) -> None:
        self._maybe_fail("snapshot")

    def handle_check(self) -> None:
        self._maybe_fail("check")


class Hang(Resource):  # plugsim: ignore[PS150] - never completes, on purpose
    """Never finishes its create or update; records that the cancel handler ran."""

    support_status = _TEST_TYPE

    properties_schema = {
        "value": properties.Schema(
            properties.Schema.STRING, "Changes in place.", default="", update_allowed=True
        ),
    }

    def handle_create(self) -> None:
        self.resource_id_set(f"hang-{self.name}")

    def check_create_complete(self, token: Any) -> bool:
        return False

    def handle_create_cancel(self, token: Any) -> None:
        self.data_set("cancelled", "create")

    def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        return None

    def check_update_complete(self, token: Any) -> bool:
        return False

    def handle_update_cancel(self, token: Any) -> None:
        self.data_set("cancelled", "update")


class _Unanswerable:
    def __bool__(self) -> bool:
        # the planted garbage is the point of this test type
        raise TypeError("this object refuses to be a truth value")  # plugsim: ignore[PS154]

    def __repr__(self) -> str:
        return "<garbage>"


class Garbage(Resource):  # plugsim: ignore[PS150] - misbehaves on purpose
    """Returns garbage everywhere a plug-in can."""

    support_status = _TEST_TYPE

    properties_schema = {
        "mode": properties.Schema(
            properties.Schema.STRING,
            "'check' returns an unusable answer; 'data' only stores garbage.",
            default="check",
            constraints=[constraints.AllowedValues(["check", "data"])],
        ),
    }

    def handle_create(self) -> Any:
        self.resource_id_set(object())
        self.data_set("junk", {1, 2, 3})
        return _Unanswerable()

    def check_create_complete(self, token: Any) -> Any:
        if self.properties["mode"] == "check":
            return token
        return "yes, probably"


class NoneResource(Resource):
    """``OS::Heat::None``: accepts any properties and does nothing."""

    support_status = support.SupportStatus(version="0.1.0")

    def _make_properties(self, definition: Any) -> Any:
        return properties.Properties({}, {}, resolver=self._resolver, context=self.context)

    def handle_create(self) -> None:
        # Heat 27 gives it a fresh UUID; here one derived from the stack and the resource row,
        # so a replacement gets a new id and a rerun of the same world the same one
        material = f"OS::Heat::None/{self.stack.id}/{self.uuid}/{self.name}".encode()
        digest = hashlib.sha256(material).digest()[:16]
        self.resource_id_set(str(uuid.UUID(bytes=digest, version=4)))


def resource_mapping() -> dict[str, type[Resource]]:
    """The built-in test types."""
    return {
        "OS::Heat::None": NoneResource,
        "Plugsim::Test::Fail": Fail,
        "Plugsim::Test::Garbage": Garbage,
        "Plugsim::Test::Hang": Hang,
        "Plugsim::Test::Trivial": Trivial,
    }
