"""The contents of each shim module (``heat.*``, ``oslo_utils.timeutils``, ``oslo_log.log``).

:data:`BUILDERS` maps each module name to a builder returning its public
names; :func:`shim_imports` serves them through the import machinery of
:mod:`simulator.heat_compat._finder`. The classes are
plugsim's (:mod:`sdk`) or the compat layer's own, never Heat's.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib.util
import logging
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sdk import attributes as sdk_attributes
from sdk import constraints as sdk_constraints
from sdk import exception, i18n, support
from sdk import properties as sdk_properties
from simulator.heat_compat import _finder, _vtime
from simulator.heat_compat.nested_shims import NESTED_BUILDERS
from simulator.heat_compat.neutron_lib_defs import BUILDERS as NEUTRON_LIB_BUILDERS


class _HeatSchemaKeys:
    """The schema key names Heat exposes on its ``Schema`` classes."""

    KEYS = (TYPE, DESCRIPTION, DEFAULT, SCHEMA, REQUIRED, CONSTRAINTS, IMMUTABLE) = (
        "type",
        "description",
        "default",
        "schema",
        "required",
        "constraints",
        "immutable",
    )


class ConstraintsSchema(_HeatSchemaKeys, sdk_constraints.Schema):
    """``heat.engine.constraints.Schema``: sdk's schema with Heat's key names (and ``label``)."""

    def __init__(
        self,
        data_type: str,
        description: str | None = None,
        default: Any = None,
        schema: Any = None,
        required: bool = False,
        constraints: Any = None,
        label: str | None = None,
        immutable: bool = False,
    ) -> None:
        # Heat's parameter schemas (heat.engine.parameters, borrowed) pass their label here
        super().__init__(
            data_type,
            description=description,
            default=default,
            schema=schema,
            required=required,
            constraints=constraints,
            immutable=immutable,
        )
        self.label = label


class PropertiesSchema(_HeatSchemaKeys, sdk_properties.Schema):
    """``heat.engine.properties.Schema``; accepts Heat's ``implemented`` and ``allow_conversion``."""

    UPDATE_ALLOWED = "update_allowed"

    def __init__(
        self,
        data_type: str,
        description: str | None = None,
        default: Any = None,
        schema: Any = None,
        required: bool = False,
        constraints: Any = None,
        implemented: bool = True,
        update_allowed: bool = False,
        immutable: bool = False,
        support_status: support.SupportStatus | None = None,
        allow_conversion: bool = False,
    ) -> None:
        super().__init__(
            data_type,
            description=description,
            default=default,
            schema=schema,
            required=required,
            constraints=constraints,
            update_allowed=update_allowed,
            immutable=immutable,
            support_status=support_status,
        )
        self.implemented = bool(implemented)
        self.allow_conversion = bool(allow_conversion)
        if self.type == self.LIST and default is not None and not default and default != []:
            # Heat reads a list whose default is empty ('' in contrib heat_docker, {} in
            # NetworkGateway's connections) as [] (Property._get_list: ``default or []``)
            self.heat_default = default
            self.default = None

    @classmethod
    def from_parameter(cls, param: Any) -> PropertiesSchema:
        """The property schema of a parameter schema (``heat.engine.parameters.Schema``).

        Heat builds one for a software config input with a ``type``: the
        parameter's type becomes the property's (Json and anything unknown a
        map), list and map allow conversion, and it may always be updated.
        """
        types = {
            param.STRING: cls.STRING,
            param.NUMBER: cls.NUMBER,
            param.LIST: cls.LIST,
            param.MAP: cls.MAP,
            param.BOOLEAN: cls.BOOLEAN,
        }
        return cls(
            types.get(param.type, cls.MAP),
            description=param.description,
            required=param.required,
            constraints=param.constraints,
            update_allowed=True,
            immutable=False,
            allow_conversion=param.type in (param.MAP, param.LIST),
        )

    def _check_default(self, default: Any) -> None:
        """Check a default against the constraints only, as Heat does.

        Heat does not convert the default to the property's type first, so a
        ``''`` default of a list (contrib heat_docker's) is accepted.
        """
        try:
            value = self.to_schema_type(default)
        except (ValueError, TypeError):
            value = default
        try:
            self.validate_constraints_raw(value, skipped=(sdk_constraints.CustomConstraint,))
        except (ValueError, TypeError) as ex:
            raise exception.InvalidSchemaError(f"Invalid default {default!r}: {ex}") from None

    def empty_value(self) -> Any:
        """An unset property without a default is None in Heat, whatever its type.

        sdk gives the type's zero value (``''``, ``0``, ``[]``, ``{}``); Heat's
        plug-ins drop None values before calling the cloud (``prepare_properties``),
        so an empty list would reach the API as an attribute the user never set.
        """
        if hasattr(self, "heat_default"):
            return []  # Heat reads an empty default of a list ('', {}) as []
        return None


