"""The block storage service's own daemons (cinder's ``os-services``), a mixin of
:class:`fake_clouds.block_storage.BlockStorageService`.

Three daemons run: ``cinder-scheduler`` on host ``plugsim``, ``cinder-volume``
on ``plugsim@lvmdriver-1`` (the one backend) and ``cinder-backup`` on
``plugsim``, all ``enabled`` and ``up``. An operator may disable one (with a
reason) and enable it again. While ``cinder-volume`` is disabled there is no
backend to place a volume on: a new volume ends in ``error``, as cinder's
scheduler leaves it; while ``cinder-backup`` is disabled a backup ends in
``error``.
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.service import operation
from sdk import exception

#: (binary, host) of each daemon, in cinder's listing order.
DAEMONS = (
    ("cinder-scheduler", "plugsim"),
    ("cinder-volume", "plugsim@lvmdriver-1"),
    ("cinder-backup", "plugsim"),
)


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


class VolumeHostOperations:
    """Listing, enabling and disabling the block storage daemons."""

    #: binary -> {"status": enabled|disabled, "disabled_reason", "updated_at"}
    daemons: dict[str, dict[str, Any]]

    def _init_daemons(self: Any) -> None:
        self.daemons = {
            binary: {"status": "enabled", "disabled_reason": None, "updated_at": 0.0}
            for binary, _host in DAEMONS
        }

    def daemon_enabled(self: Any, binary: str) -> bool:
        """Whether the daemon *binary* is enabled (no call: no latency, no trace)."""
        return self.daemons.get(binary, {}).get("status", "enabled") == "enabled"

    @operation("services.list", kind=None)
    def list_daemons(self: Any) -> list[dict[str, Any]]:
        """Return every daemon with its host, zone, status and state."""
        return [
            {
                "binary": binary,
                "host": host,
                "zone": "nova",
                "state": "up",
                **self.daemons.get(binary, {"status": "enabled", "disabled_reason": None}),
            }
            for binary, host in DAEMONS
        ]

    @operation("services.update", kind=None)
    def set_daemon(
        self: Any, binary: str, host: str, enabled: bool, reason: str | None = None
    ) -> dict[str, Any]:
        """Enable or disable a daemon (400 for an unknown binary/host pair)."""
        if (binary, host) not in DAEMONS:
            raise _bad(f"Unknown service: binary {binary!r} on host {host!r}")
        if reason is not None and (not isinstance(reason, str) or len(reason) > 255):
            raise _bad("Invalid disabled_reason: a string of at most 255 characters")
        self.daemons[binary] = {
            "status": "enabled" if enabled else "disabled",
            "disabled_reason": None if enabled else reason,
            "updated_at": self._now(),
        }
        return next(d for d in self.list_daemons() if d["binary"] == binary)
