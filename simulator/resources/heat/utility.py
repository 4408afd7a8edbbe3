"""Heat's utility types that touch no cloud: ``OS::Heat::Value``, ``RandomString``, ``Delay``.

Everything random here is deterministic: the draw is derived from the stack id
and the resource name with SHA-256 (the stack id itself comes from the
world's seeded stream), never from the process-wide ``random`` module.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Mapping
from typing import Any

from sdk import attributes, constraints, exception, properties, secrets, support
from sdk.resource import Resource

__all__ = ["Delay", "RandomString", "Value", "derived_random"]

SINCE = "0.1.0"


def derived_random(resource: Resource, *salt: Any) -> random.Random:
    """Return a private ``random.Random`` seeded from the stack id, resource name and *salt*."""
    text = "/".join(str(part) for part in (resource.stack.id, resource.name, *salt))
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:16], "big")
    return random.Random(seed)


# --- OS::Heat::Value --------------------------------------------------------------

_VALUE_TYPES = ("string", "number", "json", "comma_delimited_list", "boolean")


def _convert_value(value: Any, value_type: str | None) -> Any:
    """Convert *value* to the HOT parameter type *value_type* (ValueError when impossible)."""
    if not value_type or value is None:  # an unset type reads as the empty string
        return value
    if value_type == "string":
        if isinstance(value, Mapping | list):
            return json.dumps(value, sort_keys=True)
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    if value_type == "number":
        if isinstance(value, bool):
            raise ValueError(f"Value {value!r} is not a number")
        if isinstance(value, int | float):
            return value
        try:
            number = float(str(value))
        except ValueError:
            raise ValueError(f"Value {value!r} is not a number") from None
        return int(number) if number.is_integer() and "." not in str(value) else number
    if value_type == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "t", "on", "y", "yes", "1"):
            return True
        if text in ("false", "f", "off", "n", "no", "0"):
            return False
        raise ValueError(f"Value {value!r} is not a boolean")
    if value_type == "comma_delimited_list":
        if isinstance(value, list):
            return value
        if isinstance(value, str):
            return [item.strip() for item in value.split(",")] if value else []
        raise ValueError(f"Value {value!r} is not a comma delimited list")
    # json: a map, as Heat 27's json parameter type has it (a list is refused)
    parsed = value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            raise ValueError(f"Value {value!r} is not valid JSON") from None
    if isinstance(parsed, Mapping):
        return parsed
    raise ValueError(f"Value {value!r} is not a map (json)")


class Value(Resource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::Value``: holds a value, optionally converted to a parameter type.

    Nothing physical is created. The ``value`` attribute gives the (converted)
    value; both properties change in place.
    """

    support_status = support.SupportStatus(version=SINCE)

    properties_schema = {
        "value": properties.Schema(
            properties.Schema.ANY,
            "The value to hold (any type).",
            required=True,
            update_allowed=True,
        ),
        "type": properties.Schema(  # plugsim: ignore[PS153] - same value kept
            properties.Schema.STRING,
            "The type the value is converted to (a HOT parameter type); unset keeps it as is.",
            constraints=[constraints.AllowedValues(list(_VALUE_TYPES))],
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "value": attributes.Schema("The value, converted to ``type`` when one is given."),
    }

    def validate(self) -> None:
        """Check the properties and that the value converts to ``type``."""
        super().validate()
        try:
            _convert_value(self.properties["value"], self.properties["type"])
        except ValueError as ex:
            raise exception.StackValidationFailed(
                error_message=str(ex), path=["resources", self.name, "properties", "value"]
            ) from None
        except exception.StackValidationFailed:
            raise
        except Exception:  # a value not yet known: checked again at create
            return

    def handle_create(self) -> None:
        """Record the resource as created (no physical resource)."""
        _convert_value(self.properties["value"], self.properties["type"])
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self,
        json_snippet: Any = None,
        tmpl_diff: Any = None,
        prop_diff: Any = None,
    ) -> None:
        """Accept a new value/type after checking the conversion."""
        value = (prop_diff or {}).get("value", self.properties["value"])
        value_type = (prop_diff or {}).get("type", self.properties["type"])
        if "type" in (prop_diff or {}) and prop_diff["type"] is None:
            value_type = None
        _convert_value(value, value_type)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "value":
            return _convert_value(self.properties["value"], self.properties["type"])
        return None