class HOTParamSchema:
    """``heat.engine.hot.parameters.HOTParamSchema``: the HOT parameter type names."""

    TYPES = (STRING, NUMBER, LIST, MAP, BOOLEAN) = (
        "string",
        "number",
        "comma_delimited_list",
        "json",
        "boolean",
    )


class TestConstraintDelay(sdk_constraints.BaseCustomConstraint):
    """Heat's ``test_constr``: waits the value's number of (virtual) seconds, always valid."""

    def validate(self, value: Any, context: Any = None) -> bool:
        """Spend *value* virtual seconds; always valid."""
        _vtime.sleep(float(value or 0))
        return True


def _package() -> dict[str, Any]:
    return {}


def _exception() -> dict[str, Any]:
    from simulator.heat_compat import exceptions

    return exceptions.names()


def _i18n() -> dict[str, Any]:
    return {"_": i18n._}


def _password_gen() -> dict[str, Any]:
    from simulator.heat_compat import password_gen as pg

    return {k: getattr(pg, k) for k in dir(pg) if not k.startswith("_") and k.isupper()} | {
        "CharClass": pg.CharClass,
        "named_char_class": pg.named_char_class,
        "special_char_class": pg.special_char_class,
        "generate_password": pg.generate_password,
        "generate_openstack_password": pg.generate_openstack_password,
    }


def _resource() -> dict[str, Any]:
    from sdk import exception as sdk_exc
    from simulator.heat_compat.exceptions import NoActionRequired
    from simulator.heat_compat.resource import HeatResource

    return {
        "Resource": HeatResource,
        "UpdateReplace": sdk_exc.UpdateReplace,
        "NoActionRequired": NoActionRequired,
        "PollDelay": sdk_exc.PollDelay,
    }


def _properties() -> dict[str, Any]:
    return {
        "Schema": PropertiesSchema,
        "Properties": sdk_properties.Properties,
        "Property": sdk_properties.Property,
        "schemata": sdk_properties.schemata,
    }


def _constraints() -> dict[str, Any]:
    return {
        "Schema": ConstraintsSchema,
        "Constraint": sdk_constraints.Constraint,
        "Range": sdk_constraints.Range,
        "Length": sdk_constraints.Length,
        "Modulo": sdk_constraints.Modulo,
        "AllowedValues": sdk_constraints.AllowedValues,
        "AllowedPattern": sdk_constraints.AllowedPattern,
        "CustomConstraint": sdk_constraints.CustomConstraint,
        "BaseCustomConstraint": sdk_constraints.BaseCustomConstraint,
    }


def select_from_attribute(value: Any, path: Any) -> Any:
    """Heat's ``select_from_attribute``: follow *path* into *value*; None where it leads nowhere."""
    for key in path:
        if isinstance(value, str | bytes) or not isinstance(value, Mapping | Sequence):
            return None
        if not isinstance(key, str | int):
            return None
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _attributes() -> dict[str, Any]:
    return {
        "Schema": sdk_attributes.Schema,
        "Attributes": sdk_attributes.Attributes,
        "schemata": sdk_attributes.schemata,
        "select_from_attribute": select_from_attribute,
    }


def _support() -> dict[str, Any]:
    return {
        "SupportStatus": support.SupportStatus,
        "UNKNOWN": support.UNKNOWN,
        "SUPPORTED": support.SUPPORTED,
        "DEPRECATED": support.DEPRECATED,
        "UNSUPPORTED": support.UNSUPPORTED,
        "HIDDEN": support.HIDDEN,
        "SUPPORT_STATUSES": support.SUPPORT_STATUSES,
    }


def _translation() -> dict[str, Any]:
    from simulator.heat_compat.translation import TranslationRule

    return {"TranslationRule": TranslationRule}


def _lifecycle_plugin() -> dict[str, Any]:
    from simulator.heat_compat.lifecycle import LifecyclePlugin

    return {"LifecyclePlugin": LifecyclePlugin}


def _hot_parameters() -> dict[str, Any]:
    return {"HOTParamSchema": HOTParamSchema}


