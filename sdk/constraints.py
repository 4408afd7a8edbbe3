"""Value types, constraints and the registry of named custom constraints.

:class:`Schema` is the base of property schemas (:mod:`sdk.properties`) and
of template parameter schemas: it knows the value types, converts raw values
to a type the way Heat does, and checks its constraints. A constraint checks
when the schema is built that it applies to the schema's type, and raises
:class:`ValueError` with a plain-language message when a value breaks it; a
``description`` given to a constraint replaces that message.

Custom constraints are named checks (``CustomConstraint('flavor')``) looked up
in a :class:`ConstraintRegistry`: registered from Python with
:func:`register_constraint` or published through the entry-point group
``plugsim.constraints``.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sdk import _value_types, exception
from sdk._constraint_registry import (
    _DEFAULT_REGISTRY,
    ENTRY_POINT_GROUP,
    BaseCustomConstraint,
    ConstraintRegistry,
    default_registry,
    get_constraint,
    register_constraint,
    registered_constraints,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "AllowedPattern",
    "AllowedValues",
    "BaseCustomConstraint",
    "Constraint",
    "ConstraintRegistry",
    "CustomConstraint",
    "Length",
    "Modulo",
    "Range",
    "Schema",
    "default_registry",
    "get_constraint",
    "register_constraint",
    "registered_constraints",
]


class Schema:
    """The type, default and constraints of one value (property or parameter)."""

    INTEGER = "Integer"
    STRING = "String"
    NUMBER = "Number"
    BOOLEAN = "Boolean"
    MAP = "Map"
    LIST = "List"
    ANY = "Any"

    #: The valid type names, in documentation order.
    TYPES: tuple[str, ...] = (INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY)

    def __init__(
        self,
        data_type: str,
        description: str | None = None,
        default: Any = None,
        schema: Any = None,
        required: bool = False,
        constraints: Sequence[Constraint] | None = None,
        immutable: bool = False,
    ) -> None:
        if not isinstance(data_type, str) or data_type not in self.TYPES:
            raise exception.InvalidSchemaError(
                f"Invalid type {data_type!r}; valid types are: {', '.join(self.TYPES)}"
            )
        self.type = data_type
        if description is not None and not isinstance(description, str):
            raise exception.InvalidSchemaError(
                f"The description of a {data_type} schema must be a string, got {description!r}"
            )
        self.description = description
        self.required = bool(required)
        self.immutable = bool(immutable)
        self.schema = self._nested(schema)
        self.constraints: list[Constraint] = self._checked_constraints(constraints)
        self.default = default
        if default is not None:
            self._check_default(default)

    # -- construction helpers -------------------------------------------

    def _nested(self, schema: Any) -> Any:
        """Check and normalise the nested schema (MAP and LIST only)."""
        if schema is None:
            return None
        if self.type not in (self.MAP, self.LIST):
            raise exception.InvalidSchemaError(
                f"A nested schema is valid only for {self.MAP} or {self.LIST}, not {self.type}"
            )
        if isinstance(schema, Schema):
            if self.type != self.LIST:
                raise exception.InvalidSchemaError(
                    f"A single item schema is valid only for {self.LIST}, not {self.type}"
                )
            return schema
        if isinstance(schema, Mapping):
            return dict(schema)
        raise exception.InvalidSchemaError(
            f"The nested schema of a {self.type} must be a Schema or a dict of Schemas, "
            f"got {schema!r}"
        )

    def _checked_constraints(self, constraints: Sequence[Constraint] | None) -> list[Constraint]:
        if constraints is None:
            return []
        if isinstance(constraints, (str, bytes)) or not isinstance(constraints, Iterable):
            raise exception.InvalidSchemaError(
                f"constraints must be a list of constraint objects, got {constraints!r}"
            )
        out = list(constraints)
        for c in out:
            if not isinstance(c, Constraint):
                raise exception.InvalidSchemaError(
                    f"constraints must be constraint objects (e.g. Range(...)), got {c!r}"
                )
            if self.type not in c.valid_types:
                raise exception.InvalidSchemaError(
                    f"{type(c).__name__} constraint invalid for {self.type}"
                )
        return out

    def _check_default(self, default: Any) -> None:
        try:
            value = self.to_schema_type(default)
            self.validate_constraints_raw(value, skipped=(CustomConstraint,))
        except ValueError as ex:
            raise exception.InvalidSchemaError(f"Invalid default {default!r}: {ex}") from None

    # -- values -----------------------------------------------------------

    #: Convert a number or numeric string to ``int`` if possible, else ``float``.
    str_to_num = staticmethod(_value_types.str_to_num)

    def to_schema_type(self, value: Any) -> Any:
        """Return *value* converted to this schema's type (``None`` stays ``None``).

        Raises :class:`ValueError` with a message naming the value and type.
        """
        if value is None:
            return None
        convert = _value_types.CONVERTERS.get(self.type)
        return value if convert is None else convert(value)

    def empty_value(self) -> Any:
        """Return the value of an unset property of this type."""
        make = _value_types.EMPTY.get(self.type)
        return None if make is None else make()

    def validate_constraints_raw(
        self, value: Any, context: Any = None, skipped: Iterable[type] = ()
    ) -> None:
        """Check *value* against every constraint; raise :class:`ValueError` on failure."""
        skipped = tuple(skipped)
        for c in self.constraints:
            if skipped and isinstance(c, skipped):
                continue
            c.validate(value, self, context)

    def validate_constraints(
        self,
        value: Any,
        context: Any = None,
        path: Sequence[Any] = (),
        skipped: Iterable[type] = (),
    ) -> None:
        """Check *value* against the constraints.

        Raises :class:`sdk.exception.StackValidationFailed` whose path is
        *path* and whose message is the failing constraint's message.
        """
        try:
            self.validate_constraints_raw(value, context, skipped)
        except ValueError as ex:
            raise exception.StackValidationFailed(error_message=str(ex), path=list(path)) from None

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description of the schema (for docs and tools)."""
        out: dict[str, Any] = {"type": self.type, "required": self.required}
        if self.description is not None:
            out["description"] = self.description
        if self.default is not None:
            out["default"] = self.default
        if isinstance(self.schema, Schema):
            out["schema"] = {"*": self.schema.to_dict()}
        elif isinstance(self.schema, dict):
            out["schema"] = {
                k: (s.to_dict() if isinstance(s, Schema) else s) for k, s in self.schema.items()
            }
        if self.constraints:
            out["constraints"] = [c.to_dict() for c in self.constraints]
        if self.immutable:
            out["immutable"] = True
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.type!r}, description={self.description!r})"


