"""An example client plug-in: teaching plugsim a third-party client's errors.

The guide's section on client plug-ins shows this file; the project's tests
drive it.
"""

from __future__ import annotations

from typing import Any

from sdk.clients import ClientPlugin


# [errors]
class VendorError(Exception):
    """What the vendor's SDK raises: one class, the kind of failure in ``reason``."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


class VendorClientPlugin(ClientPlugin):
    """Classify VendorError by its ``reason`` rather than by an HTTP status."""

    def is_not_found(self, ex: BaseException) -> bool:
        """A missing thing is ``reason='missing'``."""
        return _reason(ex) == "missing" or super().is_not_found(ex)

    def is_conflict(self, ex: BaseException) -> bool:
        """A busy thing is ``reason='busy'``; the resource retries those."""
        return _reason(ex) == "busy" or super().is_conflict(ex)

    def is_over_limit(self, ex: BaseException) -> bool:
        """A quota problem is ``reason='quota'``; the resource retries those too."""
        return _reason(ex) == "quota" or super().is_over_limit(ex)


def _reason(ex: BaseException) -> Any:
    return ex.reason if isinstance(ex, VendorError) else None


# [/errors]
