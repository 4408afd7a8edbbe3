"""Named custom constraints: the base class and the registry.

Authors import these names from :mod:`sdk.constraints`; this module only
keeps that one small enough to read. A custom constraint is a class derived
from :class:`BaseCustomConstraint`, registered under a name from Python
(:func:`register_constraint`) or published through the entry-point group
``plugsim.constraints``. A :class:`ConstraintRegistry` loads the group once,
lazily; an entry point that fails to load is reported, never fatal.
"""

from __future__ import annotations

import logging
from typing import Any

from sdk import exception
from sdk._entry_points import group_entry_points

LOG = logging.getLogger("sdk.constraints")

ENTRY_POINT_GROUP = "plugsim.constraints"


class BaseCustomConstraint:
    """Base class of named custom constraints (Heat's ``BaseCustomConstraint``).

    :meth:`validate` calls :meth:`validate_with_client` with the resource
    context, which plays the part of Heat's ``context.clients``: it offers
    ``client_plugin(name)``. The default :meth:`validate_with_client` calls
    the method ``resource_getter_name`` of the client plug-in (or of its
    client) named ``resource_client_name`` with the value. Exceptions listed
    in ``expected_exceptions`` mean "invalid value"; their text becomes the
    failure message. A constraint that needs no client overrides
    :meth:`validate` itself and returns a bool (setting ``_error_message``).
    """

    #: Exceptions that mean the value is invalid (anything else propagates).
    expected_exceptions: tuple[type[BaseException], ...] = (ValueError,)
    #: Name of the client (in the resource context) used for the check.
    resource_client_name: str | None = None
    #: Method of the client plug-in (or its client) called with the value.
    resource_getter_name: str | None = None

    def __init__(self) -> None:
        self._error_message: str | None = None

    @property
    def message(self) -> str | None:
        """The reason the last validation failed, if it said one."""
        return self._error_message

    def error(self, value: Any) -> str:
        """Return the failure text for *value* (used in the ValueError)."""
        return self._error_message or f"{value!r} is not valid"

    def validate(self, value: Any, context: Any = None) -> bool:
        """Return True when *value* is valid; False (with a message) when not.

        Without a context there are no clients to check against and the
        value is accepted.
        """
        self._error_message = None
        if context is None:
            return True
        try:
            self.validate_with_client(context, value)
        except self.expected_exceptions as ex:
            self._error_message = str(ex) or type(ex).__name__
            return False
        return True

    def validate_with_client(self, client: Any, value: Any) -> None:
        """Check *value* through *client* (the context); raise when invalid."""
        if self.resource_client_name is None or self.resource_getter_name is None:
            raise exception.InvalidSchemaError(
                f"Custom constraint {type(self).__name__} must set resource_client_name and "
                "resource_getter_name, or override validate_with_client or validate"
            )
        plugin = client.client_plugin(self.resource_client_name)
        getter = getattr(plugin, self.resource_getter_name, None)
        if getter is None:
            getter = getattr(plugin.client(), self.resource_getter_name)
        getter(value)


class ConstraintRegistry:
    """Named custom constraints: registered from Python and from entry points.

    The entry-point group is read once, lazily, the first time a name is
    looked up or listed. An entry point that fails to load is recorded in
    :attr:`load_errors` (and logged); it never stops the others.
    """

    def __init__(self, group: str | None = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._classes: dict[str, type[BaseCustomConstraint]] = {}
        self._origins: dict[str, str] = {}
        self._loaded = group is None
        #: ``(entry point, message)`` for every entry point that failed to load.
        self.load_errors: list[tuple[str, str]] = []

    def register(self, name: str, cls: type[BaseCustomConstraint], origin: str = "python") -> None:
        """Register *cls* under *name*; a Python registration replaces an earlier one."""
        if not isinstance(name, str) or not name:
            raise exception.PluginLoadError(
                f"A custom constraint name must be a non-empty string, got {name!r}"
            )
        if not (isinstance(cls, type) and issubclass(cls, BaseCustomConstraint)):
            raise exception.PluginLoadError(
                f"Custom constraint '{name}' must be a BaseCustomConstraint subclass, got {cls!r}"
            )
        self._classes[name] = cls
        self._origins[name] = origin

    def _load_entry_points(self) -> None:
        if self._loaded or self.group is None:
            return
        self._loaded = True
        try:
            eps = sorted(group_entry_points(self.group), key=lambda ep: (ep.name, ep.value))
        except Exception as ex:  # a broken distribution must not stop the engine
            self._report(f"group {self.group}", f"{type(ex).__name__}: {ex}")
            return
        for ep in eps:
            where = f"{ep.name} = {ep.value}"
            if ep.name in self._classes:
                if self._origins[ep.name] != "python":
                    self._report(
                        where,
                        f"custom constraint '{ep.name}' is also provided by "
                        f"{self._origins[ep.name]}; keeping that one",
                    )
                continue
            try:
                cls = ep.load()
                self.register(ep.name, cls, origin=f"entry point {where}")
            except Exception as ex:  # report, never crash
                self._report(where, f"{type(ex).__name__}: {ex}")

    def _report(self, where: str, message: str) -> None:
        self.load_errors.append((where, message))
        LOG.warning("Could not load custom constraint %s: %s", where, message)

    def get(self, name: str) -> BaseCustomConstraint:
        """Return a fresh instance of the constraint named *name*.

        Raises :class:`sdk.exception.EntityNotFound` naming the known names.
        """
        self._load_entry_points()
        try:
            cls = self._classes[name]
        except (KeyError, TypeError):
            known = ", ".join(self.names()) or "none"
            raise exception.EntityNotFound(
                f"The custom constraint ({name}) could not be found (registered: {known})"
            ) from None
        return cls()

    def names(self) -> list[str]:
        """Return the registered names, sorted."""
        self._load_entry_points()
        return sorted(self._classes)

    def __contains__(self, name: object) -> bool:
        self._load_entry_points()
        return name in self._classes


_DEFAULT_REGISTRY = ConstraintRegistry()


def default_registry() -> ConstraintRegistry:
    """Return the process-wide registry used when no environment is given."""
    return _DEFAULT_REGISTRY


def register_constraint(name: str, cls: type[BaseCustomConstraint]) -> None:
    """Register *cls* under *name* in the default registry."""
    _DEFAULT_REGISTRY.register(name, cls)


def get_constraint(name: str) -> BaseCustomConstraint:
    """Return an instance of the custom constraint *name* from the default registry."""
    return _DEFAULT_REGISTRY.get(name)


def registered_constraints() -> list[str]:
    """Return the names in the default registry, sorted."""
    return _DEFAULT_REGISTRY.names()