# -- constraints ---------------------------------------------------------------


class Constraint:
    """Base of all constraints: a check of a value plus an optional description."""

    #: The schema types this constraint applies to.
    valid_types: tuple[str, ...] = ()

    def __init__(self, description: str | None = None) -> None:
        if description is not None and not isinstance(description, str):
            raise exception.InvalidSchemaError(
                f"The description of a {type(self).__name__} constraint must be a string, "
                f"got {description!r}"
            )
        self.description = description

    def validate(self, value: Any, schema: Schema | None = None, context: Any = None) -> None:
        """Raise :class:`ValueError` with a message when *value* breaks the constraint."""
        message = self._failure(value, schema, context)
        if message is not None:
            raise ValueError(self.description or message)

    def _failure(self, value: Any, schema: Schema | None, context: Any) -> str | None:
        """Return the reason *value* fails, or None when it is valid."""
        raise TypeError(f"{type(self).__name__} does not define a check")

    def _summary(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description of the constraint."""
        out: dict[str, Any] = {"type": type(self).__name__}
        if self.description:
            out["description"] = self.description
        return out

    def __str__(self) -> str:
        return self.description or self._summary()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self}>"


def _number_or_none(owner: str, name: str, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise exception.InvalidSchemaError(f"{owner} {name} must be a number, got {value!r}")
    return value


class _Bounded(Constraint):
    """A measure of the value (the number itself, a length) lies between ``min`` and ``max``."""

    #: How messages name the measured quantity ('' for the value itself).
    measure_label = ""

    def _set_bounds(self, min: Any, max: Any) -> None:
        name = type(self).__name__
        if min is None and max is None:
            raise exception.InvalidSchemaError(f"A {name} constraint needs a min and/or a max")
        if min is not None and max is not None and min > max:
            raise exception.InvalidSchemaError(f"{name} min {min} is greater than max {max}")
        self.min = min
        self.max = max

    def _measure(self, value: Any) -> float:
        """Return the measured quantity of *value*; ValueError with a message when it has none."""
        raise ValueError(f"{value!r} cannot be measured")

    def _failure(self, value: Any, schema: Schema | None, context: Any) -> str | None:
        try:
            measured = self._measure(value)
        except ValueError as ex:
            return str(ex)
        if self.min is not None and measured < self.min:
            return f"{self.measure_label}{measured} is less than the minimum {self.min}"
        if self.max is not None and measured > self.max:
            return f"{self.measure_label}{measured} is greater than the maximum {self.max}"
        return None

    def _summary(self) -> str:
        return f"{type(self).__name__}(min={self.min}, max={self.max})"

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description including the bounds."""
        return {**super().to_dict(), "min": self.min, "max": self.max}


class Range(_Bounded):
    """A numeric value between ``min`` and ``max`` (inclusive; either may be omitted)."""

    valid_types = (Schema.INTEGER, Schema.NUMBER)

    def __init__(
        self, min: float | None = None, max: float | None = None, description: str | None = None
    ) -> None:
        super().__init__(description)
        self._set_bounds(_number_or_none("Range", "min", min), _number_or_none("Range", "max", max))

    def _measure(self, value: Any) -> float:
        try:
            return Schema.str_to_num(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a number") from None


class Length(_Bounded):
    """The length of a string, list or map is between ``min`` and ``max``."""

    valid_types = (Schema.STRING, Schema.LIST, Schema.MAP)
    measure_label = "length "

    def __init__(
        self, min: int | None = None, max: int | None = None, description: str | None = None
    ) -> None:
        super().__init__(description)
        for name, bound in (("min", min), ("max", max)):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)):
                raise exception.InvalidSchemaError(
                    f"Length {name} must be an integer, got {bound!r}"
                )
        self._set_bounds(min, max)

    def _measure(self, value: Any) -> float:
        try:
            return len(value)
        except TypeError:
            raise ValueError(f"{value!r} has no length") from None


