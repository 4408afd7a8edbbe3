"""The property-based validation tests of :class:`~sdk.testing.conformance.ResourceConformance`.

Every property map generated from a plug-in's schema must pass its validation,
and every map with one rule broken must fail it with a message naming the
property. A required property under a custom constraint is pinned to the
declared valid value (only the cloud knows its valid values).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from sdk import exception
from sdk.resource import Resource


def _validate(plugin: type[Resource], data: Mapping[str, Any]) -> None:
    from sdk.properties import Properties

    Properties(plugin.properties_schema, data, path=["resources", "r", "properties"]).validate()


def _is_function(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and len(value) == 1
        and str(next(iter(value))).startswith(("get_", "str_", "list_", "map_"))
    )


def _placeholder(value: Any, schema: Any) -> Any:
    """*value* with each function call a string stands for replaced by a placeholder.

    Validation without a cloud checks only types, so a ``get_resource`` (given
    alone, or as an item of a list of names: ``volume_types: [{get_resource:
    vtype}]``) becomes the string ``conformance`` where the schema wants a string.
    """
    from sdk.properties import Schema

    if value is None or _is_function(value):
        return "conformance" if schema.type == Schema.STRING else value
    item = schema.schema if schema.type == Schema.LIST else None
    if isinstance(item, Schema) and isinstance(value, list):
        return [_placeholder(v, item) for v in value]
    return value


def pinned_schema(
    plugin: type[Resource], valid: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split *plugin*'s schema: ``(generated schema, pinned values)``.

    A required property with a custom constraint cannot be generated (only the
    cloud knows its valid values); it keeps the declared valid value, or a
    placeholder string when that is a function call (validation without a
    cloud checks only its type).
    """
    from sdk.constraints import CustomConstraint
    from sdk.properties import Schema, schemata

    generated: dict[str, Any] = {}
    pinned: dict[str, Any] = {}
    for name, schema in schemata(plugin.properties_schema).items():
        custom = any(isinstance(c, CustomConstraint) for c in schema.constraints)
        item = schema.schema if schema.type == Schema.LIST else None
        if isinstance(item, Schema):  # a list of names only the cloud knows
            custom = custom or any(isinstance(c, CustomConstraint) for c in item.constraints)
        if custom and schema.required and schema.default is None:
            pinned[name] = _placeholder(valid.get(name), schema)
        else:
            generated[name] = schema
    return generated, pinned


def _quick() -> Any:
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=40,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


class SchemaConformance:
    """The two schema tests, a mixin of ``ResourceConformance``."""

    # what ResourceConformance declares
    valid_properties: ClassVar[Mapping[str, Any] | None]
    if TYPE_CHECKING:

        @classmethod
        def plugin(cls) -> type[Resource]: ...

    def test_validation_accepts_valid_maps(self) -> None:
        """Every property map generated from the schema passes validation."""
        from hypothesis import given

        from sdk.testing import strategies
        from sdk.testing.stable_draws import stable_draws

        plugin = self.plugin()
        schema, pinned = pinned_schema(plugin, self.valid_properties or {})

        @_quick()
        @given(strategies.valid_properties(schema))
        def check(data: dict[str, Any]) -> None:
            _validate(plugin, {**pinned, **data})

        with stable_draws():
            check()

    def test_validation_rejects_invalid_maps(self) -> None:
        """Every map with one rule broken fails validation with a message naming the property."""
        from hypothesis import given

        from sdk.testing import strategies
        from sdk.testing.stable_draws import stable_draws

        plugin = self.plugin()
        schema, pinned = pinned_schema(plugin, self.valid_properties or {})

        @_quick()
        @given(strategies.invalid_properties(schema))
        def check(case: tuple[dict[str, Any], Any]) -> None:
            data, violation = case
            data = {**pinned, **data}
            try:
                _validate(plugin, data)
            except exception.StackValidationFailed as ex:
                assert violation.property in str(ex), f"{violation}: {ex}"
            else:
                raise AssertionError(f"accepted a map breaking {violation}: {data!r}")

        with stable_draws():
            check()
