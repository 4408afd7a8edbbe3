"""Support status of resource types, properties and attributes.

A :class:`SupportStatus` says whether a piece of a plug-in's API is supported,
deprecated, unsupported or hidden, since which version, and what it was
before (``previous_status``), so that documentation and lint can show the
whole history of a name.
"""

from __future__ import annotations

from typing import Any

from sdk import exception

UNKNOWN = "UNKNOWN"
SUPPORTED = "SUPPORTED"
DEPRECATED = "DEPRECATED"
UNSUPPORTED = "UNSUPPORTED"
HIDDEN = "HIDDEN"

#: Every valid support status, in order of decreasing support.
SUPPORT_STATUSES: tuple[str, ...] = (UNKNOWN, SUPPORTED, DEPRECATED, UNSUPPORTED, HIDDEN)


def is_valid_status(status: object) -> bool:
    """Return True when *status* is one of :data:`SUPPORT_STATUSES`."""
    return isinstance(status, str) and status in SUPPORT_STATUSES


def _class_name(cls: Any) -> str | None:
    if cls is None:
        return None
    module = getattr(cls, "__module__", None)
    name = getattr(cls, "__qualname__", None) or getattr(cls, "__name__", None) or repr(cls)
    return f"{module}.{name}" if module else name


class SupportStatus:
    """The support status of a resource type, property or attribute.

    ``status`` is one of :data:`SUPPORT_STATUSES`; ``version`` the release
    (a string such as ``'1.2.0'``) since which it holds; ``message`` a note
    for users (for example what to use instead); ``previous_status`` the
    status this one replaced, itself a :class:`SupportStatus`;
    ``substitute_class`` the resource class that replaces a deprecated one.
    """

    def __init__(
        self,
        status: str = SUPPORTED,
        version: str | None = None,
        message: str | None = None,
        previous_status: SupportStatus | None = None,
        substitute_class: type | None = None,
    ) -> None:
        if not is_valid_status(status):
            valid = ", ".join(SUPPORT_STATUSES)
            raise exception.InvalidSchemaError(
                f"Invalid support status {status!r}; valid statuses are: {valid}"
            )
        if version is not None and not isinstance(version, str):
            raise exception.InvalidSchemaError(
                f"Support status version must be a string such as '1.0.0', got {version!r}"
            )
        if message is not None and not isinstance(message, str):
            raise exception.InvalidSchemaError(
                f"Support status message must be a string, got {message!r}"
            )
        if previous_status is not None and not isinstance(previous_status, SupportStatus):
            raise exception.InvalidSchemaError(
                "previous_status must be a SupportStatus, got "
                f"{type(previous_status).__name__} {previous_status!r}"
            )
        self.status = status
        self.version = version
        self.message = message
        self.previous_status = previous_status
        self.substitute_class = substitute_class

    def chain(self) -> list[SupportStatus]:
        """Return this status and its predecessors, newest first."""
        out: list[SupportStatus] = []
        seen: set[int] = set()
        current: SupportStatus | None = self
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            out.append(current)
            current = current.previous_status
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return a plain, serialisable dict (the previous status nested)."""
        return {
            "status": self.status,
            "version": self.version,
            "message": self.message,
            "previous_status": (
                self.previous_status.to_dict() if self.previous_status is not None else None
            ),
            "substitute_class": _class_name(self.substitute_class),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SupportStatus):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.status, self.version, self.message))

    def __repr__(self) -> str:
        parts = [repr(self.status)]
        if self.version is not None:
            parts.append(f"version={self.version!r}")
        if self.message is not None:
            parts.append(f"message={self.message!r}")
        if self.previous_status is not None:
            parts.append(f"previous_status={self.previous_status!r}")
        return f"SupportStatus({', '.join(parts)})"
