"""What a route handler answers: a :class:`Reply`, or an :class:`ApiError` it raises.

Kept apart from :mod:`fake_clouds.openstack.base` so that the policy layer
(:mod:`fake_clouds.openstack.policy`), which ``base`` calls, can build replies too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Reply:
    """A handler's answer: status, JSON body (or raw bytes) and headers."""

    status: int
    body: Any = None
    headers: dict[str, str] | None = None
    raw: bytes | None = None


class ApiError(Exception):
    """An error a handler raises with a ready status and message (shaped by the service).

    ``unserved=True`` marks a route the fake does not implement: it is counted.
    """

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra
