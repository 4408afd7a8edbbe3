"""Client plug-ins: how a resource reaches a cloud service and classifies its errors.

A client plug-in wraps one service client (``'compute'``, ``'nova'`` ...) and
answers the questions Heat plug-ins ask about exceptions. The default
classification understands the :class:`sdk.exception.ClientError` family that
the fake clouds raise, plus anything carrying an HTTP-like ``code`` /
``status_code`` attribute, so a third-party client usually needs no subclass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sdk import exception


def _status_code(ex: BaseException) -> int | None:
    for attr in ("code", "status_code", "http_status"):
        value = getattr(ex, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(ex, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


_NONE: dict[str, Any] = {}


class ClientPlugin:
    """Wraps one service client and classifies the errors it raises."""

    #: Exceptions treated as not-found besides HTTP 404.
    not_found_exceptions: tuple[type[BaseException], ...] = (exception.NotFound,)
    #: Exceptions treated as conflicts besides HTTP 409.
    conflict_exceptions: tuple[type[BaseException], ...] = (exception.Conflict,)
    #: Exceptions treated as over-limit besides HTTP 413/429.
    over_limit_exceptions: tuple[type[BaseException], ...] = (exception.OverLimit,)

    def __init__(
        self, name: str, client: Any = None, factory: Callable[[], Any] | None = None
    ) -> None:
        self.name = name
        self._client = client
        self._factory = factory

    def client(self) -> Any:
        """Return the service client, creating it on first use.

        A client whose ``credentials_revoked`` is true (its cloud rotated the credential it
        authenticated with) is made again: the plug-in re-authenticates, as a session does when its
        token is no longer accepted. A client given without a factory cannot be made again.
        """
        client = self._client
        # (read from the instance's __dict__: a client whose __getattr__ builds methods, such as the
        # neutron-like one, would raise and catch AttributeError on every call)
        if client is not None and getattr(client, "__dict__", _NONE).get("credentials_revoked"):
            if self._factory is not None:
                self._client = None
        if self._client is None:
            if self._factory is None:
                raise exception.ConfigurationError(
                    f"No client is configured for service '{self.name}'"
                )
            self._client = self._factory()
        return self._client

    def is_not_found(self, ex: BaseException) -> bool:
        """Return True when *ex* says the addressed entity does not exist."""
        return isinstance(ex, self.not_found_exceptions) or _status_code(ex) == 404

    def is_conflict(self, ex: BaseException) -> bool:
        """Return True when *ex* is a conflict with the entity's current state."""
        return isinstance(ex, self.conflict_exceptions) or _status_code(ex) == 409

    def is_over_limit(self, ex: BaseException) -> bool:
        """Return True when *ex* reports an exceeded quota or rate limit."""
        return isinstance(ex, self.over_limit_exceptions) or _status_code(ex) in (413, 429)

    def is_client_exception(self, ex: BaseException) -> bool:
        """Return True when *ex* came from the service (as opposed to a bug)."""
        return isinstance(ex, exception.ClientError) or _status_code(ex) is not None

    def ignore_not_found(self, ex: BaseException) -> None:
        """Swallow *ex* if it is a not-found error, re-raise it otherwise."""
        if not self.is_not_found(ex):
            raise ex

    def ignore_conflict_and_not_found(self, ex: BaseException) -> None:
        """Swallow not-found and conflict errors, re-raise anything else."""
        if not (self.is_not_found(ex) or self.is_conflict(ex)):
            raise ex
