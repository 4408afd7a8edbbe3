"""Heat's errors on the Orchestration API: the fault document and the status of each error.

Heat's fault middleware answers ``{"code", "title", "explanation", "error":
{"type", "message", "traceback"}}``, the status chosen by the error's type
(a missing stack 404, a stack busy with an action 409, a template that does
not validate 400 ...). plugsim's engine errors map to the same types here.
"""

from __future__ import annotations

from typing import Any

from sdk import exception

#: status, title and explanation of each error status Heat answers with (webob's phrases)
_STATUS = {
    400: (
        "Bad Request",
        "The server could not comply with the request since it is either "
        "malformed or otherwise incorrect.",
    ),
    403: ("Forbidden", "Access was denied to this resource."),
    404: ("Not Found", "The resource could not be found."),
    405: ("Method Not Allowed", "The method is not allowed for this resource."),
    409: ("Conflict", "There was a conflict when trying to complete your request."),
    413: ("Request Entity Too Large", "The request is larger than the server can take."),
    500: (
        "Internal Server Error",
        "The server has either erred or is incapable of performing the requested operation.",
    ),
}

#: plugsim's error classes -> (Heat's error type, status)
_TYPES: dict[type[BaseException], tuple[str, int]] = {
    exception.EntityNotFound: ("EntityNotFound", 404),
    exception.StackExists: ("StackExists", 409),
    exception.ActionInProgress: ("ActionInProgress", 409),
    exception.StackValidationFailed: ("StackValidationFailed", 400),
    exception.InvalidTemplateReference: ("InvalidTemplateReference", 400),
    exception.InvalidSchemaError: ("InvalidSchemaError", 400),
    exception.PropertyUnspecifiedError: ("PropertyUnspecifiedError", 400),
    exception.ResourceTypeNotFound: ("StackValidationFailed", 400),
    exception.ResourceTypeUnavailable: ("ResourceTypeUnavailable", 400),
    exception.NotSupportedAction: ("NotSupported", 400),
    exception.NotSupported: ("NotSupported", 400),
    exception.ConfigurationError: ("Invalid", 400),
}


class HeatError(Exception):
    """An error a route raises in Heat's terms: status, error type, message."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


def not_found(entity: str, name: str) -> HeatError:
    """Heat's 404 for an entity (``The Stack (x) could not be found.``)."""
    return HeatError(404, "EntityNotFound", f"The {entity} ({name}) could not be found.")


def fault(status: int, kind: str, message: str) -> dict[str, Any]:
    """Heat's fault document."""
    title, explanation = _STATUS.get(status, _STATUS[500] if status >= 500 else _STATUS[400])
    return {
        "code": status,
        "title": title,
        "explanation": explanation,
        "error": {"type": kind, "message": message, "traceback": None},
    }


def classify(ex: BaseException) -> tuple[int, str]:
    """The status and Heat error type of an engine error."""
    for cls in type(ex).__mro__:
        if cls in _TYPES:
            kind, status = _TYPES[cls]
            return status, kind
    if isinstance(ex, exception.ClientError) and isinstance(ex.code, int):
        return ex.code, type(ex).__name__
    return 400, type(ex).__name__


def wire_text(ex: BaseException) -> str:
    """What the Orchestration API says for an engine error: Heat's own words when the error
    carries them (``wire_message``: no template path where Heat gives none), else its text."""
    return str(getattr(ex, "wire_message", None) or ex)