class Modulo(Constraint):
    """Valid values are ``offset`` plus any multiple of ``step``.

    Both are required integers; ``step`` is not zero, ``|offset| < |step|``
    and a non-zero offset has the same sign as the step.
    """

    valid_types = (Schema.INTEGER, Schema.NUMBER)

    def __init__(
        self, step: int | None = None, offset: int | None = None, description: str | None = None
    ) -> None:
        super().__init__(description)
        if step is None or offset is None:
            raise exception.InvalidSchemaError(
                "A Modulo constraint needs both a step and an offset"
            )
        for name, v in (("step", step), ("offset", offset)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise exception.InvalidSchemaError(f"Modulo {name} must be an integer, got {v!r}")
        if step == 0:
            raise exception.InvalidSchemaError("Modulo step cannot be 0")
        if abs(offset) >= abs(step):
            raise exception.InvalidSchemaError(
                f"Modulo offset {offset} must be smaller (in absolute value) than step {step}"
            )
        if step * offset < 0:
            raise exception.InvalidSchemaError(
                f"Modulo step {step} and offset {offset} must have the same sign"
            )
        self.step = step
        self.offset = offset

    def _failure(self, value: Any, schema: Schema | None, context: Any) -> str | None:
        try:
            num = Schema.str_to_num(value)
        except ValueError:
            return f"{value!r} is not a number"
        if num % self.step != self.offset:
            return f"{num} is not {self.offset} plus a multiple of {self.step}"
        return None

    def _summary(self) -> str:
        return f"Modulo(step={self.step}, offset={self.offset})"

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description including step and offset."""
        return {**super().to_dict(), "step": self.step, "offset": self.offset}


def _same(a: Any, b: Any) -> bool:
    """Equality that does not confuse ``True`` with ``1``."""
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


class AllowedValues(Constraint):
    """The value is one of ``allowed`` (for a list: every item is)."""

    valid_types = (
        Schema.STRING,
        Schema.INTEGER,
        Schema.NUMBER,
        Schema.BOOLEAN,
        Schema.LIST,
        Schema.ANY,
    )

    def __init__(self, allowed: Sequence[Any] | str, description: str | None = None) -> None:
        super().__init__(description)
        if isinstance(allowed, str):
            allowed = (allowed,)
        if not isinstance(allowed, Sequence):
            raise exception.InvalidSchemaError(
                f"AllowedValues needs a list of values, got {allowed!r}"
            )
        self.allowed = tuple(allowed)

    def _allowed_as(self, schema: Schema | None) -> list[Any]:
        if schema is None or schema.type in (Schema.LIST, Schema.ANY):
            return list(self.allowed)
        out = []
        for a in self.allowed:
            try:
                out.append(schema.to_schema_type(a))
            except ValueError:
                out.append(a)
        return out

    def _failure(self, value: Any, schema: Schema | None, context: Any) -> str | None:
        allowed = self._allowed_as(schema)
        shown = ", ".join(repr(a) for a in self.allowed)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not any(_same(item, a) for a in allowed):
                return f"{item!r} is not one of the allowed values: {shown}"
        return None

    def _summary(self) -> str:
        return f"AllowedValues({list(self.allowed)!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description including the allowed values."""
        return {**super().to_dict(), "allowed": list(self.allowed)}


class AllowedPattern(Constraint):
    """A string matching a regular expression as a whole."""

    valid_types = (Schema.STRING,)

    def __init__(self, pattern: str, description: str | None = None) -> None:
        super().__init__(description)
        if not isinstance(pattern, str):
            raise exception.InvalidSchemaError(
                f"AllowedPattern needs a regular expression string, got {pattern!r}"
            )
        try:
            self._regex = re.compile(pattern)
        except re.error as ex:
            raise exception.InvalidSchemaError(
                f"AllowedPattern {pattern!r} is not a valid regular expression: {ex}"
            ) from None
        self.pattern = pattern

    def _failure(self, value: Any, schema: Schema | None, context: Any) -> str | None:
        if not isinstance(value, str) or self._regex.fullmatch(value) is None:
            return f"{value!r} does not match pattern {self.pattern!r}"
        return None

    def _summary(self) -> str:
        return f"AllowedPattern({self.pattern!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description including the pattern."""
        return {**super().to_dict(), "pattern": self.pattern}


# -- custom constraints ----------------------------------------------------------


class CustomConstraint(Constraint):
    """A named constraint looked up in a registry when a value is checked.

    ``environment`` is a :class:`ConstraintRegistry` (or anything with a
    ``constraints`` attribute that is one); ``None`` means the default
    registry. The resource context is passed to the constraint.
    """

    valid_types = (
        Schema.STRING,
        Schema.INTEGER,
        Schema.NUMBER,
        Schema.BOOLEAN,
        Schema.LIST,
        Schema.ANY,
    )

    def __init__(self, name: str, description: str | None = None, environment: Any = None) -> None:
        super().__init__(description)
        if not isinstance(name, str) or not name:
            raise exception.InvalidSchemaError(
                f"CustomConstraint needs a constraint name, got {name!r}"
            )
        self.name = name
        self.environment = environment

    def registry(self) -> ConstraintRegistry:
        """Return the registry this constraint is looked up in."""
        env = self.environment
        if env is None:
            return _DEFAULT_REGISTRY
        if isinstance(env, ConstraintRegistry):
            return env
        nested = getattr(env, "constraints", None)
        if isinstance(nested, ConstraintRegistry):
            return nested
        raise exception.ConfigurationError(
            f"CustomConstraint '{self.name}': environment {env!r} has no constraint registry"
        )

    def _failure(self, value: Any, schema: Schema | None, context: Any) -> str | None:
        try:
            checker = self.registry().get(self.name)
        except exception.PlugsimError as ex:
            return str(ex)
        items = value if isinstance(value, list) else [value]
        for item in items:
            try:
                valid = checker.validate(item, context)
            except (ValueError, exception.PlugsimError) as ex:
                valid, checker._error_message = False, str(ex)
            if not valid:
                return (
                    f"{item!r} does not satisfy the custom constraint '{self.name}': "
                    f"{checker.error(item)}"
                )
        return None

    def _summary(self) -> str:
        return f"CustomConstraint({self.name!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description including the constraint name."""
        return {**super().to_dict(), "name": self.name}