def _rsrc_defn() -> dict[str, Any]:
    from simulator.heat_compat.nested_template import HeatResourceDefinition

    return {"ResourceDefinition": HeatResourceDefinition}


def _parse_isotime(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def _normalize_time(stamp: datetime.datetime) -> datetime.datetime:
    offset = stamp.utcoffset()
    if offset is None:
        return stamp
    return stamp.replace(tzinfo=None) - offset


def _virtual_timeutils() -> dict[str, Any]:
    """The clock functions of ``oslo_utils.timeutils`` on virtual time (no real library)."""

    def isotime(at: datetime.datetime | None = None) -> str:
        return (at or _vtime.utcnow()).strftime("%Y-%m-%dT%H:%M:%SZ")

    def is_older_than(before: datetime.datetime, seconds: float) -> bool:
        return _vtime.utcnow() - before > datetime.timedelta(seconds=seconds)

    return {
        "utcnow": _vtime.utcnow,
        "utcnow_ts": _vtime.now,
        "parse_isotime": _parse_isotime,
        "normalize_time": _normalize_time,
        "isotime": isotime,
        "is_older_than": is_older_than,
    }


def _utcnow(with_timezone: bool = False) -> datetime.datetime:
    """``timeutils.utcnow`` on the running resource's virtual clock."""
    stamp = _vtime.utcnow()
    return stamp.replace(tzinfo=datetime.UTC) if with_timezone else stamp


def _timeutils() -> dict[str, Any]:
    """``oslo_utils.timeutils``: the real module's own copy, its clock made virtual.

    The copy's ``utcnow`` and ``time`` follow the running resource's clock, so
    everything built on them (``is_older_than``, ``utcnow_ts``, ``StopWatch``,
    ``delta_seconds`` ...) does too; the process's real module is untouched.
    Without a real oslo_utils, the clock functions alone are served.
    """
    package = sys.modules.get("oslo_utils")
    source = None
    for directory in getattr(package, "__path__", None) or ():
        candidate = Path(directory) / "timeutils.py"
        if candidate.is_file():
            source = candidate
            break
    if source is None:
        return _virtual_timeutils()
    spec = importlib.util.spec_from_file_location("oslo_utils.timeutils", source)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    namespace = vars(copy)
    namespace["utcnow"] = _utcnow
    namespace["time"] = _vtime.VirtualTime()
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def _heat_config() -> dict[str, Any]:
    from simulator.heat_compat import heat_config

    return heat_config.module_names()


def _client_modules() -> dict[str, Callable[[], dict[str, Any]]]:
    """Heat's client plug-in modules the compat layer imitates (``heat.engine.clients.os.*``)."""
    from simulator.heat_compat import client_modules

    return client_modules.BUILDERS


def _log() -> dict[str, Any]:
    return {"getLogger": logging.getLogger}


_TABLE: dict[str, Callable[[], dict[str, Any]]] = {
    "heat": _package,
    "heat.common": _package,
    "heat.common.config": _heat_config,
    "heat.common.exception": _exception,
    "heat.common.i18n": _i18n,
    "heat.common.password_gen": _password_gen,
    "heat.engine": _package,
    "heat.engine.resource": _resource,
    "heat.engine.properties": _properties,
    "heat.engine.constraints": _constraints,
    "heat.engine.attributes": _attributes,
    "heat.engine.support": _support,
    "heat.engine.translation": _translation,
    "heat.engine.rsrc_defn": _rsrc_defn,
    "heat.engine.lifecycle_plugin": _lifecycle_plugin,
    "heat.engine.hot": _package,
    "heat.engine.hot.parameters": _hot_parameters,
    "oslo_utils": _package,
    "oslo_utils.timeutils": _timeutils,
    "oslo_log": _package,
    "oslo_log.log": _log,
}
#: ``module name -> builder`` of every shim module.
BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    **_TABLE,
    **NESTED_BUILDERS,
    **NEUTRON_LIB_BUILDERS,
    **_client_modules(),
}


def shim_imports(heat_source: Any = None) -> contextlib.AbstractContextManager[None]:
    """Serve the shim modules while the block runs; restore :data:`sys.modules` afterwards.

    *heat_source*: the installed ``heat`` package directory, whose
    ``heat.engine.resources`` modules then serve the plug-ins' shared bases.
    """
    return _finder.serving(BUILDERS, heat_source)


def shim_module(name: str) -> types.ModuleType:
    """Return (building once per process) the shim module *name*."""
    return _finder.shim_module(name, BUILDERS)
