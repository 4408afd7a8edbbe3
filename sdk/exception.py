"""The one exception hierarchy of plugsim.

Every user-facing error derives from :class:`PlugsimError`. Messages say what
went wrong, where (file, template path, plug-in or property) and, where it
helps, what to do. Client errors raised by the fake clouds derive from
:class:`ClientError` so that client plug-ins can classify them without
importing any backend.
"""

from __future__ import annotations

from typing import Any


class PlugsimError(Exception):
    """Base class of every error plugsim raises on purpose."""

    msg_fmt = "An unknown error occurred."

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


# --- schema and validation -------------------------------------------------


class InvalidSchemaError(PlugsimError):
    """A plug-in's schema is malformed (detected when the schema is built)."""

    msg_fmt = "Invalid schema: %(message)s"


class StackValidationFailed(PlugsimError):
    """A template, environment or property value failed validation.

    ``path`` is the location inside the template as a list of keys/indices,
    e.g. ``['resources', 'web', 'properties', 'ports', 2, 'number']``.
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        error: str | None = None,
        path: list[Any] | tuple[Any, ...] | str | None = None,
        error_message: str | None = None,
        source: str | None = None,
    ) -> None:
        if isinstance(path, str):
            path = [p for p in path.split(".") if p] if path else []
        self.path = list(path or [])
        self.error = error
        self.error_message = error_message if error_message is not None else message
        self.source = source
        if message is None or path is not None:
            message = format_validation_message(
                self.error_message or "", self.path, error=error, source=source
            )
        super().__init__(message)


def format_path(path: list[Any] | tuple[Any, ...]) -> str:
    """Render a template path as ``resources.web.properties.ports[2].number``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def format_validation_message(
    message: str,
    path: list[Any] | tuple[Any, ...],
    *,
    error: str | None = None,
    source: str | None = None,
) -> str:
    """Compose a validation message naming the source file and template path."""
    where = format_path(path)
    prefix = ""
    if source:
        prefix = f"{source}: "
    if where:
        prefix += f"{where}: "
    if error:
        prefix += f"{error}: "
    return prefix + message


class PropertyUnspecifiedError(PlugsimError):
    """A property was read that has no value and no default."""

    msg_fmt = "At least one of the following properties must be specified: %(props)s"


class InvalidTemplateAttribute(PlugsimError):
    """A template referred to an attribute that the resource does not have."""

    msg_fmt = "The Referenced Attribute (%(resource)s %(key)s) is incorrect."


class InvalidTemplateReference(PlugsimError):
    """A template referred to a resource that does not exist."""

    msg_fmt = 'The specified reference "%(resource)s" (in %(key)s) is incorrect.'


class EntityNotFound(PlugsimError):
    """A named engine entity (stack, resource, snapshot ...) does not exist."""

    msg_fmt = "The %(entity)s (%(name)s) could not be found."


class ResourceTypeNotFound(PlugsimError):
    """No plug-in is registered for a resource type."""

    msg_fmt = "The Resource Type (%(type_name)s) could not be found."


class ResourceTypeUnavailable(PlugsimError):
    """A plug-in is registered but disabled (e.g. a missing dependency)."""

    msg_fmt = "The Resource Type (%(type_name)s) is not available: %(reason)s"


class PluginLoadError(PlugsimError):
    """A plug-in module could not be loaded or registered."""


class PluginConflict(PluginLoadError):
    """Two plug-ins claim the same resource type name."""

    msg_fmt = "Resource type %(type_name)s is registered by both %(first)s and %(second)s"


class ConfigurationError(PlugsimError):
    """Engine or plug-in configuration is invalid."""


class NotSupported(PlugsimError):
    """A feature is not supported by plugsim."""

    msg_fmt = "%(feature)s is not supported."


# --- resource actions ------------------------------------------------------