# --- OS::Heat::RandomString ---------------------------------------------------------

_CLASSES = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}


class RandomString(Resource):
    """``OS::Heat::RandomString``: a random string, e.g. a password.

    The string is drawn when the resource is created, from a generator seeded
    with the stack id, the resource name and ``salt``: the same stack in the
    same world always gets the same string, and changing ``salt`` (or any
    other property) replaces the resource with a new string. At least ``min``
    characters of each ``character_classes`` / ``character_sequences`` entry
    are included; the rest are drawn from all of them together.
    ``get_resource`` gives the string itself.
    """

    support_status = support.SupportStatus(version=SINCE)

    properties_schema = {
        "length": properties.Schema(
            properties.Schema.INTEGER,
            "Length of the string.",
            default=32,
            constraints=[constraints.Range(1, 512)],
        ),
        "sequence": properties.Schema(
            properties.Schema.STRING,
            "One character class to draw from (use character_classes instead).",
            constraints=[constraints.AllowedValues(sorted(_CLASSES))],
            support_status=support.SupportStatus(
                support.HIDDEN,
                version=SINCE,
                message="Use character_classes.",
                previous_status=support.SupportStatus(support.DEPRECATED, version=SINCE),
            ),
        ),
        "character_classes": properties.Schema(
            properties.Schema.LIST,
            "Character classes with the least number of characters of each.",
            schema={
                "class": properties.Schema(
                    properties.Schema.STRING,
                    "A character class.",
                    default="lettersdigits",
                    constraints=[constraints.AllowedValues(sorted(_CLASSES))],
                ),
                "min": properties.Schema(
                    properties.Schema.INTEGER,
                    "The least number of characters of this class.",
                    default=1,
                    constraints=[constraints.Range(1, 512)],
                ),
            },
        ),
        "character_sequences": properties.Schema(
            properties.Schema.LIST,
            "Literal character sequences with the least number of characters of each.",
            schema={
                "sequence": properties.Schema(
                    properties.Schema.STRING,
                    "The characters to draw from.",
                    required=True,
                    constraints=[constraints.Length(min=1)],
                ),
                "min": properties.Schema(
                    properties.Schema.INTEGER,
                    "The least number of characters from this sequence.",
                    default=1,
                    constraints=[constraints.Range(1, 512)],
                ),
            },
        ),
        "salt": properties.Schema(
            properties.Schema.STRING,
            "Any value; changing it makes a new string (the resource is replaced).",
        ),
    }
    attributes_schema = {
        "value": attributes.Schema("The random string.", type=attributes.Schema.STRING),
    }

    def _pools(self) -> list[tuple[str, int]]:
        pools: list[tuple[str, int]] = []
        for entry in self.properties["character_classes"] or []:
            pools.append((_CLASSES[entry["class"]], int(entry["min"])))
        for entry in self.properties["character_sequences"] or []:
            pools.append((entry["sequence"], int(entry["min"])))
        if not pools:
            chars = _CLASSES[self.properties["sequence"] or "lettersdigits"]
            pools.append((chars, 0))
        return pools

    def validate(self) -> None:
        """Check the properties and that the minimums fit in ``length``."""
        super().validate()
        total = sum(minimum for _, minimum in self._pools())
        if total > self.properties["length"]:
            raise exception.StackValidationFailed(
                error_message=(
                    f"length ({self.properties['length']}) is smaller than the sum of the "
                    f"character_classes and character_sequences minimums ({total})"
                ),
                path=["resources", self.name, "properties", "length"],
            )

    def generate(self) -> str:
        """Return the string this resource draws (the same on every call)."""
        rng = derived_random(self, "random-string", self.properties["salt"] or "")
        pools = self._pools()
        length = self.properties["length"]
        chars = [rng.choice(pool) for pool, minimum in pools for _ in range(minimum)]
        alphabet = "".join(sorted(set("".join(pool for pool, _ in pools))))
        chars.extend(rng.choice(alphabet) for _ in range(length - len(chars)))
        rng.shuffle(chars)
        return "".join(chars)

    def handle_create(self) -> None:
        """Draw the string and keep it in the resource data.

        As in Heat, the resource id is the physical resource name, not the
        string, so the secret never shows in event and resource lists; the
        string is remembered as a secret (:mod:`sdk.secrets`).
        """
        self.validate()
        value = self.generate()
        secrets.remember_generated(value)
        self.data_set("value", value)
        self.resource_id_set(self.physical_resource_name())

    def _value(self) -> Any:
        value = self.data().get("value")
        secrets.remember_generated(value)
        return value

    def get_reference_id(self) -> str:
        """For ``get_resource``: the string itself (the name before it is drawn)."""
        value = self._value() if self.resource_id is not None else None
        return str(value) if value is not None else super().get_reference_id()

    def _resolve_attribute(self, name: str) -> Any:
        if name == "value":
            return self._value()
        return None


