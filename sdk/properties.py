"""Property schemas and the :class:`Properties` mapping a plug-in reads.

A plug-in declares ``properties_schema = {name: Schema(...)}``. The engine
wraps the template's ``properties:`` section in :class:`Properties`; reading
``self.properties['name']`` gives the value resolved (intrinsic functions
evaluated by the engine's resolver), converted to the declared type, with the
default applied, or the type's empty value when nothing was set.
:meth:`Properties.validate` checks everything and reports the full template
path of the first problem, e.g.
``resources.web.properties.ports[2].number: 70000 is greater than the maximum 65535``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from sdk import constraints as constr
from sdk import exception, support


class ValueNotYetKnown(Exception):  # noqa: N818 - the name says what it means
    """Raised by a resolver when a value depends on something not yet created.

    Deliberately not a :class:`sdk.exception.PlugsimError`: it is a signal
    between the engine's resolver and :class:`Properties`, not an error.
    """


class Schema(constr.Schema):
    """The schema of one resource property.

    ``schema`` describes the members of a MAP (a dict of Schemas) or the
    items of a LIST (one Schema; a dict of Schemas means "each item is a map
    with this schema"). Plain dicts nested inside are converted to Schemas.
    ``update_allowed`` and ``immutable`` cannot both be true.
    """

    UPDATE_ALLOWED = "update_allowed"
    IMMUTABLE = "immutable"

    def __init__(
        self,
        data_type: str,
        description: str | None = None,
        default: Any = None,
        schema: Any = None,
        required: bool = False,
        constraints: Sequence[constr.Constraint] | None = None,
        update_allowed: bool = False,
        immutable: bool = False,
        support_status: support.SupportStatus | None = None,
    ) -> None:
        if update_allowed and immutable:
            raise exception.InvalidSchemaError(
                f"{self.UPDATE_ALLOWED} and {self.IMMUTABLE} cannot both be True"
            )
        if support_status is None:
            support_status = support.SupportStatus()
        if not isinstance(support_status, support.SupportStatus):
            raise exception.InvalidSchemaError(
                f"support_status must be a SupportStatus, got {support_status!r}"
            )
        self.update_allowed = bool(update_allowed)
        self.support_status = support_status
        super().__init__(
            data_type,
            description=description,
            default=default,
            schema=schema,
            required=required,
            constraints=constraints,
            immutable=immutable,
        )

    def _nested(self, schema: Any) -> Any:
        if (
            schema is not None
            and self.type == self.LIST
            and isinstance(schema, Mapping)
            and not _looks_like_schema_dict(schema)
        ):
            schema = Schema(self.MAP, schema=schema)
        elif self.type == self.LIST and isinstance(schema, Mapping):
            schema = Schema.from_dict(schema)
        nested = super()._nested(schema)
        if isinstance(nested, dict):
            nested = schemata(nested)
        return nested

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Schema:
        """Build a Schema from a plain dict of the constructor's arguments.

        ``type`` (or ``data_type``) names the type; other keys are the
        keyword arguments of the constructor.
        """
        if isinstance(data, Schema):
            return data
        if not isinstance(data, Mapping):
            raise exception.InvalidSchemaError(
                f"A property schema must be a Schema or a dict, got {data!r}"
            )
        kwargs = dict(data)
        data_type = kwargs.pop("type", kwargs.pop("data_type", None))
        if data_type is None:
            raise exception.InvalidSchemaError(f"A property schema needs a 'type': {dict(data)!r}")
        allowed = {
            "description",
            "default",
            "schema",
            "required",
            "constraints",
            "update_allowed",
            "immutable",
            "support_status",
        }
        unknown = sorted(str(k) for k in kwargs if k not in allowed)
        if unknown:
            raise exception.InvalidSchemaError(
                f"Unknown schema key(s) {', '.join(unknown)}; valid keys are: "
                f"type, {', '.join(sorted(allowed))}"
            )
        return cls(data_type, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Return a plain description of the schema (for docs and tools)."""
        out = super().to_dict()
        out[self.UPDATE_ALLOWED] = self.update_allowed
        out[self.IMMUTABLE] = self.immutable
        out["support_status"] = self.support_status.to_dict()
        return out


def _looks_like_schema_dict(data: Mapping[str, Any]) -> bool:
    """True when *data* is one schema written as a dict (has a string 'type')."""
    return isinstance(data.get("type"), str) and data.get("type") in constr.Schema.TYPES


class _Schemata(dict[str, Any]):
    """A dict :func:`schemata` already converted (so converting it again is free).

    Whoever changes it afterwards must keep every value a :class:`Schema`.
    """

    __slots__ = ()


def schemata(schema_dict: Mapping[str, Any]) -> dict[str, Schema]:
    """Return *schema_dict* with every value a :class:`Schema`.

    Plain dicts are converted with :meth:`Schema.from_dict`; an invalid one
    raises :class:`sdk.exception.InvalidSchemaError` naming the property.
    """
    if type(schema_dict) is _Schemata:
        return schema_dict
    if not isinstance(schema_dict, Mapping):
        raise exception.InvalidSchemaError(
            f"A properties schema must be a dict of Schemas, got {schema_dict!r}"
        )
    out = _Schemata()
    for name, value in schema_dict.items():
        if isinstance(value, Schema):
            out[name] = value
            continue
        if isinstance(value, constr.Schema):
            raise exception.InvalidSchemaError(
                f"Property {name}: expected a properties.Schema, got {type(value).__name__}"
            )
        try:
            out[name] = Schema.from_dict(value)
        except exception.InvalidSchemaError as ex:
            raise exception.InvalidSchemaError(f"Property {name}: {ex}") from None
    return out


def update_allowed_properties(schema: Mapping[str, Schema]) -> tuple[str, ...]:
    """Return the names (in schema order) of properties with ``update_allowed``."""
    return tuple(name for name, s in schemata(schema).items() if s.update_allowed)


def immutable_properties(schema: Mapping[str, Schema]) -> tuple[str, ...]:
    """Return the names (in schema order) of properties marked ``immutable``."""
    return tuple(name for name, s in schemata(schema).items() if s.immutable)


def validate_schemata(schema_dict: Mapping[str, Any], context: Any = None) -> None:
    """Check a properties schema, including every default, by property name.

    Raises :class:`sdk.exception.InvalidSchemaError` whose message starts
    with the dotted name of the offending property (``Property web.port: ...``).
    """
    for name, s in schemata(schema_dict).items():
        _validate_schema(s, str(name), context)


def _validate_schema(s: Schema, where: str, context: Any) -> None:
    if s.default is not None:
        try:
            Property(s, name=where, context=context).get_value(s.default, validate=True)
        except exception.StackValidationFailed as ex:
            raise exception.InvalidSchemaError(
                f"Property {where}: invalid default {s.default!r}: {ex.error_message}"
            ) from None
    if isinstance(s.schema, Schema):
        _validate_schema(s.schema, f"{where}[*]", context)
    elif isinstance(s.schema, dict):
        for child, cs in s.schema.items():
            _validate_schema(cs, f"{where}.{child}", context)


class Property:
    """One property: its schema, its name and where it sits in the template.

    ``path`` is the path of the mapping that holds the property; the
    property's own path is ``path + [name]``.
    """

    def __init__(
        self,
        schema: Schema | Mapping[str, Any],
        name: str | int | None = None,
        context: Any = None,
        path: Sequence[Any] = (),
    ) -> None:
        self.schema = schema if isinstance(schema, Schema) else Schema.from_dict(schema)
        self.name = name
        self.context = context
        self.path = list(path) + ([name] if name is not None else [])

    @classmethod
    def _make(cls, schema: Schema, name: str | int, context: Any, base: Sequence[Any]) -> Property:
        """Build a Property from an already converted schema (the hot path of Properties)."""
        prop = cls.__new__(cls)
        prop.schema = schema
        prop.name = name
        prop.context = context
        prop.path = [*base, name]
        return prop

    def required(self) -> bool:
        """Return True if the property must be given."""
        return self.schema.required

    def update_allowed(self) -> bool:
        """Return True if the property can change without replacement."""
        return self.schema.update_allowed

    def immutable(self) -> bool:
        """Return True if the property can never change."""
        return self.schema.immutable

    def has_default(self) -> bool:
        """Return True if the schema declares a default."""
        return self.schema.default is not None

    def default(self) -> Any:
        """Return the declared default (None if there is none)."""
        return self.schema.default

    def type(self) -> str:
        """Return the type name."""
        return self.schema.type

    def support_status(self) -> support.SupportStatus:
        """Return the support status."""
        return self.schema.support_status

    def _fail(
        self, message: str, path: Sequence[Any] | None = None
    ) -> exception.StackValidationFailed:
        return exception.StackValidationFailed(
            error_message=message, path=list(self.path if path is None else path)
        )

    def get_value(self, value: Any, validate: bool = False) -> Any:
        """Return *value* converted to the property's type.

        ``None`` gives the default (or the type's empty value). With
        *validate*, nested members and the constraints are checked too.
        Raises :class:`sdk.exception.StackValidationFailed` with the full path.
        """
        schema = self.schema
        if value is None:
            if schema.default is None:
                # Unset: the type's empty value; a map with a schema still
                # carries its members' defaults. Nothing to validate here.
                value, validate = schema.empty_value(), False
            else:
                value = schema.default
        try:
            converted = schema.to_schema_type(value)
        except ValueError as ex:
            raise self._fail(str(ex)) from None
        if converted is None:
            return None  # a schema whose empty value is None (Heat's unset property)
        if schema.schema is not None:
            if schema.type == Schema.MAP:
                converted = self._get_map_children(converted, validate)
            elif schema.type == Schema.LIST:
                converted = self._get_list_items(converted, validate)
        if validate and schema.constraints:
            schema.validate_constraints(converted, self.context, self.path)
        return converted

    def _get_map_children(self, value: dict[Any, Any], validate: bool) -> dict[str, Any]:
        children = Properties(self.schema.schema, value, context=self.context, path=self.path)
        if validate:
            children.validate()
        return {key: children._get_property_value(key, strict=False) for key in children}

    def _get_list_items(self, value: list[Any], validate: bool) -> list[Any]:
        item_schema = self.schema.schema
        return [
            Property(item_schema, i, self.context, self.path).get_value(item, validate)
            for i, item in enumerate(value)
        ]


def _identity(value: Any) -> Any:
    return value


class Properties(Mapping[str, Any]):
    """The properties of one resource: a read-only mapping over the schema.

    ``data`` is the raw user data (``props.data``); ``resolver`` turns a raw
    value into a plain one (intrinsic functions) on every access and may
    raise :class:`ValueNotYetKnown`. ``path`` is the template path of the
    properties section (e.g. ``('resources', 'web', 'properties')``); when
    it is empty and ``parent_name`` is given, errors start with that name.
    """

    def __init__(
        self,
        schema: Mapping[str, Schema | Mapping[str, Any]],
        data: Mapping[str, Any] | None,
        resolver: Callable[[Any], Any] | None = None,
        context: Any = None,
        path: Sequence[Any] = (),
        parent_name: str | None = None,
    ) -> None:
        self.schema = schemata(schema)
        self.data = {} if data is None else data
        self.resolve = resolver if resolver is not None else _identity
        self.context = context
        self.parent_name = parent_name
        if path:
            self.path = list(path)
        elif parent_name is not None:
            self.path = [parent_name]
        else:
            self.path = []
        # Property objects are built on first use: most resources read only a
        # few of their properties, and the path each one carries is fixed now.
        self._base = tuple(self.path)
        self._props: dict[str, Property] = {}
        self._complete = False

    @property
    def props(self) -> dict[str, Property]:
        """The :class:`Property` of every schema entry, by name, in schema order."""
        if not self._complete:
            self._props = {name: self._prop(name) for name in self.schema}
            self._complete = True
        return self._props

    def _prop(self, name: str) -> Property:
        prop = self._props.get(name)
        if prop is None:
            prop = Property._make(self.schema[name], name, self.context, self._base)
            self._props[name] = prop
        return prop

    # -- mapping protocol ---------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        return self._get_property_value(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.schema)

    def __len__(self) -> int:
        return len(self.schema)

    def __contains__(self, key: object) -> bool:
        return key in self.schema

    def __repr__(self) -> str:
        return f"Properties({list(self.props)!r}, data={self.data!r})"

    # -- values ---------------------------------------------------------------

    def _user_data(self) -> Mapping[str, Any]:
        if type(self.data) is not dict and not isinstance(self.data, Mapping):
            raise exception.StackValidationFailed(
                error_message=f"Properties must be a map, got {self.data!r}", path=self.path
            )
        return self.data

    def _is_set(self, key: str) -> bool:
        data = self._user_data()
        return key in data and data[key] is not None

    def _check_key(self, key: str) -> Property:
        try:
            return self._prop(key)
        except (KeyError, TypeError):
            where = exception.format_path(self.path)
            suffix = f" (in {where})" if where else ""
            raise KeyError(f"Invalid Property {key}{suffix}") from None

    def get_user_value(self, key: str, validate: bool = False) -> Any:
        """Return the converted value the user set for *key*, or None if unset."""
        prop = self._check_key(key)
        if not self._is_set(key):
            return None
        raw = self._user_data()[key]
        value = self.resolve(raw)
        return prop.get_value(value, validate)

    def _get_property_value(self, key: str, validate: bool = False, strict: bool = True) -> Any:
        prop = self._props.get(key) if type(key) is str else None
        if prop is None:
            prop = self._check_key(key)
        data = self.data
        if type(data) is dict:
            raw = data.get(key)
        else:
            data = self._user_data()
            raw = data[key] if key in data else None
        if raw is not None:
            return prop.get_value(self.resolve(raw), validate)
        if strict and prop.schema.required and prop.schema.default is None:
            raise exception.StackValidationFailed(
                error_message=f"Property {key} not assigned", path=self.path
            )
        return prop.get_value(None, validate)

    def validate(self, with_value: bool = True) -> None:
        """Check the data against the schema.

        Unknown keys, missing required properties, wrong types, broken
        constraints and invalid nested members raise
        :class:`sdk.exception.StackValidationFailed` naming the full path. A
        value whose resolver raises :class:`ValueNotYetKnown` is only checked
        for presence.
        """
        data = self._user_data()
        for key in data:
            if key not in self.schema:
                raise exception.StackValidationFailed(
                    error_message=f"Unknown Property {key}", path=self.path
                )
        for key, schema in self.schema.items():
            raw = data[key] if key in data else None
            if raw is None:
                if schema.required and schema.default is None:
                    raise exception.StackValidationFailed(
                        error_message=f"Property {key} not assigned", path=self.path
                    )
                if schema.default is None and schema.schema is None:
                    # Unset, no default, no members: the type's empty value,
                    # which has nothing to check.
                    continue
            if not with_value:
                continue
            try:
                prop = self._prop(key)
                prop.get_value(None if raw is None else self.resolve(raw), True)
            except ValueNotYetKnown:
                continue
            except exception.StackValidationFailed:
                raise
            except (exception.PlugsimError, ValueError, TypeError, KeyError) as ex:
                message = ex.args[0] if isinstance(ex, KeyError) and ex.args else str(ex)
                raise exception.StackValidationFailed(
                    error_message=str(message), path=[*self.path, key]
                ) from ex
