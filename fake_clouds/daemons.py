"""The daemons of a fake cloud service (``os-services`` of cinder and nova), a mixin.

A service lists its daemons in ``daemon_hosts`` (binary, host). All start
``enabled`` and ``up``; an operator may disable one (with a reason) and enable
it again, and the service reads :meth:`DaemonOperations.daemon_enabled` where
the real one would notice: while ``cinder-volume`` is disabled a new volume
ends in ``error`` (no backend to place it on), while ``cinder-backup`` is
disabled a backup does, and while ``nova-compute`` is disabled a new server
ends in ``ERROR`` (no valid host), as the schedulers leave them.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, ClassVar

from fake_clouds.core.service import operation
from sdk import exception

#: (binary, host) of the block storage daemons, in cinder's listing order.
DAEMONS = (
    ("cinder-scheduler", "plugsim"),
    ("cinder-volume", "plugsim@lvmdriver-1"),
    ("cinder-backup", "plugsim"),
)
#: (binary, host) of the compute daemons, in nova's listing order.
NOVA_DAEMONS = (
    ("nova-scheduler", "plugsim"),
    ("nova-conductor", "plugsim"),
    ("nova-compute", "plugsim"),
)


def stable_uuid(label: str) -> str:
    """A UUID-shaped id derived from *label* (no random stream is drawn)."""
    digest = hashlib.sha256(label.encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"


def _bad(message: str) -> exception.BadRequest:
    return exception.BadRequest(message, body={"badRequest": {"code": 400, "message": message}})


class DaemonOperations:
    """Listing, enabling and disabling a service's daemons."""

    #: (binary, host) of the service's daemons
    daemon_hosts: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: binary -> {"status": enabled|disabled, "disabled_reason", "updated_at"}
    daemons: dict[str, dict[str, Any]]

    def __init__(self, world: Any) -> None:
        super().__init__(world)  # type: ignore[call-arg]
        self._init_daemons()

    def _init_daemons(self) -> None:
        self.daemons = {
            binary: {"status": "enabled", "disabled_reason": None, "updated_at": 0.0}
            for binary, _host in self.daemon_hosts
        }

    def to_state(self) -> dict[str, Any]:
        """Return the service's state with its daemons."""
        state = super().to_state()  # type: ignore[misc]
        state["daemons"] = copy.deepcopy(self.daemons)
        return state  # type: ignore[no-any-return]

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the service's state (its daemons too) with *state*."""
        super().load_state(state)  # type: ignore[misc]
        self._init_daemons()
        self.daemons.update(copy.deepcopy(state.get("daemons") or {}))

    def daemon_enabled(self, binary: str) -> bool:
        """Whether the daemon *binary* is enabled (no call: no latency, no trace)."""
        return self.daemons.get(binary, {}).get("status", "enabled") == "enabled"

    @operation("services.list", kind=None)
    def list_daemons(self) -> list[dict[str, Any]]:
        """Return every daemon with its host, zone, status and state."""
        return [
            {
                "binary": binary,
                "host": host,
                "zone": "nova"
                if binary not in ("nova-scheduler", "nova-conductor")
                else "internal",
                "state": "up",
                **self.daemons.get(binary, {"status": "enabled", "disabled_reason": None}),
            }
            for binary, host in self.daemon_hosts
        ]

    @operation("services.update", kind=None)
    def set_daemon(
        self, binary: str, host: str, enabled: bool, reason: str | None = None
    ) -> dict[str, Any]:
        """Enable or disable a daemon (400 for an unknown binary/host pair)."""
        if (binary, host) not in self.daemon_hosts:
            raise _bad(f"Unknown service: binary {binary!r} on host {host!r}")
        if reason is not None and (not isinstance(reason, str) or len(reason) > 255):
            raise _bad("Invalid disabled_reason: a string of at most 255 characters")
        self.daemons[binary] = {
            "status": "enabled" if enabled else "disabled",
            "disabled_reason": None if enabled else reason,
            "updated_at": self.world.now(),  # type: ignore[attr-defined]
        }
        return next(d for d in self.list_daemons() if d["binary"] == binary)