# --- OS::Heat::Delay -------------------------------------------------------------------

_DELAY_ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")


class Delay(Resource):
    """``OS::Heat::Delay``: waits in virtual time during chosen actions.

    The wait is ``min_wait`` plus a fraction of ``max_jitter`` scaled by
    ``jitter_multiplier``; the fraction is derived from the stack id, the
    resource name and the action, so runs are reproducible.
    """

    support_status = support.SupportStatus(version=SINCE)

    properties_schema = {
        "min_wait": properties.Schema(  # plugsim: ignore[PS153] - timing only
            properties.Schema.NUMBER,
            "The shortest wait, in seconds.",
            default=0,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "max_jitter": properties.Schema(  # plugsim: ignore[PS153] - timing only
            properties.Schema.NUMBER,
            "The largest random extra wait, in units of jitter_multiplier seconds.",
            default=0,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "jitter_multiplier": properties.Schema(  # plugsim: ignore[PS153] - timing only
            properties.Schema.NUMBER,
            "Seconds per unit of max_jitter.",
            default=1.0,
            update_allowed=True,
            constraints=[constraints.Range(min=0)],
        ),
        "actions": properties.Schema(  # plugsim: ignore[PS153] - later actions
            properties.Schema.LIST,
            "The actions that wait.",
            default=["CREATE"],
            update_allowed=True,
            constraints=[constraints.AllowedValues(list(_DELAY_ACTIONS))],
        ),
    }

    def wait_for(self, action: str, changes: Mapping[str, Any] | None = None) -> float:
        """Return how many virtual seconds *action* waits (0 when it is not delayed).

        *changes* overrides property values (the new ones during an update).
        """
        props = {key: self.properties[key] for key in self.properties_schema}
        props.update({k: v for k, v in (changes or {}).items() if v is not None})
        if action not in (props["actions"] or []):
            return 0.0
        fraction = derived_random(self, "delay", action).random()
        jitter = float(props["max_jitter"]) * float(props["jitter_multiplier"])
        return float(props["min_wait"]) + fraction * jitter

    async def _wait(self, action: str, changes: Mapping[str, Any] | None = None) -> None:
        seconds = self.wait_for(action, changes)
        if seconds > 0:
            await self.context.clock.sleep(seconds)

    async def handle_create(self) -> None:
        """Wait (when CREATE is delayed)."""
        self.resource_id_set(self.physical_resource_name())
        await self._wait("CREATE")

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Wait with the new properties (when UPDATE is delayed)."""
        await self._wait("UPDATE", prop_diff)

    async def handle_delete(self) -> None:
        """Wait (when DELETE is delayed)."""
        await self._wait("DELETE")

    async def handle_suspend(self) -> None:
        """Wait (when SUSPEND is delayed)."""
        await self._wait("SUSPEND")

    async def handle_resume(self) -> None:
        """Wait (when RESUME is delayed)."""
        await self._wait("RESUME")