def _text_of(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a plug-in exception whose __str__ fails
        return "<message could not be rendered>"


class ResourceFailure(PlugsimError):
    """A resource action failed; wraps the underlying exception."""

    def __init__(
        self,
        exception_or_error: BaseException | str,
        resource: Any = None,
        action: str | None = None,
    ) -> None:
        self.resource = resource
        self.action = action
        #: The exception that made the action fail, or None (a refusal carries only a message).
        self.exc: BaseException | None
        if isinstance(exception_or_error, BaseException):
            self.exc = exception_or_error
            self.error = type(exception_or_error).__name__
            message = f"{self.error}: {_text_of(exception_or_error)}"
        else:
            self.exc = None
            self.error = ""
            message = str(exception_or_error)
        prefix = ""
        if resource is not None and action is not None:
            prefix = f"{getattr(resource, 'name', resource)}.{action}: "
        elif action is not None:
            prefix = f"{action}: "
        super().__init__(prefix + message)


class PluginAborted(PlugsimError):
    """A plug-in call ended abnormally: it exited, was interrupted or did not return in time.

    Raised in place of ``SystemExit``/``KeyboardInterrupt``/``GeneratorExit``
    from a plug-in, of an exception that cannot be rendered, and of the
    engine's wall-clock watchdog stopping a handler; the message names the
    plug-in and the method.
    """


class ResourceInError(PlugsimError):
    """The physical resource went into an error state (retryable for create)."""

    msg_fmt = 'Went to status %(resource_status)s due to "%(status_reason)s"'

    def __init__(
        self, status_reason: str = "Unknown", resource_status: str = "ERROR", **kwargs: Any
    ) -> None:
        super().__init__(
            None, status_reason=status_reason, resource_status=resource_status, **kwargs
        )


class ResourceUnknownStatus(PlugsimError):
    """The physical resource reported a status the plug-in does not know."""

    msg_fmt = '%(result)s - Unknown status %(resource_status)s due to "%(status_reason)s"'

    def __init__(
        self,
        result: str = "Resource failed",
        status_reason: str = "Unknown",
        resource_status: str = "UNKNOWN",
    ) -> None:
        super().__init__(
            None, result=result, status_reason=status_reason, resource_status=resource_status
        )


class UpdateReplace(PlugsimError):
    """Raised by ``handle_update`` to ask the engine to replace the resource."""

    def __init__(self, resource_name: str = "Unknown") -> None:
        super().__init__(f"The Resource {resource_name} requires replacement.")
        self.resource_name = resource_name


class PollDelay(Exception):  # noqa: N818 - Heat's name, a request, not an error
    """Raised by ``check_<action>_complete`` to skip polls: not done yet, and do not ask again
    until the resource has become due for polling *period* times (1 is returning False).

    Heat's ``heat.engine.resource.PollDelay``; plugsim's engine spends the skipped poll
    intervals on the virtual clock.
    """

    def __init__(self, period: int) -> None:
        if not isinstance(period, int) or isinstance(period, bool) or period < 1:
            raise ValueError(f"PollDelay needs a period of at least 1, not {period!r}")
        super().__init__(f"poll again after {period} poll intervals")
        self.period = period


class UpdateInProgress(PlugsimError):
    """An update was requested while another one is running."""

    msg_fmt = "The resource %(resource_name)s is already being updated."


class NotSupportedAction(PlugsimError):
    """An action was requested that the resource does not support."""


class StackExists(PlugsimError):
    """A stack of that name already exists."""


class ActionInProgress(PlugsimError):
    """A stack action was requested while another is in progress."""

    msg_fmt = "Stack %(stack_name)s already has an action (%(action)s) in progress."


class StackActionTimeout(PlugsimError):
    """A stack action ran past its timeout."""


class ActionCancelled(PlugsimError):
    """An in-progress action was cancelled."""


# --- client errors (what fake clouds raise, what client plug-ins classify) ---


class ClientError(PlugsimError):
    """Base class of errors raised by cloud clients.

    ``code`` is the HTTP-like status code; ``body`` the provider's error body.
    """

    code = 500

    def __init__(
        self,
        message: str | None = None,
        *,
        code: int | None = None,
        body: Any = None,
        **kwargs: Any,
    ) -> None:
        if code is not None:
            self.code = code
        self.body = body
        super().__init__(message or type(self).__name__, **kwargs)


class BadRequest(ClientError):
    """The request was malformed (HTTP 400)."""

    code = 400


class Unauthorized(ClientError):
    """Missing or wrong credentials (HTTP 401)."""

    code = 401


class NotFound(ClientError):
    """The addressed entity does not exist (HTTP 404)."""

    code = 404


class Conflict(ClientError):
    """The entity is in a state that conflicts with the request (HTTP 409)."""

    code = 409


class OverLimit(ClientError):
    """A quota or rate limit was exceeded (HTTP 413/429).

    ``retry_after`` is the number of seconds the client should wait, if known.
    """

    code = 413

    def __init__(
        self, message: str | None = None, *, retry_after: float | None = None, **kwargs: Any
    ) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kwargs)


class ServiceUnavailable(ClientError):
    """The service failed or is unavailable (HTTP 5xx)."""

    code = 503


class ClientTimeout(ClientError):
    """The request did not complete in time."""

    code = 504
