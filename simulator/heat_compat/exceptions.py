"""``heat.common.exception`` under plugsim: Heat's exception names on sdk's hierarchy.

Each name a simple Heat plug-in raises maps onto the :mod:`sdk.exception`
class that means the same, so the engine classifies it the same way
(validation error, replacement request, resource failure ...). Messages are
plugsim's own wording.
"""

from __future__ import annotations

from typing import Any

from sdk import exception as sdk_exc


class HeatException(sdk_exc.PlugsimError):
    """Base of the Heat-style exceptions (``msg_fmt`` filled from keyword arguments)."""

    msg_fmt = "An unknown exception occurred."

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)


class Error(sdk_exc.PlugsimError):
    """A plain error with a message (Heat's ``exception.Error(msg)``)."""


class StackValidationFailed(sdk_exc.StackValidationFailed):
    """Heat's keyword order: ``(error=None, path=None, message=None, resource=None)``."""

    def __init__(
        self,
        error: str | None = None,
        path: Any = None,
        message: str | None = None,
        resource: Any = None,
        error_message: str | None = None,
    ) -> None:
        if error is not None and message is None and path is None and error_message is None:
            message, error = error, None
        super().__init__(message, error=error, path=path, error_message=error_message or message)
        self.resource = resource


class PropertyUnspecifiedError(sdk_exc.PropertyUnspecifiedError):
    """One of the named properties must be given."""

    def __init__(self, *args: str, **kwargs: Any) -> None:
        names = ", ".join(str(a) for a in args)
        super().__init__(f"At least one of the following properties must be specified: {names}")


class ResourcePropertyConflict(HeatException):
    """Properties that cannot be given together."""

    def __init__(self, *args: str, **kwargs: Any) -> None:
        names = ", ".join(str(a) for a in args)
        super().__init__(f"Cannot define the following properties at the same time: {names}")


class ResourcePropertyDependency(HeatException):
    """A property that needs another one."""

    msg_fmt = "%(prop1)s cannot be specified without %(prop2)s."


class ResourceActionNotSupported(HeatException):
    """An action the resource type does not support."""

    msg_fmt = "%(action)s is not supported for resource."


class ResourceNotAvailable(HeatException):
    """The resource is not available."""

    msg_fmt = "The Resource (%(resource_name)s) is not available."


class ResourceNotFound(sdk_exc.EntityNotFound):
    """A resource that does not exist in a stack."""

    msg_fmt = "The Resource (%(resource_name)s) could not be found in Stack %(stack_name)s."


class NotFound(HeatException):
    """Something was not found."""

    msg_fmt = "Not found"


class PhysicalResourceNameAmbiguity(HeatException):
    """A name given for a cloud object matches several of them."""

    msg_fmt = "More than one physical resource is named %(name)s."


class InvalidTemplateAttribute(sdk_exc.InvalidTemplateAttribute):
    """An attribute the resource does not have."""

    msg_fmt = "The Referenced Attribute (%(resource)s %(key)s) is incorrect."


class NoActionRequired(HeatException):
    """``heat.engine.resource.NoActionRequired``: a signal asked for nothing to do."""

    msg_fmt = "The resource %(res_name)s could not perform scaling action: %(reason)s"


class TemplateOutputError(HeatException):
    """An output of a nested stack could not be resolved."""

    msg_fmt = "Error in %(resource)s output %(attribute)s: %(message)s"


#: Heat names that are plugsim's own classes unchanged.
SAME = {
    "EntityNotFound": sdk_exc.EntityNotFound,
    "InvalidTemplateReference": sdk_exc.InvalidTemplateReference,
    "NotSupported": sdk_exc.NotSupported,
    "ResourceFailure": sdk_exc.ResourceFailure,
    "ResourceInError": sdk_exc.ResourceInError,
    "ResourceUnknownStatus": sdk_exc.ResourceUnknownStatus,
    "UpdateReplace": sdk_exc.UpdateReplace,
    "UpdateInProgress": sdk_exc.UpdateInProgress,
    "ActionInProgress": sdk_exc.ActionInProgress,
    "ResourceTypeNotFound": sdk_exc.ResourceTypeNotFound,
    "ResourceTypeUnavailable": sdk_exc.ResourceTypeUnavailable,
}


def names() -> dict[str, Any]:
    """The public names of the ``heat.common.exception`` shim."""
    own = {
        name: value
        for name, value in globals().items()
        if isinstance(value, type)
        and issubclass(value, Exception)
        and not name.startswith("_")
        and value.__module__ == __name__
    }
    return {**SAME, **own}
